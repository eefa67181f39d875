import FoundationEssentials
import Glibc
import ScreenTimeCore

/// The control socket's language (docs/protocol.md): one JSON object per line, each with the
/// protocol version `v`; a line may be at most `maxFrame` bytes.
public enum ControlProtocol {
    public static let version = 1
    public static let maxFrame = 65_536
    /// screentime's release, as `screentimed --version` and `stctl --version` print it.
    public static let release = "0.1.0"
    /// How long a person's client (stctl, the parents' page) waits for the daemon's answer before
    /// it says none came: long enough for a daemon on a machine loaded to the full (a CI run once
    /// waited over 5 s, the bound before), short enough to say a stuck daemon is stuck.
    public static let answerWithinSeconds = 15

    /// Where a client finds the daemon in user mode (docs/architecture.md §1): the user's runtime folder.
    public static var userSocketPath: String {
        let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"] ?? "/run/user/\(getuid())"
        return runtime + "/screentime/control.sock"
    }

    /// Where the system daemon listens (docs/architecture.md §1), for every local user.
    public static let systemSocketPath = "/run/screentime/control.sock"

    /// The socket a client uses when not told: the user's own daemon's, else the system daemon's.
    public static var defaultSocketPath: String {
        let own = userSocketPath
        if FileManager.default.fileExists(atPath: own) || !FileManager.default.fileExists(atPath: systemSocketPath) { return own }
        return systemSocketPath
    }

    public static func encode<T: Encodable>(_ value: T) -> [UInt8] {
        let e = JSONEncoder()
        e.keyEncodingStrategy = .convertToSnakeCase
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? e.encode(value)) ?? Data("{}".utf8)) + [10]
    }

    /// Requests and replies nest two or three levels; Foundation's decoder has no depth limit and
    /// traps on deep nesting, so anything deeper than this never reaches it.
    public static let maxDepth = 16

    public struct TooDeep: Error {}

    /// Reads a reply (or any of the protocol's objects) as Foundation's `JSONDecoder` with
    /// `.convertFromSnakeCase` would, through the project's own JSON reader (`JSONTreeDecoder`).
    public static func decode<T: Decodable>(_ type: T.Type, from line: [UInt8]) throws -> T {
        guard depth(of: line) <= maxDepth else { throw TooDeep() }
        let value = try line.withUnsafeBufferPointer { buf throws(JSONLineError) in try JSONLineReader.parse(buf) }
        return try T(from: JSONTreeDecoder(value: value, codingPath: []))
    }
}

extension ControlRequest {
    /// The request as one line, keys in sorted order: the same bytes `ControlProtocol.encode`
    /// gives, without Foundation's encoder (see `JSONTreeDecoder` for why). A field added to
    /// ControlRequest must be written here too: EveryFieldTests fills every field the type has and
    /// compares the two, so a forgotten one fails there.
    public var line: [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        if let anyway { w.key("anyway"); w.bool(anyway) }
        if let bonus { w.key("bonus"); w.bool(bonus) }
        if let changeID { w.key("change_id"); w.int(changeID) }
        if let changes {
            w.key("changes"); w.beginArray()
            for c in changes {
                w.beginObject()
                w.key("key"); w.string(c.key)
                if let value = c.value { w.key("value"); w.string(value) }
                w.endObject()
            }
            w.endArray()
        }
        if let chore { w.key("chore"); w.string(chore) }
        if let client { w.key("client"); w.string(client) }
        w.key("command"); w.string(command.rawValue)
        if let day { w.key("day"); w.string(day) }
        if let days { w.key("days"); w.int(days) }
        if let event { w.key("event"); w.string(event) }
        if let gift { w.key("gift"); w.bool(gift) }
        if let hook { w.key("hook"); w.string(hook) }
        if let id { w.key("id"); w.string(id) }
        if let language { w.key("language"); w.string(language) }
        if let minutes { w.key("minutes"); w.int(minutes) }
        if let parent { w.key("parent"); w.string(parent) }
        if let passphrase { w.key("passphrase"); w.string(passphrase) }
        if let points { w.key("points"); w.int(points) }
        if let policy { w.key("policy"); w.string(policy) }
        if let preview { w.key("preview"); w.bool(preview) }
        if let reason { w.key("reason"); w.string(reason) }
        if let refund { w.key("refund"); w.bool(refund) }
        if let requestID { w.key("request_id"); w.string(requestID) }
        if let screen { w.key("screen"); w.bool(screen) }
        if let token { w.key("token"); w.string(token) }
        if let until { w.key("until"); w.string(until) }
        if let user { w.key("user"); w.string(user) }
        w.key("v"); w.int(Int64(v))
        w.endObject()
        return Array(w.output.utf8) + [10]
    }

    public struct Malformed: Error {}

    /// Reads a request line with the project's own JSON reader (depth-limited, exact, and several
    /// times faster than Foundation's decoder); unknown fields are ignored.
    public static func read(line: [UInt8]) throws -> ControlRequest {
        let value = try line.withUnsafeBufferPointer { buf throws(JSONLineError) in try JSONLineReader.parse(buf) }
        guard case .object(let fields) = value else { throw Malformed() }
        var v: Int? = nil
        var command: Command? = nil
        var request = ControlRequest(.status)
        for (key, value) in fields {
            switch (key, value) {
            case ("v", .number(let n)): v = n.int64.map { Int(clamping: $0) }
            case ("command", .string(let s)): command = Command(rawValue: s)
            case ("minutes", .number(let n)): request.minutes = n.int64
            case ("points", .number(let n)): request.points = n.int64
            case ("reason", .string(let s)): request.reason = s
            case ("event", .string(let s)): request.event = s
            case ("hook", .string(let s)): request.hook = s
            case ("days", .number(let n)): request.days = n.int64
            case ("day", .string(let s)): request.day = s
            case ("passphrase", .string(let s)): request.passphrase = s
            case ("user", .string(let s)): request.user = s
            case ("id", .string(let s)): request.id = s
            case ("request_id", .string(let s)): request.requestID = s
            case ("chore", .string(let s)): request.chore = s
            case ("gift", .bool(let b)): request.gift = b
            case ("policy", .string(let s)): request.policy = s
            case ("language", .string(let s)): request.language = s
            case ("token", .string(let s)): request.token = s
            case ("until", .string(let s)): request.until = s
            case ("parent", .string(let s)): request.parent = s
            case ("client", .string(let s)): request.client = s
            case ("refund", .bool(let b)): request.refund = b
            case ("anyway", .bool(let b)): request.anyway = b
            case ("bonus", .bool(let b)): request.bonus = b
            case ("screen", .bool(let b)): request.screen = b
            case ("preview", .bool(let b)): request.preview = b
            case ("change_id", .number(let n)): request.changeID = n.int64
            case ("changes", .array(let items)):
                var changes: [PolicyChange] = []
                for item in items {
                    guard case .object(let f) = item else { throw Malformed() }
                    var key: String?, value: String?
                    for (k, v) in f {
                        switch (k, v) {
                        case ("key", .string(let t)) where key == nil: key = t
                        case ("value", .string(let t)) where value == nil: value = t
                        case ("value", .null): break
                        default: throw Malformed()
                        }
                    }
                    guard let key else { throw Malformed() }
                    changes.append(PolicyChange(key: key, value: value))
                }
                request.changes = changes
            case ("preview", _), ("change_id", _), ("changes", _): throw Malformed()
            case ("v", _), ("command", _), ("minutes", _), ("points", _), ("reason", _), ("event", _), ("hook", _), ("days", _), ("day", _),
                 ("passphrase", _), ("user", _), ("id", _), ("request_id", _), ("chore", _), ("gift", _), ("policy", _), ("token", _),
                 ("until", _), ("refund", _), ("anyway", _), ("bonus", _), ("parent", _), ("client", _), ("screen", _), ("language", _):
                throw Malformed()
            default: break
            }
        }
        guard let v, let command else { throw Malformed() }
        request.v = v
        request.command = command
        return request
    }
}

extension ControlReply {
    /// The reply as one line, keys in sorted order (the same bytes `ControlProtocol.encode` gives).
    public var line: [UInt8] {
        // Lists (apps, history, sessions, report) are rare and not hot: Foundation's encoder writes
        // them. (A field added to ControlReply must be written here too, or be one of these:
        // EveryFieldTests sets each field the type has, alone, and compares with the encoder.)
        if apps != nil || sites != nil || history != nil || sessions != nil || report != nil || request != nil || requests != nil || chores != nil || simulation != nil || export != nil
            || token != nil || children != nil || family != nil || policy != nil || policySummary != nil || siteStops != nil
            || policyChange != nil || policyHistory != nil || figures != nil || told != nil
            || status?.requests != nil || status?.chores != nil || status?.appTimeLeft != nil || status?.household != nil || status?.screen != nil
            || status?.childMayRedeem != nil || status?.notices?.contains(where: { $0.ask != nil }) == true {
            return ControlProtocol.encode(self)
        }
        var w = JSONWriter()
        func text(_ t: String?) { if let t { w.string(t) } else { w.null() } }
        w.beginObject()
        if let b = balance { w.key("balance"); w.int(b) }
        if let c = code { w.key("code"); w.string(c) }
        if let c = cost { w.key("cost"); w.int(c) }
        if let e = error { w.key("error"); w.string(e) }
        if let n = note { w.key("note"); w.string(n) }
        w.key("ok"); w.bool(ok)
        if let s = status {
            w.key("status"); w.beginObject()
            if let a = s.allowanceLeftSeconds { w.key("allowance_left_seconds"); w.int(a) }
            if let a = s.allowanceTodaySeconds { w.key("allowance_today_seconds"); w.int(a) }
            if let a = s.asOf { w.key("as_of"); w.string(a) }
            w.key("balance"); w.int(s.balance)
            if let codes = s.blindSpotCodes {
                w.key("blind_spot_codes"); w.beginArray()
                for b in codes {
                    w.beginObject(); w.key("code"); w.string(b.code.rawValue)
                    if !b.figures.isEmpty {
                        w.key("figures"); w.beginObject()
                        for (k, v) in b.figures.sorted(by: { $0.key < $1.key }) { w.key(k); w.string(v) }
                        w.endObject()
                    }
                    w.endObject()
                }
                w.endArray()
            }
            w.key("blind_spots"); w.beginArray(); for b in s.blindSpots { w.string(b) }; w.endArray()
            if let b = s.bonusLeftSeconds { w.key("bonus_left_seconds"); w.int(b) }
            w.key("current_app"); text(s.currentApp)
            w.key("current_category"); text(s.currentCategory)
            w.key("current_counts"); text(s.currentCounts)
            if let site = s.currentSite { w.key("current_site"); w.string(site) }
            if let trusted = s.currentTrusted { w.key("current_trusted"); w.bool(trusted) }
            if let g = s.gamesStoppedUntil { w.key("games_stopped_until"); w.string(g) }
            if let g = s.goalSeconds { w.key("goal_seconds"); w.int(g) }
            w.key("hooks"); w.beginArray(); for h in s.hooks { w.string(h) }; w.endArray()
            if let l = s.learningCounting { w.key("learning_counting"); w.bool(l) }
            w.key("learning_today_seconds"); w.int(s.learningTodaySeconds)
            if let notices = s.notices {
                w.key("notices"); w.beginArray()
                for n in notices {
                    w.beginObject()
                    w.key("body"); w.string(n.body)
                    w.key("id"); w.int(n.id)
                    w.key("shown"); w.bool(n.shown)
                    w.key("summary"); w.string(n.summary)
                    w.key("urgency"); w.string(n.urgency)
                    w.endObject()
                }
                w.endArray()
            }
            w.key("observers"); w.beginObject()
            w.key("focus_hook"); w.bool(s.observers.focusHook)
            w.key("logind"); w.bool(s.observers.logind)
            w.key("notifications"); w.bool(s.observers.notifications)
            w.key("proc"); w.bool(s.observers.proc)
            w.endObject()
            w.key("points_per_reward_minute"); w.int(s.pointsPerRewardMinute)
            w.key("points_today"); w.int(s.pointsToday)
            w.key("reward_available_seconds"); w.int(s.rewardAvailableSeconds)
            if let r = s.rewardCounting { w.key("reward_counting"); w.bool(r) }
            w.key("reward_remaining_seconds"); w.int(s.rewardRemainingSeconds)
            w.key("reward_today_remaining_seconds"); w.int(s.rewardTodayRemainingSeconds)
            w.key("reward_used_today_seconds"); w.int(s.rewardUsedTodaySeconds)
            if let name = s.schedule { w.key("schedule"); w.string(name) }
            if let d = s.streakDays { w.key("streak_days"); w.int(d) }
            w.endObject()
        }
        w.key("v"); w.int(Int64(v))
        w.endObject()
        return Array(w.output.utf8) + [10]
    }
}

/// The deepest nesting of `[` and `{` outside strings.
func depth(of line: [UInt8]) -> Int {
    var depth = 0, deepest = 0
    var inString = false, escaped = false
    for c in line {
        if inString {
            if escaped { escaped = false } else if c == UInt8(ascii: "\\") { escaped = true } else if c == UInt8(ascii: "\"") { inString = false }
            continue
        }
        switch c {
        case UInt8(ascii: "\""): inString = true
        case UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1; deepest = max(deepest, depth)
        case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
        default: break
        }
    }
    return deepest
}

/// What a client asks.
public struct ControlRequest: Codable, Sendable, Equatable {
    public enum Command: String, Codable, Sendable, CaseIterable {
        /// Anyone the socket lets in: points, reward time, what counts.
        case status
        /// Parents: points into reward minutes.
        case redeem
        /// Parents: a bonus or a penalty.
        case adjust
        /// The child: ask for more game time (`minutes`, optional `reason`).
        case ask
        /// The child and parents: pending requests and those of the last week (system mode, a
        /// parent without `user`: of every child they are a parent of).
        case requests
        /// Parents: approve a request (`request_id`; `gift`: without points; `minutes`: fewer).
        case approve
        /// Parents: deny a request (`request_id`, optional `reason`).
        case deny
        /// The child and parents: the policy's chores and where each stands.
        case chores
        /// The child: a chore is done (`chore`).
        case choreDone = "chore_done"
        /// Parents: approve (pay) or reject (`reason`) the pending claim of a chore (`chore`).
        case choreApprove = "chore_approve"
        case choreReject = "chore_reject"
        /// Parents: everything kept about the child, as one JSON document (`export`).
        case export
        /// Parents: removes the events and sessions before `day` (the ledger stays whole).
        case forget
        /// Parents: the last `days` days replayed under the policy in `policy` (its text) beside the
        /// policies that were in force; changes nothing.
        case simulate
        /// The watched child's desktop hook: one event (focus, input, idle, lock), stamped by the daemon.
        case hookEvent = "hook_event"
        /// The child and parents: the programs seen lately and how the policy classifies them.
        case apps
        /// The child and parents: the ledger of the last days.
        case history
        /// The child and parents: one day's judged sessions.
        case sessions
        /// Parents: read the policy file again; a bad one is refused and the old one stays.
        case reload
        /// The child and parents: day by day, learning credited and refused, points, reward time, top apps.
        case report
        /// A parent by passphrase opens a parent session (`minutes` long, default 30): the reply's
        /// `token` then stands for the passphrase in the caller's requests, for the children it names
        /// (the parents' page logs in once, and keeps no passphrase).
        case login
        /// Ends the parent session of `token`.
        case logout
        /// Parents: every child they are a parent of, each with their status (`family`).
        case family
        /// Parents: the text of the policy in force (`policy`).
        case policy
        /// Parents: bonus time for today (`minutes`, optional `reason`): beyond today's limits, free.
        case bonus
        /// Parents: games stop now, until `until` ("HH:MM" today, or tomorrow when that has passed;
        /// RFC 3339; "now" lets them be played again; absent: the end of today).
        case stopGames = "stop_games"
        /// Parents: take back up to `minutes` unused minutes; `refund`: give back the points they cost.
        case revoke
        /// Parents: tonight's bedtime (`until`, "HH:MM" local; docs/spec/screen.md's `bedtime_moved`).
        case bedtime
        /// Parents: no screen or game limit for the rest of today (optional `reason`).
        case freeDay = "free_day"
        /// Parents: change the policy file (`changes`), checked as `stctl policy check` checks it;
        /// with `preview`, only say what would change.
        case policyChange = "policy_change"
        /// Parents: the policy's changes made through `policy_change`, newest first.
        case policyHistory = "policy_history"
        /// Parents: undo the change `change_id` (the file must be as that change left it).
        case policyUndo = "policy_undo"
    }

    public var v: Int
    public var command: Command
    public var minutes: Int64?
    public var points: Int64?
    public var reason: String?
    /// `hook_event`: one event object of the replay spec, without `at` and `mono`.
    public var event: String?
    /// `apps`, `history`, `report`: how many days back (default 7).
    public var days: Int64?
    /// `sessions`: the day, `YYYY-MM-DD` in the policy's time zone (default today); `report`: the
    /// last day reported.
    public var day: String?
    /// Parent commands from someone who is not a parent by uid: the policy's parent passphrase.
    public var passphrase: String?
    /// System mode: the child a parent acts on or asks about (`stctl --user NAME`). Without it, a
    /// child asks about themselves, and a parent about the only child there is.
    public var user: String?
    /// Parent requests that change the state (`redeem`, `adjust`): the client's id for this one
    /// request (stctl: a UUID per command). Sent again with the same id (a retry after a lost
    /// reply), it is answered with the first reply and not carried out again.
    public var id: String?
    /// `hook_event` from a desktop hook that stays connected ("x11", "sway"): the daemon counts
    /// the connection as a hook, and when the last hook goes, nothing is focused any more.
    public var hook: String?
    /// `approve`, `deny`: the child's request answered (its id, as `requests` lists it).
    public var requestID: String?
    /// `chore_done`, `chore_approve`, `chore_reject`: the chore's name.
    public var chore: String?
    /// `approve`: the minutes are a gift, not paid with the child's points.
    public var gift: Bool?
    /// `simulate`: the text of the policy to try.
    public var policy: String?
    /// A parent session's token (`login`'s reply), instead of the passphrase; valid only from the
    /// uid that logged in.
    public var token: String?
    /// `stop_games`: until when.
    public var until: String?
    /// `revoke`: give back the points the minutes cost.
    public var refund: Bool?
    /// `redeem`, `approve`: go ahead although today's limits leave no room for all the minutes
    /// (refused with code `beyond_today` without it).
    public var anyway: Bool?
    /// `approve`: grant the minutes as bonus time for today (free, beyond today's limits).
    public var bonus: Bool?
    /// `bonus`, `ask`: the minutes are screen time (the whole computer), not game time.
    public var screen: Bool?
    /// `login`: which parent is logging in, by their name in the policy's `[parents] users` (the
    /// ledger and the child's notices name them for what the session does).
    public var parent: String?
    /// `login` from the parents' page: the browser it comes from (an address, or a browser's
    /// cookie), for counting wrong passphrases per browser; believed only from the page's user.
    public var client: String?
    /// `policy_change`: the changes, each a key (`rewards.daily_limit`, `chores[Dishes].points`,
    /// `apps[Mystery]`) and the value as a parent typed it (absent: remove the key or entry).
    public var changes: [PolicyChange]?
    /// `policy_change`: say what would change, change nothing.
    public var preview: Bool?
    /// `policy_undo`: which change.
    public var changeID: Int64?
    /// The caller's language (a gettext name: `de`, `es_MX`), for what the daemon puts in words
    /// itself inside a refusal's figures: the policy file's problems of a `policy_change` or
    /// `policy_undo`. Absent: English. Only a language with a catalog is used.
    public var language: String?

    public struct PolicyChange: Codable, Sendable, Equatable {
        public var key: String
        public var value: String?
        public init(key: String, value: String?) { self.key = key; self.value = value }
    }

    public init(_ command: Command, minutes: Int64? = nil, points: Int64? = nil, reason: String? = nil, event: String? = nil, hook: String? = nil) {
        self.v = ControlProtocol.version
        self.command = command
        self.minutes = minutes
        self.points = points
        self.reason = reason
        self.event = event
        self.hook = hook
    }

    public init(_ command: Command, days: Int64?, day: String?) {
        self.init(command, minutes: nil, points: nil, reason: nil, event: nil, hook: nil)
        self.days = days
        self.day = day
    }
}

/// What the daemon answers: `ok`, or `error` saying what happened and what to do.
public struct ControlReply: Codable, Sendable, Equatable {
    public var v: Int = ControlProtocol.version
    public var ok: Bool
    public var error: String?
    /// A refusal's code (`Why`), said in the reader's words with `figures`; one a client acts on
    /// by itself: `beyond_today` (today's limits leave no room for all the minutes: ask, then send
    /// again with `anyway`, or give bonus time instead).
    public var code: String?
    /// With `code`: what varies in the refusal (minutes, an id, a name), by name (`Why`); with
    /// `told`, in what the daemon tells it did.
    public var figures: [String: String]?
    /// What the daemon did, by name (`Told`), its English in `note`.
    public var told: String?
    public var status: Status?
    /// redeem, adjust: the balance after.
    public var balance: Int64?
    /// redeem: what it cost.
    public var cost: Int64?
    /// reload: what happened, in words.
    public var note: String?
    /// apps: the programs seen, most started first.
    public var apps: [SeenApp]?
    /// apps: the websites seen (by registrable domain), most reported first.
    public var sites: [SeenSite]?
    /// history: ledger entries, oldest first.
    public var history: [LedgerLine]?
    /// sessions: the day's judged sessions, in order.
    public var sessions: [SessionLine]?
    /// report: one summary per day, oldest first.
    public var report: [ReportDay]?
    /// ask, approve, deny: the request as it stands after.
    public var request: RequestLine?
    /// requests: pending ones first, then the last week's, newest first.
    public var requests: [RequestLine]?
    /// chores: each chore of the policy and where it stands; chore_done and the answers: the one.
    public var chores: [ChoreLine]?
    /// simulate: day by day, oldest first.
    public var simulation: [SimulatedDay]?
    /// export: everything kept about the child, one JSON document (docs/state.md).
    public var export: String?
    /// login: the parent session's token, and the children it may act for.
    public var token: String?
    public var children: [String]?
    /// family: each child the caller is a parent of, with their status.
    public var family: [FamilyMember]?
    /// policy: the text of the policy in force.
    public var policy: String?
    /// policy: what the policy in force says, in figures (the parents' page's summary).
    public var policySummary: PolicySummary?
    /// hook_event `site_changed` (docs/spec/sites.md): the hosts this browser must not show now,
    /// each with its site and why; the browser's extension shows its own page in their tabs.
    public var siteStops: [SiteStopLine]?
    /// policy_change, policy_undo: the change (made, or only shown with `preview`).
    public var policyChange: PolicyChangeLine?
    /// policy_history: the changes made through policy_change and policy_undo, newest first.
    public var policyHistory: [PolicyChangeLine]?

    /// A change of the policy file: each key's value before and after (TOML text; nil: not
    /// written), and, once made, its number, when, by whom, and what undid it.
    public struct PolicyChangeLine: Codable, Sendable, Equatable {
        public var id: Int64?
        public var at: String?
        public var by: String?
        public var applied: Bool
        public var changes: [Line]
        /// The change this one undid; the change that undid this one.
        public var undoes: Int64?
        public var undoneBy: Int64?

        public struct Line: Codable, Sendable, Equatable {
            public var key: String
            public var before: String?
            public var after: String?
            public init(key: String, before: String?, after: String?) { self.key = key; self.before = before; self.after = after }
        }

        public init(id: Int64?, at: String?, by: String?, applied: Bool, changes: [Line], undoes: Int64? = nil, undoneBy: Int64? = nil) {
            self.id = id; self.at = at; self.by = by; self.applied = applied; self.changes = changes; self.undoes = undoes; self.undoneBy = undoneBy
        }
    }

    /// A policy at a glance: its figures, what it names, and the coming week's limits day by day
    /// (schedules and `[screen]` as each day has them).
    public struct PolicySummary: Codable, Sendable, Equatable {
        public var timeZone: String
        public var learningPerHour: Int64
        public var pointsPerRewardMinute: Int64
        public var dailyGoalSeconds: Int64?
        public var gameWeeklyLimitSeconds: Int64?
        public var screenWeeklyLimitSeconds: Int64?
        /// The apps and sites it names (not what it counts unnamed ones as), in its order.
        public var entries: [Entry]
        public var chores: [Chore]
        /// Today and the six days after it.
        public var week: [Day]
        /// What the parents' page lets a parent change in a form: each key (as `policy_change`
        /// takes it), what it is in words, its kind (`duration`, `number`, `hours`) and its value
        /// as written (TOML text; nil: not written). Nil from a daemon that does not say.
        public var settings: [Setting]? = nil

        public struct Setting: Codable, Sendable, Equatable {
            public var key: String
            public var label: String
            public var kind: String
            public var value: String?
            public init(key: String, label: String, kind: String, value: String?) {
                self.key = key; self.label = label; self.kind = kind; self.value = value
            }
        }

        public struct Entry: Codable, Sendable, Equatable {
            public var name: String
            public var category: String
            public var site: Bool
            public init(name: String, category: String, site: Bool) { self.name = name; self.category = category; self.site = site }
        }

        public struct Chore: Codable, Sendable, Equatable {
            public var name: String
            public var points: Int64
            /// "every day", "once a week", "once", "on mon, thu"
            public var every: String
            public init(name: String, points: Int64, every: String) { self.name = name; self.points = points; self.every = every }
        }

        /// One day's limits: nil where nothing limits it; hours as "HH:MM-HH:MM" (empty: no hour).
        public struct Day: Codable, Sendable, Equatable {
            public var date: String
            public var schedule: String?
            public var gameDailyLimitSeconds: Int64?
            public var gameHours: [String]?
            public var gameFreeSeconds: Int64
            public var learningCapSeconds: Int64
            public var screenDailyLimitSeconds: Int64?
            public var screenHours: [String]?
            public init(date: String, schedule: String?, gameDailyLimitSeconds: Int64?, gameHours: [String]?, gameFreeSeconds: Int64,
                        learningCapSeconds: Int64, screenDailyLimitSeconds: Int64?, screenHours: [String]?) {
                self.date = date; self.schedule = schedule; self.gameDailyLimitSeconds = gameDailyLimitSeconds; self.gameHours = gameHours
                self.gameFreeSeconds = gameFreeSeconds; self.learningCapSeconds = learningCapSeconds
                self.screenDailyLimitSeconds = screenDailyLimitSeconds; self.screenHours = screenHours
            }
        }

        public init(timeZone: String, learningPerHour: Int64, pointsPerRewardMinute: Int64, dailyGoalSeconds: Int64?, gameWeeklyLimitSeconds: Int64?,
                    screenWeeklyLimitSeconds: Int64?, entries: [Entry], chores: [Chore], week: [Day]) {
            self.timeZone = timeZone; self.learningPerHour = learningPerHour; self.pointsPerRewardMinute = pointsPerRewardMinute
            self.dailyGoalSeconds = dailyGoalSeconds; self.gameWeeklyLimitSeconds = gameWeeklyLimitSeconds
            self.screenWeeklyLimitSeconds = screenWeeklyLimitSeconds; self.entries = entries; self.chores = chores; self.week = week
        }
    }

    /// A host a browser must not show, and why (`reason`: `blocked`, or what stopped game time).
    public struct SiteStopLine: Codable, Sendable, Equatable {
        public var host: String
        public var site: String
        public var reason: String
        public init(host: String, site: String, reason: String) { self.host = host; self.site = site; self.reason = reason }
    }

    /// A child, as `family` shows them.
    public struct FamilyMember: Codable, Sendable, Equatable {
        public var child: String
        public var status: Status
        public init(child: String, status: Status) { self.child = child; self.status = status }
    }

    public init(ok: Bool, error: String? = nil, status: Status? = nil, balance: Int64? = nil, cost: Int64? = nil, apps: [SeenApp]? = nil,
                history: [LedgerLine]? = nil, sessions: [SessionLine]? = nil, report: [ReportDay]? = nil, note: String? = nil,
                request: RequestLine? = nil, requests: [RequestLine]? = nil, chores: [ChoreLine]? = nil, simulation: [SimulatedDay]? = nil) {
        self.ok = ok
        self.simulation = simulation
        self.request = request
        self.requests = requests
        self.chores = chores
        self.note = note
        self.error = error
        self.status = status
        self.balance = balance
        self.cost = cost
        self.apps = apps
        self.history = history
        self.sessions = sessions
        self.report = report
    }

    /// A day at a glance, as `stctl report` shows it.
    public struct ReportDay: Codable, Sendable, Equatable {
        /// `YYYY-MM-DD` in the policy's time zone.
        public var day: String
        /// Learning sessions that started on the day: time credited, and time not credited.
        public var learningCreditedSeconds: Int64
        public var learningRefusedSeconds: Int64
        /// Why learning time was not credited, the largest first.
        public var refused: [SessionLine.Refusal]
        /// From the ledger: points earned by learning, spent on reward time, and given or taken by
        /// parents (adjustments and approved chores).
        public var pointsEarned: Int64
        public var pointsSpent: Int64
        public var pointsAdjusted: Int64
        /// Reward time used; nil for a day the daemon did not see to its end.
        public var rewardUsedSeconds: Int64?
        /// The policy's daily limit on reward time; nil when there is none.
        public var rewardDailyLimitSeconds: Int64?
        /// The apps used most (learning and reward), by session time, at most five.
        public var topApps: [TopApp]
        /// With a `daily_goal`: whether the day's credited learning met it.
        public var goalMet: Bool? = nil
        /// With `[screen]`: screen time used (nil for a past day the daemon did not see end), the
        /// day's own screen limit (nil: none; a schedule's when one ruled it), and the parents'
        /// extra screen minutes of the day (bonus and approved asks).
        public var screenUsedSeconds: Int64? = nil
        public var screenLimitSeconds: Int64? = nil
        public var screenBonusSeconds: Int64? = nil

        public struct TopApp: Codable, Sendable, Equatable {
            public var app: String
            public var category: String
            public var seconds: Int64
            public var creditedSeconds: Int64
            public init(app: String, category: String, seconds: Int64, creditedSeconds: Int64) {
                self.app = app; self.category = category; self.seconds = seconds; self.creditedSeconds = creditedSeconds
            }
        }

        public init(day: String, learningCreditedSeconds: Int64, learningRefusedSeconds: Int64, refused: [SessionLine.Refusal],
                    pointsEarned: Int64, pointsSpent: Int64, pointsAdjusted: Int64, rewardUsedSeconds: Int64?,
                    rewardDailyLimitSeconds: Int64?, topApps: [TopApp]) {
            self.day = day; self.learningCreditedSeconds = learningCreditedSeconds; self.learningRefusedSeconds = learningRefusedSeconds
            self.refused = refused; self.pointsEarned = pointsEarned; self.pointsSpent = pointsSpent; self.pointsAdjusted = pointsAdjusted
            self.rewardUsedSeconds = rewardUsedSeconds; self.rewardDailyLimitSeconds = rewardDailyLimitSeconds; self.topApps = topApps
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(day, forKey: .day)
            try c.encode(learningCreditedSeconds, forKey: .learningCreditedSeconds)
            try c.encode(learningRefusedSeconds, forKey: .learningRefusedSeconds)
            try c.encode(refused, forKey: .refused)
            try c.encode(pointsEarned, forKey: .pointsEarned)
            try c.encode(pointsSpent, forKey: .pointsSpent)
            try c.encode(pointsAdjusted, forKey: .pointsAdjusted)
            try c.encode(rewardUsedSeconds, forKey: .rewardUsedSeconds)
            try c.encode(rewardDailyLimitSeconds, forKey: .rewardDailyLimitSeconds)
            try c.encode(topApps, forKey: .topApps)
            try c.encodeIfPresent(goalMet, forKey: .goalMet)
            try c.encodeIfPresent(screenUsedSeconds, forKey: .screenUsedSeconds)
            try c.encodeIfPresent(screenLimitSeconds, forKey: .screenLimitSeconds)
            try c.encodeIfPresent(screenBonusSeconds, forKey: .screenBonusSeconds)
        }
    }

    /// A ledger entry as `stctl history` shows it.
    public struct LedgerLine: Codable, Sendable, Equatable {
        public var at: String
        /// earned, redeemed, adjusted, expired, chore, gifted
        public var kind: String
        public var points: Int64
        public var balanceAfter: Int64
        /// earned: the app; adjusted: the reason and who; redeemed: who.
        public var note: String?
        /// redeemed: game seconds bought; expired: game seconds lost.
        public var rewardSeconds: Int64?

        public init(at: String, kind: String, points: Int64, balanceAfter: Int64, note: String?, rewardSeconds: Int64?) {
            self.at = at; self.kind = kind; self.points = points; self.balanceAfter = balanceAfter; self.note = note; self.rewardSeconds = rewardSeconds
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(at, forKey: .at)
            try c.encode(kind, forKey: .kind)
            try c.encode(points, forKey: .points)
            try c.encode(balanceAfter, forKey: .balanceAfter)
            try c.encode(note, forKey: .note)
            try c.encode(rewardSeconds, forKey: .rewardSeconds)
        }
    }

    /// A judged session as `stctl sessions` shows it.
    public struct SessionLine: Codable, Sendable, Equatable {
        public var app: String
        public var category: String
        public var start: String
        public var end: String
        public var seconds: Int64
        public var creditedSeconds: Int64
        public var points: Int64
        /// credited, partial, rejected
        public var verdict: String
        /// Why time was not counted, and how much each reason took, in the order the rules ran.
        public var refused: [Refusal]
        /// Noticed, not held against the child.
        public var flags: [String]

        public struct Refusal: Codable, Sendable, Equatable {
            public var reason: String
            public var seconds: Int64
            public init(reason: String, seconds: Int64) { self.reason = reason; self.seconds = seconds }

            /// Each reason in a few words, in English (docs/reasons.md says more): the list of
            /// the codes and their English, which tests hold `ChildWords.short` to.
            // not shown: people read ChildWords.short's messages (tr, in their language), never these values
            public static let words: [String: String] = [
                "idle": "idle", "locked": "locked", "unfocused": "not in front", "too_short": "too short",  // not shown: as above
                "daily_cap": "over the daily cap", "untrusted_exe": "untrusted copy", "concurrent_reward": "a game running too",  // not shown: as above
                "periodic_input": "machine-like input", "clock_jump": "clock changed", "focus_flicker": "flickering focus",  // not shown: as above
                "no_focus_hook": "no focus hook",  // not shown: as above
                "hook_gap": "hook away",  // not shown: as above
            ]
        }

        public init(app: String, category: String, start: String, end: String, seconds: Int64, creditedSeconds: Int64, points: Int64,
                    verdict: String, refused: [Refusal], flags: [String]) {
            self.app = app; self.category = category; self.start = start; self.end = end; self.seconds = seconds
            self.creditedSeconds = creditedSeconds; self.points = points; self.verdict = verdict; self.refused = refused; self.flags = flags
        }
    }

    /// A program the child ran, as `stctl apps` shows it.
    public struct SeenApp: Codable, Sendable, Equatable {
        public var exe: String
        public var flatpak: String?
        public var comm: String
        /// How many times it was started in the period, and when last.
        public var starts: Int64
        public var lastStarted: String
        /// The `[[apps]]` entry it is, its category, and whether its identity is trusted; nil
        /// when the policy does not name it.
        public var app: String?
        public var category: String?
        public var trusted: Bool

        public init(exe: String, flatpak: String?, comm: String, starts: Int64, lastStarted: String, app: String?, category: String?, trusted: Bool) {
            self.exe = exe; self.flatpak = flatpak; self.comm = comm; self.starts = starts
            self.lastStarted = lastStarted; self.app = app; self.category = category; self.trusted = trusted
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(exe, forKey: .exe)
            try c.encode(flatpak, forKey: .flatpak)
            try c.encode(comm, forKey: .comm)
            try c.encode(starts, forKey: .starts)
            try c.encode(lastStarted, forKey: .lastStarted)
            try c.encode(app, forKey: .app)
            try c.encode(category, forKey: .category)
            try c.encode(trusted, forKey: .trusted)
        }
    }

    /// A website the child's browser showed, as `stctl apps` shows it: its registrable domain
    /// (`khanacademy.org` for `www.khanacademy.org`; hosts only, never addresses).
    public struct SeenSite: Codable, Sendable, Equatable {
        public var domain: String
        /// How many times a browser reported a tab of it in the period, and when last.
        public var reports: Int64
        public var lastSeen: String
        /// The `[[sites]]` entry that names it, and its category; nil when none does (the domain
        /// counts as `[browsers] unnamed_sites`).
        public var site: String?
        public var category: String?

        public init(domain: String, reports: Int64, lastSeen: String, site: String?, category: String?) {
            self.domain = domain; self.reports = reports; self.lastSeen = lastSeen; self.site = site; self.category = category
        }

        // nil is written as null, as for SeenApp: "no rule names it" is an answer.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(domain, forKey: .domain)
            try c.encode(reports, forKey: .reports)
            try c.encode(lastSeen, forKey: .lastSeen)
            try c.encode(site, forKey: .site)
            try c.encode(category, forKey: .category)
        }
    }


    /// One day of `stctl simulate`: what the policies in force made of it, what the new one makes,
    /// and the difference (new − old).
    public struct SimulatedDay: Codable, Sendable, Equatable {
        public var day: String
        public var old: Figures
        public var new: Figures
        public var difference: Figures

        public struct Figures: Codable, Sendable, Equatable {
            public var points: Int64
            public var learningCreditedSeconds: Int64
            public var learningRefusedSeconds: Int64
            /// By reason, the largest first (in `difference`: each reason's change).
            public var refused: [SessionLine.Refusal]
            public var gameSeconds: Int64
            public init(points: Int64, learningCreditedSeconds: Int64, learningRefusedSeconds: Int64, refused: [SessionLine.Refusal], gameSeconds: Int64) {
                self.points = points; self.learningCreditedSeconds = learningCreditedSeconds; self.learningRefusedSeconds = learningRefusedSeconds
                self.refused = refused; self.gameSeconds = gameSeconds
            }
        }

        public init(day: String, old: Figures, new: Figures, difference: Figures) {
            self.day = day; self.old = old; self.new = new; self.difference = difference
        }
    }

    /// A child's request for game time, as `stctl requests` shows it.
    public struct RequestLine: Codable, Sendable, Equatable {
        /// System mode: whose request it is.
        public var child: String?
        public var id: String
        public var at: String
        public var minutes: Int64
        /// The child's words.
        public var reason: String?
        /// pending, approved, denied, expired, refused
        public var state: String
        /// Pending: when it expires unanswered.
        public var expiresAt: String?
        /// Approved: `points` or `gift`, and the minutes given.
        public var pay: String?
        public var minutesGranted: Int64?
        public var decidedAt: String?
        public var by: String?
        /// The parent's words.
        public var answer: String?
        /// The minutes asked for are screen time (absent: game time).
        public var screen: Bool? = nil

        public init(child: String?, id: String, at: String, minutes: Int64, reason: String?, state: String, expiresAt: String?,
                    pay: String?, minutesGranted: Int64?, decidedAt: String?, by: String?, answer: String?) {
            self.child = child; self.id = id; self.at = at; self.minutes = minutes; self.reason = reason; self.state = state
            self.expiresAt = expiresAt; self.pay = pay; self.minutesGranted = minutesGranted; self.decidedAt = decidedAt
            self.by = by; self.answer = answer
        }
    }

    /// A chore and where it stands this period (or an older claim still waiting), as `stctl chores` shows it.
    public struct ChoreLine: Codable, Sendable, Equatable {
        public var child: String?
        public var chore: String
        public var points: Int64
        /// "every day", "once a week", "once", "on mon, thu"
        public var every: String
        /// open (may be claimed now), pending (claimed, waits for a parent), approved, rejected
        /// (may be claimed again), not_due (not today, or done this period)
        public var state: String
        /// Why it may not be claimed now, in words.
        public var note: String?
        public var claimedAt: String?
        public var decidedAt: String?
        public var by: String?
        public var answer: String?

        public init(child: String?, chore: String, points: Int64, every: String, state: String, note: String?,
                    claimedAt: String?, decidedAt: String?, by: String?, answer: String?) {
            self.child = child; self.chore = chore; self.points = points; self.every = every; self.state = state; self.note = note
            self.claimedAt = claimedAt; self.decidedAt = decidedAt; self.by = by; self.answer = answer
        }
    }

    public struct Status: Codable, Sendable, Equatable {
        public var balance: Int64
        /// Reward time that can be used from now on without a break: the least of redeemed
        /// minutes, today's and this week's limits, and the allowed hours now.
        public var rewardAvailableSeconds: Int64
        /// Redeemed minutes not used or expired yet.
        public var rewardRemainingSeconds: Int64
        /// What can still be played today: redeemed minutes, limits and the hours left today.
        public var rewardTodayRemainingSeconds: Int64
        public var rewardUsedTodaySeconds: Int64
        /// Learning credited today, and the points it earned.
        public var learningTodaySeconds: Int64
        public var pointsToday: Int64
        public var pointsPerRewardMinute: Int64
        /// The app in the focused window as the policy names it, its category, and how it counts
        /// in words; nil when nothing (or nothing the policy names) is focused.
        public var currentApp: String?
        public var currentCategory: String?
        public var currentCounts: String?
        /// With `[[sites]]`: the host in the focused browser window's tab, as its extension
        /// reported it (nil: no reporting browser in front, or no web page in its tab).
        public var currentSite: String? = nil
        /// With `current_app`: false when it is a copy the policy does not trust (its learning
        /// earns nothing); `current_counts` in words, for readers in other languages
        /// (`ChildWords.counts`).
        public var currentTrusted: Bool? = nil
        /// What the daemon observes right now.
        public var observers: Observers
        /// The desktop hooks connected now ("x11", "sway").
        public var hooks: [String]
        /// What the daemon cannot see, in English ("no desktop hook: learning is not credited").
        public var blindSpots: [String]
        /// The same, each a code and its figures, for a reader to say in its own words (nil:
        /// none, or a daemon older than the codes).
        public var blindSpotCodes: [BlindSpot]? = nil
        /// The last things the child was told (warnings, stops, points), newest last: for the
        /// GNOME Shell extension, which shows those the daemon could not show itself.
        public var notices: [Notice]? = nil
        /// The `[[schedules]]` entry in force today (nil: none).
        public var schedule: String? = nil
        /// With a `daily_goal`: the goal, and the days in a row it was met (today once it is).
        public var goalSeconds: Int64? = nil
        public var streakDays: Int64? = nil
        /// Each reward app with a limit of its own or its group's: game time left today (nil: none has).
        public var appTimeLeft: [AppTime]? = nil

        public struct AppTime: Codable, Sendable, Equatable {
            public var app: String
            public var seconds: Int64
            public init(app: String, seconds: Int64) { self.app = app; self.seconds = seconds }
        }
        /// With a `daily_allowance`: what is left of today's, and how much it is.
        public var allowanceLeftSeconds: Int64? = nil
        public var allowanceTodaySeconds: Int64? = nil
        /// Requests pending, and those answered today (nil: none).
        public var requests: [RequestLine]? = nil
        /// Chore claims waiting for a parent, or answered today (nil: none).
        public var chores: [ChoreLine]? = nil
        /// The family database this child's ledger is shared through (nil: none; docs/household.md).
        public var household: Household? = nil
        /// Bonus time left today (nil: none was given today).
        public var bonusLeftSeconds: Int64? = nil
        /// Games are stopped by a parent until then (RFC 3339; nil: they are not).
        public var gamesStoppedUntil: String? = nil
        /// The moment these figures are for (RFC 3339, the daemon's clock), and which of them run
        /// on from it while nothing else happens: game time left goes down by the second while a
        /// game counts (`reward_counting`), learning today goes up while learning counts
        /// (`learning_counting`). A client counts from `as_of` between two answers.
        public var asOf: String? = nil
        public var rewardCounting: Bool? = nil
        public var learningCounting: Bool? = nil
        /// Screen time, the computer as a whole (nil: the policy has no `[screen]`; docs/spec/screen.md).
        public var screen: Screen? = nil
        /// The policy lets the child redeem points for game time (`child_may_redeem`; nil: it does
        /// not), for the GNOME Shell extension's menu.
        public var childMayRedeem: Bool? = nil

        public struct Screen: Codable, Sendable, Equatable {
            /// Counted today; today's limit and the bonus a parent gave (seconds).
            public var usedTodaySeconds: Int64
            public var dailyLimitSeconds: Int64?
            public var bonusSeconds: Int64
            /// What is left now, and what bounds it: `screen_daily_limit`, `screen_weekly_limit` or
            /// `bedtime` (both nil: no limit holds now, or a free day).
            public var leftSeconds: Int64?
            public var limit: String?
            /// When today's allowed hours end (RFC 3339; nil: any hour).
            public var bedtime: String?
            public var freeDay: Bool
            /// Screen time counts now (a client counts `left_seconds` down from `as_of` while it does).
            public var counting: Bool
            /// The child's login sessions present (logind's ids).
            public var sessions: [String]
            public init(usedTodaySeconds: Int64, dailyLimitSeconds: Int64?, bonusSeconds: Int64, leftSeconds: Int64?, limit: String?,
                        bedtime: String?, freeDay: Bool, counting: Bool, sessions: [String]) {
                self.usedTodaySeconds = usedTodaySeconds; self.dailyLimitSeconds = dailyLimitSeconds; self.bonusSeconds = bonusSeconds
                self.leftSeconds = leftSeconds; self.limit = limit; self.bedtime = bedtime; self.freeDay = freeDay
                self.counting = counting; self.sessions = sessions
            }
        }

        public struct Household: Codable, Sendable, Equatable {
            /// This computer's name, and the child's, in the family ledger.
            public var machine: String
            public var child: String
            /// The family database answered the last time it was asked.
            public var reachable: Bool
            /// Since when it has not (RFC 3339), and why.
            public var unreachableSince: String?
            public var problem: String?
            /// This computer's ledger entries the family ledger has not got yet.
            public var unsent: Int64
            /// The family ledger's entries read here (its last entry's number).
            public var readThrough: Int64
            public init(machine: String, child: String, reachable: Bool, unreachableSince: String?, problem: String?, unsent: Int64, readThrough: Int64) {
                self.machine = machine; self.child = child; self.reachable = reachable; self.unreachableSince = unreachableSince
                self.problem = problem; self.unsent = unsent; self.readThrough = readThrough
            }
        }

        /// One thing the child was told. `id` grows by one for each (from the daemon's start);
        /// `shown`: the daemon showed it as a desktop notification itself.
        public struct Notice: Codable, Sendable, Equatable {
            public var id: Int64
            public var summary: String
            public var body: String
            public var urgency: String
            public var shown: Bool
            /// A warning's button, "Ask for 15 more minutes" (nil: none): pressed, the child's `ask`
            /// of these minutes, game time or (`screen`) screen time. For the GNOME Shell
            /// extension, which shows the button on a notice the daemon could not show itself.
            public var ask: Ask? = nil

            public struct Ask: Codable, Sendable, Equatable {
                public var minutes: Int64
                public var screen: Bool
                public init(minutes: Int64, screen: Bool) { self.minutes = minutes; self.screen = screen }
            }

            public init(id: Int64, summary: String, body: String, urgency: String, shown: Bool, ask: Ask? = nil) {
                self.id = id; self.summary = summary; self.body = body; self.urgency = urgency; self.shown = shown; self.ask = ask
            }
        }

        public struct Observers: Codable, Sendable, Equatable {
            public var proc: Bool
            public var logind: Bool
            public var focusHook: Bool
            public var notifications: Bool
            public init(proc: Bool, logind: Bool, focusHook: Bool, notifications: Bool) {
                self.proc = proc; self.logind = logind; self.focusHook = focusHook; self.notifications = notifications
            }
        }

        /// As the synthesized encoder, but with `null` for an absent app (the protocol names the keys).
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(balance, forKey: .balance)
            try c.encode(rewardAvailableSeconds, forKey: .rewardAvailableSeconds)
            try c.encode(rewardRemainingSeconds, forKey: .rewardRemainingSeconds)
            try c.encode(rewardTodayRemainingSeconds, forKey: .rewardTodayRemainingSeconds)
            try c.encode(rewardUsedTodaySeconds, forKey: .rewardUsedTodaySeconds)
            try c.encode(learningTodaySeconds, forKey: .learningTodaySeconds)
            try c.encode(pointsToday, forKey: .pointsToday)
            try c.encode(pointsPerRewardMinute, forKey: .pointsPerRewardMinute)
            try c.encode(currentApp, forKey: .currentApp)
            try c.encode(currentCategory, forKey: .currentCategory)
            try c.encode(currentCounts, forKey: .currentCounts)
            try c.encodeIfPresent(currentSite, forKey: .currentSite)
            try c.encodeIfPresent(currentTrusted, forKey: .currentTrusted)
            try c.encode(observers, forKey: .observers)
            try c.encode(hooks, forKey: .hooks)
            try c.encode(blindSpots, forKey: .blindSpots)
            try c.encodeIfPresent(blindSpotCodes, forKey: .blindSpotCodes)
            try c.encodeIfPresent(notices, forKey: .notices)
            try c.encodeIfPresent(schedule, forKey: .schedule)
            try c.encodeIfPresent(goalSeconds, forKey: .goalSeconds)
            try c.encodeIfPresent(streakDays, forKey: .streakDays)
            try c.encodeIfPresent(appTimeLeft, forKey: .appTimeLeft)
            try c.encodeIfPresent(allowanceLeftSeconds, forKey: .allowanceLeftSeconds)
            try c.encodeIfPresent(allowanceTodaySeconds, forKey: .allowanceTodaySeconds)
            try c.encodeIfPresent(requests, forKey: .requests)
            try c.encodeIfPresent(chores, forKey: .chores)
            try c.encodeIfPresent(household, forKey: .household)
            try c.encodeIfPresent(bonusLeftSeconds, forKey: .bonusLeftSeconds)
            try c.encodeIfPresent(gamesStoppedUntil, forKey: .gamesStoppedUntil)
            try c.encodeIfPresent(asOf, forKey: .asOf)
            try c.encodeIfPresent(rewardCounting, forKey: .rewardCounting)
            try c.encodeIfPresent(learningCounting, forKey: .learningCounting)
            try c.encodeIfPresent(screen, forKey: .screen)
            try c.encodeIfPresent(childMayRedeem, forKey: .childMayRedeem)
        }

        public init(balance: Int64, rewardAvailableSeconds: Int64, rewardRemainingSeconds: Int64, rewardTodayRemainingSeconds: Int64,
                    rewardUsedTodaySeconds: Int64, learningTodaySeconds: Int64, pointsToday: Int64, pointsPerRewardMinute: Int64,
                    currentApp: String?, currentCategory: String?, currentCounts: String?, observers: Observers, hooks: [String],
                    blindSpots: [String]) {
            self.balance = balance
            self.rewardAvailableSeconds = rewardAvailableSeconds
            self.rewardRemainingSeconds = rewardRemainingSeconds
            self.rewardTodayRemainingSeconds = rewardTodayRemainingSeconds
            self.rewardUsedTodaySeconds = rewardUsedTodaySeconds
            self.learningTodaySeconds = learningTodaySeconds
            self.pointsToday = pointsToday
            self.pointsPerRewardMinute = pointsPerRewardMinute
            self.currentApp = currentApp
            self.currentCategory = currentCategory
            self.currentCounts = currentCounts
            self.observers = observers
            self.hooks = hooks
            self.blindSpots = blindSpots
        }
    }
}

/// Splits a byte stream into lines; a line longer than the frame limit is an error.
public struct FrameReader: Sendable {
    private var pending: [UInt8] = []
    public private(set) var overflowed = false
    /// The longest line taken: the daemon reads requests of at most `ControlProtocol.maxFrame`;
    /// stctl takes longer replies (an export).
    let maxFrame: Int

    public init(maxFrame: Int = ControlProtocol.maxFrame) { self.maxFrame = maxFrame }

    /// Adds bytes; returns the complete lines. After an overflow it returns nothing more.
    public mutating func append(_ bytes: [UInt8]) -> [[UInt8]] {
        guard !overflowed else { return [] }
        pending += bytes
        var lines: [[UInt8]] = []
        // Many lines may come in one read (a hook's burst): cut them out, then drop them at once.
        var start = pending.startIndex
        defer { pending.removeSubrange(..<start) }
        while let nl = pending[start...].firstIndex(of: 10) {
            guard nl - start <= maxFrame else { overflowed = true; return lines }
            lines.append(Array(pending[start..<nl]))
            start = nl + 1
        }
        if pending.count - start > maxFrame { overflowed = true }
        return lines
    }
}
