/// `[screen]` (docs/spec/screen.md): the computer as a whole — the child's active time in their
/// login sessions per day and week, and the hours they may be at it (bedtime).
extension Policy {
    public struct Screen: Sendable, Equatable {
        /// What happens at zero: the child's sessions are locked, or ended.
        public enum Action: String, Sendable, CaseIterable { case lock, logout }

        /// Active screen time per local day (nil: no daily screen limit).
        public var dailyLimit: Microseconds?
        /// Monday to Sunday (nil: none).
        public var weeklyLimit: Microseconds?
        /// No session outside these hours (nil: any hour).
        public var allowedHours: [HourWindow]?
        /// Focused, credited learning uses screen time too.
        public var learningCounts: Bool
        /// Warnings before zero, largest first (nil in TOML: `[enforcement] warn_before`).
        public var warnBefore: [Microseconds]
        public var action: Action
        /// After the warning at zero, before the action; and between relocks.
        public var grace: Microseconds
        /// With `action = lock`: locked again at most this many times after the child unlocks
        /// with no time left; the next unlock ends the session.
        public var relocks: Int
        /// The policy has a `[screen]` table (a replay's result then has `screen.days`).
        public var configured = false

        public init(dailyLimit: Microseconds? = nil, weeklyLimit: Microseconds? = nil, allowedHours: [HourWindow]? = nil,
                    learningCounts: Bool = false, warnBefore: [Microseconds] = [], action: Action = .lock,
                    grace: Microseconds = Screen.defaultGrace, relocks: Int = Screen.defaultRelocks) {
            self.dailyLimit = dailyLimit
            self.weeklyLimit = weeklyLimit
            self.allowedHours = allowedHours
            self.learningCounts = learningCounts
            self.warnBefore = warnBefore.sorted(by: >)
            self.action = action
            self.grace = grace
            self.relocks = relocks
        }

        public static let defaultGrace = Seconds.of(60)
        public static let defaultRelocks = 2

        /// Some limit or bedtime is set: sessions are enforced (else screen time is only counted).
        public var limits: Bool { dailyLimit != nil || weeklyLimit != nil || allowedHours != nil }
    }
}

extension Policy {
    /// Some screen limit or bedtime is set, in `[screen]` or in a schedule: the child's sessions are
    /// warned, locked and ended (else screen time is only counted).
    public var screenLimited: Bool {
        screen.limits || schedules.contains { $0.screenDailyLimit != nil || $0.screenAllowedHours != nil }
    }
}

extension Reason {
    /// A screen-time limit (warnings and session locks), not a game's.
    public var isScreen: Bool {
        switch self {
        case .screenDailyLimit, .screenWeeklyLimit, .screenLimit, .bedtime: true
        default: false
        }
    }
}
