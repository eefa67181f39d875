import ControlProtocol
import ScreenTimeCore
import ScreenTimeDaemon
import ScreenTimePolicy
import Testing

/// The policy page's summary: what a policy says, in figures, each day of the coming week as that
/// day has it. Every figure below is read off the policy by hand.
@Suite("Policy summaries")
struct PolicySummariesTests {
    static let policy = """
        version = 1
        timezone = "Europe/Berlin"
        [points]
        learning_per_hour = 90
        per_reward_minute = 3
        daily_goal = "30m"
        [rewards]
        daily_limit = "1h"
        weekly_limit = "5h"
        allowed_hours = ["15:00-19:00"]
        unknown_apps = "reward"
        [screen]
        daily_limit = "2h"
        allowed_hours = ["07:00-20:30"]
        [[schedules]]
        name = "weekend"
        days = ["sat", "sun"]
        daily_limit = "3h"
        daily_allowance = "30m"
        screen_daily_limit = "4h"
        screen_allowed_hours = ["08:00-21:00"]
        [[apps]]
        name = "GCompris"
        category = "learning"
        exe = ["/usr/bin/gcompris-qt"]
        [[apps]]
        name = "SuperTuxKart"
        category = "reward"
        exe = ["/usr/games/supertuxkart"]
        [browsers]
        unnamed_sites = "reward"
        [[sites]]
        name = "Khan Academy"
        category = "learning"
        domains = ["khanacademy.org"]
        [[chores]]
        name = "Dishes"
        points = 20
        every = "day"
        """

    @Test("the figures, the named apps and sites (not what unnamed ones count as), the chores, and a week from Friday across a weekend schedule")
    func summary() throws {
        let policy = try PolicyLoader.parse(Self.policy)
        // Friday 2026-11-27.
        let friday = try #require(CalendarDate.key(of: "2026-11-27"))
        let s = PolicySummaries.of(policy, from: friday)
        #expect(s.timeZone == "Europe/Berlin")
        #expect(s.learningPerHour == 90 && s.pointsPerRewardMinute == 3 && s.dailyGoalSeconds == 1800)
        #expect(s.gameWeeklyLimitSeconds == 5 * 3600 && s.screenWeeklyLimitSeconds == nil)
        #expect(s.entries == [.init(name: "GCompris", category: "learning", site: false), .init(name: "SuperTuxKart", category: "reward", site: false),
                              .init(name: "Khan Academy", category: "learning", site: true)])
        #expect(s.chores == [.init(name: "Dishes", points: 20, every: "every day")])
        #expect(s.week.map(\.date) == ["2026-11-27", "2026-11-28", "2026-11-29", "2026-11-30", "2026-12-01", "2026-12-02", "2026-12-03"])
        let schoolDay = ControlReply.PolicySummary.Day(date: "2026-11-27", schedule: nil, gameDailyLimitSeconds: 3600, gameHours: ["15:00-19:00"],
                                                       gameFreeSeconds: 0, learningCapSeconds: 7200,   // moderate's 2 h
                                                       screenDailyLimitSeconds: 7200, screenHours: ["07:00-20:30"])
        #expect(s.week[0] == schoolDay)
        // The weekend's own limits; the schedule sets no game hours, so [rewards]' hold.
        #expect(s.week[1].schedule == "weekend" && s.week[2].schedule == "weekend" && s.week[3].schedule == nil)
        #expect(s.week[1].gameDailyLimitSeconds == 3 * 3600 && s.week[1].gameFreeSeconds == 1800 && s.week[1].gameHours == ["15:00-19:00"])
        #expect(s.week[1].screenDailyLimitSeconds == 4 * 3600 && s.week[1].screenHours == ["08:00-21:00"])
        #expect(s.week[3].gameDailyLimitSeconds == 3600 && s.week[3].screenDailyLimitSeconds == 7200)
    }
}
