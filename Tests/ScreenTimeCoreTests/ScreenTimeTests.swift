import Foundation
@testable import ScreenTimeCore
import ScreenTimePolicy
import Testing

/// Screen time for the whole computer (docs/spec/screen.md), one test per line of the contract.
/// The timelines start on Monday 2026-11-23 at 15:00 in Berlin (the test policy's zone); every
/// expected figure is worked out by hand in the comments. Idle after 3 minutes (moderate).
@Suite("Screen time")
struct ScreenTimeTests {
    /// What a result did to sessions and told the child, as (what, seconds after the origin, detail).
    static func orders(_ r: ReplayResult, _ tl: Timeline? = nil) -> [String] {
        let origin = tl?.origin.micros ?? wall(0)
        return r.actions.compactMap { a -> String? in
            func s(_ w: Microseconds) -> Int { Int((w - origin) / Seconds.micro) }
            switch a {
            case .warn(let w) where w.limit.isScreen: return "warn \(s(w.at)) \(w.limit.rawValue) \(w.remaining / Seconds.micro)"
            case .lockSession(let o): return "lock \(s(o.at)) \(o.session) \(o.reason.rawValue)"
            case .endSession(let o): return "end \(s(o.at)) \(o.session) \(o.reason.rawValue)"
            default: return nil
            }
        }
    }

    /// Today's screen time in seconds (the last day of the timeline).
    static func used(_ r: ReplayResult) -> Int64 { (r.today?.screen?.used ?? -1) / Seconds.micro }

    static func screen(_ keys: [String: String], extra: String = "") -> Policy {
        var o: [String: String?] = ["screen.warn_before": "[\"5m\", \"1m\"]", "screen.grace": "\"60s\""]
        for (k, v) in keys { o["screen." + k] = v }
        return testPolicy(o, apps: extra)
    }

    /// A child at a terminal from 0 to `to`, typing every 20 s.
    static func atTerminal(to: Double, session: String = "c1") -> Timeline {
        var tl = Timeline()
        tl.login(0, session)
        tl.start(0, pid: 40, exe: xterm)
        tl.focus(0, pid: 40)
        tl.keys(from: 0, to: to)
        return tl
    }

    @Test("daily limit: warned at 5 and 1 minutes, at zero, locked after the grace; unlocked, locked again; past relocks, ended after a last warning")
    func dailyLimitLockRelockEnd() {
        var tl = Self.atTerminal(to: 2470)
        tl.lock(31 * M + 10, true)          // the desktop locks 10 s after logind was asked
        tl.lock(36 * M, false)              // the child unlocks (a parent's password?): no time left
        tl.lock(37 * M + 10, true)
        tl.lock(40 * M, false)
        tl.logout(2470, "c1")               // logind ended it
        let r = tl.replay(Self.screen(["daily_limit": "\"30m\"", "relocks": "1"]))
        #expect(Self.orders(r) == [
            "warn 1500 screen_daily_limit 300", "warn 1740 screen_daily_limit 60", "warn 1800 screen_daily_limit 0",
            "lock 1860 c1 screen_limit",        // zero at 30:00, a 60 s grace
            "lock 2220 c1 screen_limit",        // unlocked at 36:00: locked again at 37:00 (relock 1 of 1)
            "warn 2400 screen_daily_limit 0",   // unlocked at 40:00 past relocks: a last warning,
            "end 2460 c1 screen_limit",         // and the end a grace later
        ])
        // Counted while unlocked: 0–31:10, 36:00–37:10, 40:00–41:10 = 1870 + 70 + 70.
        #expect(Self.used(r) == 2010)
    }

    @Test("a lock undone without logind knowing (swaylock closed by the child), or only claimed: input on and on at the 'locked' screen for longer than the grace ends the session after a last warning; a password typed, or a mouse bumped now and then, does not")
    func inputWhileLocked() {
        var tl = Self.atTerminal(to: 2000)     // a key every 20 s: a mouse bumped now and then
        tl.lock(1265, true)
        tl.keys(from: 1400, to: 1410, every: 3)  // a password typed at the lock screen
        tl.keys(from: 1500, to: 1600, every: 3)  // the desktop in use behind a lock logind believes in
        var ended = tl
        ended.logout(1625, "c1")                // logind ended it
        let r = ended.replay(Self.screen(["daily_limit": "\"20m\"", "warn_before": "[]"]))
        // Zero at 20:00, locked at 21:00; the stretch of input from 25:00 is longer than the
        // grace (60 s) at its input at 26:03: a last warning, and the end a grace later.
        #expect(Self.orders(r) == ["warn 1200 screen_daily_limit 0", "lock 1260 c1 screen_limit",
                                   "warn 1563 screen_daily_limit 0", "end 1623 c1 screen_limit"])
        // With time left, input at a locked screen is nothing to the screen time.
        #expect(Self.orders(tl.replay(Self.screen(["daily_limit": "\"2h\"", "warn_before": "[]"]))).isEmpty)
    }

    @Test("idle time given back after the lock (input after a long pause): the child has time again, and at the next zero is warned and locked again")
    func idleGivenBackAfterLock() {
        var tl = Timeline()
        tl.login(0, "c1")
        tl.start(0, pid: 40, exe: xterm)
        tl.focus(0, pid: 40)
        tl.keys(from: 0, to: 1111)             // a key every 20 s, the last at 18:20, then a video (no input)
        tl.lock(1265, true)
        tl.keys(from: 1800, to: 2400)          // back at 30:00 (still locked), unlocked at 30:05
        tl.lock(1805, false)
        tl.lock(1970, true)
        let r = tl.replay(Self.screen(["daily_limit": "\"20m\"", "warn_before": "[]"]))
        // Counted 0–21:05 (the idleness is not known yet), zero at 20:00, locked at 21:00. The key
        // at 30:00 gives back 18:20–21:05 (165 s): 100 s are left, counted from the unlock at
        // 30:05: zero at 31:45, locked a grace later at 32:45; the desktop locks at 32:50.
        #expect(Self.orders(r) == ["warn 1200 screen_daily_limit 0", "lock 1260 c1 screen_limit",
                                   "warn 1905 screen_daily_limit 0", "lock 1965 c1 screen_limit"])
        #expect(Self.used(r) == 1100 + (1970 - 1805))
    }

    @Test("a lock only claimed through logind (no locker, another session of the child's in front): input going on at it for longer than the grace is screen time again, from the stretch's start")
    func claimedLockWithInput() {
        var tl = Timeline()
        tl.login(0, "c1")
        tl.keys(from: 0, to: 600, every: 3)
        tl.lock(100, true)                     // `loginctl lock-session` with no screen locker
        let r = tl.replay(Self.screen(["daily_limit": "\"2h\"", "warn_before": "[]"]))
        // Counted 0–100; the stretch of keys from 102 is longer than the grace (60 s) at 165: the
        // lock is not believed from then, and 102–165 counts too; on to the last key at 597.
        #expect(Self.used(r) == 100 + (597 - 102))
        // A password typed at the lock (10 s) changes nothing.
        var short = Timeline()
        short.login(0, "c1")
        short.keys(from: 0, to: 100, every: 3)
        short.lock(100, true)
        short.keys(from: 200, to: 210, every: 3)
        short.tick(600)
        #expect(Self.used(short.replay(Self.screen(["daily_limit": "\"2h\"", "warn_before": "[]"]))) == 100)
    }

    @Test("action = logout: ended at zero after the grace, never locked")
    func logout() {
        var tl = Self.atTerminal(to: 40 * M)
        tl.logout(1265, "c1")
        let r = tl.replay(Self.screen(["daily_limit": "\"20m\"", "action": "\"logout\"", "warn_before": "[]"]))
        #expect(Self.orders(r) == ["warn 1200 screen_daily_limit 0", "end 1260 c1 screen_limit"])
    }

    @Test("a desktop that does not lock when asked: ended a grace after the lock")
    func noLocker() {
        var tl = Self.atTerminal(to: 40 * M)
        tl.logout(1325, "c1")
        let r = tl.replay(Self.screen(["daily_limit": "\"20m\"", "warn_before": "[]"]))
        #expect(Self.orders(r) == ["warn 1200 screen_daily_limit 0", "lock 1260 c1 screen_limit", "end 1320 c1 screen_limit"])
        // A session that is still there after its end was ordered (logind refused) is ordered ended
        // again, a grace later (here a minute; at least 30 s).
        let stays = Self.atTerminal(to: 1450).replay(Self.screen(["daily_limit": "\"20m\"", "warn_before": "[]"]))
        #expect(Self.orders(stays) == ["warn 1200 screen_daily_limit 0", "lock 1260 c1 screen_limit", "end 1320 c1 screen_limit",
                                       "end 1380 c1 screen_limit", "end 1440 c1 screen_limit"])
    }

    @Test("weekly limit: Monday's time counts on Tuesday; the lock says screen_weekly_limit")
    func weeklyLimit() {
        var tl = Timeline()
        tl.start(0, pid: 40, exe: xterm)
        tl.focus(0, pid: 40)
        tl.login(0, "c1"); tl.keys(from: 0, to: 40 * M); tl.logout(40 * M, "c1")              // Monday: 40 min
        tl.login(24 * H, "c2"); tl.keys(from: 24 * H, to: 24 * H + 40 * M)                      // Tuesday
        tl.lock(24 * H + 21 * M + 5, true)                                                       // the desktop locks when asked
        let r = tl.replay(Self.screen(["weekly_limit": "\"1h\"", "warn_before": "[\"5m\"]"]))
        // 20 minutes left on Tuesday: warned at 15, zero at 20, locked at 21.
        let day = Int(24 * H)
        #expect(Self.orders(r) == ["warn \(day + 900) screen_weekly_limit 300", "warn \(day + 1200) screen_weekly_limit 0",
                                   "lock \(day + 1260) c2 screen_weekly_limit"])
        #expect(r.days.first?.screen?.used == sec(40 * M), "Monday's own total")
    }

    @Test("bedtime: warned before it, locked a grace after it; a login after bedtime ended within the grace")
    func bedtime() {
        var tl = Timeline()
        tl.start(5 * H, pid: 40, exe: xterm)
        tl.focus(5 * H, pid: 40)
        tl.login(5 * H, "c1")                        // 20:00
        tl.keys(from: 5 * H, to: 5 * H + 40 * M)
        tl.lock(5 * H + 31 * M + 5, true)            // the desktop locks when asked
        tl.logout(5 * H + 40 * M, "c1")              // 20:40
        tl.login(5 * H + 45 * M, "c2")               // 20:45, after bedtime
        tl.logout(5 * H + 46 * M + 5, "c2")          // logind ended it
        tl.tick(5 * H + 50 * M)
        let r = tl.replay(Self.screen(["allowed_hours": "[\"07:00-20:30\"]", "warn_before": "[\"10m\", \"2m\"]"]))
        let b = Int(5 * H)
        #expect(Self.orders(r) == ["warn \(b + 1200) bedtime 600", "warn \(b + 1680) bedtime 120", "warn \(b + 1800) bedtime 0",
                                   "lock \(b + 1860) c1 bedtime",
                                   "warn \(b + 2700) bedtime 0", "end \(b + 2760) c2 bedtime"])
    }

    @Test("idle and locked time are not counted: a gap in input is idle from the last input, idle_changed from its moment, a lock while it lasts")
    func idleAndLocked() {
        var tl = Timeline()
        tl.login(0, "c1")
        tl.start(0, pid: 40, exe: xterm)
        tl.focus(0, pid: 40)
        tl.keys(from: 0, to: 600)              // last input at 580; nothing until 1500: idle from 580
        tl.keys(from: 1500, to: 1800)          // last at 1780
        tl.idle(1800, true)                    // logind: idle at 1800
        tl.idle(2100, false)
        tl.keys(from: 2100, to: 2400)          // the gap 1780–2100 (320 s) was idle from 1780
        tl.lock(2400, true)
        tl.lock(3000, false)
        tl.keys(from: 3000, to: 3600)          // the gap 2380–3000 was idle from 2380
        tl.logout(3600, "c1")
        let r = tl.replay(Self.screen(["daily_limit": "\"2h\""]))
        // 0–580, 1500–1780, 2100–2380, 3000–3600.
        #expect(Self.used(r) == 580 + 280 + 280 + 600)
        #expect(Self.orders(r).isEmpty)
    }

    @Test("a lock or an idleness the child's own side claims does not stop screen time (it costs only learning)")
    func claimedLockAndIdle() {
        var tl = Self.atTerminal(to: 1200)
        tl.lock(300, true, claimed: true)
        tl.add(400, .idleChanged(idle: true, since: nil, claimed: true))
        tl.logout(1200, "c1")
        #expect(Self.used(tl.replay(Self.screen(["daily_limit": "\"2h\""]))) == 1200)
        // The same idleness from logind (trusted): 400 to 1200 is not counted.
        var trusted = Self.atTerminal(to: 1200)
        trusted.idle(400, true)
        trusted.logout(1200, "c1")
        #expect(Self.used(trusted.replay(Self.screen(["daily_limit": "\"2h\""]))) == 400)
    }

    @Test("learning credited does not count by default; with learning_counts it does; refused learning always counts")
    func learning() {
        var tl = Timeline()
        tl.login(0, "c1")
        tl.start(0, pid: 30, exe: gcompris)
        tl.start(0, pid: 40, exe: xterm)
        tl.focus(0, pid: 30)
        tl.typing(from: 0, to: 2400, min: 3, max: 30)
        tl.focus(1800, pid: 40)
        tl.logout(2400, "c1")
        let off = tl.replay(Self.screen(["daily_limit": "\"2h\""]))
        let credited = off.learningSessions.reduce(0) { $0 + $1.creditedSeconds }
        #expect(credited >= sec(25 * M), "half an hour of real learning, credited but for its edges")
        #expect(off.today?.screen?.used == sec(2400) - credited, "all of the 40 minutes but what was credited")
        let on = tl.replay(Self.screen(["daily_limit": "\"2h\"", "learning_counts": "true"]))
        #expect(Self.used(on) == 2400)
        // Learning of 5 minutes is too short (min_session 10 min): refused, so it counts.
        var short = Timeline()
        short.login(0, "c1")
        short.start(0, pid: 30, exe: gcompris)
        short.start(0, pid: 40, exe: xterm)
        short.focus(0, pid: 30)
        short.typing(from: 0, to: 900)
        short.focus(300, pid: 40)
        short.logout(900, "c1")
        let r = short.replay(Self.screen(["daily_limit": "\"2h\""]))
        #expect(r.learningSessions.allSatisfy { $0.creditedSeconds == 0 })
        #expect(Self.used(r) == 900)
    }

    @Test("several sessions at once count once")
    func severalSessions() {
        var tl = Self.atTerminal(to: 2400)
        tl.login(600, "c2")
        tl.logout(1800, "c1")
        tl.logout(2400, "c2")
        #expect(Self.used(tl.replay(Self.screen(["daily_limit": "\"2h\""]))) == 2400)
        var none = Timeline()
        none.start(0, pid: 40, exe: xterm)
        none.focus(0, pid: 40)
        none.keys(from: 0, to: 600)
        #expect(Self.used(none.replay(Self.screen(["daily_limit": "\"2h\""]))) == 0, "no login session: nothing counts")
    }

    @Test("a parent's bonus: minutes beyond the limit, for today; what was due is not")
    func bonus() {
        var tl = Self.atTerminal(to: 50 * M)
        tl.add(30 * M + 30, .screenBonus(minutes: 15, by: "mom", reason: "homework"))
        tl.lock(46 * M + 5, true)
        let r = tl.replay(Self.screen(["daily_limit": "\"30m\"", "warn_before": "[\"5m\"]"]))
        #expect(Self.orders(r) == ["warn 1500 screen_daily_limit 300", "warn 1800 screen_daily_limit 0",
                                   "warn 2400 screen_daily_limit 300", "warn 2700 screen_daily_limit 0", "lock 2760 c1 screen_limit"])
        #expect(r.today?.screen?.bonus == sec(15 * M))
    }

    @Test("bedtime moved for tonight: later (warned again before the new one), or earlier")
    func bedtimeMoved() {
        var tl = Timeline()
        tl.start(5 * H, pid: 40, exe: xterm)
        tl.focus(5 * H, pid: 40)
        tl.login(5 * H, "c1")
        tl.keys(from: 5 * H, to: 6 * H + 40 * M)
        tl.add(5 * H + 25 * M, .bedtimeMoved(until: 21 * 60 + 30, by: "dad"))
        tl.lock(6 * H + 31 * M + 5, true)
        let r = tl.replay(Self.screen(["allowed_hours": "[\"07:00-20:30\"]", "warn_before": "[\"10m\"]"]))
        let b = Int(5 * H)
        #expect(Self.orders(r) == ["warn \(b + 1200) bedtime 600", "warn \(b + 4800) bedtime 600", "warn \(b + 5400) bedtime 0",
                                   "lock \(b + 5460) c1 bedtime"])
        var earlier = Timeline()
        earlier.start(5 * H, pid: 40, exe: xterm)
        earlier.focus(5 * H, pid: 40)
        earlier.login(5 * H, "c1")
        earlier.keys(from: 5 * H, to: 5 * H + 30 * M)
        earlier.add(5 * H + 5 * M, .bedtimeMoved(until: 20 * 60 + 10, by: "dad"))
        earlier.lock(5 * H + 11 * M + 5, true)
        let e = earlier.replay(Self.screen(["allowed_hours": "[\"07:00-20:30\"]", "warn_before": "[]"]))
        #expect(Self.orders(e) == ["warn \(b + 600) bedtime 0", "lock \(b + 660) c1 bedtime"])
        // After midnight, outside the day's hours (they start at 07:00): "until 01:00 tonight" lets it go on until then.
        var late = Timeline("2026-11-24T00:20:00+01:00")
        late.login(0, "c1"); late.start(0, pid: 40, exe: xterm); late.focus(0, pid: 40)
        late.keys(from: 0, to: 50 * M)
        late.add(10, .bedtimeMoved(until: 60, by: "dad"))
        late.lock(41 * M + 5, true)
        let l = late.replay(Self.screen(["allowed_hours": "[\"07:00-20:30\"]", "warn_before": "[]"]))
        #expect(Self.orders(l, late) == ["warn 0 bedtime 0", "warn 2400 bedtime 0", "lock 2460 c1 bedtime"],
                "told at 00:20 that it is past bedtime; at 00:20:10 the parent says 01:00; at 01:00 bedtime, a minute later the lock")
    }

    @Test("a free day: no screen or game limit for the rest of the day; the next day has its limits again")
    func freeDay() {
        var tl = Self.atTerminal(to: 60 * M)
        tl.add(10 * M, .freeDay(by: "mom", reason: "birthday"))
        tl.logout(60 * M, "c1")
        let r = tl.replay(Self.screen(["daily_limit": "\"30m\""]))
        #expect(Self.orders(r).isEmpty)
        #expect(Self.used(r) == 3600, "counted all the same")
        // Games: 120 minutes redeemed, played from 15:00; the day's limit is 90 minutes and games end at 20:00.
        var games = Timeline()
        games.adjust(0, points: 1000)
        games.redeem(0, minutes: 120)
        games.add(1, .freeDay(by: "mom", reason: "birthday"))
        games.start(2, pid: 50, exe: kart)
        games.focus(2, pid: 50)
        games.typing(from: 2, to: 100 * M)
        games.exit(100 * M, pid: 50)
        #expect(games.replay(testPolicy()).stops.isEmpty, "past the 90 minutes of the day's game limit, not stopped")
        var ordinary = Timeline()
        ordinary.adjust(0, points: 1000)
        ordinary.redeem(0, minutes: 120)
        ordinary.start(2, pid: 50, exe: kart)
        ordinary.focus(2, pid: 50)
        ordinary.typing(from: 2, to: 100 * M)
        ordinary.exit(100 * M, pid: 50)
        #expect(ordinary.replay(testPolicy()).stops.first?.reason == .dailyLimit, "the same afternoon without a free day")
        // The next day: the limit again.
        var next = Self.atTerminal(to: 10 * M)
        next.add(60, .freeDay(by: "mom", reason: nil))
        next.logout(10 * M, "c1")
        next.login(24 * H, "c2")
        next.keys(from: 24 * H, to: 24 * H + 40 * M)
        next.lock(24 * H + 31 * M + 5, true)
        let n = next.replay(Self.screen(["daily_limit": "\"30m\"", "warn_before": "[]"]))
        #expect(Self.orders(n) == ["warn \(Int(24 * H) + 1800) screen_daily_limit 0", "lock \(Int(24 * H) + 1860) c2 screen_limit"])
    }

    @Test("school days and weekends: each day's screen limit and hours from its schedule")
    func schedules() {
        let policy = Self.screen(["daily_limit": "\"2h\"", "warn_before": "[]"], extra: """

            [[schedules]]
            name = "school days"
            days = ["mon", "tue", "wed", "thu", "fri"]
            screen_daily_limit = "1h"

            [[schedules]]
            name = "weekend"
            days = ["sat", "sun"]
            screen_daily_limit = "3h"
            screen_allowed_hours = ["08:00-21:00"]

            """)
        var monday = Self.atTerminal(to: 70 * M)
        monday.lock(61 * M + 5, true)
        #expect(Self.orders(monday.replay(policy)) == ["warn 3600 screen_daily_limit 0", "lock 3660 c1 screen_limit"])
        // Saturday 15:00: three hours would end at 18:00; two hours at 18:00 would be the default.
        var saturday = Timeline("2026-11-28T15:00:00+01:00")
        saturday.login(0, "c1"); saturday.start(0, pid: 40, exe: xterm); saturday.focus(0, pid: 40)
        saturday.keys(from: 0, to: 3 * H + 5 * M)
        saturday.lock(3 * H + 65, true)
        let s = saturday.replay(policy)
        #expect(Self.orders(s, saturday) == ["warn 10800 screen_daily_limit 0", "lock 10860 c1 screen_limit"])
        // Saturday 20:30: bedtime at 21:00 from the weekend's hours.
        var evening = Timeline("2026-11-28T20:30:00+01:00")
        evening.login(0, "c1"); evening.start(0, pid: 40, exe: xterm); evening.focus(0, pid: 40)
        evening.keys(from: 0, to: 40 * M)
        evening.lock(31 * M + 5, true)
        #expect(Self.orders(evening.replay(policy), evening) == ["warn 1800 bedtime 0", "lock 1860 c1 bedtime"])
    }

    @Test("midnight: the new day has its own limit, counted from zero")
    func midnight() {
        // On all night: Monday 23:00 to Tuesday 00:40, daily limit 30 minutes, no hours.
        var tl = Timeline("2026-11-23T23:00:00+01:00")
        tl.login(0, "c1"); tl.start(0, pid: 40, exe: xterm); tl.focus(0, pid: 40)
        tl.keys(from: 0, to: 100 * M)
        tl.lock(31 * M + 10, true)
        tl.lock(61 * M, false)            // after midnight: a new day's 30 minutes
        tl.lock(92 * M + 5, true)
        let r = tl.replay(Self.screen(["daily_limit": "\"30m\"", "warn_before": "[]"]))
        #expect(Self.orders(r, tl) == ["warn 1800 screen_daily_limit 0", "lock 1860 c1 screen_limit",
                                       "warn 5460 screen_daily_limit 0", "lock 5520 c1 screen_limit"])
        #expect(r.days.first?.screen?.used == sec(31 * M + 10), "Monday: 23:00 to the lock at 23:31:10")
    }

    @Test("a checkpoint in the middle goes on exactly as the engine it came from")
    func checkpoint() throws {
        var tl = Self.atTerminal(to: 2470)
        tl.lock(31 * M + 10, true)
        tl.lock(36 * M, false)
        tl.add(38 * M, .screenBonus(minutes: 5, by: "mom", reason: nil))
        tl.logout(2470, "c1")
        let policy = Self.screen(["daily_limit": "\"30m\"", "relocks": "1", "allowed_hours": "[\"07:00-20:30\"]"])
        let events = tl.events
        var straight = Engine(policy: policy), resumed = Engine(policy: policy)
        var a: [Effect] = [], b: [Effect] = []
        for (i, e) in events.enumerated() {
            straight.apply(e, into: &a)
            resumed.apply(e, into: &b)
            if i == events.count / 2 {
                let data = resumed.checkpointData
                resumed = Engine(policy: policy, checkpoint: try JSONDecoder().decode(Engine.Checkpoint.self, from: data))
                #expect(resumed.checkpointData == data, "the same bytes for the same state")
            }
        }
        #expect(a == b)
        #expect(straight.screenFigures == resumed.screenFigures)
    }

    @Test("the child asks for screen minutes; a parent's approval is a screen bonus for today (fewer if the parent says), with no points and no ledger entry")
    func askForScreen() {
        var tl = Self.atTerminal(to: 50 * M)
        tl.add(25 * M, .timeRequested(id: "s1", minutes: 20, reason: "finish my project", screen: true))
        tl.add(27 * M, .requestDecided(RequestDecision(id: "s1", approved: true, pay: .points, minutes: 10, by: "mom", reason: nil)))
        tl.lock(41 * M + 5, true)
        let r = tl.replay(Self.screen(["daily_limit": "\"30m\"", "warn_before": "[]"]))
        #expect(r.requests.first?.state == .approved && r.requests.first?.minutesGranted == 10 && r.requests.first?.screen == true)
        #expect(r.ledger.isEmpty, "no points spent, nothing in the ledger")
        #expect(r.today?.screen?.bonus == sec(10 * M))
        #expect(Self.orders(r) == ["warn 2400 screen_daily_limit 0", "lock 2460 c1 screen_limit"], "30 + 10 minutes")
    }
}

