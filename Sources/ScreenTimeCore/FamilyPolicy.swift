/// The family half of the policy (`spec/family.md`): what a child may ask for, and the chores
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
