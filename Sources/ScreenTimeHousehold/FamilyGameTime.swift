import Logging
import PostgresNIO

/// A child's game time in the family database, leased to machines (docs/household.md): each
/// takes a minute at a time, within the family's daily and weekly limits, so that the limits hold
/// over all the child's machines, and a machine cut off plays at most what it holds.
public struct FamilyGameTime: Sendable {
    public let client: PostgresClient
    public let logger: Logger

    public init(client: PostgresClient, logger: Logger) { self.client = client; self.logger = logger }

    public struct Grant: Sendable, Equatable {
        /// Granted now (µs): `want`, or what the limits leave of it.
        public var granted: Int64
        /// All machines' leases of the day, and of its week up to it, this one's included.
        public var dayTotal: Int64
        public var weekTotal: Int64
        /// "daily_limit" or "weekly_limit" when this grant reached it: nothing more today (this week).
        public var reached: String?
    }

    /// Takes up to `want` µs of game time (`screen`: of screen time) for `day` (a day key), as one transaction of the
    /// database's: the child's row is locked, so that machines asking at once are answered one at
    /// a time. The limits are the asking machine's policy's (nil: none). The lease is the login
    /// role's: the database takes the machine from who logged in.
    public func lease(child: String, day: Int64, weekStart: Int64, want: Int64, dailyLimit: Int64?, weeklyLimit: Int64?,
                      screen: Bool = false) async throws -> Grant {
        let rows = try await client.query(screen ? """
            SELECT granted, day_total, week_total, reached FROM screentime.take_screen_lease(\(child), \(day), \(weekStart), \(want), \(dailyLimit), \(weeklyLimit))
            """ : """
            SELECT granted, day_total, week_total, reached FROM screentime.take_lease(\(child), \(day), \(weekStart), \(want), \(dailyLimit), \(weeklyLimit))
            """, logger: logger)
        for try await (granted, dayTotal, weekTotal, reached) in rows.decode((Int64, Int64, Int64, String?).self) {
            return Grant(granted: granted, dayTotal: dayTotal, weekTotal: weekTotal, reached: reached)
        }
        throw FamilyLedger.Unanswered()
    }

    /// Records what this machine played of each limited app and group on `day` (µs, by key), and
    /// returns what the child's other machines played of each, that day and that week.
    public func shareAppTime(child: String, day: Int64, weekStart: Int64, used: [(key: String, today: Int64)]) async throws
        -> [(key: String, today: Int64, week: Int64)] {
        let rows = try await client.query("""
            SELECT app_scope, others_today, others_week FROM screentime.share_app_time(\(child), \(day), \(weekStart),
                \(used.map(\.key)), \(used.map(\.today)))
            """, logger: logger)
        var out: [(String, Int64, Int64)] = []
        for try await (scope, today, week) in rows.decode((String, Int64, Int64).self) { out.append((scope, today, week)) }
        return out
    }
}
