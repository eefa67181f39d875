import ControlProtocol
import ScreenTimeCore

/// What `status` says of a child that the engine knows: balance, game time, learning, the app in
/// front, the day's allowance, schedule, goal and the apps' own time left. `engine` is already at
/// the moment asked (`Engine.asOf`): game time counts down and learning up between events. What
/// the observers know (hooks, logind, notifications, blind spots) is the daemon's, given here.
public enum StatusFigures {
    /// The status of `engine`. `pointsToday`: the points earned today (the daemon reads them from
    /// its state); `notices`: the last ones told.
    public static func of(_ engine: Engine, pointsToday: Int64, hooks: [String], observers: ControlReply.Status.Observers,
                          blindSpots: [BlindSpot], notices: [ControlReply.Status.Notice]) -> ControlReply.Status {
        let policy = engine.policy
        let r = engine.reward
        let app = engine.focusedApp
        var status = ControlReply.Status(
            balance: engine.ledger.balance, rewardAvailableSeconds: r.availableNow / Seconds.micro,
            rewardRemainingSeconds: r.remaining / Seconds.micro, rewardTodayRemainingSeconds: engine.rewardAvailableToday / Seconds.micro,
            rewardUsedTodaySeconds: r.usedToday / Seconds.micro, learningTodaySeconds: engine.learningTodaySoFar / Seconds.micro,
            pointsToday: pointsToday, pointsPerRewardMinute: policy.points.perRewardMinute,
            currentApp: app?.name, currentCategory: app?.category.rawValue, currentCounts: app.map { counts($0.category, trusted: $0.trusted) },
            observers: observers, hooks: hooks, blindSpots: blindSpots.map { $0.words() })
        if !blindSpots.isEmpty { status.blindSpotCodes = blindSpots }
        status.notices = notices
        if policy.rewards.childMayRedeem { status.childMayRedeem = true }
        status.currentSite = engine.focusedHost
        status.currentTrusted = app?.trusted
        status.asOf = RFC3339.format(micros: engine.calendarNow, utcOffsetSeconds: engine.utcOffset(at: engine.calendarNow))
        status.rewardCounting = engine.rewardCountingNow
        status.learningCounting = engine.learningCountingNow
        if r.bonusLeftToday > 0 || r.bonusUsedToday > 0 { status.bonusLeftSeconds = r.bonusLeftToday / Seconds.micro }
        status.gamesStoppedUntil = engine.gamesStoppedUntil.map { RFC3339.format(micros: $0, utcOffsetSeconds: engine.utcOffset(at: $0)) }
        if engine.policy.screen.configured {
            let s = engine.screenFigures
            status.screen = .init(usedTodaySeconds: s.usedToday / Seconds.micro, dailyLimitSeconds: s.dailyLimit.map { $0 / Seconds.micro },
                                  bonusSeconds: s.bonus / Seconds.micro, leftSeconds: s.left.map { $0 / Seconds.micro }, limit: s.limit?.rawValue,
                                  bedtime: s.bedtime.map { RFC3339.format(micros: $0, utcOffsetSeconds: engine.utcOffset(at: $0)) },
                                  freeDay: s.freeDay, counting: s.counting, sessions: s.sessions)
        }
        if let allowance = engine.rules.dailyAllowance, allowance > 0 {
            status.allowanceLeftSeconds = r.allowanceLeftToday / Seconds.micro
            status.allowanceTodaySeconds = allowance / Seconds.micro
        }
        status.schedule = engine.rules.schedule
        if let goal = policy.points.dailyGoal {
            status.goalSeconds = goal / Seconds.micro
            status.streakDays = Int64(engine.streakDays)
        }
        let apps = engine.appTimeLeftToday
        if !apps.isEmpty { status.appTimeLeft = apps.map { .init(app: $0.app, seconds: $0.seconds / Seconds.micro) } }
        return status
    }

    /// How the app in front counts, in the child's words.
    public static func counts(_ category: AppCategory, trusted: Bool) -> String { ChildWords.counts(category.rawValue, trusted: trusted) }
}
