import Foundation
import ScreenTimeCore
import ScreenTimePolicy
import Testing

/// The daily learning goal and streaks (`docs/spec/family.md`): 30 minutes of credited learning meet a
/// day's goal; every 3rd day in a row with it met pays 50 points. Numbers by hand.
@Suite("Goal and streak scenarios")
struct GoalScenarioTests {
    static func policy() -> Policy {
        testPolicy(["points.daily_goal": "\"30m\"", "points.streak_bonus_days": "3", "points.streak_bonus_points": "50"])
    }

    /// 40 minutes of GCompris from 15:00 on day `day` (0: Monday 2026-11-23), as pid `pid`.
    static func learn(_ tl: inout Timeline, day: Int, from: Double = 0, minutes: Double = 40, pid: Int32) {
        let t = Double(day) * 24 * H + from
        tl.start(t, pid: pid, exe: gcompris)
        tl.focus(t, pid: pid)
        tl.exit(t + minutes * M, pid: pid)
    }

    @Test("a streak: the 3rd day in a row pays the bonus once; a day missed breaks it; it builds again and pays again")
    func brokenAndRebuilt() {
        var tl = Timeline()
        Self.learn(&tl, day: 0, pid: 1)
        Self.learn(&tl, day: 1, pid: 2)
        Self.learn(&tl, day: 2, pid: 3)                       // 3 days in a row: +50
        Self.learn(&tl, day: 2, from: 60 * M, pid: 4)         // the goal was met already: no second bonus
        // day 3: nothing learned, the streak is broken at midnight
        Self.learn(&tl, day: 4, pid: 5)
        Self.learn(&tl, day: 5, pid: 6)
        Self.learn(&tl, day: 6, pid: 7)                       // 3 again: +50
        Self.learn(&tl, day: 7, minutes: 20, pid: 8)          // 20 minutes: today's goal not met
        let r = tl.replay(Self.policy())
        let bonuses = r.ledger.filter { $0.kind == .bonus }
        #expect(bonuses.map(\.at) == [wall(2 * 24 * H + 40 * M), wall(6 * 24 * H + 40 * M)])
        #expect(bonuses.map(\.points) == [50, 50])
        #expect(bonuses.map(\.note) == ["3", "3"])
        #expect(r.learningPoints == 6 * 40 + 40 + 20)
        #expect(r.balance == 300 + 100)
        #expect(r.streakDays == 3)                             // days 4 to 6; day 7 in progress, its goal not met
        let json = r.json { _ in 3600 }
        #expect(json.contains(#""streak_days":3,"#), "\(json)")
        #expect(json.contains(#""kind":"bonus","points":50,"balance_after":"#), "\(json)")
    }

    @Test("the streak counts the day in progress once its goal is met, and is 0 when the last finished day missed it")
    func streakNow() {
        var met = Timeline()
        Self.learn(&met, day: 0, pid: 1)
        Self.learn(&met, day: 1, pid: 2)
        #expect(met.replay(Self.policy()).streakDays == 2)

        var missed = Timeline()
        Self.learn(&missed, day: 0, pid: 1)
        Self.learn(&missed, day: 1, minutes: 20, pid: 2)
        missed.tick(2 * 24 * H + 60)                            // Wednesday, nothing yet
        #expect(missed.replay(Self.policy()).streakDays == 0)
    }

    @Test("a streak bonus needs a goal, and days and points together; each problem on its line")
    func policyProblems() {
        do {
            _ = try PolicyLoader.parse("version = 1\n[points]\nstreak_bonus_days = 5\n")
            Issue.record("accepted")
        } catch {
            #expect(error.problems.map(\.line) == [3, 3])
            #expect(error.problems.map(\.message) == ["a streak bonus needs a 'daily_goal' in [points]: the streak counts days that met it",
                                                       "'streak_bonus_days' needs 'streak_bonus_points' (what the bonus pays)"])
        }
    }
}
