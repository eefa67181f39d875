import ControlProtocol
import ScreenTimeCore

/// A policy at a glance, for the parents' page: its figures, the apps, sites and chores it names,
/// and the week from a day, each day's limits as that day has them (the same rules as `stctl
/// policy check`'s week: `Policy.rules(forDay:)`).
public enum PolicySummaries {
    public static func of(_ policy: Policy, from first: Int64) -> ControlReply.PolicySummary {
        let named = policy.apps.filter { $0.name != Policy.unknownProgramName && $0.name != Policy.unnamedSiteName && $0.name != Policy.unreportedName }
        let week = (0..<7).map { first + Int64($0) }.map { key in
            let r = policy.rules(forDay: key)
            return ControlReply.PolicySummary.Day(
                date: CalendarDate.text(of: key), schedule: r.schedule, gameDailyLimitSeconds: r.dailyLimit.map { $0 / Seconds.micro },
                gameHours: r.allowedHours.map { $0.map(\.text) }, gameFreeSeconds: (r.dailyAllowance ?? 0) / Seconds.micro,
                learningCapSeconds: r.dailyLearningCap / Seconds.micro, screenDailyLimitSeconds: r.screenDailyLimit.map { $0 / Seconds.micro },
                screenHours: r.screenAllowedHours.map { $0.map(\.text) })
        }
        return ControlReply.PolicySummary(
            timeZone: policy.timeZone.identifier, learningPerHour: policy.points.learningPerHour, pointsPerRewardMinute: policy.points.perRewardMinute,
            dailyGoalSeconds: policy.points.dailyGoal.map { $0 / Seconds.micro }, gameWeeklyLimitSeconds: policy.rewards.weeklyLimit.map { $0 / Seconds.micro },
            screenWeeklyLimitSeconds: policy.screen.weeklyLimit.map { $0 / Seconds.micro },
            entries: named.map { .init(name: $0.name, category: $0.category.rawValue, site: $0.isSite) },
            chores: policy.chores.map { .init(name: $0.name, points: $0.points, every: $0.every.words) }, week: week)
    }
}
