import ScreenTimeCore
import Testing

/// Scenarios of redemptions, reward minutes, limits and stops. Expected numbers are worked out by
/// hand from the timeline and the policy in the comments.
@Suite("Reward scenarios")
struct RewardScenarioTests {
    @Test("20 redeemed minutes: warned at 5 and 1 minutes left, stopped when they are gone, told again after grace")
    func redeemAndPlay() {
        var tl = Timeline()
        tl.adjust(0, points: 60)
        tl.redeem(10, minutes: 20)
        tl.start(M, pid: 5151, exe: kart)
        tl.focus(M, pid: 5151)
        tl.exit(21 * M + 20, pid: 5151)
        let r = tl.replay(testPolicy())
        #expect(r.balance == 20)
        #expect(r.warnings.map(\.at) == [wall(16 * M), wall(20 * M)])
        #expect(r.warnings.map(\.remaining) == [sec(300), sec(60)])
        #expect(r.stops.map(\.at) == [wall(21 * M), wall(21 * M + 15)])
        #expect(r.stops.allSatisfy { $0.pid == 5151 && $0.reason == .noRewardTime })
        #expect(r.reward.used == sec(20 * M))
        #expect(r.reward.remaining == 0)
        #expect(r.ledger.map(\.kind) == [.adjusted, .redeemed])
        #expect(r.ledger.map(\.points) == [60, -40])
    }

    @Test("a redemption the balance cannot pay is refused and changes nothing")
    func redeemRefused() {
        var tl = Timeline()
        tl.adjust(0, points: 10)
        tl.redeem(5, minutes: 10)          // costs 20
        tl.tick(10)
        let r = tl.replay(testPolicy())
        #expect(r.balance == 10)
        #expect(r.ledger.count == 1)
        #expect(r.refusals.count == 1)
        #expect(r.reward.granted == 0)
    }

    @Test("a penalty may take the balance below zero; nothing can be redeemed until it is paid back")
    func negativeBalance() {
        var tl = Timeline()
        tl.adjust(0, points: 50)
        tl.adjust(1, points: -80)
        tl.redeem(2, minutes: 1)
        tl.tick(3)
        let r = tl.replay(testPolicy())
        #expect(r.ledger.map(\.balanceAfter) == [50, -30])
        #expect(r.balance == -30)
        #expect(r.refusals.count == 1)
    }

    @Test("minutes not used within redemption_expires_after expire, in the ledger")
    func expiry() {
        var tl = Timeline()
        tl.adjust(0, points: 100)
        tl.redeem(0, minutes: 30)
        tl.start(0, pid: 9, exe: kart)
        tl.exit(10 * M, pid: 9)
        tl.tick(25 * H)
        let r = tl.replay(testPolicy(["rewards.redemption_expires_after": "\"1d\""]))
        #expect(r.reward.used == sec(10 * M))
        #expect(r.reward.expired == sec(20 * M))
        #expect(r.reward.remaining == 0)
        let expired = r.ledger.filter { $0.kind == .expired }
        #expect(expired.count == 1)
        #expect(expired.first?.at == wall(24 * H))
        #expect(expired.first?.rewardSeconds == sec(20 * M))
        #expect(r.balance == 40)
    }

    @Test("the daily limit stops play at 90 minutes; the next day the rest of the minutes can be played")
    func dailyLimit() {
        var tl = Timeline()
        tl.adjust(0, points: 1000)
        tl.redeem(0, minutes: 120)
        tl.start(0, pid: 9, exe: kart)
        tl.exit(90 * M + 20, pid: 9)                 // the game quits 20 s after it was told
        tl.start(24 * H, pid: 10, exe: kart)
        tl.exit(24 * H + 30 * M + 20, pid: 10)
        let r = tl.replay(testPolicy())
        #expect(r.stops.map(\.reason) == [.dailyLimit, .dailyLimit, .noRewardTime, .noRewardTime])
        #expect(r.stops.map(\.at) == [wall(90 * M), wall(90 * M + 15), wall(24 * H + 30 * M), wall(24 * H + 30 * M + 15)])
        #expect(r.warnings.map(\.at) == [wall(85 * M), wall(89 * M), wall(24 * H + 25 * M), wall(24 * H + 29 * M)])
        #expect(r.reward.used == sec(120 * M))
        // Monday ended with its 90 minutes played (the engine forgets them then: reports keep them).
        #expect(r.days == [DayTotals(start: wall(-15 * H), rewardUsed: sec(90 * M))])
    }

    @Test("the weekly limit counts Monday to Sunday in the policy's zone")
    func weeklyLimit() {
        var tl = Timeline()   // Monday 2026-11-23 15:00
        tl.adjust(0, points: 1000)
        tl.redeem(0, minutes: 300)
        tl.start(0, pid: 1, exe: kart)
        tl.exit(90 * M, pid: 1)              // Monday: 90 min, exactly the daily limit
        tl.start(24 * H, pid: 2, exe: kart)  // Tuesday: 30 min until the 2 h week is used
        tl.exit(24 * H + 30 * M + 20, pid: 2)
        tl.start(7 * 24 * H, pid: 3, exe: kart) // next Monday: a new week
        tl.exit(7 * 24 * H + 10 * M, pid: 3)
        let r = tl.replay(testPolicy(["rewards.weekly_limit": "\"2h\"", "rewards.redemption_expires_after": nil]))
        #expect(r.stops.map(\.reason) == [.dailyLimit, .weeklyLimit, .weeklyLimit])
        #expect(r.stops.map(\.at) == [wall(90 * M), wall(24 * H + 30 * M), wall(24 * H + 30 * M + 15)])
        #expect(r.reward.used == sec(90 * M + 30 * M + 10 * M))
    }

    @Test("allowed hours: warned before the window closes, stopped when it does")
    func allowedHoursEnd() {
        var tl = Timeline("2026-11-23T19:50:00+01:00")
        tl.adjust(0, points: 200)
        tl.redeem(0, minutes: 60)
        tl.start(0, pid: 9, exe: kart)
        tl.exit(10 * M + 10, pid: 9)
        let r = tl.replay(testPolicy())
        #expect(r.warnings.map(\.at) == [wall(5 * M, origin: "2026-11-23T19:50:00+01:00"), wall(9 * M, origin: "2026-11-23T19:50:00+01:00")])
        #expect(r.warnings.allSatisfy { $0.limit == .outsideHours })
        #expect(r.stops.map(\.reason) == [.outsideHours])
        #expect(r.stops.first?.at == wall(10 * M, origin: "2026-11-23T19:50:00+01:00"))
        #expect(r.reward.used == sec(10 * M))
        #expect(r.reward.remaining == sec(50 * M))
    }

    @Test("a game started outside the allowed hours is stopped at once")
    func launchOutsideHours() {
        var tl = Timeline("2026-11-23T21:00:00+01:00")
        tl.adjust(0, points: 200)
        tl.redeem(0, minutes: 30)
        tl.start(60, pid: 9, exe: minetest)
        tl.exit(70, pid: 9)
        let r = tl.replay(testPolicy())
        #expect(r.stops.map(\.reason) == [.outsideHours])
        #expect(r.stops.first?.at == wall(60, origin: "2026-11-23T21:00:00+01:00"))
        #expect(r.reward.used == 0)
    }

    @Test("allowed hours on the day clocks go forward: 07:10 CEST is inside 07:00-20:00, 06:50 is not")
    func daylightSavingHours() {
        var inside = Timeline("2026-03-29T07:10:00+02:00")
        inside.adjust(0, points: 200)
        inside.redeem(0, minutes: 30)
        inside.start(0, pid: 9, exe: kart)
        inside.exit(10 * M, pid: 9)
        let a = inside.replay(testPolicy())
        #expect(a.stops.isEmpty)
        #expect(a.reward.used == sec(10 * M))

        var before = Timeline("2026-03-29T06:50:00+02:00")
        before.adjust(0, points: 200)
        before.redeem(0, minutes: 30)
        before.start(0, pid: 9, exe: kart)
        before.exit(20, pid: 9)
        let b = before.replay(testPolicy())
        #expect(b.stops.map(\.reason) == [.outsideHours, .outsideHours])
        #expect(b.stops.map(\.at) == [wall(0, origin: "2026-03-29T06:50:00+02:00"), wall(15, origin: "2026-03-29T06:50:00+02:00")])
        #expect(b.reward.used == 0)
    }

    @Test("the 25-hour day when clocks go back: midnight is where the zone puts it")
    func daylightSavingDayLength() {
        // 2026-10-25 lasts 25 h in Berlin. A learning session from 23:00 to 01:00 has one hour on each
        // day; with a 1 h cap both are credited in full.
        var tl = Timeline("2026-10-25T23:00:00+01:00")
        tl.start(0, pid: 1, exe: gcompris)
        tl.focus(0, pid: 1)
        tl.exit(2 * H, pid: 1)
        let r = tl.replay(testPolicy(["points.daily_learning_cap": "\"1h\""]))
        #expect(r.learningSessions[0].creditedSeconds == sec(2 * H))
        #expect(r.balance == 120)
    }

    @Test("the wall clock moved a day ahead: the calendar follows, and that day is spent; it does not come again when the clock is put right")
    func clockTrickSpendsTheDay() {
        // Monday 15:00, 90 min a day. 30 min played, then the wall clock is set a day ahead (within
        // one boot: no time passes). Tuesday starts fresh and is played from then on: 70 min by 100 min.
        // At 100 min the clock is put right (NTP): the calendar holds at Tuesday 17:10 until the wall
        // clock gets there, so Tuesday's limit is reached 20 min later, at that held time.
        var tl = Timeline(mono: 500)
        tl.adjust(0, points: 1000)
        tl.redeem(0, minutes: 200)
        tl.start(0, pid: 9, exe: kart)
        tl.add(30 * M, .tick, wallSkew: 24 * H)
        tl.add(100 * M, .tick, wallSkew: 24 * H)
        tl.add(100 * M + 1, .tick)
        tl.exit(120 * M + 10, pid: 9)
        // The real Tuesday, 16:00: the calendar still stands at Tuesday 17:10; Tuesday is spent.
        tl.start(25 * H, pid: 10, exe: kart)
        tl.exit(25 * H + 10, pid: 10)
        // Wednesday 15:00: a day of its own.
        tl.start(48 * H, pid: 11, exe: kart)
        tl.exit(48 * H + 10 * M, pid: 11)
        let r = tl.replay(testPolicy())
        let heldAt = wall(24 * H + 100 * M + 1)   // where the calendar stood when the clock was put right
        #expect(r.stops.map(\.pid) == [9, 10])
        #expect(r.stops.allSatisfy { $0.reason == .dailyLimit })
        #expect(r.stops.map(\.at) == [heldAt, heldAt])
        #expect(r.days.map(\.rewardUsed) == [sec(30 * M), sec(90 * M)])
        #expect(r.days.map(\.start) == [wall(-15 * H), wall(9 * H)])
        #expect(r.reward.used == sec(130 * M))
    }

    @Test("blocked apps are stopped at once, and again after grace while they live")
    func blocked() {
        var tl = Timeline()
        tl.start(0, pid: 66, exe: "/usr/games/blocked-game")
        tl.exit(20, pid: 66)
        let r = tl.replay(testPolicy())
        #expect(r.stops.map(\.at) == [wall(0), wall(15)])
        #expect(r.stops.allSatisfy { $0.reason == .blocked && $0.pid == 66 })
    }

    @Test("pause: the game is frozen when time runs out and let go when more is redeemed")
    func pauseMode() {
        var tl = Timeline()
        tl.adjust(0, points: 100)
        tl.redeem(0, minutes: 10)
        tl.start(0, pid: 9, exe: kart)
        tl.redeem(20 * M, minutes: 10)
        tl.exit(40 * M, pid: 9)
        let r = tl.replay(testPolicy(["enforcement.action": "\"pause\""]))
        #expect(r.stops.map(\.at) == [wall(10 * M), wall(30 * M)])
        #expect(r.stops.allSatisfy { $0.action == .pause })
        let resumes = r.actions.compactMap { a -> Microseconds? in if case .resume(9, let at) = a { return at } else { return nil } }
        #expect(resumes == [wall(20 * M)])
        #expect(r.reward.used == sec(20 * M))
    }

    @Test("pause undone: a paused game found running again counts as played and is paused again; the second time it is terminated")
    func pauseUndone() {
        var tl = Timeline()
        tl.adjust(0, points: 100)
        tl.redeem(0, minutes: 10)
        tl.start(0, pid: 9, exe: kart)
        tl.continued(11 * M, pid: 9, since: 10.5 * M)     // someone sent SIGCONT after 10 min 30 s
        tl.continued(12 * M, pid: 9, since: 11.5 * M)     // and again
        tl.exit(12 * M + 1, pid: 9)                        // terminated
        let r = tl.replay(testPolicy(["enforcement.action": "\"pause\""]))
        #expect(r.stops.map(\.at) == [wall(10 * M), wall(11 * M), wall(12 * M)])
        #expect(r.stops.map(\.action) == [.pause, .pause, .terminate])
        #expect(r.stops.map(\.repeatCount) == [0, 1, 0])
        // 10 minutes redeemed and used, then 30 s and 30 s played past them.
        #expect(r.reward.used == sec(10 * M))
        #expect(r.reward.usedToday == sec(11 * M))
        #expect(!r.actions.contains { if case .resume = $0 { return true } else { return false } })
    }

    @Test("unknown_apps = reward: a focused program no entry names is game time, and is stopped when none is left; neutral by default")
    func unknownAppsReward() {
        var tl = Timeline()
        tl.adjust(0, points: 100)
        tl.redeem(0, minutes: 1)
        tl.start(0, pid: 5, exe: "/home/kid/homework")      // a game the policy cannot name
        tl.start(0, pid: 6, exe: "/usr/bin/xterm")
        tl.focus(0, pid: 5)
        tl.focus(30, pid: 6)                                // in the background it does not count
        tl.focus(90, pid: 5)
        tl.exit(121, pid: 5)                                // stopped at 120
        let strict = tl.replay(testPolicy(["rewards.unknown_apps": "\"reward\""]))
        #expect(strict.reward.used == sec(60))
        #expect(strict.stops.map(\.at) == [wall(120)])
        #expect(strict.stops.map(\.app) == [Policy.unknownProgramName])
        #expect(strict.stops.map(\.pid) == [5])
        let neutral = tl.replay(testPolicy())
        #expect(neutral.reward.used == 0)
        #expect(neutral.stops.isEmpty)
    }

    @Test("pause undone after more time was redeemed: the game just goes on")
    func pauseUndoneWithTime() {
        var tl = Timeline()
        tl.adjust(0, points: 100)
        tl.redeem(0, minutes: 10)
        tl.start(0, pid: 9, exe: kart)
        tl.continued(11 * M, pid: 9, since: 11 * M)
        tl.exit(13 * M, pid: 9)
        let r = tl.replay(testPolicy(["enforcement.action": "\"pause\""]))
        #expect(r.stops.map(\.at) == [wall(10 * M), wall(11 * M)])
        #expect(r.stops.map(\.repeatCount) == [0, 1])
        #expect(r.reward.usedToday == sec(10 * M))
    }

    @Test("starting a game with 3 minutes left warns at once, then at 1 minute")
    func lateStartWarns() {
        var tl = Timeline()
        tl.adjust(0, points: 10)
        tl.redeem(0, minutes: 3)
        tl.start(M, pid: 9, exe: kart)
        tl.exit(5 * M, pid: 9)
        let r = tl.replay(testPolicy())
        #expect(r.warnings.map(\.at) == [wall(M), wall(3 * M)])
        #expect(r.warnings.map(\.remaining) == [sec(180), sec(60)])
        #expect(r.stops.first?.at == wall(4 * M))
    }

    @Test("counts_while = focused: a game minimized does not use reward time")
    func countsWhileFocused() {
        var tl = Timeline()
        tl.adjust(0, points: 100)
        tl.redeem(0, minutes: 30)
        tl.start(0, pid: 9, exe: kart)
        tl.start(0, pid: 2, exe: xterm)
        tl.focus(0, pid: 9)
        tl.focus(10 * M, pid: 2)
        tl.exit(40 * M, pid: 9)
        let focused = tl.replay(testPolicy(["rewards.counts_while": "\"focused\""]))
        #expect(focused.reward.used == sec(10 * M))
        let running = tl.replay(testPolicy())
        #expect(running.reward.used == sec(30 * M))
    }

    @Test("a locked screen does not use reward time")
    func lockedDoesNotCount() {
        var tl = Timeline()
        tl.adjust(0, points: 100)
        tl.redeem(0, minutes: 30)
        tl.start(0, pid: 9, exe: kart)
        tl.lock(5 * M, true)
        tl.lock(25 * M, false)
        tl.exit(30 * M, pid: 9)
        let r = tl.replay(testPolicy())
        #expect(r.reward.used == sec(10 * M))
        #expect(r.stops.isEmpty)
    }

    @Test("a copied game in the home folder is still the game")
    func copiedGame() {
        var tl = Timeline()
        tl.start(0, pid: 9, exe: "/home/kid/homework/supertuxkart")
        tl.exit(30, pid: 9)
        let r = tl.replay(testPolicy())
        #expect(r.stops.first?.reason == .noRewardTime)
        #expect(r.stops.first?.app == "SuperTuxKart")
    }
}

@Suite("Reward scenarios: exec")
struct RewardExecTests {
    @Test("a game that exec's a neutral program is no longer told to stop")
    func gameExecsNeutral() {
        var tl = Timeline()
        tl.start(0, pid: 9, exe: kart, ticks: 5)
        tl.start(5, pid: 9, exe: "/usr/bin/bash", ticks: 5)
        tl.exit(10 * M, pid: 9)
        let r = tl.replay(testPolicy())
        #expect(r.stops.map(\.at) == [wall(0)])
    }
}

@Suite("A new policy")
struct PolicyChangeTests {
    @Test("a new policy ends the sessions in progress and judges what follows by its rules")
    func adopt() {
        var tl = Timeline()
        tl.start(0, pid: 1, exe: gcompris)
        tl.focus(0, pid: 1)
        let events = tl.events
        var engine = Engine(policy: testPolicy())
        var effects: [Effect] = []
        for e in events { engine.apply(e, into: &effects) }
        var later = Timeline()
        later.tick(20 * M)
        for e in later.events { engine.apply(e, into: &effects) }
        // From 15:20 GCompris earns 120 points an hour.
        engine.adopt(testPolicy(["points.learning_per_hour": "120"]), into: &effects)
        var end = Timeline()
        end.exit(40 * M, pid: 1)
        for e in end.events { engine.apply(e, into: &effects) }
        engine.finish(into: &effects)
        var r = ReplayResult()
        r.collect(effects)
        r.finish(engine)
        #expect(r.learningSessions.map(\.start) == [wall(0), wall(20 * M)])
        #expect(r.learningSessions.map(\.points) == [20, 40])
        #expect(r.balance == 60)
    }
}
