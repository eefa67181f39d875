import Foundation
import ScreenTimeCore
import ScreenTimePolicy
import Testing

/// `[[schedules]]` (`docs/spec/family.md`): a weekday or a date range has its own daily limit, hours,
/// allowance and learning cap. The test policy's own: 90 min a day, 07:00-20:00, a 2 h learning
/// cap, Europe/Berlin. Monday 2026-11-23 15:00 is the default origin; expected numbers by hand.
@Suite("Schedule scenarios")
struct ScheduleScenarioTests {
    static let weekend = """

        [[schedules]]
        name = "weekend"
        days = ["sat", "sun"]
        daily_limit = "3h"
        allowed_hours = ["08:00-21:00"]
        daily_allowance = "1h"
        daily_learning_cap = "30m"

        [[schedules]]
        name = "Christmas"
        dates = ["2026-12-21..2027-01-06", "2027-04-02"]
        daily_limit = "4h"

        """

    static func policy(_ overrides: [String: String?] = [:]) -> Policy {
        testPolicy(["rewards.weekly_limit": nil].merging(overrides) { $1 }, apps: weekend)
    }

    @Test("the first schedule that holds a day rules it: weekdays, a holiday range across the new year, a single date; other days keep [rewards]")
    func whichDay() throws {
        let p = Self.policy()
        func rules(_ date: String) throws -> Policy.DayRules { p.rules(forDay: try #require(CalendarDate.key(of: date))) }
        #expect(try rules("2026-11-23").schedule == nil)                // Monday
        #expect(try rules("2026-11-23").dailyLimit == sec(90 * M))
        #expect(try rules("2026-11-28").schedule == "weekend")          // Saturday
        #expect(try rules("2026-11-28").dailyLimit == sec(3 * H))
        #expect(try rules("2026-11-28").allowedHours == [HourWindow(startMinute: 8 * 60, endMinute: 21 * 60)])
        #expect(try rules("2026-12-21").schedule == "Christmas")        // a Monday in the holidays
        #expect(try rules("2026-12-31").dailyLimit == sec(4 * H))
        #expect(try rules("2027-01-01").schedule == "Christmas")        // across the new year
        #expect(try rules("2027-01-02").schedule == "weekend")          // a Saturday: the first entry that holds it
        #expect(try rules("2027-01-06").schedule == "Christmas")        // the range's last day
        #expect(try rules("2027-01-07").schedule == nil)
        #expect(try rules("2027-04-02").schedule == "Christmas")        // a single date (Good Friday)
        // A key the schedule leaves out keeps the policy's: Christmas sets only the limit.
        #expect(try rules("2026-12-31").allowedHours == [HourWindow(startMinute: 7 * 60, endMinute: 20 * 60)])
        #expect(try rules("2026-12-31").dailyLearningCap == sec(2 * H))
        #expect(CalendarDate.weekday(of: try #require(CalendarDate.key(of: "2026-11-23"))) == .mon)
        #expect(CalendarDate.key(of: "2027-02-29") == nil && CalendarDate.key(of: "2028-02-29") != nil)
    }

    @Test("a weekday schedule's daily limit: 90 min on Monday, 3 h on Saturday")
    func weekdayLimit() {
        var tl = Timeline()
        tl.adjust(0, points: 1000)
        tl.redeem(0, minutes: 300)
        tl.start(0, pid: 1, exe: kart)
        tl.exit(90 * M + 10, pid: 1)                 // Monday: stopped at 16:30
        let saturday = 4 * 24 * H + 19 * H             // Saturday 2026-11-28 10:00
        tl.start(saturday, pid: 2, exe: kart)
        tl.exit(saturday + 3 * H + 10, pid: 2)         // stopped at 13:00
        let r = tl.replay(Self.policy(["rewards.redemption_expires_after": nil]))
        #expect(r.stops.map(\.at) == [wall(90 * M), wall(saturday + 3 * H)])
        #expect(r.stops.map(\.reason) == [.dailyLimit, .dailyLimit])
        #expect(r.reward.used == sec(90 * M + 3 * H))
    }

    @Test("a holiday range across the new year: 4 h on New Year's Day, 90 min again after the holidays")
    func holidays() {
        let newYear = "2027-01-01T10:00:00+01:00"
        var tl = Timeline(newYear)
        tl.adjust(0, points: 2000)
        tl.redeem(0, minutes: 400)
        tl.start(0, pid: 1, exe: kart)
        tl.exit(4 * H + 10, pid: 1)
        let after = 6 * 24 * H                           // Thursday 2027-01-07 10:00
        tl.start(after, pid: 2, exe: kart)
        tl.exit(after + 90 * M + 10, pid: 2)
        let r = tl.replay(Self.policy(["rewards.redemption_expires_after": nil]))
        #expect(r.stops.map(\.at) == [wall(4 * H, origin: newYear), wall(after + 90 * M, origin: newYear)])
        #expect(r.reward.used == sec(4 * H + 90 * M))
    }

    @Test("a schedule's hours: at 20:30 a game is stopped at once on Monday, and runs until 21:00 on Saturday")
    func scheduleHours() {
        let monday = "2026-11-23T20:30:00+01:00"
        var a = Timeline(monday)
        a.adjust(0, points: 200)
        a.redeem(0, minutes: 60)
        a.start(60, pid: 1, exe: kart)
        a.exit(70, pid: 1)
        let weekday = a.replay(Self.policy())
        #expect(weekday.stops.map(\.at) == [wall(60, origin: monday)])
        #expect(weekday.stops.map(\.reason) == [.outsideHours])

        let saturday = "2026-11-28T20:30:00+01:00"
        var b = Timeline(saturday)
        b.adjust(0, points: 200)
        b.redeem(0, minutes: 60)
        b.start(60, pid: 1, exe: kart)
        b.exit(30 * M + 10, pid: 1)
        let weekend = b.replay(Self.policy())
        #expect(weekend.stops.map(\.at) == [wall(30 * M, origin: saturday)])      // 21:00
        #expect(weekend.stops.map(\.reason) == [.outsideHours])
        #expect(weekend.reward.used == sec(29 * M))
    }

    @Test("the allowance per schedule: 20 min on weekdays, 1 h on Saturday; each day's is granted that day")
    func allowancePerSchedule() {
        var tl = Timeline()
        tl.start(0, pid: 1, exe: kart)
        tl.exit(20 * M + 10, pid: 1)                     // Monday 15:00: 20 free minutes
        let saturday = 4 * 24 * H + 19 * H               // Saturday 10:00
        tl.start(saturday, pid: 2, exe: kart)
        tl.exit(saturday + 60 * M + 10, pid: 2)          // 1 h
        let r = tl.replay(Self.policy(["rewards.daily_allowance": "\"20m\""]))
        #expect(r.stops.map(\.at) == [wall(20 * M), wall(saturday + 60 * M)])
        #expect(r.stops.allSatisfy { $0.reason == .noRewardTime })
        #expect(r.reward.allowanceUsed == sec(80 * M))
        #expect(r.reward.allowance == sec(5 * 20 * M + 60 * M))   // Monday to Friday 20 each, Saturday 60
        #expect(r.balance == 0)
    }

    @Test("the learning cap per schedule: 45 minutes of learning earn 45 points on Monday, 30 on Saturday")
    func learningCapPerSchedule() {
        var tl = Timeline()
        tl.start(0, pid: 1, exe: gcompris)
        tl.focus(0, pid: 1)
        tl.exit(45 * M, pid: 1)
        let saturday = 4 * 24 * H + 19 * H
        tl.start(saturday, pid: 2, exe: gcompris)
        tl.focus(saturday, pid: 2)
        tl.exit(saturday + 45 * M, pid: 2)
        let r = tl.replay(Self.policy())
        #expect(r.learningSessions.map(\.creditedSeconds) == [sec(45 * M), sec(30 * M)])
        #expect(r.learningSessions[1].refused.map(\.reason) == [.dailyCap])
        #expect(r.learningPoints == 75)
    }

    @Test("a schedule's hours on the day clocks go forward: 01:00-04:00 on Sunday 2027-03-28 is two hours")
    func daylightSaving() {
        let night = "2027-03-28T01:00:00+01:00"
        var tl = Timeline(night)
        tl.adjust(0, points: 1000)
        tl.redeem(0, minutes: 300)
        tl.start(0, pid: 1, exe: kart)
        tl.exit(2 * H + 10, pid: 1)
        let p = testPolicy(["rewards.weekly_limit": nil, "rewards.allowed_hours": nil, "rewards.daily_limit": nil], apps: """

            [[schedules]]
            name = "night owl"
            days = ["sun"]
            allowed_hours = ["01:00-04:00"]

            """)
        let r = tl.replay(p)
        #expect(r.stops.map(\.at) == [wall(2 * H, origin: night)])    // 04:00 CEST
        #expect(r.stops.map(\.reason) == [.outsideHours])
        #expect(r.reward.used == sec(2 * H))
    }

    @Test("a policy reloaded mid-day with a schedule for today: the new day's limit holds at once")
    func reloadedSchedule() {
        var tl = Timeline("2026-11-28T10:00:00+01:00")   // a Saturday
        tl.adjust(0, points: 1000)
        tl.redeem(0, minutes: 300)
        tl.start(0, pid: 1, exe: kart)
        tl.tick(100 * M)
        var engine = Engine(policy: testPolicy(["rewards.weekly_limit": nil]))
        var effects: [Effect] = []
        for e in tl.events { engine.apply(e, into: &effects) }
        #expect(effects.contains { if case .stop(let s) = $0 { return s.reason == .dailyLimit } else { return false } })   // 90 min
        effects.removeAll()
        engine.adopt(Self.policy(), into: &effects)
        #expect(engine.rules.schedule == "weekend")
        #expect(engine.rewardAvailableToday == sec(3 * H - 90 * M))
    }
}
