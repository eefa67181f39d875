import FoundationEssentials
import Glibc
import ScreenTimeCore
import ScreenTimeWords

/// A policy that cannot be used, with every problem found: `policy.toml:14: unknown key
/// 'daily_limt' in [rewards] (did you mean 'daily_limit'?)`.
public struct PolicyError: Error, CustomStringConvertible, Sendable {
    public struct Problem: Sendable, Equatable {
        public var line: Int
        public var message: String
    }

    public var file: String
    public var problems: [Problem]

    public var description: String {
        problems.map { "\(file):\($0.line): \($0.message)" }.joined(separator: "\n")
    }
}

/// Reads a parent's policy file (`docs/spec/policy.md`) into the engine's validated `Policy`.
public enum PolicyLoader {
    /// `tr`: the language of the problems' messages (English for the daemon's journal).
    public static func load(path: String, tr: Translator = .english) throws(PolicyError) -> Policy {
        try loadWithText(path: path, tr: tr).policy
    }

    /// The policy and the text it was read from (the store keeps the text), from one read of the file.
    public static func loadWithText(path: String, tr: Translator = .english) throws(PolicyError) -> (policy: Policy, text: String) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let data = FileManager.default.contents(atPath: path) else {
            let why = FileManager.default.fileExists(atPath: path) ? tr("cannot be read (check its permissions)") : tr("no such file")
            throw PolicyError(file: path, problems: [.init(line: 0, message: why)])
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw PolicyError(file: name, problems: [.init(line: 1, message: tr("the file is not UTF-8 text"))])
        }
        return (try parse(text, file: path, tr: tr), text)
    }

    /// `systemZone`: the zone to use when the policy names none (the system's, never `TZ`); `tr`:
    /// the language of the problems' messages.
    public static func parse(_ text: String, file: String = "policy.toml",
                             systemZone: @autoclosure () -> Zone = SystemTimeZone.current(),
                             tr: Translator = .english) throws(PolicyError) -> Policy {
        let text = unixLineEnds(text)
        let root: TOMLNode
        do { root = try TOMLDocument.parse(text, tr: tr) } catch {
            throw PolicyError(file: file, problems: [.init(line: error.line, message: error.message)])
        }
        var reader = PolicyReader(lines: KeyLines(text), tr: tr)
        let policy = reader.read(root, systemZone: systemZone)
        guard let policy, reader.problems.isEmpty else {
            throw PolicyError(file: file, problems: reader.problems.sorted { $0.line < $1.line })
        }
        return policy
    }

    /// The line a key is written on in a policy's text (`parents.users`, `apps[2].name`), else
    /// that of its table; nil when neither is written.
    public static func line(of key: String, in text: String) -> Int? {
        KeyLines(unixLineEnds(text)).line(of: key)
    }

    /// The text with every line ending in "\n": a browser's text box sends "\r\n", and an old Mac
    /// editor a lone "\r". Swift takes "\r\n" for one character, not for "\n", so without this
    /// every line of such a file is line 1. TOML lets a parser normalize the line ends inside a
    /// multi-line string and refuses a lone "\r" anywhere else, so no good policy changes meaning.
    static func unixLineEnds(_ text: String) -> String {
        guard text.utf8.contains(13) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var afterCR = false
        for b in text.utf8 {
            if b == 10, afterCR { afterCR = false; continue }     // the "\n" of "\r\n"
            afterCR = b == 13
            out.append(b == 13 ? 10 : b)
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Walks the TOML tree, checking every key and value, and collects every problem with its line.
struct PolicyReader {
    let lines: KeyLines
    /// The language of the problems' messages.
    let tr: Translator
    private(set) var problems: [PolicyError.Problem] = []

    init(lines: KeyLines, tr: Translator = .english) { self.lines = lines; self.tr = tr }

    /// `problem` with ` (did you mean 'x'?)` after it when one of `candidates` is close to `word`.
    private func near(_ problem: String, _ word: String, among candidates: [String]) -> String {
        guard let close = closest(to: word, among: candidates) else { return problem }
        return tr("{problem} (did you mean '{word}'?)", ["problem": problem, "word": close])
    }

    private mutating func problem(_ path: String, _ message: String) {
        problems.append(.init(line: lines.line(of: path) ?? 1, message: message))
    }

    /// Checks a table's keys against the known ones; returns its entries by key. `label`: the
    /// table as the policy writes it (`[rewards]`, `[[apps]]`), empty for the top.
    private mutating func fields(_ node: TOMLNode, at path: String, known: [String], label: String) -> [String: TOMLNode] {
        guard case .table(let entries) = node else {
            problem(path, tr("'{key}' must be a table, not {found}", ["key": path, "found": node.typeName(tr)]))
            return [:]
        }
        var out: [String: TOMLNode] = [:]
        for (key, value) in entries {
            if known.contains(key) {
                out[key] = value
            } else {
                let unknown = label.isEmpty ? tr("unknown key '{key}'", ["key": key]) : tr("unknown key '{key}' in {table}", ["key": key, "table": label])
                problem(join(path, key), near(unknown, key, among: known))
            }
        }
        return out
    }

    private func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : path + "." + key }

    // MARK: Typed values

    private mutating func string(_ f: [String: TOMLNode], _ key: String, _ path: String) -> String? {
        guard let v = f[key] else { return nil }
        guard case .string(let s) = v else { problem(join(path, key), tr("'{key}' must be a string, not {found}", ["key": key, "found": v.typeName(tr)])); return nil }
        return s
    }

    private mutating func integer(_ f: [String: TOMLNode], _ key: String, _ path: String, min: Int, max: Int = 1_000_000) -> Int64? {
        guard let v = f[key] else { return nil }
        guard case .integer(let i) = v else {
            problem(join(path, key), tr("'{key}' must be a whole number, not {found}", ["key": key, "found": v.typeName(tr)]))
            return nil
        }
        guard i >= min, i <= max else {
            problem(join(path, key), tr("'{key}' must be from {min} to {max}, not {value}", ["key": key, "min": "\(min)", "max": "\(max)", "value": "\(i)"]))
            return nil
        }
        return Int64(i)
    }

    /// A duration such as "90s", "10m", "2h", "7d".
    private mutating func duration(_ f: [String: TOMLNode], _ key: String, _ path: String, allowZero: Bool = false) -> Microseconds? {
        guard let v = f[key] else { return nil }
        guard case .string(let s) = v else {
            problem(join(path, key), tr("'{key}' must be a duration in quotes such as \"10m\", not {found}", ["key": key, "found": v.typeName(tr)]))
            return nil
        }
        return durationValue(s, key: key, path: join(path, key), allowZero: allowZero)
    }

    private mutating func durationValue(_ s: String, key: String, path: String, allowZero: Bool) -> Microseconds? {
        guard let d = DurationText.parse(s) else {
            problem(path, tr("'{key}' is not a duration: \"{value}\" (write it like \"90s\", \"10m\", \"2h\" or \"7d\")", ["key": key, "value": s]))
            return nil
        }
        guard d > 0 || allowZero else { problem(path, tr("'{key}' must be longer than zero", ["key": key])); return nil }
        return d
    }

    private mutating func boolean(_ f: [String: TOMLNode], _ key: String, _ path: String) -> Bool? {
        guard let v = f[key] else { return nil }
        guard case .boolean(let b) = v else { problem(join(path, key), tr("'{key}' must be true or false, not {found}", ["key": key, "found": v.typeName(tr)])); return nil }
        return b
    }

    private mutating func stringList(_ f: [String: TOMLNode], _ key: String, _ path: String) -> [String]? {
        guard let v = f[key] else { return nil }
        if case .string(let s) = v { return [s] }
        guard case .array(let items) = v else {
            problem(join(path, key), tr("'{key}' must be a list of strings, not {found}", ["key": key, "found": v.typeName(tr)]))
            return nil
        }
        var out: [String] = []
        for item in items {
            guard case .string(let s) = item else {
                problem(join(path, key), tr("'{key}' must be a list of strings, but holds {found}", ["key": key, "found": item.typeName(tr)]))
                return nil
            }
            out.append(s)
        }
        return out
    }

    private mutating func choice<T: RawRepresentable>(_ f: [String: TOMLNode], _ key: String, _ path: String, _ type: T.Type,
                                                      options: [String]) -> T? where T.RawValue == String {
        guard let s = string(f, key, path) else { return nil }
        guard let v = T(rawValue: s) else {
            problem(join(path, key), near(tr("'{key}' must be one of {options}, not \"{value}\"", ["key": key, "options": options.joined(separator: ", "), "value": s]),
                                         s, among: options))
            return nil
        }
        return v
    }

    // MARK: The policy

    mutating func read(_ root: TOMLNode, systemZone: () -> Zone) -> Policy? {
        let top = fields(root, at: "", known: ["version", "timezone", "points", "rewards", "validation", "enforcement", "parents", "apps",
                                                     "requests", "chores", "schedules", "groups", "privacy", "household", "screen",
                                                     "sites", "browsers"], label: "")
        if let v = top["version"] {
            if case .integer(let n) = v, n == 1 {} else {
                problem("version", tr("this screentime reads policy version 1; the file says version = {found}", ["found": v.typeNameOrValue(tr)]))
            }
        } else {
            problems.append(.init(line: 1, message: tr("missing 'version = 1' at the top of the policy")))
        }

        var zone = Zone.utc
        if let name = string(top, "timezone", "") {
            switch ZoneInfo.zone(named: name) {
            case .success(let z):
                zone = z
            case .failure(.unknown):
                let names = ZoneInfo.names()
                if let inside = names.first(where: { $0.hasPrefix(name + "/") }) {
                    problem("timezone", tr("unknown time zone \"{name}\": it is a folder of zones (use one inside it, such as \"{zone}\")", ["name": name, "zone": inside]))
                } else {
                    problem("timezone", closest(to: name, among: names) != nil
                            ? near(tr("unknown time zone \"{name}\"", ["name": name]), name, among: names)
                            : tr("unknown time zone \"{name}\" (use a name from {folder}, such as \"Europe/Berlin\")", ["name": name, "folder": ZoneInfo.folder]))
                }
            case .failure(.unreadable(let path, nil)):
                problem("timezone", tr("time zone \"{name}\" cannot be read: {path} cannot be read (Debian's tzdata package provides the zones: apt-get install --reinstall tzdata)", ["name": name, "path": path]))
            case .failure(.unreadable(let path, let why?)):
                problem("timezone", tr("time zone \"{name}\" cannot be read: {path}: {why} (Debian's tzdata package provides the zones: apt-get install --reinstall tzdata)", ["name": name, "path": path, "why": why]))
            }
        } else {
            zone = systemZone()
        }

        let validation = readValidation(top["validation"])
        let defaults = Policy.Validation.defaults(validation.strictness)
        let points = readPoints(top["points"], defaultCap: defaults.dailyLearningCap)
        let rewards = readRewards(top["rewards"], defaultCountsWhile: defaults.countsWhile)
        let enforcement = readEnforcement(top["enforcement"])
        let parents = readParents(top["parents"])
        let groups = readGroups(top["groups"])
        let apps = readApps(top["apps"], groups: groups)
        let requests = readRequests(top["requests"])
        let chores = readChores(top["chores"])
        let schedules = readSchedules(top["schedules"])
        let privacy = top["privacy"].map { fields($0, at: "privacy", known: ["keep_titles"], label: "[privacy]") } ?? [:]
        let keepTitles = boolean(privacy, "keep_titles", "privacy") ?? false
        let household = top["household"].flatMap { readHousehold($0) }
        let screen = readScreen(top["screen"], enforcement: enforcement)
        let sites = readSites(top["sites"], groups: groups, apps: apps)
        let browsers = top["browsers"].map { readBrowsers($0) } ?? (sites.isEmpty ? nil : Policy.Browsers())
        // With sites followed, a browser's time is its sites': an [[apps]] entry for it would count it whole.
        if let browsers {
            for (i, app) in apps.enumerated() {
                guard let exe = app.exe.compactMap(\.literalPath).first(where: { p in browsers.exe.contains { $0.matches(p) } }) else { continue }
                problem("apps[\(i)].exe", tr("\"{name}\" names the browser {exe}: with [[sites]] or [browsers], a browser's time is the sites it shows; remove this [[apps]] entry", ["name": app.name, "exe": exe]))
            }
        }

        guard problems.isEmpty else { return nil }
        var policy = Policy(timeZone: zone, points: points, rewards: rewards, validation: validation,
                            enforcement: enforcement, parents: parents, apps: apps, requests: requests, chores: chores, schedules: schedules,
                            groups: groups, keepTitles: keepTitles)
        policy.household = household
        policy.screen = screen
        if let browsers { policy.follow(sites: sites, browsers: browsers) }
        if schedules.contains(where: { $0.screenDailyLimit != nil || $0.screenAllowedHours != nil }) { policy.screen.configured = true }
        return policy
    }

    /// The role a `postgresql://ROLE[:…]@HOST/DATABASE` URL logs in as, percent-decoded; nil when it names none.
    static func role(inDatabaseURL url: String) -> String? {
        let bytes = Array(url.utf8)
        guard let scheme = (0..<max(0, bytes.count - 2)).first(where: { bytes[$0] == 58 && bytes[$0 + 1] == 47 && bytes[$0 + 2] == 47 }) else { return nil }
        let authority = bytes[(scheme + 3)...].prefix { $0 != 47 }                    // up to "/"
        guard let at = authority.lastIndex(of: 64) else { return nil }                 // "@"
        let user = authority[..<at].prefix { $0 != 58 }                                // before ":"
        // %XX decoded (a role may hold any character); a malformed escape is kept as written.
        var out: [UInt8] = []
        var k = user.startIndex
        while k < user.endIndex {
            if user[k] == 37, k + 2 < user.endIndex, let v = UInt8(String(decoding: user[(k + 1)...(k + 2)], as: UTF8.self), radix: 16) {
                out.append(v); k += 3
            } else {
                out.append(user[k]); k += 1
            }
        }
        return out.isEmpty ? nil : String(decoding: out, as: UTF8.self)
    }

    /// `[household]`: the family database (docs/household.md).
    private mutating func readHousehold(_ node: TOMLNode) -> Policy.Household? {
        let f = fields(node, at: "household", known: ["database", "credentials", "machine", "child", "ca_file"], label: "[household]")
        let database = string(f, "database", "household")
        let credentials = string(f, "credentials", "household")
        var machine = string(f, "machine", "household")
        let child = string(f, "child", "household")
        let ca = string(f, "ca_file", "household")
        if f["database"] == nil { problem("household", tr("[household] needs 'database', the family database's URL (postgresql://ROLE@HOST/DATABASE)")) }
        if f["credentials"] == nil { problem("household", tr("[household] needs 'credentials', the file that holds the database role's password")) }
        // The family database records each entry by the role that logged in (issue 36): this
        // computer's name in the family is its role, and 'machine' may only repeat it.
        let role = database.flatMap(Self.role(inDatabaseURL:))
        if let d = database, role == nil, d.hasPrefix("postgres") {
            problem("household.database", tr("'database' must name this computer's role: postgresql://ROLE@HOST[:PORT]/DATABASE, not \"{value}\"", ["value": d]))
        }
        if let d = database, !(d.hasPrefix("postgresql://") || d.hasPrefix("postgres://")) {
            problem("household.database", tr("'database' must be a PostgreSQL URL (postgresql://ROLE@HOST[:PORT]/DATABASE), not \"{value}\"", ["value": d]))
        } else if let d = database, d.split(separator: "/", maxSplits: 3).dropFirst().first.map({ $0.contains("@") && $0.split(separator: "@")[0].contains(":") }) == true {
            problem("household.database", tr("'database' must not hold the password: put it in the 'credentials' file (readable by root only)"))
        }
        for (key, value) in [("credentials", credentials), ("ca_file", ca)] {
            if let v = value, !v.hasPrefix("/") { problem("household.\(key)", tr("'{key}' must be an absolute path, not \"{value}\"", ["key": key, "value": v])) }
        }
        var named = true
        for (key, value) in [("machine", machine), ("child", child)] {
            if let v = value, v.isEmpty || v.utf8.count > 64 || v.contains(where: { $0.isNewline || $0 == "|" }) {
                problem("household.\(key)", tr("'{key}' must be 1 to 64 characters, without '|' or line breaks", ["key": key]))
                if key == "machine" { named = false }
            }
        }
        if named, let m = machine, let role, m != role {
            problem("household.machine", tr("'machine' is \"{machine}\", but this computer logs in to the family database as \"{role}\", and the database records its entries under that name: leave 'machine' out, or make it \"{role}\"", ["machine": m, "role": role]))
        }
        if machine == nil { machine = role }
        guard let database, let credentials, let machine else { return nil }
        return Policy.Household(database: database, credentials: credentials, machine: machine, child: child, caFile: ca)
    }

    private mutating func readPoints(_ node: TOMLNode?, defaultCap: Microseconds) -> Policy.Points {
        let f = node.map { fields($0, at: "points", known: ["learning_per_hour", "per_reward_minute", "daily_learning_cap", "daily_goal",
                                                          "streak_bonus_days", "streak_bonus_points"], label: "[points]") } ?? [:]
        let goal = duration(f, "daily_goal", "points")
        let days = integer(f, "streak_bonus_days", "points", min: 1, max: 366).map { Int($0) }
        let bonus = integer(f, "streak_bonus_points", "points", min: 1)
        if (days != nil || bonus != nil) && goal == nil && f["daily_goal"] == nil {
            problem(f["streak_bonus_days"] != nil ? "points.streak_bonus_days" : "points.streak_bonus_points",
                    tr("a streak bonus needs a 'daily_goal' in [points]: the streak counts days that met it"))
        }
        if f["streak_bonus_points"] != nil && f["streak_bonus_days"] == nil {
            problem("points.streak_bonus_points", tr("'streak_bonus_points' needs 'streak_bonus_days' (every how many days in a row it is paid)"))
        }
        if f["streak_bonus_days"] != nil && f["streak_bonus_points"] == nil {
            problem("points.streak_bonus_days", tr("'streak_bonus_days' needs 'streak_bonus_points' (what the bonus pays)"))
        }
        return Policy.Points(
            learningPerHour: integer(f, "learning_per_hour", "points", min: 1) ?? 60,
            perRewardMinute: integer(f, "per_reward_minute", "points", min: 1) ?? 2,
            dailyLearningCap: duration(f, "daily_learning_cap", "points", allowZero: true) ?? defaultCap,
            dailyGoal: goal, streakBonusDays: days, streakBonusPoints: bonus)
    }

    private mutating func readRewards(_ node: TOMLNode?, defaultCountsWhile: Policy.CountsWhile) -> Policy.Rewards {
        let f = node.map { fields($0, at: "rewards", known: ["daily_limit", "weekly_limit", "allowed_hours", "redemption_expires_after", "counts_while", "unknown_apps",
                                                                  "daily_allowance", "child_may_redeem", "child_redeem_daily_max"], label: "[rewards]") } ?? [:]
        let hours = hourWindows(f, "rewards")
        return Policy.Rewards(
            dailyLimit: duration(f, "daily_limit", "rewards", allowZero: true),
            weeklyLimit: duration(f, "weekly_limit", "rewards", allowZero: true),
            allowedHours: hours,
            redemptionExpiresAfter: duration(f, "redemption_expires_after", "rewards"),
            countsWhile: choice(f, "counts_while", "rewards", Policy.CountsWhile.self, options: ["running", "focused"]) ?? defaultCountsWhile,
            unknownApps: choice(f, "unknown_apps", "rewards", Policy.UnknownApps.self, options: ["neutral", "reward"]) ?? .neutral,
            dailyAllowance: duration(f, "daily_allowance", "rewards", allowZero: true),
            childMayRedeem: boolean(f, "child_may_redeem", "rewards") ?? false,
            childRedeemDailyMax: duration(f, "child_redeem_daily_max", "rewards", allowZero: true))
    }

    /// `allowed_hours` (or `key`) of a table: sorted windows that do not overlap.
    private mutating func hourWindows(_ f: [String: TOMLNode], _ path: String, key: String = "allowed_hours") -> [HourWindow]? {
        guard let texts = stringList(f, key, path) else { return nil }
        var windows: [HourWindow] = []
        for t in texts {
            guard let w = HourWindow.parse(t) else {
                problem(join(path, key), tr("'{key}' has \"{value}\", which is not a time window like \"14:00-20:00\" (HH:MM-HH:MM, start before end, \"24:00\" ends the day)", ["key": key, "value": t]))
                continue
            }
            windows.append(w)
        }
        windows.sort { $0.startMinute < $1.startMinute }
        for (a, b) in zip(windows, windows.dropFirst()) where b.startMinute < a.endMinute {
            problem(join(path, key), tr("'{key}' windows \"{first}\" and \"{second}\" overlap", ["key": key, "first": a.text, "second": b.text]))
        }
        return windows
    }

    /// `[screen]` (docs/spec/screen.md): screen time and bedtime for the computer as a whole.
    private mutating func readScreen(_ node: TOMLNode?, enforcement: Policy.Enforcement) -> Policy.Screen {
        guard let node else { return Policy.Screen(warnBefore: enforcement.warnBefore) }
        let f = fields(node, at: "screen", known: ["daily_limit", "weekly_limit", "allowed_hours", "learning_counts", "warn_before", "action",
                                                     "grace", "relocks"], label: "[screen]")
        var warn = enforcement.warnBefore
        if let texts = stringList(f, "warn_before", "screen") {
            warn = texts.compactMap { durationValue($0, key: "warn_before", path: "screen.warn_before", allowZero: false) }
        }
        let daily = duration(f, "daily_limit", "screen", allowZero: true)
        let weekly = duration(f, "weekly_limit", "screen", allowZero: true)
        if let daily, let weekly, daily > weekly {
            problem("screen.daily_limit", tr("the daily screen limit is more than the weekly one: lower daily_limit, or raise weekly_limit"))
        }
        var screen = Policy.Screen(dailyLimit: daily, weeklyLimit: weekly, allowedHours: hourWindows(f, "screen"),
                             learningCounts: boolean(f, "learning_counts", "screen") ?? false, warnBefore: Array(Set(warn)),
                             action: choice(f, "action", "screen", Policy.Screen.Action.self, options: ["lock", "logout"]) ?? .lock,
                             grace: duration(f, "grace", "screen", allowZero: true) ?? Policy.Screen.defaultGrace,
                             relocks: integer(f, "relocks", "screen", min: 0, max: 100).map { Int($0) } ?? Policy.Screen.defaultRelocks)
        screen.configured = true
        return screen
    }

    private mutating func readSchedules(_ node: TOMLNode?) -> [Schedule] {
        guard let node else { return [] }
        guard case .array(let items) = node else {
            problem("schedules", tr("'{key}' must be written as [[{key}]] tables, not {found}", ["key": "schedules", "found": node.typeName(tr)]))
            return []
        }
        var out: [Schedule] = []
        let known = ["name", "days", "dates", "daily_limit", "allowed_hours", "daily_allowance", "daily_learning_cap",
                     "screen_daily_limit", "screen_allowed_hours"]
        for (i, item) in items.enumerated() {
            let path = "schedules[\(i)]"
            if case .table(let entries) = item, entries.contains(where: { $0.0 == "weekly_limit" }) {
                problem(join(path, "weekly_limit"), tr("'weekly_limit' is never per day: set it in [rewards]"))
            }
            let f = fields(item, at: path, known: known + ["weekly_limit"], label: "[[schedules]]")
            guard let name = string(f, "name", path), !name.allSatisfy(\.isWhitespace) else {
                problem(f["name"] == nil ? path : join(path, "name"), tr("a [[schedules]] entry needs a name (stctl status shows it on its days)"))
                continue
            }
            if out.contains(where: { $0.name == name }) { problem(join(path, "name"), tr("two [[schedules]] entries are named \"{name}\"", ["name": name])) }
            var days: [Weekday] = []
            for d in stringList(f, "days", path) ?? [] {
                guard let w = Weekday(name: d) else {
                    problem(join(path, "days"), near(tr("'days' lists weekdays as mon tue wed thu fri sat sun, not \"{value}\"", ["value": d]), d, among: Weekday.allCases.map(\.name)))
                    continue
                }
                if !days.contains(w) { days.append(w) }
            }
            var dates: [ClosedRange<Int64>] = []
            for d in stringList(f, "dates", path) ?? [] {
                let ends = d.components(separatedBy: "..")
                guard ends.count <= 2, let first = CalendarDate.key(of: ends[0]), let last = ends.count == 2 ? CalendarDate.key(of: ends[1]) : first else {
                    problem(join(path, "dates"), tr("'dates' has \"{value}\", which is not a date like \"2026-12-24\" or a range like \"2026-12-21..2027-01-06\"", ["value": d]))
                    continue
                }
                guard first <= last else {
                    problem(join(path, "dates"), tr("'dates' has \"{value}\", which ends before it starts", ["value": d]))
                    continue
                }
                dates.append(first...last)
            }
            if f["days"] == nil && f["dates"] == nil {
                problem(path, tr("the schedule \"{name}\" holds no day: give 'days' (weekdays) or 'dates'", ["name": name]))
            }
            let setsSomething = ["daily_limit", "allowed_hours", "daily_allowance", "daily_learning_cap", "screen_daily_limit",
                                 "screen_allowed_hours"].contains { f[$0] != nil }
            if !setsSomething {
                problem(path, tr("the schedule \"{name}\" changes nothing: give daily_limit, allowed_hours, daily_allowance, daily_learning_cap, screen_daily_limit or screen_allowed_hours", ["name": name]))
            }
            out.append(Schedule(name: name, days: days.sorted(), dates: dates,
                                dailyLimit: duration(f, "daily_limit", path, allowZero: true), allowedHours: hourWindows(f, path),
                                dailyAllowance: duration(f, "daily_allowance", path, allowZero: true),
                                dailyLearningCap: duration(f, "daily_learning_cap", path, allowZero: true),
                                screenDailyLimit: duration(f, "screen_daily_limit", path, allowZero: true),
                                screenAllowedHours: hourWindows(f, path, key: "screen_allowed_hours")))
        }
        return out
    }

    private mutating func readRequests(_ node: TOMLNode?) -> Policy.Requests {
        let f = node.map { fields($0, at: "requests", known: ["expire_after", "max_per_day"], label: "[requests]") } ?? [:]
        let d = Policy.Requests()
        return Policy.Requests(expireAfter: duration(f, "expire_after", "requests") ?? d.expireAfter,
                               maxPerDay: integer(f, "max_per_day", "requests", min: 0, max: 1000).map { Int($0) } ?? d.maxPerDay)
    }

    private mutating func readChores(_ node: TOMLNode?) -> [Chore] {
        guard let node else { return [] }
        guard case .array(let items) = node else {
            problem("chores", tr("'{key}' must be written as [[{key}]] tables, not {found}", ["key": "chores", "found": node.typeName(tr)]))
            return []
        }
        var out: [Chore] = []
        for (i, item) in items.enumerated() {
            let path = "chores[\(i)]"
            let f = fields(item, at: path, known: ["name", "points", "every"], label: "[[chores]]")
            guard let name = string(f, "name", path), !name.allSatisfy(\.isWhitespace) else {
                if f["name"] == nil { problem(path, tr("a [[chores]] entry needs a name")) } else { problem(join(path, "name"), tr("a chore's name must not be empty")) }
                continue
            }
            if out.contains(where: { $0.name == name }) { problem(join(path, "name"), tr("two [[chores]] entries are named \"{name}\"", ["name": name])) }
            guard f["points"] != nil else { problem(path, tr("the chore \"{name}\" needs 'points' (what it pays when a parent approves it)", ["name": name])); continue }
            guard let points = integer(f, "points", path, min: 1) else { continue }
            var every = Chore.Every.day
            if let v = f["every"] {
                switch v {
                case .string(let s):
                    switch s {
                    case "day": every = .day
                    case "week": every = .week
                    case "once": every = .once
                    default:
                        problem(join(path, "every"), Weekday(name: s) != nil
                                ? tr("'every' must be \"day\", \"week\", \"once\" or a list of weekdays such as [\"mon\", \"thu\"], not \"{value}\" (for weekdays write a list: [\"{value}\"])", ["value": s])
                                : near(tr("'every' must be \"day\", \"week\", \"once\" or a list of weekdays such as [\"mon\", \"thu\"], not \"{value}\"", ["value": s]), s, among: ["day", "week", "once"]))
                        continue
                    }
                case .array(let items):
                    var days: [Weekday] = []
                    var bad = false
                    for item in items {
                        guard case .string(let s) = item, let day = Weekday(name: s) else {
                            if case .string(let s) = item {
                                problem(join(path, "every"), near(tr("'every' lists weekdays as mon tue wed thu fri sat sun, not \"{value}\"", ["value": s]), s, among: Weekday.allCases.map(\.name)))
                            } else {
                                problem(join(path, "every"), tr("'every' lists weekdays as mon tue wed thu fri sat sun, not {found}", ["found": item.typeName(tr)]))
                            }
                            bad = true
                            break
                        }
                        if !days.contains(day) { days.append(day) }
                    }
                    if bad { continue }
                    guard !days.isEmpty else { problem(join(path, "every"), tr("'every' lists no weekday")); continue }
                    every = .weekdays(days.sorted())
                default:
                    problem(join(path, "every"), tr("'every' must be \"day\", \"week\", \"once\" or a list of weekdays, not {found}", ["found": v.typeName(tr)]))
                    continue
                }
            }
            out.append(Chore(name: name, points: points, every: every))
        }
        return out
    }

    private mutating func readValidation(_ node: TOMLNode?) -> Policy.Validation {
        let f = node.map { fields($0, at: "validation", known: ["strictness", "idle_after", "min_session", "min_focus_dwell"], label: "[validation]") } ?? [:]
        let strictness = choice(f, "strictness", "validation", Policy.Strictness.self, options: ["lenient", "moderate", "strict"]) ?? .moderate
        return Policy.Validation(strictness: strictness,
                                 idleAfter: duration(f, "idle_after", "validation"),
                                 minSession: duration(f, "min_session", "validation", allowZero: true),
                                 minFocusDwell: duration(f, "min_focus_dwell", "validation", allowZero: true))
    }

    private mutating func readEnforcement(_ node: TOMLNode?) -> Policy.Enforcement {
        let f = node.map { fields($0, at: "enforcement", known: ["warn_before", "action", "grace"], label: "[enforcement]") } ?? [:]
        var warn: [Microseconds] = [Seconds.of(minutes: 5), Seconds.of(minutes: 1)]
        if let texts = stringList(f, "warn_before", "enforcement") {
            warn = texts.compactMap { durationValue($0, key: "warn_before", path: "enforcement.warn_before", allowZero: false) }
        }
        return Policy.Enforcement(warnBefore: Array(Set(warn)),
                                  action: choice(f, "action", "enforcement", Policy.StopAction.self, options: ["terminate", "pause"]) ?? .terminate,
                                  grace: duration(f, "grace", "enforcement", allowZero: true) ?? Seconds.of(15))
    }

    private mutating func readParents(_ node: TOMLNode?) -> Policy.Parents {
        let f = node.map { fields($0, at: "parents", known: ["users", "groups", "passphrase_hash"], label: "[parents]") } ?? [:]
        let hash = string(f, "passphrase_hash", "parents")
        if let h = hash, !(h.hasPrefix("$y$") || h.hasPrefix("$6$") || h.hasPrefix("$gy$")) {
            problem("parents.passphrase_hash", tr("'passphrase_hash' is not a yescrypt hash (make one with: mkpasswd -m yescrypt)"))
        }
        return Policy.Parents(users: stringList(f, "users", "parents") ?? [], groups: stringList(f, "groups", "parents") ?? [], passphraseHash: hash)
    }

    private mutating func readGroups(_ node: TOMLNode?) -> [RewardGroup] {
        guard let node else { return [] }
        guard case .array(let items) = node else {
            problem("groups", tr("'{key}' must be written as [[{key}]] tables, not {found}", ["key": "groups", "found": node.typeName(tr)]))
            return []
        }
        var out: [RewardGroup] = []
        for (i, item) in items.enumerated() {
            let path = "groups[\(i)]"
            let f = fields(item, at: path, known: ["name", "daily_limit", "weekly_limit"], label: "[[groups]]")
            guard let name = string(f, "name", path), !name.allSatisfy(\.isWhitespace) else {
                problem(f["name"] == nil ? path : join(path, "name"), tr("a [[groups]] entry needs a name (the apps of the group name it with 'group')"))
                continue
            }
            if out.contains(where: { $0.name == name }) { problem(join(path, "name"), tr("two [[groups]] entries are named \"{name}\"", ["name": name])) }
            if f["daily_limit"] == nil && f["weekly_limit"] == nil {
                problem(path, tr("the group \"{name}\" limits nothing: give daily_limit or weekly_limit", ["name": name]))
            }
            out.append(RewardGroup(name: name, dailyLimit: duration(f, "daily_limit", path, allowZero: true),
                                   weeklyLimit: duration(f, "weekly_limit", path, allowZero: true)))
        }
        return out
    }

    /// `[[sites]]` (docs/spec/sites.md): entries like apps, named by their domains.
    private mutating func readSites(_ node: TOMLNode?, groups: [RewardGroup], apps: [AppEntry]) -> [AppEntry] {
        guard let node else { return [] }
        guard case .array(let items) = node else {
            problem("sites", tr("'{key}' must be written as [[{key}]] tables, not {found}", ["key": "sites", "found": node.typeName(tr)]))
            return []
        }
        let suffixes = PublicSuffixList()
        if suffixes == nil {
            problem("sites", tr("the public suffix list {path} cannot be read, so no domain can be checked (Debian's publicsuffix package has it: sudo apt-get install publicsuffix)", ["path": PublicSuffixList.debianPath]))
        }
        var out: [AppEntry] = []
        var names = Set(apps.map(\.name))
        var domains: [String: String] = [:]
        for (i, item) in items.enumerated() {
            let path = "sites[\(i)]"
            let f = fields(item, at: path, known: ["name", "category", "domains", "points_per_hour", "daily_limit", "weekly_limit", "group"],
                           label: "[[sites]]")
            guard let name = string(f, "name", path), !name.isEmpty else {
                if f["name"] == nil { problem(path, tr("a [[sites]] entry needs a name")) }
                continue
            }
            if !names.insert(name).inserted { problem(join(path, "name"), tr("the name \"{name}\" is used twice in [[apps]] and [[sites]]", ["name": name])) }
            if [Policy.unnamedSiteName, Policy.unreportedName, Policy.unknownProgramName].contains(name) {
                problem(join(path, "name"), tr("\"{name}\" is what screentime calls what no entry names: give the site a name of its own", ["name": name]))
            }
            guard f["category"] != nil else { problem(path, tr("the site \"{name}\" needs a category (learning, reward, neutral or blocked)", ["name": name])); continue }
            guard let category = choice(f, "category", path, AppCategory.self, options: AppCategory.allCases.map(\.rawValue)) else { continue }
            let rate = integer(f, "points_per_hour", path, min: 1)
            if rate != nil, category != .learning {
                problem(join(path, "points_per_hour"), tr("'points_per_hour' only applies to learning sites; \"{name}\" is {category}", ["name": name, "category": category.rawValue]))
            }
            for key in ["daily_limit", "weekly_limit", "group"] where f[key] != nil && category != .reward {
                problem(join(path, key), tr("'{key}' only applies to reward sites; \"{name}\" is {category}", ["key": key, "name": name, "category": category.rawValue]))
            }
            let group = string(f, "group", path)
            if let g = group, !groups.contains(where: { $0.name == g }) {
                problem(join(path, "group"), near(tr("no [[groups]] entry is named \"{name}\"", ["name": g]), g, among: groups.map(\.name)))
            }
            guard let list = stringList(f, "domains", path), !list.isEmpty else {
                if f["domains"] == nil { problem(path, tr("the site \"{name}\" needs its domains, such as domains = [\"khanacademy.org\"]", ["name": name])) }
                else { problem(join(path, "domains"), tr("'domains' must name at least one domain")) }
                continue
            }
            var own: [String] = []
            for d in list {
                let domain = d.lowercased()
                guard SiteReport.isHost(domain), !domain.hasPrefix("["), domain.contains(".") else {
                    problem(join(path, "domains"), domain.unicodeScalars.contains { !$0.isASCII }
                            ? tr("\"{value}\" is not a domain: write the name alone, such as \"khanacademy.org\" (no https://, no path, no *: a domain matches the names under it; a name with letters beyond a-z in its xn-- form, as the browser's address bar shows it when copied)", ["value": d])
                            : tr("\"{value}\" is not a domain: write the name alone, such as \"khanacademy.org\" (no https://, no path, no *: a domain matches the names under it)", ["value": d]))
                    continue
                }
                if let suffixes, suffixes.isSuffix(domain) {
                    problem(join(path, "domains"), tr("\"{value}\" is a public suffix: it would name everybody's sites under it; name a domain registered under it", ["value": d]))
                    continue
                }
                if let other = domains[domain] {
                    problem(join(path, "domains"), other == name ? tr("\"{value}\" is named twice", ["value": d]) : tr("\"{value}\" is named by \"{name}\" already", ["value": d, "name": other]))
                    continue
                }
                domains[domain] = name
                own.append(domain)
            }
            out.append(AppEntry(name: name, category: category, pointsPerHour: rate,
                                dailyLimit: duration(f, "daily_limit", path, allowZero: true),
                                weeklyLimit: duration(f, "weekly_limit", path, allowZero: true), group: group,
                                isSite: true, domains: own))
        }
        return out
    }

    /// `[browsers]` (docs/spec/sites.md).
    private mutating func readBrowsers(_ node: TOMLNode) -> Policy.Browsers {
        let f = fields(node, at: "browsers", known: ["exe", "unnamed_sites", "unreported", "report_within"], label: "[browsers]")
        var b = Policy.Browsers()
        if let list = stringList(f, "exe", "browsers") {
            var exe: [ExePattern] = []
            for p in list {
                guard p.hasPrefix("/") else { problem(join("browsers", "exe"), tr("'exe' must hold full paths starting with '/', not \"{value}\"", ["value": p])); continue }
                exe.append(ExePattern(p))
            }
            if list.isEmpty { problem(join("browsers", "exe"), tr("'exe' must name at least one browser")) }
            b.exe = exe
        }
        if let v = choice(f, "unnamed_sites", "browsers", Policy.Browsers.UnnamedSites.self, options: Policy.Browsers.UnnamedSites.allCases.map(\.rawValue)) {
            b.unnamedSites = v
        }
        if let v = choice(f, "unreported", "browsers", Policy.Browsers.Unreported.self, options: Policy.Browsers.Unreported.allCases.map(\.rawValue)) {
            b.unreported = v
        }
        if let d = duration(f, "report_within", "browsers") {
            if d > 5 * 60 * Seconds.micro { problem(join("browsers", "report_within"), tr("'report_within' must be at most 5m: a browser reports in seconds")) }
            b.reportWithin = d
        }
        return b
    }

    private mutating func readApps(_ node: TOMLNode?, groups: [RewardGroup]) -> [AppEntry] {
        guard let node else { return [] }
        guard case .array(let items) = node else {
            problem("apps", tr("'{key}' must be written as [[{key}]] tables, not {found}", ["key": "apps", "found": node.typeName(tr)]))
            return []
        }
        var out: [AppEntry] = []
        var names: Set<String> = []
        for (i, item) in items.enumerated() {
            let path = "apps[\(i)]"
            let f = fields(item, at: path, known: ["name", "category", "points_per_hour", "exe", "flatpak", "app_id", "title",
                                                   "daily_limit", "weekly_limit", "group"], label: "[[apps]]")
            guard let name = string(f, "name", path), !name.isEmpty else {
                if f["name"] == nil { problem(path, tr("an [[apps]] entry needs a name")) }
                continue
            }
            if !names.insert(name).inserted { problem(join(path, "name"), tr("two [[apps]] entries are named \"{name}\"", ["name": name])) }
            guard f["category"] != nil else { problem(path, tr("the app \"{name}\" needs a category (learning, reward, neutral or blocked)", ["name": name])); continue }
            guard let category = choice(f, "category", path, AppCategory.self, options: AppCategory.allCases.map(\.rawValue)) else { continue }
            let rate = integer(f, "points_per_hour", path, min: 1)
            if rate != nil, category != .learning {
                problem(join(path, "points_per_hour"), tr("'points_per_hour' only applies to learning apps; \"{name}\" is {category}", ["name": name, "category": category.rawValue]))
            }
            var exe: [ExePattern] = []
            for p in stringList(f, "exe", path) ?? [] {
                guard p.hasPrefix("/") else { problem(join(path, "exe"), tr("'exe' must hold full paths starting with '/', not \"{value}\"", ["value": p])); continue }
                exe.append(ExePattern(p))
            }
            var title: TitlePattern? = nil
            if let t = string(f, "title", path) {
                do { title = try TitlePattern(t) } catch { problem(join(path, "title"), tr("'title' is not a valid regular expression: \"{value}\"", ["value": t])) }
            }
            for key in ["daily_limit", "weekly_limit", "group"] where f[key] != nil && category != .reward {
                problem(join(path, key), tr("'{key}' only applies to reward apps; \"{name}\" is {category}", ["key": key, "name": name, "category": category.rawValue]))
            }
            let group = string(f, "group", path)
            if let g = group, !groups.contains(where: { $0.name == g }) {
                problem(join(path, "group"), near(tr("no [[groups]] entry is named \"{name}\"", ["name": g]), g, among: groups.map(\.name)))
            }
            let entry = AppEntry(name: name, category: category, pointsPerHour: rate, exe: exe,
                                 flatpak: string(f, "flatpak", path), appID: string(f, "app_id", path), title: title,
                                 dailyLimit: duration(f, "daily_limit", path, allowZero: true),
                                 weeklyLimit: duration(f, "weekly_limit", path, allowZero: true), group: group)
            // (Only when no matcher was written at all: a wrong one was reported already.)
            if ["exe", "flatpak", "app_id", "title"].allSatisfy({ f[$0] == nil }) {
                problem(path, tr("the app \"{name}\" matches nothing: give 'exe', 'flatpak', 'app_id' or 'title'", ["name": name]))
            }
            out.append(entry)
        }
        return out
    }
}

extension TOMLNode {
    func typeNameOrValue(_ tr: Translator) -> String {
        switch self {
        case .integer(let i): return String(i)
        case .string(let s): return "\"\(s)\""
        default: return typeName(tr)
        }
    }
}
