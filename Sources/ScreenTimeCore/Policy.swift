import FoundationEssentials

/// A parent's rules, validated (`docs/spec/policy.md`). Built from TOML by `ScreenTimePolicy`; the
/// engine reads nothing else.
public struct Policy: Sendable {
    /// The zone of the policy's days, weeks and hours (`timezone`, else the system's).
    public var timeZone: Zone
    public var points: Points
    public var rewards: Rewards
    public var validation: Validation
    public var enforcement: Enforcement
    public var parents: Parents
    public var apps: [AppEntry]
    public var requests: Requests
    public var chores: [Chore]
    /// `[[schedules]]`, in the order written (the first that holds a day applies).
    public var schedules: [Schedule]
    /// `[[groups]]`: reward apps that share a limit.
    public var groups: [RewardGroup]
    /// `[privacy] keep_titles`: window titles are kept in the log as they were.
    public var keepTitles: Bool
    /// `[household]`: the family database this child's ledger is shared through (issue #20;
    /// docs/household.md). The engine never reads it: the daemon's household link does.
    public var household: Household? = nil
    /// `[screen]`: screen time and bedtime for the computer as a whole (docs/spec/screen.md).
    public var screen = Screen()
    /// With `unknown_apps = "reward"`: the entry (last of `apps`) that a focused program no entry
    /// names counts as.
    public private(set) var unknownProgramEntry: Int? = nil
    public static let unknownProgramName = "an unknown program"
    /// `[browsers]` (docs/spec/sites.md): nil when the policy follows no sites (no `[[sites]]`,
    /// no `[browsers]`); a browser is then a program like any other.
    public private(set) var browsers: Browsers? = nil
    /// With `unnamed_sites = "reward"` or `"blocked"`: the entry a host no `[[sites]]` entry names counts as.
    public private(set) var unnamedSiteEntry: Int? = nil
    /// The entry a focused browser without a report counts as (`unreported`), when sites are followed.
    public private(set) var unreportedEntry: Int? = nil
    public static let unnamedSiteName = "an unnamed website"
    public static let unreportedName = "a browser without screentime's extension"

    public init(timeZone: Zone, points: Points, rewards: Rewards, validation: Validation,
                enforcement: Enforcement, parents: Parents, apps: [AppEntry],
                requests: Requests = Requests(), chores: [Chore] = [], schedules: [Schedule] = [], groups: [RewardGroup] = [],
                keepTitles: Bool = false) {
        self.timeZone = timeZone
        self.keepTitles = keepTitles
        self.groups = groups
        self.requests = requests
        self.chores = chores
        self.schedules = schedules
        self.points = points
        self.rewards = rewards
        self.validation = validation
        self.enforcement = enforcement
        self.parents = parents
        self.apps = apps
        if rewards.unknownApps == .reward {
            self.apps.append(AppEntry(name: Policy.unknownProgramName, category: .reward))
            unknownProgramEntry = self.apps.count - 1
        }
    }

    /// What a program that no entry names counts as, while it has the focus.
    public enum UnknownApps: String, Sendable, CaseIterable { case neutral, reward }

    /// `[browsers]`: which programs are browsers whose extension reports sites, and what a host no
    /// entry names and a browser without a report count as (docs/spec/sites.md).
    public struct Browsers: Sendable {
        public static let defaultExe = ["/usr/lib/chromium/chromium", "/usr/lib/firefox-esr/firefox-esr"]
        public enum UnnamedSites: String, Sendable, CaseIterable { case neutral, reward, blocked }
        public enum Unreported: String, Sendable, CaseIterable { case reward, blocked }
        public var exe: [ExePattern]
        public var unnamedSites: UnnamedSites
        public var unreported: Unreported
        /// How long a browser may run before its first report, before it counts as `unreported`.
        public var reportWithin: Microseconds
        public init(exe: [ExePattern] = Browsers.defaultExe.map(ExePattern.init), unnamedSites: UnnamedSites = .neutral,
                    unreported: Unreported = .reward, reportWithin: Microseconds = 10 * Seconds.micro) {
            self.exe = exe
            self.unnamedSites = unnamedSites
            self.unreported = unreported
            self.reportWithin = reportWithin
        }
    }

    /// Follows sites: `sites` (entries with `domains`) join the apps, so that learning, game time,
    /// limits and groups hold for them as for apps; `browsers` says the rest.
    public mutating func follow(sites: [AppEntry], browsers: Browsers) {
        apps += sites
        self.browsers = browsers
        switch browsers.unnamedSites {
        case .neutral: break
        case .reward, .blocked:
            apps.append(AppEntry(name: Policy.unnamedSiteName, category: browsers.unnamedSites == .reward ? .reward : .blocked, isSite: true))
            unnamedSiteEntry = apps.count - 1
        }
        apps.append(AppEntry(name: Policy.unreportedName, category: browsers.unreported == .reward ? .reward : .blocked))
        unreportedEntry = apps.count - 1
    }

    public struct Points: Sendable, Equatable {
        public var learningPerHour: Int64
        public var perRewardMinute: Int64
        public var dailyLearningCap: Microseconds
        /// Credited learning in a day that meets the day's goal (nil: no goal).
        public var dailyGoal: Microseconds?
        /// Every this many days in a row with the goal met pay `streakBonusPoints`.
        public var streakBonusDays: Int?
        public var streakBonusPoints: Int64?
        public init(learningPerHour: Int64, perRewardMinute: Int64, dailyLearningCap: Microseconds, dailyGoal: Microseconds? = nil,
                    streakBonusDays: Int? = nil, streakBonusPoints: Int64? = nil) {
            self.learningPerHour = learningPerHour
            self.perRewardMinute = perRewardMinute
            self.dailyLearningCap = dailyLearningCap
            self.dailyGoal = dailyGoal
            self.streakBonusDays = streakBonusDays
            self.streakBonusPoints = streakBonusPoints
        }
    }

    public enum CountsWhile: String, Sendable { case running, focused }

    public struct Rewards: Sendable, Equatable {
        public var dailyLimit: Microseconds?
        public var weeklyLimit: Microseconds?
        /// Nil: any hour. Sorted, not overlapping.
        public var allowedHours: [HourWindow]?
        public var redemptionExpiresAfter: Microseconds?
        public var countsWhile: CountsWhile
        public var unknownApps: UnknownApps
        /// Free game time each day, used before redeemed or gifted minutes; gone at the day's end.
        public var dailyAllowance: Microseconds?
        /// The child may turn their own points into minutes …
        public var childMayRedeem: Bool
        /// … at most this much a day (nil: no cap).
        public var childRedeemDailyMax: Microseconds?
        public init(dailyLimit: Microseconds?, weeklyLimit: Microseconds?, allowedHours: [HourWindow]?,
                    redemptionExpiresAfter: Microseconds?, countsWhile: CountsWhile, unknownApps: UnknownApps = .neutral,
                    dailyAllowance: Microseconds? = nil, childMayRedeem: Bool = false, childRedeemDailyMax: Microseconds? = nil) {
            self.dailyAllowance = dailyAllowance
            self.childMayRedeem = childMayRedeem
            self.childRedeemDailyMax = childRedeemDailyMax
            self.dailyLimit = dailyLimit
            self.weeklyLimit = weeklyLimit
            self.allowedHours = allowedHours
            self.redemptionExpiresAfter = redemptionExpiresAfter
            self.countsWhile = countsWhile
            self.unknownApps = unknownApps
        }
    }

    public enum Strictness: String, Sendable, CaseIterable { case lenient, moderate, strict }

    /// What the periodic-input rule does when input looks machine-made.
    public enum PeriodicInputAction: Sendable { case flagOnly, refuseTime, refuseSession }

    public struct Validation: Sendable, Equatable {
        public var strictness: Strictness
        public var idleAfter: Microseconds
        public var minSession: Microseconds
        public var minFocusDwell: Microseconds
        /// Learning is credited only with a focus hook (moderate, strict); lenient accepts CPU activity.
        public var learningNeedsFocusHook: Bool
        /// Input intervals with a coefficient of variation below this are machine-like.
        public var periodicInputVariation: Double
        public var periodicInputAction: PeriodicInputAction

        public init(strictness: Strictness, idleAfter: Microseconds? = nil, minSession: Microseconds? = nil,
                    minFocusDwell: Microseconds? = nil) {
            self.strictness = strictness
            let d = Validation.defaults(strictness)
            self.idleAfter = idleAfter ?? d.idleAfter
            self.minSession = minSession ?? d.minSession
            self.minFocusDwell = minFocusDwell ?? d.minFocusDwell
            self.learningNeedsFocusHook = strictness != .lenient
            switch strictness {
            case .lenient: periodicInputVariation = 0.05; periodicInputAction = .flagOnly
            case .moderate: periodicInputVariation = 0.10; periodicInputAction = .refuseTime
            case .strict: periodicInputVariation = 0.15; periodicInputAction = .refuseSession
            }
        }

        /// The strictness table of the policy spec.
        public static func defaults(_ s: Strictness) -> (idleAfter: Microseconds, minSession: Microseconds,
                                                          minFocusDwell: Microseconds, dailyLearningCap: Microseconds,
                                                          countsWhile: CountsWhile) {
            switch s {
            case .lenient: return (Seconds.of(minutes: 5), Seconds.of(minutes: 5), Seconds.of(10), Seconds.of(minutes: 180), .focused)
            case .moderate: return (Seconds.of(minutes: 3), Seconds.of(minutes: 10), Seconds.of(30), Seconds.of(minutes: 120), .running)
            case .strict: return (Seconds.of(minutes: 2), Seconds.of(minutes: 15), Seconds.of(60), Seconds.of(minutes: 90), .running)
            }
        }
    }

    public enum StopAction: String, Sendable { case terminate, pause }

    public struct Enforcement: Sendable, Equatable {
        /// Largest first.
        public var warnBefore: [Microseconds]
        public var action: StopAction
        public var grace: Microseconds
        public init(warnBefore: [Microseconds], action: StopAction, grace: Microseconds) {
            self.warnBefore = warnBefore.sorted(by: >)
            self.action = action
            self.grace = grace
        }
    }

    /// Where the family's shared ledger is, and who this machine is in it.
    public struct Household: Sendable, Equatable {
        /// `database`: a PostgreSQL URL without a password (`postgresql://machine-pc@nas.local/family`).
        public var database: String
        /// `credentials`: a file holding the role's password, readable by the daemon only.
        public var credentials: String
        /// `machine`: this computer's name in the family ledger (unique in the family).
        public var machine: String
        /// `child`: the child's name in the family ledger (default: the account's name).
        public var child: String?
        /// `ca_file`: the certificate authority a remote server's certificate must chain to
        /// (default: the system's). A server not on loopback is always spoken to over TLS.
        public var caFile: String?

        public init(database: String, credentials: String, machine: String, child: String? = nil, caFile: String? = nil) {
            self.database = database; self.credentials = credentials; self.machine = machine; self.child = child; self.caFile = caFile
        }
    }

    public struct Parents: Sendable, Equatable {
        public var users: [String]
        /// Unix groups whose members are parents (an extension of docs/spec/policy.md).
        public var groups: [String]
        public var passphraseHash: String?
        public init(users: [String], groups: [String] = [], passphraseHash: String?) {
            self.users = users
            self.groups = groups
            self.passphraseHash = passphraseHash
        }
    }
}

/// `"14:00-20:00"`: minutes after local midnight; `end` may be 1440 ("24:00").
public struct HourWindow: Sendable, Equatable {
    public var startMinute: Int
    public var endMinute: Int
    public init(startMinute: Int, endMinute: Int) {
        self.startMinute = startMinute
        self.endMinute = endMinute
    }

    public static func parse(_ text: String) -> HourWindow? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let a = minute(of: parts[0]), let b = minute(of: parts[1]), a < b, a < 1440 else { return nil }
        return HourWindow(startMinute: a, endMinute: b)
    }

    static func minute(of s: Substring) -> Int? {
        let p = s.split(separator: ":", omittingEmptySubsequences: false)
        guard p.count == 2, p[0].count == 2, p[1].count == 2,
              let h = Int(p[0]), let m = Int(p[1]), h >= 0, m >= 0, m < 60 else { return nil }
        if h == 24 && m == 0 { return 1440 }
        guard h < 24 else { return nil }
        return h * 60 + m
    }

    public var text: String { Self.text(minute: startMinute) + "-" + Self.text(minute: endMinute) }

    /// "HH:MM" as minutes after midnight (0 to 1440, "24:00" the end of the day); nil if it is not one.
    public static func minute(of text: String) -> Int? { minute(of: Substring(text)) }

    /// Minutes after midnight as "HH:MM".
    public static func text(minute v: Int) -> String { RFC3339.pad(Int64(v / 60), 2) + ":" + RFC3339.pad(Int64(v % 60), 2) }
}

public enum AppCategory: String, Sendable, CaseIterable { case learning, reward, neutral, blocked }

/// One `[[apps]]` entry. `exe` and `flatpak` identify a process; `app_id` and `title` describe
/// the focused window.
public struct AppEntry: Sendable {
    public var name: String
    public var category: AppCategory
    public var pointsPerHour: Int64?
    public var exe: [ExePattern]
    public var flatpak: String?
    public var appID: String?
    public var title: TitlePattern?
    /// A reward app's own limits, and the `[[groups]]` it shares a limit with.
    public var dailyLimit: Microseconds?
    public var weeklyLimit: Microseconds?
    public var group: String?
    /// A `[[sites]]` entry (docs/spec/sites.md): what a browser's report names, never a process.
    public var isSite: Bool
    /// Its domains, in lower case: each matches itself and the names under it.
    public var domains: [String]

    public init(name: String, category: AppCategory, pointsPerHour: Int64? = nil, exe: [ExePattern] = [],
                flatpak: String? = nil, appID: String? = nil, title: TitlePattern? = nil,
                dailyLimit: Microseconds? = nil, weeklyLimit: Microseconds? = nil, group: String? = nil,
                isSite: Bool = false, domains: [String] = []) {
        self.isSite = isSite || !domains.isEmpty
        self.domains = domains
        self.dailyLimit = dailyLimit
        self.weeklyLimit = weeklyLimit
        self.group = group
        self.name = name
        self.category = category
        self.pointsPerHour = pointsPerHour
        self.exe = exe
        self.flatpak = flatpak
        self.appID = appID
        self.title = title
    }

    /// The entry says which program it is (by exe or Flatpak id), not only how its window looks.
    public var hasIdentity: Bool { !exe.isEmpty || flatpak != nil }
    public var hasWindowMatchers: Bool { appID != nil || title != nil }
}

/// A realpath pattern: `*` (not `/`), `**` (anything), `?`, `[...]`.
public struct ExePattern: Sendable, Equatable {
    public let text: String
    private let bytes: [UInt8]
    private let hasWildcards: Bool

    public init(_ text: String) {
        self.text = text
        self.bytes = Array(text.utf8)
        self.hasWildcards = text.contains { "*?[".contains($0) }
    }

    /// The program's file name when it is written out, e.g. `gcompris-qt` for `/usr/bin/gcompris-qt`.
    public var literalBaseName: String? {
        guard let base = text.split(separator: "/").last, !base.contains(where: { "*?[".contains($0) }) else { return nil }
        return String(base)
    }

    /// The whole path when it names one file (no wildcards).
    public var literalPath: String? { hasWildcards ? nil : text }

    public func matches(_ path: String) -> Bool {
        if !hasWildcards { return path == text }
        return Glob.match(pattern: bytes[...], path: Array(path.utf8)[...])
    }
}

enum Glob {
    static func match(pattern p: ArraySlice<UInt8>, path s: ArraySlice<UInt8>) -> Bool {
        var p = p, s = s
        while let c = p.first {
            switch c {
            case UInt8(ascii: "*"):
                let doubleStar = p.dropFirst().first == UInt8(ascii: "*")
                let rest = p.dropFirst(doubleStar ? 2 : 1)
                var tail = s
                while true {
                    if match(pattern: rest, path: tail) { return true }
                    guard let h = tail.first, doubleStar || h != UInt8(ascii: "/") else { return false }
                    tail = tail.dropFirst()
                }
            case UInt8(ascii: "?"):
                guard let h = s.first, h != UInt8(ascii: "/") else { return false }
                p = p.dropFirst(); s = s.dropFirst()
            case UInt8(ascii: "["):
                guard let h = s.first, let close = p.dropFirst(2).firstIndex(of: UInt8(ascii: "]")) else { return false }
                var set = p[(p.startIndex + 1)..<close]
                let negate = set.first == UInt8(ascii: "!") || set.first == UInt8(ascii: "^")
                if negate { set = set.dropFirst() }
                var found = false
                var k = set.startIndex
                while k < set.endIndex {
                    if k + 2 < set.endIndex, set[k + 1] == UInt8(ascii: "-") {
                        if set[k] <= h && h <= set[k + 2] { found = true }
                        k += 3
                    } else {
                        if set[k] == h { found = true }
                        k += 1
                    }
                }
                guard found != negate else { return false }
                p = p[(close + 1)...]; s = s.dropFirst()
            default:
                guard s.first == c else { return false }
                p = p.dropFirst(); s = s.dropFirst()
            }
        }
        return s.isEmpty
    }
}

/// A regular expression on window titles (Swift's Regex: the syntax of ICU and PCRE, `(?i)` at
/// the start ignores case), matched anywhere in the title, on Unicode scalars as ICU matches.
/// Compiled once when the policy is loaded. Swift's own Regex, not Foundation's
/// NSRegularExpression: that was the one part of the engine that needed all of Foundation, which
/// stctl, loading policies too, then carried and paid for at every start (docs/benchmarks.md).
public struct TitlePattern: @unchecked Sendable {
    // A Regex is an immutable value; its compiled program is made once, atomically (and here
    // before the pattern is shared, by the match on ""). Regex<AnyRegexOutput> is not declared
    // Sendable only because AnyRegexOutput (the captures of a match) is not.
    private let regex: Regex<AnyRegexOutput>
    public let text: String

    public init(_ text: String) throws {
        self.regex = try Regex(text).matchingSemantics(.unicodeScalar)
        self.text = text
        _ = try? regex.firstMatch(in: "")
    }

    public func matches(_ title: String) -> Bool {
        (try? regex.firstMatch(in: title)) != nil
    }
}
