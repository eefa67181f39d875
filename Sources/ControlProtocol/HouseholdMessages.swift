import FoundationEssentials

/// What screentimed and its household link (`screentime-household link`, docs/household.md) say to
/// each other: one JSON object a line over a socket pair, the link's standard input. The link
/// speaks PostgreSQL for the daemon, so that the daemon itself loads no network stack; it decides
/// nothing, and answers the requests in the order they came.
public enum HouseholdMessage {
    /// The first line the daemon sends: where the family database is, and the role's password
    /// (read by the daemon from the credentials file, which the link may not be able to read).
    public struct Hello: Codable, Sendable, Equatable {
        public var database: String
        public var password: String
        public var caFile: String?
        public init(database: String, password: String, caFile: String?) { self.database = database; self.password = password; self.caFile = caFile }

        /// The password a credentials file holds: its first line (nil: the file cannot be read).
        public static func password(inFile path: String) -> String? {
            guard let data = FileManager.default.contents(atPath: path) else { return nil }
            return String(String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
        }
    }

    /// One entry for the family ledger; `origin` names it on its machine, so that sending it again
    /// writes it once.
    public struct Entry: Codable, Sendable, Equatable {
        public var origin: String
        public var kind: String
        public var points: Int64
        public var atMicros: Int64
        public var note: String
        public init(origin: String, kind: String, points: Int64, atMicros: Int64, note: String) {
            self.origin = origin; self.kind = kind; self.points = points; self.atMicros = atMicros; self.note = note
        }
    }

    public struct Request: Codable, Sendable, Equatable {
        public enum Op: String, Codable, Sendable {
            /// `entries` appended as they are (this machine's ledger, sent after the fact).
            case send
            /// `entries[0]` is a spending: appended only if the family balance stays at 0 or more.
            case pay
            /// The family ledger's entries after `after` (at most `limit`), and the balance.
            case read
            /// `lease.want` of game time (or with `lease.screen`, screen time) on `lease.day`, within the limits (docs/household.md).
            case lease
            /// The child's whole family ledger, its chain and balances checked (`screentimed check --household`).
            case check
        }
        /// A lease's terms: microseconds, and day keys (days since 1970-01-01 in the policy's zone).
        public struct Lease: Codable, Sendable, Equatable {
            public var day: Int64
            public var weekStart: Int64
            public var want: Int64
            public var dailyLimit: Int64?
            public var weeklyLimit: Int64?
            /// Screen time, not game time (absent: game time).
            public var screen: Bool?
            public init(day: Int64, weekStart: Int64, want: Int64, dailyLimit: Int64?, weeklyLimit: Int64?, screen: Bool? = nil) {
                self.day = day; self.weekStart = weekStart; self.want = want; self.dailyLimit = dailyLimit; self.weeklyLimit = weeklyLimit
                self.screen = screen
            }
        }
        public var id: Int64
        public var op: Op
        public var child: String
        public var machine: String
        public var entries: [Entry]?
        public var after: Int64?
        public var limit: Int?
        public var lease: Lease?
        /// read: this computer's game time of its limited apps and groups today, shared with the family.
        public var appTime: AppTime?
        public struct AppTime: Codable, Sendable, Equatable {
            public var day: Int64
            public var weekStart: Int64
            public var used: [Used]
            public struct Used: Codable, Sendable, Equatable {
                public var key: String
                public var today: Int64
                public init(key: String, today: Int64) { self.key = key; self.today = today }
            }
            public init(day: Int64, weekStart: Int64, used: [Used]) { self.day = day; self.weekStart = weekStart; self.used = used }
        }
        public init(id: Int64, op: Op, child: String, machine: String, entries: [Entry]? = nil, after: Int64? = nil, limit: Int? = nil, lease: Lease? = nil,
                    appTime: AppTime? = nil) {
            self.id = id; self.op = op; self.child = child; self.machine = machine; self.entries = entries; self.after = after; self.limit = limit
            self.lease = lease; self.appTime = appTime
        }
    }

    /// An entry as the family ledger holds it.
    public struct Row: Codable, Sendable, Equatable {
        public var seq: Int64
        public var machine: String
        public var origin: String
        public var kind: String
        public var points: Int64
        public var note: String
        public init(seq: Int64, machine: String, origin: String, kind: String, points: Int64, note: String) {
            self.seq = seq; self.machine = machine; self.origin = origin; self.kind = kind; self.points = points; self.note = note
        }
    }

    public struct Reply: Codable, Sendable, Equatable {
        /// The request answered.
        public var id: Int64
        /// Nil when the database answered; else why it could not (out of reach, refused the login, …).
        public var error: String?
        /// pay: "appended", "duplicate" (paid before, under this origin) or "refused" (not enough points).
        public var outcome: String?
        public var seq: Int64?
        /// pay and check: the family balance now.
        public var balance: Int64?
        /// read: the entries after `after`.
        public var rows: [Row]?
        /// lease: what was granted (µs), every machine's leases of the day and week after it, and
        /// the limit it reached ("daily_limit", "weekly_limit"), if any.
        public var granted: Int64?
        public var dayTotal: Int64?
        public var weekTotal: Int64?
        public var reached: String?
        /// check: the first problem of the chain or the balances (nil: whole).
        public var problem: String?
        /// read with `app_time`: what the other computers played of each app and group, today and this week (µs).
        public var others: [Others]?
        public struct Others: Codable, Sendable, Equatable {
            public var key: String
            public var today: Int64
            public var week: Int64
            public init(key: String, today: Int64, week: Int64) { self.key = key; self.today = today; self.week = week }
        }
        public init(id: Int64, error: String? = nil, outcome: String? = nil, seq: Int64? = nil, balance: Int64? = nil, rows: [Row]? = nil) {
            self.id = id; self.error = error; self.outcome = outcome; self.seq = seq; self.balance = balance; self.rows = rows
        }
    }
}
