import ScreenTimeCore
import Testing

/// A parent's say over today (issue 35): bonus time, games stopped until a time, minutes taken
/// back, and the figures as of a moment. The policy is `testPolicy()`: 90 min a day, 07:00–20:00,
/// a game minute costs 2 points; the timelines start on Monday 2026-11-23 at 15:00 in Berlin.
/// Expected numbers are worked out by hand in the comments.
@Suite("A parent's say over today")
struct ParentsSayTests {
    @Test("bonus time is played first and beyond the daily limit: 20 bonus minutes and the day's 90, then the stop")
    func bonusBeyondTheLimit() {
        var tl = Timeline()
        tl.adjust(0, points: 1000)
        tl.redeem(0, minutes: 200)
        tl.add(0, .bonusGiven(minutes: 20, by: "mom", reason: "birthday"))
        tl.start(0, pid: 9, exe: kart)
        tl.exit(110 * M + 5, pid: 9)
        let r = tl.replay(testPolicy())
        // 0–20 min bonus, 20–110 min the day's 90: stopped at 110 min by the daily limit.
        #expect(r.stops.map(\.at) == [wall(110 * M)])
        #expect(r.stops.first?.reason == .dailyLimit)
        #expect(r.reward.usedToday == sec(90 * M))        // the bonus does not count against the limit
        #expect(r.reward.used == sec(110 * M))
        #expect(r.reward.bonusUsedToday == sec(20 * M))
        #expect(r.reward.bonusLeftToday == 0)
        let bonus = r.ledger.filter { $0.kind == .bonusTime }
        #expect(bonus.map(\.points) == [0])
        #expect(bonus.map(\.rewardSeconds) == [sec(20 * M)])
        #expect(bonus.map(\.note) == ["mom: birthday"])
        // The warnings count the bonus too: 5 and 1 minutes before 110.
        #expect(r.warnings.map(\.at) == [wall(105 * M), wall(109 * M)])
    }

    @Test("bonus time after the limit was reached lets the game be played again, for the bonus only")
    func bonusAfterTheLimit() {
        var tl = Timeline()
        tl.adjust(0, points: 1000)
        tl.redeem(0, minutes: 200)
        tl.start(0, pid: 9, exe: kart)
        tl.exit(90 * M + 5, pid: 9)
        tl.add(100 * M, .bonusGiven(minutes: 15, by: "dad", reason: nil))
        tl.start(101 * M, pid: 10, exe: kart)
        tl.exit(116 * M + 5, pid: 10)
        let r = tl.replay(testPolicy())
        #expect(r.stops.map(\.pid) == [9, 10])
        #expect(r.stops.map(\.at) == [wall(90 * M), wall(116 * M)])
        #expect(r.stops.map(\.reason) == [.dailyLimit, .dailyLimit])
        #expect(r.reward.usedToday == sec(90 * M))
    }

    @Test("bonus time does not go beyond the allowed hours, and what is left of it ends at midnight, in the ledger")
    func bonusEndsWithTheDay() {
        var tl = Timeline("2026-11-23T19:50:00+01:00")
        tl.adjust(0, points: 1000)
        tl.redeem(0, minutes: 60)
        tl.add(0, .bonusGiven(minutes: 30, by: "mom", reason: nil))
        tl.start(0, pid: 9, exe: kart)
        tl.exit(10 * M + 5, pid: 9)
        tl.tick(5 * H)                                    // 00:50 the next day
        let r = tl.replay(testPolicy())
        #expect(r.stops.map(\.at) == [wall(10 * M, origin: "2026-11-23T19:50:00+01:00")])
        #expect(r.stops.first?.reason == .outsideHours)
        // 10 of the 30 bonus minutes were played (none of the 60 redeemed); 20 end at midnight.
        let expired = r.ledger.filter { $0.kind == .expired }
        #expect(expired.map(\.rewardSeconds) == [sec(20 * M)])
        #expect(expired.map(\.at) == [wall(4 * H + 10 * M, origin: "2026-11-23T19:50:00+01:00")])
        #expect(expired.map(\.note) == ["bonus time not used on its day"])
        #expect(r.reward.remaining == sec(60 * M))
        #expect(r.days.map(\.rewardUsed) == [sec(10 * M)])   // played, bonus included
    }

    @Test("a request approved as bonus time: free, for today, beyond the limit")
    func requestAsBonus() {
        var tl = Timeline()
        tl.adjust(0, points: 1000)
        tl.redeem(0, minutes: 200)
        tl.start(0, pid: 9, exe: kart)
        tl.exit(90 * M + 5, pid: 9)
        tl.add(90 * M + 10, .timeRequested(id: "r1", minutes: 10, reason: "one more race"))
        tl.add(91 * M, .requestDecided(RequestDecision(id: "r1", approved: true, pay: .bonus, by: "mom")))
        tl.start(91 * M + 30, pid: 10, exe: kart)
        tl.exit(101 * M + 35, pid: 10)
        let r = tl.replay(testPolicy())
        // Stopped at 90; the bonus at 91 lets the next game be played for 10 minutes.
        #expect(r.stops.map(\.at) == [wall(90 * M), wall(101 * M + 30)])
        #expect(r.balance == 1000 - 400)
        #expect(r.ledger.last?.kind == .bonusTime)
        #expect(r.requests.first?.pay == .bonus)
    }

    @Test("stop-games: a game is stopped now, one started before the time is stopped at once, and after it games go on")
    func stopGamesUntil() {
        var tl = Timeline()
        tl.adjust(0, points: 1000)
        tl.redeem(0, minutes: 60)
        tl.start(0, pid: 9, exe: kart)
        tl.add(10 * M, .gamesStopped(until: WallTime(micros: wall(20 * M), utcOffsetSeconds: 3600), by: "dad"))
        tl.exit(10 * M + 5, pid: 9)
        tl.start(15 * M, pid: 10, exe: kart)
        tl.exit(15 * M + 5, pid: 10)
        tl.start(25 * M, pid: 11, exe: kart)
        tl.exit(75 * M + 5, pid: 11)
        let r = tl.replay(testPolicy())
        // 10 min played before the stop; the 50 left are played from 25 to 75 min.
        #expect(r.stops.map(\.pid) == [9, 10, 11])
        #expect(r.stops.map(\.reason) == [.stoppedByParent, .stoppedByParent, .noRewardTime])
        #expect(r.stops.map(\.at) == [wall(10 * M), wall(15 * M), wall(75 * M)])
        let notices = r.actions.compactMap { a -> Microseconds?? in if case .gamesStopped(_, let until, _) = a { return until } else { return nil } }
        #expect(notices == [wall(20 * M)])
        #expect(r.reward.used == sec(60 * M))
    }

    @Test("stop-games until now lets the games go on at once; a paused game is let go")
    func stopLifted() {
        var tl = Timeline()
        tl.adjust(0, points: 1000)
        tl.redeem(0, minutes: 60)
        tl.start(0, pid: 9, exe: kart)
        tl.add(5 * M, .gamesStopped(until: WallTime(micros: wall(5 * H), utcOffsetSeconds: 3600), by: "dad"))
        tl.add(7 * M, .gamesStopped(until: WallTime(micros: wall(7 * M), utcOffsetSeconds: 3600), by: "dad"))
        tl.exit(20 * M, pid: 9)
        let r = tl.replay(testPolicy(["enforcement.action": "\"pause\""]))
        #expect(r.stops.map(\.at) == [wall(5 * M)])
        #expect(r.stops.map(\.action) == [.pause])
        let resumed = r.actions.compactMap { a -> Microseconds? in if case .resume(_, let at) = a { return at } else { return nil } }
        #expect(resumed == [wall(7 * M)])
        let notices = r.actions.compactMap { a -> Microseconds?? in if case .gamesStopped(_, let until, _) = a { return until } else { return nil } }
        #expect(notices == [wall(5 * H), nil])
        // Played 0–5 and 7–20 min.
        #expect(r.reward.used == sec(18 * M))
    }

    @Test("a parent's stop holds past midnight until its time, and a new day's limit does not lift it")
    func stopOverMidnight() {
        var tl = Timeline("2026-11-23T19:00:00+01:00")
        tl.adjust(0, points: 1000)
        tl.redeem(0, minutes: 60)
        tl.add(0, .gamesStopped(until: WallTime(micros: wall(14 * H, origin: "2026-11-23T19:00:00+01:00"), utcOffsetSeconds: 3600), by: "mom"))
        tl.start(13 * H, pid: 9, exe: kart)               // 08:00 the next day: still stopped
        tl.exit(13 * H + 5, pid: 9)
        tl.start(14 * H, pid: 10, exe: kart)              // 09:00: free again
        tl.exit(14 * H + 10 * M, pid: 10)
        let r = tl.replay(testPolicy())
        #expect(r.stops.map(\.pid) == [9])
        #expect(r.stops.map(\.reason) == [.stoppedByParent])
        #expect(r.reward.used == sec(10 * M))
    }

    @Test("revoke: unused redeemed minutes are taken back, with the points or without; gifts refund nothing; nothing left is refused")
    func revoke() {
        var tl = Timeline()
        tl.adjust(0, points: 100)
        tl.redeem(0, minutes: 30)                         // −60 points
        tl.start(0, pid: 9, exe: kart)
        tl.add(10 * M, .minutesRevoked(minutes: 15, refund: true, by: "mom"))   // 15 of the 20 left: +30 points
        tl.add(11 * M, .minutesRevoked(minutes: 60, refund: false, by: "mom"))  // the 4 left, no refund
        tl.exit(11 * M + 5, pid: 9)
        tl.add(12 * M, .minutesRevoked(minutes: 5, refund: true, by: "mom"))    // nothing left
        let r = tl.replay(testPolicy())
        let taken = r.ledger.filter { $0.kind == .revoked }
        #expect(taken.map(\.rewardSeconds) == [sec(15 * M), sec(4 * M)])
        #expect(taken.map(\.points) == [30, 0])
        #expect(taken.map(\.note) == ["mom (points refunded)", "mom (no refund)"])
        #expect(r.balance == 100 - 60 + 30)
        #expect(r.stops.map(\.at) == [wall(11 * M)])
        #expect(r.stops.first?.reason == .noRewardTime)
        #expect(r.refusals.map(\.code) == [.nothingToRevoke])
        #expect(r.reward.revoked == sec(19 * M))
        #expect(r.reward.used == sec(11 * M))
    }

    @Test("revoke with a refund of given minutes gives no points; bonus time is taken back last")
    func revokeGiftsAndBonus() {
        var tl = Timeline()
        tl.adjust(0, points: 100)
        tl.add(0, .timeRequested(id: "r1", minutes: 10, reason: nil))
        tl.add(1, .requestDecided(RequestDecision(id: "r1", approved: true, pay: .gift, by: "mom")))
        tl.add(2, .bonusGiven(minutes: 5, by: "mom", reason: nil))
        tl.add(3, .minutesRevoked(minutes: 12, refund: true, by: "mom"))
        tl.tick(4)
        let r = tl.replay(testPolicy())
        #expect(r.ledger.last?.kind == .revoked)
        #expect(r.ledger.last?.points == 0)
        #expect(r.ledger.last?.rewardSeconds == sec(12 * M))
        #expect(r.reward.remaining == sec(3 * M))
        #expect(r.reward.bonusLeftToday == sec(3 * M))
    }

    @Test("room today for more minutes: what the limits and hours leave, less the game time already waiting")
    func roomToday() {
        var tl = Timeline()
        tl.adjust(0, points: 1000)
        tl.redeem(0, minutes: 70)
        tl.start(0, pid: 9, exe: kart)
        tl.exit(60 * M, pid: 9)
        var engine = Engine(policy: testPolicy())
        var effects: [Effect] = []
        for e in tl.events { engine.apply(e, into: &effects) }
        // 60 of the day's 90 played; 10 redeemed minutes wait: room for 20 more (the hours leave 4 h).
        #expect(engine.roomTodayForMoreMinutes == sec(20 * M))
        engine.apply(Event(at: WallTime(micros: wall(61 * M), utcOffsetSeconds: 3600), .bonusGiven(minutes: 30, by: nil, reason: nil)), into: &effects)
        #expect(engine.roomTodayForMoreMinutes == sec(20 * M))  // bonus time is beyond the limits
        #expect(Engine(policy: testPolicy(["rewards.daily_limit": nil, "rewards.weekly_limit": nil, "rewards.allowed_hours": nil])).roomTodayForMoreMinutes == nil)
    }

    @Test("the figures as of a moment: game time left goes down while a game counts, learning today goes up while learning counts")
    func figuresAsOf() {
        var tl = Timeline(mono: 1000)
        tl.adjust(0, points: 1000)
        tl.redeem(0, minutes: 30)
        tl.start(0, pid: 9, exe: kart)
        tl.start(0, pid: 1, exe: gcompris)
        tl.focus(0, pid: 9)
        tl.tick(60)
        var engine = Engine(policy: testPolicy())
        var effects: [Effect] = []
        for e in tl.events { engine.apply(e, into: &effects) }
        #expect(engine.reward.availableNow == sec(29 * M))
        #expect(engine.rewardCountingNow)
        let later = engine.asOf(mono: sec(1000 + 5 * M))
        #expect(later.reward.availableNow == sec(25 * M))
        #expect(later.rewardAvailableToday == sec(25 * M))
        #expect(engine.reward.availableNow == sec(29 * M))    // the engine itself is not moved
        // Learning: GCompris in front, with input; the game closed.
        var learning = Timeline(mono: 1000)
        learning.start(0, pid: 1, exe: gcompris)
        learning.focus(0, pid: 1)
        learning.add(30, .input(count: 3))
        var e2 = Engine(policy: testPolicy())
        for e in learning.events { e2.apply(e, into: &effects) }
        #expect(e2.learningCountingNow)
        #expect(e2.learningTodaySoFar == sec(30))
        #expect(e2.learningCreditedToday == 0)
        #expect(e2.asOf(mono: sec(1000 + 90)).learningTodaySoFar == sec(90))
        // Idle past the threshold (moderate: 3 min after the last input): it stops counting at that input.
        let idle = e2.asOf(mono: sec(1000 + 30 + 4 * M))
        #expect(!idle.learningCountingNow)
        #expect(idle.learningTodaySoFar <= sec(30 + 3 * M))
    }
}
