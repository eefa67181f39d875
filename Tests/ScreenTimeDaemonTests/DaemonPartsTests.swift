@testable import ScreenTimeCore
import ScreenTimeDaemon
import ScreenTimePolicy
import ControlProtocol
import Testing

/// The daemon's deciding parts, alone: each is given the time (a fake clock: plain numbers of
/// microseconds) and its inputs, and nothing sleeps.
@Suite("The daemon's parts")
struct DaemonPartsTests {
    static let second = Seconds.micro
    static let day = 86_400 * Seconds.micro

    // MARK: ChildQuota

    @Test("a child's requests: 200 kept a day, then refused until the next day; claims counted apart")
    func quota() {
        var quota = ChildQuota()
        let monday: Microseconds = 1_000 * Self.day, tuesday = monday + Self.day
        for k in 0..<ChildQuota.requestsPerDay {
            let kept = quota.take(.request, onDay: monday)
            #expect(kept, "request \(k + 1)")
        }
        let over = quota.take(.request, onDay: monday), overAgain = quota.take(.request, onDay: monday)
        #expect(!over)
        #expect(!overAgain, "refused requests are not counted back in")
        let claim = quota.take(.claim, onDay: monday)
        #expect(claim, "a claim is not a request")
        let nextDay = quota.take(.request, onDay: tuesday)
        #expect(nextDay, "a new day, a new allowance")
        #expect(ChildQuota.refusal(.request).words().contains("tomorrow"))
    }

    // MARK: ReportCache

    @Test("a report is kept for a second, by its key; at most 8; forgotten on demand; a clock going back finds nothing")
    func reportCache() {
        var cache = ReportCache()
        let t: Microseconds = 5_000 * Self.second
        cache.keep([1], for: "7", now: t)
        #expect(cache.line(for: "7", now: t + Self.second / 2) == [1])
        #expect(cache.line(for: "7", now: t + Self.second) == nil)
        #expect(cache.line(for: "30", now: t) == nil)
        #expect(cache.line(for: "7", now: t - 1) == nil)
        for k in 0..<9 { cache.keep([UInt8(k)], for: "k\(k)", now: t + Microseconds(k)) }
        #expect(cache.line(for: "k0", now: t + 9) == nil, "the oldest of nine went")
        #expect(cache.line(for: "k8", now: t + 9) == [8])
        cache.forget()
        #expect(cache.line(for: "k8", now: t + 9) == nil)
    }

    // MARK: ParentSessions

    @Test("a parent session: worth something only from the uid that opened it, until its minutes pass")
    func parentSessions() {
        var sessions = ParentSessions()
        let t: Microseconds = 100 * Self.second
        sessions.open(token: "abc", caller: 1001, children: [1002], minutes: 30, now: t, parent: "mom")
        #expect(sessions.session("abc", caller: 1001, now: t)?.children == [1002])
        #expect(sessions.session("abc", caller: 1001, now: t)?.parent == "mom")
        #expect(sessions.session("abc", caller: 1002, now: t) == nil, "the child's uid cannot use a parent's token")
        #expect(sessions.session("abd", caller: 1001, now: t) == nil)
        #expect(sessions.session("abc", caller: 1001, now: t + 30 * 60 * Self.second - 1) != nil)
        #expect(sessions.session("abc", caller: 1001, now: t + 30 * 60 * Self.second) == nil, "ended after 30 min")
        let byChild = sessions.close("abc", caller: 1002)
        #expect(!byChild, "only its caller closes it")
        let byParent = sessions.close("abc", caller: 1001)
        #expect(byParent)
        #expect(sessions.session("abc", caller: 1001, now: t) == nil)
    }

    @Test("at most 64 parent sessions: a page that logs in in a loop pushes out the oldest")
    func parentSessionsBounded() {
        var sessions = ParentSessions()
        for k in 0...ParentSessions.most {
            sessions.open(token: "t\(k)", caller: 1001, children: [1002], minutes: 30, now: Microseconds(k) * Self.second, parent: nil)
        }
        let now = Microseconds(ParentSessions.most) * Self.second
        #expect(sessions.session("t0", caller: 1001, now: now) == nil)
        #expect(sessions.session("t1", caller: 1001, now: now) != nil)
        #expect(sessions.session("t\(ParentSessions.most)", caller: 1001, now: now) != nil)
    }

    // MARK: Authority

    /// A user database of a table: mom (1001, in "parents"), emma (1002, in "parents" too: a
    /// child in the parents' group is still the child), dad (1003, in "parents"), leo (1004).
    struct Users: UserDirectory, Sendable {
        let uids = ["mom": UInt32(1001), "emma": 1002, "dad": 1003, "leo": 1004]
        let groupsByUID: [UInt32: Set<UInt32>] = [1001: [1001, 500], 1002: [1002, 500], 1003: [1003, 500], 1004: [1004]]
        func uid(named name: String) -> UInt32? { uids[name] }
        func groupID(named name: String) -> UInt32? { name == "parents" ? 500 : nil }
        func groups(of uid: UInt32) -> Set<UInt32>? { groupsByUID[uid] }
    }

    static func policy(_ parents: String) throws -> Policy {
        try PolicyLoader.parse("""
            version = 1
            [parents]
            \(parents)
            [[apps]]
            name = "GCompris"
            category = "learning"
            exe = ["/usr/bin/gcompris-qt"]
            """)
    }

    @Test("who is a parent: root, a named parent, a member of the parents' group; the child never; anyone else a stranger")
    func authority() throws {
        let byName = Authority(childUID: 1002, policy: try Self.policy(#"users = ["mom", "nobody-here"]"#), users: Users())
        #expect(byName.role(of: 0) == .parent)
        #expect(byName.role(of: 1001) == .parent)
        #expect(byName.role(of: 1002) == .child)
        #expect(byName.role(of: 1003) == .stranger, "dad is not named, and no group is")
        #expect(byName.role(of: 1004) == .stranger)
        #expect(byName.parentUIDs == [1001], "a name the user database does not know names nobody")

        let byGroup = Authority(childUID: 1002, policy: try Self.policy(#"groups = ["parents"]"#), users: Users())
        #expect(byGroup.role(of: 1003) == .parent)
        #expect(byGroup.role(of: 1002) == .child, "the child is in the parents' group, and is still the child")
        #expect(byGroup.role(of: 1004) == .stranger)
        #expect(byGroup.role(of: 4242) == .stranger, "a uid the user database does not know")
        #expect(byGroup.parentsWithSessions([0, 1001, 1002, 1003, 1004]) == [1001, 1003], "root and the child are not told as parents")
    }

    // MARK: Notice

    static func effectPolicy(action: String) throws -> Policy {
        try PolicyLoader.parse("""
            version = 1
            [rewards]
            daily_limit = "60m"
            [enforcement]
            action = "\(action)"
            warn_before = ["5m", "1m"]
            [[apps]]
            name = "SuperTuxKart"
            category = "reward"
            exe = ["/usr/games/supertuxkart"]
            """)
    }

    @Test("warnings: the time left in words, urgent at the last warning; an app's own limit names the app")
    func warningNotices() throws {
        let policy = try Self.effectPolicy(action: "pause")
        let five = try #require(Notice.about(.warn(Warning(at: 0, remaining: 5 * 60 * Self.second, limit: .dailyLimit)), policy: policy))
        #expect(five.summary.contains(DurationText.words(5 * 60 * Self.second)))
        #expect(five.urgency == .normal)
        #expect(five.body.contains("paused"), "the policy pauses games")
        let one = try #require(Notice.about(.warn(Warning(at: 0, remaining: 60 * Self.second, limit: .dailyLimit)), policy: policy))
        #expect(one.urgency == .critical)
        let app = try #require(Notice.about(.warn(Warning(at: 0, remaining: 60 * Self.second, limit: .appLimit, app: "SuperTuxKart")), policy: policy))
        #expect(app.summary.hasPrefix("SuperTuxKart"))
        let closing = try #require(Notice.about(.warn(Warning(at: 0, remaining: 60 * Self.second, limit: .dailyLimit)), policy: try Self.effectPolicy(action: "terminate")))
        #expect(closing.body.contains("closed"))
        // Each game warning has a button that asks for 15 more minutes of game time (issue #40).
        for n in [five, one, app, closing] { #expect(n.ask == Notice.Ask(minutes: 15, screen: false)) }
        #expect(five.ask?.key == "ask-15" && five.ask?.label == "Ask for 15 more minutes")
    }

    @Test("a stop is told once, with the reason in the child's words; a repeat is not told again")
    func stopNotices() throws {
        let policy = try Self.effectPolicy(action: "terminate")
        let stop = StopOrder(at: 0, pid: 42, app: "SuperTuxKart", reason: .dailyLimit, action: .terminate, repeatCount: 0)
        let told = try #require(Notice.about(.stop(stop), policy: policy))
        #expect(told.summary.contains("SuperTuxKart") && told.summary.contains("closed"))
        #expect(told.body.lowercased().contains(ChildWords.stop("daily_limit")))
        #expect(told.urgency == .critical)
        var again = stop
        again.repeatCount = 1
        #expect(Notice.about(.stop(again), policy: policy) == nil)
        var paused = stop
        paused.action = .pause
        #expect(Notice.about(.stop(paused), policy: policy)?.summary.contains("paused") == true)
    }
}

/// Saving and removing old events, on a fake clock.
@Suite("The daemon's schedules")
struct ScheduleTests {
    static let second = Seconds.micro

    @Test("saving: a second after the last save while anything is unsaved; a failure said once, and its end")
    func saving() {
        let t0: Microseconds = 50 * Self.second
        var s = SaveSchedule(now: t0)
        #expect(s.next(unsaved: 0) == nil)
        #expect(!s.due(now: t0 + 10 * Self.second, unsaved: 0), "nothing to save, never due")
        #expect(s.next(unsaved: 3) == t0 + Self.second)
        #expect(!s.due(now: t0 + Self.second - 1, unsaved: 3))
        #expect(s.due(now: t0 + Self.second, unsaved: 3))
        #expect(s.tried(at: t0 + Self.second, failure: nil) == .none)
        #expect(s.tried(at: t0 + 2 * Self.second, failure: "disk full") == .fails("disk full"))
        #expect(s.failure == "disk full")
        #expect(s.next(unsaved: 3) == t0 + 3 * Self.second, "retried a second after the failed try")
        #expect(s.tried(at: t0 + 3 * Self.second, failure: "disk full") == .none, "the same failure is said once")
        #expect(s.tried(at: t0 + 4 * Self.second, failure: "read-only") == .fails("read-only"), "a new failure is said")
        #expect(s.tried(at: t0 + 5 * Self.second, failure: nil) == .worksAgain)
        #expect(s.failure == nil)
        #expect(s.tried(at: t0 + 6 * Self.second, failure: nil) == .none)
    }

    @Test("removing old events: due at once, then hourly; sooner while a run removed all it may at once")
    func retention() {
        let t0: Microseconds = 7 * Self.second
        var r = RetentionSchedule(now: t0)
        #expect(r.due(now: t0))
        r.ran(at: t0, removed: 10, most: 1000)
        #expect(!r.due(now: t0 + 3599 * Self.second))
        #expect(r.due(now: t0 + 3600 * Self.second))
        r.ran(at: t0, removed: 1000, most: 1000)
        #expect(r.next == t0 + 10 * Self.second, "a backlog: the next step soon")
        r.ran(at: t0, removed: 0, most: nil)
        #expect(r.next == t0 + 3600 * Self.second, "retention off: looked at hourly")
    }
}

/// The run loop's one wait, from its parts' waits (fake descriptors and a fake clock).
@Suite("The run loop's plan")
struct LoopPlanTests {
    static let ms = Microseconds(1000)

    @Test("every part's descriptors; until the soonest part is due, rounded up to a whole millisecond")
    func soonest() {
        let now: Microseconds = 1_000_000
        let plan = LoopPlan([LoopWait(reads: [3]), LoopWait(reads: [5, 6], writes: [6], due: now + 250 * Self.ms + 1),
                             LoopWait(due: now + 900 * Self.ms), LoopWait(writes: [9])], now: now, longest: 5_000 * Self.ms)
        #expect(plan.reads == [3, 5, 6])
        #expect(plan.writes == [6, 9])
        #expect(plan.timeoutMillis == 251, "never woken before the moment waited for")
    }

    @Test("a part due now, or overdue: no wait; nothing due: the longest wait; a far moment: capped at the longest")
    func bounds() {
        let now: Microseconds = 7_000_000
        #expect(LoopPlan([LoopWait(due: now + 10_000 * Self.ms), LoopWait(due: now)], now: now, longest: 5_000 * Self.ms).timeoutMillis == 0)
        #expect(LoopPlan([LoopWait(due: now - 3 * Self.ms)], now: now, longest: 5_000 * Self.ms).timeoutMillis == 0)
        #expect(LoopPlan([LoopWait(reads: [4])], now: now, longest: 5_000 * Self.ms).timeoutMillis == 5_000)
        #expect(LoopPlan([LoopWait(due: now + 60_000 * Self.ms)], now: now, longest: 5_000 * Self.ms).timeoutMillis == 5_000)
    }
}

/// The child's notices of screen time, in their words.
@Suite("Screen notices")
struct ScreenNoticeTests {
    @Test("before zero: the time left and what happens; at zero: used up or bedtime, with the grace; logout says so")
    func words() throws {
        let lock = try PolicyLoader.parse("version = 1\n[screen]\ndaily_limit = \"1h\"\nwarn_before = [\"10m\", \"2m\"]\ngrace = \"60s\"\n")
        let at = Microseconds(0)
        let ten = Notice.about(.warn(Warning(at: at, remaining: 600 * Seconds.micro, limit: .screenDailyLimit)), policy: lock)
        #expect(ten?.summary == "10 min of screen time left" && ten?.body.contains("the screen locks") == true && ten?.urgency == .normal, "\(String(describing: ten))")
        let two = Notice.about(.warn(Warning(at: at, remaining: 120 * Seconds.micro, limit: .bedtime)), policy: lock)
        #expect(two?.summary == "2 min until bedtime" && two?.urgency == .critical, "\(String(describing: two))")
        let zero = Notice.about(.warn(Warning(at: at, remaining: 0, limit: .bedtime)), policy: lock)
        #expect(zero?.summary == "It is bedtime" && zero?.body.contains("in 1 min the screen locks") == true, "\(String(describing: zero))")
        let logout = try PolicyLoader.parse("version = 1\n[screen]\ndaily_limit = \"1h\"\naction = \"logout\"\ngrace = \"30s\"\n")
        let used = Notice.about(.warn(Warning(at: at, remaining: 0, limit: .screenDailyLimit)), policy: logout)
        #expect(used?.summary == "Your screen time is used up" && used?.body.contains("in 30 s you are logged out") == true, "\(String(describing: used))")
        // Buttons: before the limit, ask for 15 more minutes of screen time; none before bedtime
        // (minutes do not move it) nor once the time is up.
        #expect(ten?.ask == Notice.Ask(minutes: 15, screen: true) && ten?.ask?.key == "ask-screen-15")
        #expect(two?.ask == nil && zero?.ask == nil && used?.ask == nil)
    }
}

/// Why the last session was ended, said at the next login.
@Suite("The next login's notice")
struct SessionEndedNoticeTests {
    static let s = Seconds.micro

    @Test("said in a new session only, sent until the desktop takes it, kept for status once if it never does; a lock says nothing")
    func nextLogin() {
        var n = SessionEndedNotice()
        #expect(n.step(sessions: ["c1"], now: 0) == nil, "nothing was ended")
        n.ended(SessionOrder(at: 0, session: "c1", reason: .bedtime), time: "21:31")
        let bedtime = Notice(summary: "You were logged out at bedtime",
                             body: "It was 21:31, after bedtime, so the computer stopped for today.", urgency: .normal)
        #expect(n.pending == bedtime)
        #expect(n.step(sessions: ["c1"], now: 1 * Self.s) == nil, "the ended session is still closing: not a new login")
        #expect(n.step(sessions: [], now: 2 * Self.s) == nil)
        #expect(n.step(sessions: ["c2"], now: 10 * Self.s) == .send(bedtime))
        #expect(n.step(sessions: ["c2"], now: 15 * Self.s) == .send(bedtime), "sent again until the desktop takes it")
        n.done()
        #expect(n.step(sessions: ["c2"], now: 20 * Self.s) == nil, "said once")
        // Screen time used up; the new session's desktop never takes notifications: kept for status
        // after two minutes, once.
        n.ended(SessionOrder(at: 0, session: "c2", reason: .screenLimit), time: "17:05")
        let used = Notice(summary: "You were logged out: your screen time was used up",
                          body: "At 17:05 your screen time for the day was all used. A parent can give you more.", urgency: .normal)
        #expect(n.step(sessions: ["c3"], now: 100 * Self.s) == .send(used))
        #expect(n.step(sessions: ["c3"], now: 219 * Self.s) == .send(used))
        #expect(n.step(sessions: ["c3"], now: 220 * Self.s) == .keep(used))
        #expect(n.step(sessions: ["c3"], now: 221 * Self.s) == nil)
    }
}
