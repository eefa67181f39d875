/// Game time each limited reward app and each `[[groups]]` entry used today and this week, by name
/// (names outlive a policy reload; entry numbers do not).
struct AppUse: Sendable, Codable {
    var today: [String: Microseconds] = [:]
    var week: [String: Microseconds] = [:]

    static func app(_ name: String) -> String { "app:" + name }
    static func group(_ name: String) -> String { "group:" + name }

    mutating func add(_ amount: Microseconds, to key: String) {
        today[key, default: 0] += amount
        week[key, default: 0] += amount
    }

    mutating func startDay(newWeek: Bool) {
        today = [:]
        if newWeek { week = [:] }
    }
}

/// With a household (docs/household.md): the game time the child's other computers played of each
/// limited app and group, today and this week, as they last reported it (`app_time_shared`).
struct OthersAppUse: Sendable, Codable, Equatable {
    var day: Int64 = .min
    var week: Int64 = .min
    var today: [String: Microseconds] = [:]
    var thisWeek: [String: Microseconds] = [:]

    /// A new day forgets the others' day; a new week, their week.
    mutating func start(day key: Int64, week: Int64) {
        guard key != day else { return }
        day = key
        today = [:]
        if week != self.week { self.week = week; thisWeek = [:] }
    }
}

/// What the other computers played of a limited app or group (`app_time_shared`): by key
/// (`app:NAME`, `group:NAME`), today and this week, in µs.
public struct SharedAppTime: Sendable, Equatable {
    public var key: String
    public var today: Microseconds
    public var week: Microseconds
    public init(key: String, today: Microseconds, week: Microseconds) { self.key = key; self.today = today; self.week = week }
}

/// App and group limits (`docs/spec/family.md`): a reward app over its own or its group's limit is
/// stopped (`app_limit`) while other games go on as the overall limits allow.
extension Engine {
    /// The reward apps (entries) whose game time is counting now: what `rewardCounting` counts, by app.
    var countingApps: Set<Int> {
        guard hasAppLimits, !locked else { return [] }
        var out: Set<Int> = []
        func add(_ pid: Int32) {
            guard stopping[pid] == nil, !paused.contains(pid), let e = rewardEntry(of: pid), policy.apps[e].category == .reward else { return }
            out.insert(e)
        }
        if policy.rewards.countsWhile == .running { for pid in rewardPids { add(pid) } }
        if let pid = focusedRewardPid { add(pid) }
        out.formUnion(countingSites)
        return out
    }

    /// The least of what is left of an app's own limits and its group's, today and this week
    /// (nil: the app has none).
    func appRoom(_ entry: Int) -> Microseconds? {
        let app = policy.apps[entry]
        guard app.category == .reward, app.isLimited else { return nil }
        var best: Microseconds? = nil
        func bound(_ limit: Microseconds?, _ used: Microseconds?) {
            guard let limit else { return }
            best = min(best ?? .max, limit - (used ?? 0))
        }
        // With a household, what the child's other computers played counts too.
        func today(_ key: String) -> Microseconds { (appUse.today[key] ?? 0) + (leased ? others.today[key] ?? 0 : 0) }
        func week(_ key: String) -> Microseconds { (appUse.week[key] ?? 0) + (leased ? others.thisWeek[key] ?? 0 : 0) }
        let own = AppUse.app(app.name)
        bound(app.dailyLimit, today(own))
        bound(app.weeklyLimit, week(own))
        if let name = app.group, let g = policy.groups.first(where: { $0.name == name }) {
            let key = AppUse.group(name)
            bound(g.dailyLimit, today(key))
            bound(g.weeklyLimit, week(key))
        }
        return best.map { max(0, $0) }
    }

    /// Counting game time passes: each limited app counting now, and its group, used `amount`
    /// (a group once, whichever of its apps count).
    mutating func useAppTime(_ amount: Microseconds, apps: Set<Int>) {
        guard amount > 0 else { return }
        var groups: Set<String> = []
        for e in apps.sorted() {
            let app = policy.apps[e]
            guard app.isLimited else { continue }
            appUse.add(amount, to: AppUse.app(app.name))
            if let g = app.group { groups.insert(g) }
        }
        for g in groups.sorted() { appUse.add(amount, to: AppUse.group(g)) }
    }

    /// The entry a reward pid is (its process's match, else the focused window's).
    func rewardEntry(of pid: Int32) -> Int? {
        if let m = processes[pid]?.match { return m.entry }
        return pid == focus?.pid ? focusMatch?.entry : nil
    }

    /// The game's app (or its group) has no time left of its own limits.
    func overAppLimit(_ pid: Int32) -> Bool {
        guard hasAppLimits else { return false }
        return rewardEntry(of: pid).flatMap { appRoom($0) }.map { $0 <= 0 } ?? false
    }

    /// Stops games over their app's limit; warns before it. `available`: the overall time left.
    mutating func enforceAppLimits(at t: Microseconds, available: Microseconds) {
        guard hasAppLimits else { return }
        var pids = rewardPids
        if let pid = focusedRewardPid { pids.insert(pid) }
        for pid in pids.sorted() where stopping[pid] == nil && !paused.contains(pid) {
            guard let e = rewardEntry(of: pid), let room = appRoom(e), room <= 0 else { continue }
            tellStop(pid, reason: .appLimit, at: t, action: policy.enforcement.action)
        }
        // Warnings before an app's own limit, when it comes before the overall one.
        for e in countingApps.sorted() {
            guard let room = appRoom(e), room > 0, room < available else { continue }
            let name = policy.apps[e].name
            var crossed = false
            for w in policy.enforcement.warnBefore where room <= w && !(appWarned[name]?.contains(w) ?? false) {
                appWarned[name, default: []].insert(w)
                crossed = true
            }
            if crossed { out.append(.warn(Warning(at: clock.wall(at: t), remaining: room, limit: .appLimit, app: name))) }
        }
    }

    /// The next moment an app's limit or a warning before it is due.
    func nextAppDeadline() -> Microseconds? {
        guard hasAppLimits else { return nil }
        var best: Microseconds? = nil
        for e in countingApps {
            guard let room = appRoom(e), room > 0 else { continue }
            best = min(best ?? .max, now + room)
            let warned = appWarned[policy.apps[e].name] ?? []
            for w in policy.enforcement.warnBefore where w < room && !warned.contains(w) { best = min(best ?? .max, now + room - w) }
        }
        return best
    }

    /// With a household: this computer's game time of each limited app and group today, for the
    /// family database (nil: no household, or nothing limited).
    public var appTimeToShare: (day: Int64, weekStart: Int64, used: [(key: String, today: Microseconds)])? {
        guard leased, hasAppLimits else { return nil }
        var keys: Set<String> = []
        for app in policy.apps where app.category == .reward && app.isLimited {
            keys.insert(AppUse.app(app.name))
            if let g = app.group { keys.insert(AppUse.group(g)) }
        }
        return (day.key, day.weekKey, keys.sorted().map { ($0, appUse.today[$0] ?? 0) })
    }

    /// What the other computers played of the limited apps and groups, as the family database said.
    mutating func appTimeShared(day key: Int64, _ shared: [SharedAppTime]) {
        guard leased, key == day.key else { return }
        others.start(day: day.key, week: day.weekKey)
        for s in shared {
            others.today[s.key] = s.today
            others.thisWeek[s.key] = s.week
        }
    }

    /// Each limited reward app's game time left today: the least of its own limits, its group's,
    /// and what every game may still use today.
    public var appTimeLeftToday: [(app: String, seconds: Microseconds)] {
        let overall = rewardAvailableToday
        return policy.apps.indices.compactMap { e in
            appRoom(e).map { (policy.apps[e].name, min($0, overall)) }
        }
    }
}
