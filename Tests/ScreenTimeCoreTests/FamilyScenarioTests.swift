import Foundation
import ScreenTimeCore
import ScreenTimePolicy
import Testing

/// The family half of `docs/spec/family.md`: requests for time, chores, the daily allowance and the
/// child's own redemptions. Every expected number is worked out by hand in the comments. The
/// timelines start on Monday 2026-11-23 at 15:00 in Berlin (the test policy's zone), unless they say.
@Suite("Family scenarios")
struct FamilyScenarioTests {
    static let chores = """

        [[chores]]
        name = "Dishes"
        points = 20
        every = "day"

        [[chores]]
        name = "Trash"
        points = 10
        every = "week"

        [[chores]]
        name = "Tidy room"
        points = 50
        every = "once"

        [[chores]]
        name = "Piano"
        points = 15
        every = ["mon", "thu"]

        """

    // MARK: Requests

    @Test("a request nobody answers expires after expire_after; an answer after that is refused and grants nothing")
    func requestExpires() {
        var tl = Timeline()
        tl.adjust(0, points: 100)
        tl.ask(0, "r1", minutes: 15)
        tl.tick(40 * M)
        tl.decide(41 * M, "r1", approved: true, pay: .gift)
        let r = tl.replay(testPolicy(["requests.expire_after": "\"30m\""]))
        #expect(r.requests.map(\.id) == ["r1"])
        #expect(r.requests.first?.state == .expired)
        #expect(r.requests.first?.decidedAt == wall(30 * M))        // asked at 15:00, 30 min to answer
        #expect(r.refusals.map(\.code) == [.requestNotPending])
        #expect(r.reward.granted == 0)
        #expect(r.ledger.map(\.kind) == [.adjusted])
    }

    @Test("without [requests], a request expires after one hour")
    func requestExpiresByDefault() {
        var tl = Timeline()
        tl.ask(0, "r1", minutes: 10)
        tl.tick(59 * M)
        tl.tick(61 * M)
        let r = tl.replay(testPolicy())
        #expect(r.requests.first?.state == .expired)
        #expect(r.requests.first?.decidedAt == wall(60 * M))
    }

    @Test("max_per_day: the third request of a day is refused; a decided one still counts; the next day starts afresh")
    func requestsPerDay() {
        var tl = Timeline()
        tl.ask(0, "r1", minutes: 10)
        tl.decide(60, "r1", approved: false, reason: "homework first")
        tl.ask(120, "r2", minutes: 10)
        tl.ask(180, "r3", minutes: 10)            // third today, max 2: refused
        tl.ask(10 * H, "r4", minutes: 10)          // Tuesday 01:00: a new day
        tl.tick(10 * H + 60)
        let r = tl.replay(testPolicy(["requests.max_per_day": "2"]))
        #expect(r.requests.map(\.id) == ["r1", "r2", "r3", "r4"])
        #expect(r.requests.map(\.state) == [.denied, .expired, .refused, .pending])
        #expect(r.requests.first?.answer == "homework first")
        #expect(r.refusals.map(\.code) == [.requestsPerDay])
        #expect(r.refusals.first?.at == wall(180))
    }

    @Test("approved in points, the minutes cost points like a redemption; what the balance cannot pay is refused and stays pending; a gift costs nothing")
    func giftVersusPoints() {
        var tl = Timeline()
        tl.adjust(0, points: 30)
        tl.ask(60, "r1", minutes: 20)
        tl.decide(120, "r1", approved: true, pay: .points)              // 20 × 2 = 40 > 30: refused, stays pending
        tl.decide(180, "r1", approved: true, pay: .gift, minutes: 10)   // fewer minutes, as a gift: 0 points
        tl.ask(240, "r2", minutes: 10)
        tl.decide(300, "r2", approved: true, pay: .points)              // 10 × 2 = 20 points: 30 → 10
        tl.ask(360, "r3", minutes: 5)
        tl.decide(420, "r3", approved: true, pay: .gift, minutes: 50)   // never more than was asked: 5
        tl.tick(480)
        let r = tl.replay(testPolicy())
        #expect(r.refusals.map(\.code) == [.insufficientPoints])
        #expect(r.refusals.first?.reason == "it costs 40 points and the balance is 30")
        #expect(r.requests.map(\.state) == [.approved, .approved, .approved])
        #expect(r.requests.map(\.pay) == [.gift, .points, .gift])
        #expect(r.requests.map(\.minutesGranted) == [10, 10, 5])
        #expect(r.ledger.map(\.kind) == [.adjusted, .gifted, .redeemed, .gifted])
        #expect(r.ledger.map(\.points) == [30, 0, -20, 0])
        #expect(r.ledger.map(\.rewardSeconds) == [nil, sec(10 * M), sec(10 * M), sec(5 * M)])
        #expect(r.ledger.dropFirst().allSatisfy { $0.note == "mum" })
        #expect(r.balance == 10)
        #expect(r.reward.granted == sec(25 * M))          // 10 + 10 + 5 minutes
    }

    @Test("an approved request's minutes are game time: the game runs for exactly them")
    func approvedMinutesArePlayed() {
        var tl = Timeline()
        tl.ask(0, "r1", minutes: 10)
        tl.decide(60, "r1", approved: true, pay: .gift)
        tl.start(2 * M, pid: 7, exe: kart)
        tl.exit(12 * M + 10, pid: 7)
        let r = tl.replay(testPolicy())
        #expect(r.stops.map(\.at) == [wall(12 * M)])          // 10 minutes from 15:02
        #expect(r.stops.map(\.reason) == [.noRewardTime])
        #expect(r.reward.used == sec(10 * M))
    }

    @Test("a request with an id that exists is refused; a decision on an unknown or decided request is refused")
    func requestIDs() {
        var tl = Timeline()
        tl.ask(0, "r1", minutes: 10)
        tl.ask(10, "r1", minutes: 20)
        tl.decide(20, "r1", approved: false)
        tl.decide(30, "r1", approved: true, pay: .gift)
        tl.decide(40, "zz", approved: true, pay: .gift)
        let r = tl.replay(testPolicy())
        #expect(r.refusals.map(\.code) == [.requestExists, .requestNotPending, .requestNotPending])
        #expect(r.refusals.map(\.reason) == ["a request with id r1 exists already", "request r1 was denied already", "request zz is not known"])
        #expect(r.requests.map(\.minutes) == [10])
        #expect(r.reward.granted == 0)
    }

    // MARK: Chores

    @Test("a daily chore: claimed once a day, again after a rejection, paid when approved")
    func dailyChore() {
        var tl = Timeline()
        tl.choreDone(0, "Dishes")
        tl.choreDone(60, "Dishes")                     // waits for a parent: refused
        tl.choreDecided(120, "Dishes", approved: false, reason: "still greasy")
        tl.choreDone(180, "Dishes")                    // after a rejection: again
        tl.choreDecided(240, "Dishes", approved: true)
        tl.choreDone(300, "Dishes")                    // done and paid today: refused
        tl.choreDone(24 * H, "Dishes")                 // Tuesday: due again
        tl.choreDecided(24 * H + 60, "Dishes", approved: true)
        let r = tl.replay(testPolicy(apps: Self.chores))
        #expect(r.choreClaims.map(\.state) == [.rejected, .approved, .approved])
        #expect(r.choreClaims.map(\.at) == [wall(0), wall(180), wall(24 * H)])
        #expect(r.choreClaims.first?.answer == "still greasy")
        #expect(r.refusals.map(\.code) == [.choreNotDue, .choreNotDue])
        #expect(r.refusals.map(\.reason) == ["Dishes was claimed today and waits for a parent", "Dishes was done and paid today"])
        #expect(r.ledger.map(\.kind) == [.chore, .chore])
        #expect(r.ledger.map(\.note) == ["Dishes", "Dishes"])
        #expect(r.balance == 40)
    }

    @Test("a weekly chore once Monday to Sunday, a chore done once never again, a weekday chore only on its days")
    func chorePeriods() {
        var tl = Timeline()                             // Monday
        tl.choreDone(0, "Trash")
        tl.choreDecided(10, "Trash", approved: true)    // +10
        tl.choreDone(48 * H, "Trash")                   // Wednesday: this week's is done
        tl.choreDone(7 * 24 * H, "Trash")               // next Monday: a new week
        tl.choreDone(20, "Tidy room")
        tl.choreDecided(30, "Tidy room", approved: true) // +50
        tl.choreDone(7 * 24 * H + 60, "Tidy room")       // once: never again
        tl.choreDone(40, "Piano")                        // Monday: due
        tl.choreDecided(50, "Piano", approved: true)     // +15
        tl.choreDone(24 * H, "Piano")                    // Tuesday: not due
        tl.choreDone(3 * 24 * H, "Piano")                // Thursday: due
        let r = tl.replay(testPolicy(apps: Self.chores))
        #expect(r.choreClaims.map(\.chore) == ["Trash", "Tidy room", "Piano", "Piano", "Trash"])
        #expect(r.choreClaims.map(\.state) == [.approved, .approved, .approved, .pending, .pending])
        #expect(r.refusals.map(\.reason) == ["Piano is done on Monday, Thursday, not today", "Trash was done and paid this week",
                                             "Tidy room was done and paid"])
        #expect(r.refusals.allSatisfy { $0.code == .choreNotDue })
        #expect(r.balance == 75)
    }

    @Test("an unknown chore is refused with a suggestion; deciding a chore nobody claimed is refused")
    func unknownChore() {
        var tl = Timeline()
        tl.choreDone(0, "Dishs")
        tl.choreDecided(10, "Dishes", approved: true)
        let r = tl.replay(testPolicy(apps: Self.chores))
        #expect(r.refusals.map(\.code) == [.choreNotDue, .choreNotClaimed])
        #expect(r.refusals.first?.reason == "there is no chore called Dishs (did you mean 'Dishes'?)")
        #expect(r.ledger.isEmpty)
    }

    // MARK: The daily allowance

    @Test("the allowance is free game time: no points, and the game stops when it is used")
    func allowanceOnly() {
        var tl = Timeline()
        tl.start(0, pid: 7, exe: kart)
        tl.exit(20 * M + 20, pid: 7)                     // quits 20 s after it was told
        let r = tl.replay(testPolicy(["rewards.daily_allowance": "\"20m\""]))
        #expect(r.stops.map(\.at) == [wall(20 * M), wall(20 * M + 15)])
        #expect(r.stops.first?.reason == .noRewardTime)
        #expect(r.warnings.map(\.at) == [wall(15 * M), wall(19 * M)])
        #expect(r.reward.allowance == sec(20 * M))
        #expect(r.reward.allowanceUsed == sec(20 * M))
        #expect(r.reward.used == sec(20 * M))
        #expect(r.reward.granted == 0)
        #expect(r.balance == 0)
    }

    @Test("the allowance is used before redeemed minutes, which are kept for later")
    func allowanceFirst() {
        var tl = Timeline()
        tl.adjust(0, points: 100)
        tl.redeem(0, minutes: 10)
        tl.start(0, pid: 7, exe: kart)
        tl.exit(25 * M, pid: 7)                          // 20 of allowance, then 5 of the 10 redeemed
        let r = tl.replay(testPolicy(["rewards.daily_allowance": "\"20m\""]))
        #expect(r.reward.allowanceUsed == sec(20 * M))
        #expect(r.reward.used == sec(25 * M))
        #expect(r.reward.remaining == sec(5 * M))
        #expect(r.reward.granted == sec(10 * M))
        #expect(r.stops.isEmpty)
    }

    @Test("the allowance counts against the daily limit and the allowed hours")
    func allowanceWithinLimits() {
        // Daily limit 15 min below the 20-min allowance: stopped by the limit at 15:15.
        var a = Timeline()
        a.start(0, pid: 7, exe: kart)
        a.exit(16 * M, pid: 7)
        let limited = a.replay(testPolicy(["rewards.daily_allowance": "\"20m\"", "rewards.daily_limit": "\"15m\""]))
        #expect(limited.stops.first?.at == wall(15 * M))
        #expect(limited.stops.first?.reason == .dailyLimit)
        #expect(limited.reward.allowanceUsed == sec(15 * M))

        // From 19:50, the allowed hours end at 20:00: 10 of the 20 minutes.
        let evening = "2026-11-23T19:50:00+01:00"
        var b = Timeline(evening)
        b.start(0, pid: 7, exe: kart)
        b.exit(11 * M, pid: 7)
        let late = b.replay(testPolicy(["rewards.daily_allowance": "\"20m\""]))
        #expect(late.stops.first?.at == wall(10 * M, origin: evening))
        #expect(late.stops.first?.reason == .outsideHours)
        #expect(late.reward.allowanceUsed == sec(10 * M))
    }

    @Test("what is left of the allowance is gone at the day's end; each day grants it afresh")
    func allowancePerDay() {
        var tl = Timeline()
        tl.start(0, pid: 7, exe: kart)
        tl.exit(5 * M, pid: 7)                           // Monday: 5 of 20 used, 15 gone at midnight
        tl.start(24 * H, pid: 8, exe: kart)              // Tuesday 15:00: 20 again, not 35
        tl.exit(24 * H + 21 * M, pid: 8)
        let r = tl.replay(testPolicy(["rewards.daily_allowance": "\"20m\""]))
        #expect(r.stops.first?.at == wall(24 * H + 20 * M))
        #expect(r.reward.allowance == sec(40 * M))       // two days of 20
        #expect(r.reward.allowanceUsed == sec(25 * M))
        #expect(r.reward.used == sec(25 * M))
    }

    @Test("a policy reloaded with another allowance: today's becomes the new amount less what was used")
    func allowanceReloaded() throws {
        var tl = Timeline()
        tl.start(0, pid: 7, exe: kart)
        tl.exit(10 * M, pid: 7)
        var engine = Engine(policy: testPolicy(["rewards.daily_allowance": "\"20m\""]))
        var effects: [Effect] = []
        for e in tl.events { engine.apply(e, into: &effects) }
        engine.adopt(testPolicy(["rewards.daily_allowance": "\"30m\""]), into: &effects)
        #expect(engine.reward.allowanceLeftToday == sec(20 * M))   // 30 − the 10 used
        #expect(engine.reward.allowance == sec(30 * M))
        engine.adopt(testPolicy(["rewards.daily_allowance": "\"5m\""]), into: &effects)
        #expect(engine.reward.allowanceLeftToday == 0)             // 5 − 10: nothing left
    }

    // MARK: The child's own redemptions

    @Test("child_redeem_daily_max bounds the child's own redemptions per day, not a parent's")
    func childRedemptionCap() {
        var tl = Timeline()
        tl.adjust(0, points: 500)
        tl.add(10, .redeem(minutes: 20, by: "child"))     // 20 of 30
        tl.add(20, .redeem(minutes: 15, by: "child"))     // 35 > 30: refused
        tl.add(30, .redeem(minutes: 10, by: "child"))     // 30: allowed
        tl.add(40, .redeem(minutes: 30, by: "mum"))       // a parent: no cap
        tl.add(24 * H, .redeem(minutes: 30, by: "child")) // Tuesday: a new day's 30
        let r = tl.replay(testPolicy(["rewards.child_may_redeem": "true", "rewards.child_redeem_daily_max": "\"30m\"",
                                      "rewards.redemption_expires_after": nil, "rewards.weekly_limit": nil]))
        #expect(r.refusals.map(\.code) == [.childRedeemLimit])
        #expect(r.refusals.first?.reason == "a child may redeem 30 min a day, and 20 min were redeemed today")
        #expect(r.ledger.filter { $0.kind == .redeemed }.map(\.points) == [-40, -20, -60, -60])
        #expect(r.balance == 500 - 180)
        #expect(r.reward.granted == sec(90 * M))
    }

    @Test("without child_may_redeem, the child's own redemption is refused and says how to ask")
    func childMayNotRedeem() {
        var tl = Timeline()
        tl.adjust(0, points: 500)
        tl.add(10, .redeem(minutes: 20, by: "child"))
        let r = tl.replay(testPolicy())
        #expect(r.refusals.map(\.code) == [.childMayNotRedeem])
        #expect(r.refusals.first?.reason.contains("stctl ask") == true)
        #expect(r.balance == 500)
    }

    // MARK: Replay and checkpoints

    @Test("the family events are written and read back as they were; a malformed one says which field is wrong")
    func eventLines() throws {
        let at = RFC3339.parse("2026-11-23T16:00:00+01:00")!
        let events: [Event.Kind] = [
            .timeRequested(id: "a1", minutes: 10, reason: "one more race"),
            .timeRequested(id: "a2", minutes: 5, reason: nil),
            .requestDecided(RequestDecision(id: "a1", approved: true, pay: .gift, minutes: 5, by: "mum", reason: nil)),
            .requestDecided(RequestDecision(id: "a2", approved: false, pay: .points, by: "dad", reason: "bed time")),
            .choreDone(chore: "Feed the cat"),
            .choreDecided(chore: "Feed the cat", approved: false, by: "mum", reason: "the bowl is empty"),
            .redeem(minutes: 15, by: "child"),
            .requestDecided(RequestDecision(id: "a3", approved: true, pay: .bonus, by: "mum")),
            .bonusGiven(minutes: 20, by: "mum", reason: "birthday"),
            .bonusGiven(minutes: 5, by: nil, reason: nil),
            .gamesStopped(until: WallTime(micros: at.micros + 3_600_000_000, utcOffsetSeconds: 3600), by: "dad"),
            .minutesRevoked(minutes: 10, refund: true, by: "mum"),
            .minutesRevoked(minutes: 3, refund: false, by: nil),
        ]
        for kind in events {
            let e = Event(at: at, mono: 5 * Seconds.micro, kind)
            #expect(try EventLog.decode(line: EventLog.encode(e)) == e)
        }
        // The shared scenario's lines, as written there.
        let line = #"{"at": "2026-11-23T16:07:00+01:00", "event": "request_decided", "id": "a1", "approved": true, "pay": "points", "by": "mum"}"#
        #expect(try EventLog.decode(line: line).kind == .requestDecided(RequestDecision(id: "a1", approved: true, pay: .points, by: "mum")))
        let bad: [(String, String)] = [
            (#"{"at": "2026-11-23T16:07:00+01:00", "event": "request_decided", "id": "a1", "approved": true, "pay": "cash"}"#,
             #"'pay' must be "points", "gift" or "bonus", not "cash""#),
            (#"{"at": "2026-11-23T16:07:00+01:00", "event": "time_requested", "id": "a1", "minutes": 0}"#,
             "'minutes' must be a whole number from 1 to 100000"),
            (#"{"at": "2026-11-23T16:07:00+01:00", "event": "time_requested", "id": "", "minutes": 5}"#,
             "'id' must be 1 to 64 characters"),
            (#"{"at": "2026-11-23T16:07:00+01:00", "event": "chore_decided", "chore": "Dishes"}"#,
             "missing field 'approved' (true or false)"),
            (#"{"at": "2026-11-23T16:07:00+01:00", "event": "games_stopped", "by": "dad"}"#,
             "missing field 'until' (a time, RFC 3339)"),
            (#"{"at": "2026-11-23T16:07:00+01:00", "event": "minutes_revoked", "minutes": 5}"#,
             "missing field 'refund' (true or false)"),
            (#"{"at": "2026-11-23T16:07:00+01:00", "event": "bonus_given", "minutes": 100001}"#,
             "'minutes' must be a whole number from 1 to 100000"),
        ]
        for (text, reason) in bad {
            do {
                _ = try EventLog.decode(line: text)
                Issue.record("accepted: \(text)")
            } catch {
                #expect(error.reason == reason)
            }
        }
    }

    @Test("the policy's family keys are read; left out, they take the spec's defaults")
    func policyKeys() throws {
        let policy = testPolicy(["rewards.daily_allowance": "\"30m\"", "rewards.child_may_redeem": "true",
                                 "rewards.child_redeem_daily_max": "\"1h\"", "requests.expire_after": "\"2h\"",
                                 "requests.max_per_day": "3"], apps: Self.chores)
        #expect(policy.rewards.dailyAllowance == sec(30 * M))
        #expect(policy.rewards.childMayRedeem)
        #expect(policy.rewards.childRedeemDailyMax == sec(H))
        #expect(policy.requests == Policy.Requests(expireAfter: sec(2 * H), maxPerDay: 3))
        #expect(policy.chores == [Chore(name: "Dishes", points: 20, every: .day), Chore(name: "Trash", points: 10, every: .week),
                                  Chore(name: "Tidy room", points: 50, every: .once), Chore(name: "Piano", points: 15, every: .weekdays([.mon, .thu]))])
        let plain = testPolicy()
        #expect(plain.rewards.dailyAllowance == nil)
        #expect(!plain.rewards.childMayRedeem)
        #expect(plain.rewards.childRedeemDailyMax == nil)
        #expect(plain.requests == Policy.Requests(expireAfter: sec(H), maxPerDay: 5))
        #expect(plain.chores.isEmpty)
    }

    @Test("an engine restored from a checkpoint halfway keeps requests, claims, allowance and the child's redemptions")
    func checkpointKeepsFamily() throws {
        var tl = Timeline()
        tl.adjust(0, points: 200)
        tl.ask(0, "r1", minutes: 10)
        tl.choreDone(10, "Dishes")
        tl.add(20, .redeem(minutes: 20, by: "child"))
        tl.start(30, pid: 7, exe: kart)
        tl.exit(10 * M, pid: 7)
        // — the checkpoint —
        tl.decide(11 * M, "r1", approved: true, pay: .points)
        tl.choreDecided(12 * M, "Dishes", approved: true)
        tl.add(13 * M, .redeem(minutes: 15, by: "child"))   // 20 + 15 > 30: refused, even restored
        tl.start(14 * M, pid: 8, exe: kart)
        tl.exit(50 * M, pid: 8)
        let policy = testPolicy(["rewards.daily_allowance": "\"20m\"", "rewards.child_may_redeem": "true",
                                 "rewards.child_redeem_daily_max": "\"30m\""], apps: Self.chores)
        let events = tl.events
        let whole = ReplayResult.replay(events, policy: policy)

        var first = Engine(policy: policy)
        var effects: [Effect] = []
        let half = events.firstIndex { if case .requestDecided = $0.kind { return true } else { return false } }!
        for e in events[..<half] { first.apply(e, into: &effects) }
        let data = try JSONEncoder().encode(first.checkpoint)
        var restored = Engine(policy: policy, checkpoint: try JSONDecoder().decode(Engine.Checkpoint.self, from: data))
        for e in events[half...] { restored.apply(e, into: &effects) }
        restored.finish(into: &effects)
        var pieced = ReplayResult()
        pieced.collect(effects)
        pieced.finish(restored)

        #expect(pieced.ledger == whole.ledger)
        #expect(pieced.requests == whole.requests)
        #expect(pieced.choreClaims == whole.choreClaims)
        #expect(pieced.refusals == whole.refusals)
        #expect(pieced.stops == whole.stops)
        #expect(pieced.reward == whole.reward)
        // By hand: 20 min allowance, then the 20 redeemed by the child, then the 10 of r1 = 50 min
        // of game time from 15:00:30; played 9:30 + 36 = 45:30 of it.
        #expect(whole.reward.used == sec(9 * M + 30 + 36 * M))
        #expect(whole.refusals.map(\.code) == [.childRedeemLimit])
        #expect(whole.balance == 200 - 40 - 20 + 20)
    }
}

extension Timeline {
    mutating func ask(_ s: Double, _ id: String, minutes: Int64, reason: String? = nil) {
        add(s, .timeRequested(id: id, minutes: minutes, reason: reason))
    }
    mutating func decide(_ s: Double, _ id: String, approved: Bool, pay: RequestDecision.Pay = .points, minutes: Int64? = nil, reason: String? = nil) {
        add(s, .requestDecided(RequestDecision(id: id, approved: approved, pay: pay, minutes: minutes, by: "mum", reason: reason)))
    }
    mutating func choreDone(_ s: Double, _ chore: String) { add(s, .choreDone(chore: chore)) }
    mutating func choreDecided(_ s: Double, _ chore: String, approved: Bool, reason: String? = nil) {
        add(s, .choreDecided(chore: chore, approved: approved, by: "mum", reason: reason))
    }
}
