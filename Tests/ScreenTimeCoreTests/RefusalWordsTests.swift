import ControlProtocol
import ScreenTimeCore
import Testing

/// The engine's refusals carry their figures, so that stctl and the page can say them in the
/// reader's language: put back into English, they are the engine's own words, for every kind.
@Suite struct RefusalWordsTests {
    @Test("every kind of refusal the engine makes: its code and figures say exactly its English words")
    func figuresSayTheWords() {
        var tl = Timeline()                                         // Monday 15:00
        tl.ask(0, "r1", minutes: 10)
        tl.ask(5, "r1", minutes: 10)                                // request_exists
        tl.ask(10, "r2", minutes: 10)                               // requests_per_day (max 2: r1, r2 … r3)
        tl.ask(15, "r3", minutes: 10)
        tl.decide(20, "r1", approved: false)
        tl.decide(25, "r1", approved: true)                         // request_not_pending (denied already)
        tl.decide(30, "r9", approved: true)                         // request_not_known
        tl.decide(35, "r2", approved: true, minutes: 10)            // insufficient_points (no points yet)
        tl.choreDone(40, "Dishs")                                   // chore_unknown, with "Dishes"
        tl.choreDone(45, "Homework")                                // chore_unknown, no near name
        tl.choreDone(50, "Piano")                                   // Monday: due
        tl.choreDone(55, "Piano")                                   // chore_waits (day)
        tl.choreDone(60, "Trash")
        tl.choreDone(65, "Trash")                                   // chore_waits (week)
        tl.choreDone(70, "Tidy room")
        tl.choreDecided(75, "Tidy room", approved: true)
        tl.choreDone(80, "Tidy room")                               // chore_paid (once)
        tl.choreDecided(85, "Dishes", approved: true)               // chore_not_claimed
        tl.add(90, .minutesRevoked(minutes: 10, refund: false, by: "mum"))   // nothing_to_revoke: none given yet
        tl.choreDone(24 * 3600, "Piano")                            // Tuesday: chore_not_today
        tl.add(24 * 3600 + 10, .bonusGiven(minutes: 1440, by: "mum", reason: nil))
        tl.add(24 * 3600 + 20, .bonusGiven(minutes: 10, by: "mum", reason: nil))   // bonus_too_long
        tl.add(24 * 3600 + 40, .redeem(minutes: 5, by: "child"))  // child_may_not_redeem
        let r = tl.replay(testPolicy(["requests.max_per_day": "2"], apps: FamilyScenarioTests.chores))
        #expect(r.refusals.map(\.whyCode) == ["request_exists", "requests_per_day", "request_not_pending", "request_not_known", "insufficient_points",
                                            "chore_unknown", "chore_unknown", "chore_waits", "chore_waits", "chore_paid", "chore_not_claimed",
                                            "nothing_to_revoke", "chore_not_today", "bonus_too_long", "child_may_not_redeem"])
        for refusal in r.refusals {
            let why = Why(code: refusal.whyCode, figures: refusal.figures)
            #expect(why?.words() == refusal.reason, "\(refusal.whyCode): \(refusal.figures)")
        }
        // The child's own redemptions over the day's cap, and the English for a weekday list.
        var capped = Timeline()
        capped.adjust(0, points: 1000)
        capped.add(10, .redeem(minutes: 20, by: "child"))
        capped.add(20, .redeem(minutes: 20, by: "child"))
        let c = capped.replay(testPolicy(["rewards.child_may_redeem": "true", "rewards.child_redeem_daily_max": "\"30m\""]))
        #expect(c.refusals.map(\.whyCode) == ["child_redeem_limit"])
        #expect(c.refusals.first.flatMap { Why(code: $0.whyCode, figures: $0.figures)?.words() } == c.refusals.first?.reason)
    }
}
