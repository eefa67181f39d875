/// The family half of the policy (`docs/spec/family.md`): what a child may ask for, and the chores
/// that earn points.
extension Policy {
    /// `[requests]`: a child asking for more game time.
    public struct Requests: Sendable, Equatable {
        /// A request nobody decided is gone after this.
        public var expireAfter: Microseconds
        /// More requests in one day are refused (`requests_per_day`).
        public var maxPerDay: Int

        public init(expireAfter: Microseconds = Seconds.of(minutes: 60), maxPerDay: Int = 5) {
            self.expireAfter = expireAfter
            self.maxPerDay = maxPerDay
        }
    }
}

/// Days of the week as a policy writes them; Monday first, as the policy's weeks are.
public enum Weekday: Int, Sendable, CaseIterable, Comparable, Codable {
    case mon, tue, wed, thu, fri, sat, sun

    public var name: String { ["mon", "tue", "wed", "thu", "fri", "sat", "sun"][rawValue] }
    public init?(name: String) {
        guard let k = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].firstIndex(of: name) else { return nil }
        self.init(rawValue: k)
    }
    public static func < (a: Weekday, b: Weekday) -> Bool { a.rawValue < b.rawValue }
}

/// One `[[chores]]` entry: something a child does at home, claims, and a parent approves.
public struct Chore: Sendable, Equatable {
    /// How often it may be claimed: once per day, per week (Monday to Sunday), once ever, or on
    /// the listed weekdays (once each).
    public enum Every: Sendable, Equatable {
        case day, week, once
        case weekdays([Weekday])

        public var words: String {
            switch self {
            case .day: return "every day"
            case .week: return "once a week"
            case .once: return "once"
            case .weekdays(let days): return "on " + days.map(\.name).joined(separator: ", ")
            }
        }
    }

    public var name: String
    public var points: Int64
    public var every: Every

    public init(name: String, points: Int64, every: Every) {
        self.name = name
        self.points = points
        self.every = every
    }
}

/// A calendar date as a day key: days since 1970-01-01 (the engine's `Day.key`).
public enum CalendarDate {
    /// "2026-12-21" → its day key; nil when it is not a real date.
    public static func key(of text: String) -> Int64? {
        let p = text.split(separator: "-", omittingEmptySubsequences: false)
        guard p.count == 3, p[0].count == 4, p[1].count == 2, p[2].count == 2,
              let y = Int64(p[0]), let m = Int64(p[1]), let d = Int64(p[2]), (1...12).contains(m), (1...31).contains(d) else { return nil }
        let key = RFC3339.daysFromCivil(year: y, month: m, day: d)
        let back = RFC3339.civilFromDays(key)
        return back == (y, m, d) ? key : nil      // 2027-02-30 is not a date
    }

    /// The day key of a year, month (1-12) and day of the month, as a calendar gives them.
    public static func key(year: Int, month: Int, day: Int) -> Int64 {
        RFC3339.daysFromCivil(year: Int64(year), month: Int64(month), day: Int64(day))
    }

    /// The day key's date, "2026-12-21".
    public static func text(of key: Int64) -> String {
        let (y, m, d) = RFC3339.civilFromDays(key)
        return RFC3339.pad(y, 4) + "-" + RFC3339.pad(m, 2) + "-" + RFC3339.pad(d, 2)
    }

    /// The weekday of a day key (1970-01-01 was a Thursday).
    public static func weekday(of key: Int64) -> Weekday {
        Weekday(rawValue: Int(((key + 3) % 7 + 7) % 7))!
    }
}

/// One `[[schedules]]` entry: on its weekdays and dates, its limits replace the `[rewards]` and
/// `[points]` ones for the day. The first entry that holds a day applies to it.
public struct Schedule: Sendable, Equatable {
    public var name: String
    public var days: [Weekday]
    /// Day keys, first and last day of each range (a single day is a range of one).
    public var dates: [ClosedRange<Int64>]
    /// What the schedule sets (nil: the `[rewards]` / `[points]` value holds that day).
    public var dailyLimit: Microseconds?
    public var allowedHours: [HourWindow]?
    public var dailyAllowance: Microseconds?
    public var dailyLearningCap: Microseconds?
    /// `screen_daily_limit`, `screen_allowed_hours`: the `[screen]` values for its days.
    public var screenDailyLimit: Microseconds?
    public var screenAllowedHours: [HourWindow]?

    public init(name: String, days: [Weekday] = [], dates: [ClosedRange<Int64>] = [], dailyLimit: Microseconds? = nil,
                allowedHours: [HourWindow]? = nil, dailyAllowance: Microseconds? = nil, dailyLearningCap: Microseconds? = nil,
                screenDailyLimit: Microseconds? = nil, screenAllowedHours: [HourWindow]? = nil) {
        self.screenDailyLimit = screenDailyLimit
        self.screenAllowedHours = screenAllowedHours
        self.name = name
        self.days = days
        self.dates = dates
        self.dailyLimit = dailyLimit
        self.allowedHours = allowedHours
        self.dailyAllowance = dailyAllowance
        self.dailyLearningCap = dailyLearningCap
    }

    public func holds(day key: Int64) -> Bool {
        days.contains(CalendarDate.weekday(of: key)) || dates.contains { $0.contains(key) }
    }
}

extension Policy {
    /// The limits of one calendar day: the `[rewards]` and `[points]` values, with those of the
    /// schedule in force that day (`schedule`: its name; nil when none holds the day).
    public struct DayRules: Sendable, Equatable {
        public var schedule: String?
        public var dailyLimit: Microseconds?
        public var allowedHours: [HourWindow]?
        public var dailyAllowance: Microseconds?
        public var dailyLearningCap: Microseconds
        /// Screen time: the day's limit and allowed hours (`[screen]`, or the schedule's).
        public var screenDailyLimit: Microseconds? = nil
        public var screenAllowedHours: [HourWindow]? = nil
    }

    /// The rules of the day with this key (days since 1970-01-01, in the policy's zone).
    public func rules(forDay key: Int64) -> DayRules {
        var r = DayRules(schedule: nil, dailyLimit: rewards.dailyLimit, allowedHours: rewards.allowedHours,
                         dailyAllowance: rewards.dailyAllowance, dailyLearningCap: points.dailyLearningCap,
                         screenDailyLimit: screen.dailyLimit, screenAllowedHours: screen.allowedHours)
        guard let s = schedules.first(where: { $0.holds(day: key) }) else { return r }
        r.schedule = s.name
        if let v = s.dailyLimit { r.dailyLimit = v }
        if let v = s.allowedHours { r.allowedHours = v }
        if let v = s.dailyAllowance { r.dailyAllowance = v }
        if let v = s.dailyLearningCap { r.dailyLearningCap = v }
        if let v = s.screenDailyLimit { r.screenDailyLimit = v }
        if let v = s.screenAllowedHours { r.screenAllowedHours = v }
        return r
    }
}

/// One `[[groups]]` entry: reward apps (those that name it) that share a daily and weekly limit.
public struct RewardGroup: Sendable, Equatable {
    public var name: String
    public var dailyLimit: Microseconds?
    public var weeklyLimit: Microseconds?

    public init(name: String, dailyLimit: Microseconds? = nil, weeklyLimit: Microseconds? = nil) {
        self.name = name
        self.dailyLimit = dailyLimit
        self.weeklyLimit = weeklyLimit
    }
}

extension AppEntry {
    /// It has a limit of its own or a group's.
    public var isLimited: Bool { dailyLimit != nil || weeklyLimit != nil || group != nil }
}

/// `[privacy]` (seed 000: no behavioural tracking): what the daemon keeps of what it sees.
public enum Privacy {
    /// The focused window as the log keeps it: with `keep_titles`, as it was; else without the
    /// title's text. What the policy needs of the title stays: the names of the entries whose
    /// `title` pattern it matched (`title_apps`), or a learning app's name when the title was
    /// just that name (a look-alike claim the engine judges).
    public static func redact(_ w: FocusedWindow, policy: Policy) -> FocusedWindow {
        guard !policy.keepTitles, let title = w.title else { return w }
        var out = w
        out.title = nil
        let matched = policy.apps.filter { $0.title?.matches(title) == true }.map(\.name)
        if !matched.isEmpty { out.titleApps = matched }
        if let named = policy.apps.first(where: { $0.category == .learning && $0.name.lowercased() == title.lowercased() }) {
            out.title = named.name
        }
        return out
    }
}
