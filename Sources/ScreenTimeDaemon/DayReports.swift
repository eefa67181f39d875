import ControlProtocol
import ScreenTimeCore

/// `stctl report`: each of a few days at a glance — learning credited and refused (and why), points
/// earned, spent and adjusted, game time used against the day's own limit, the apps used most, the
/// learning goal — from what the state saved of those days and the engine's own figures for today.
public enum DayReports {
    /// The bounds of `count` days, the last one `last`, oldest first (in the policy's time zone:
    /// a day of a clock change is 23 or 25 hours long).
    public static func days(_ count: Int, endingWith last: (start: Microseconds, end: Microseconds),
                            engine: Engine) -> [(start: Microseconds, end: Microseconds)] {
        var bounds = [last]
        while bounds.count < count { bounds.insert(engine.day(containing: bounds[0].start - 12 * 3600 * Seconds.micro), at: 0) }
        return bounds
    }

    /// The report of `days` days up to `last`. `sessions`, `ledger`: what was saved from the first
    /// day's start on (later entries are left out); `rewardUsed`: each day's game time as saved, by
    /// the day's start; `screenUsed`: each day's screen time as saved (under a policy with [screen]).
    public static func build(days: Int, last: (start: Microseconds, end: Microseconds), engine: Engine,
                             sessions: [SessionRecord], ledger: [LedgerEntry],
                             rewardUsed used: [Microseconds: Microseconds],
                             screenUsed screen: [Microseconds: ScreenDayTotals] = [:]) -> [ControlReply.ReportDay] {
        let ledger = ledger.filter { $0.at < last.end }
        return Self.days(days, endingWith: last, engine: engine).map { b in
            let mine = sessions.filter { $0.start >= b.start && $0.start < b.end }
            let learning = mine.filter { $0.category == .learning }
            var reasons: [Reason: Microseconds] = [:]
            for s in learning { for r in s.refused { reasons[r.reason, default: 0] += r.seconds } }
            var apps: [String: (category: AppCategory, seconds: Microseconds, credited: Microseconds)] = [:]
            for s in mine {
                let a = apps[s.app] ?? (s.category, 0, 0)
                apps[s.app] = (a.category, a.seconds + s.seconds, a.credited + s.creditedSeconds)
            }
            let entries = ledger.filter { $0.at >= b.start && $0.at < b.end }
            let credited = learning.reduce(0) { $0 + $1.creditedSeconds }
            func points(_ kind: LedgerEntry.Kind) -> Int64 { entries.filter { $0.kind == kind }.reduce(0) { $0 + $1.points } }
            // A past day whose end the daemon saw has its total; one it did not (it was stopped, or
            // an older daemon took a night switched off for a clock jump) is known from its games'
            // sessions: the time any of them ran, counted once.
            let rewardUsed = b.start == engine.today.start ? engine.reward.usedToday
                : used[b.start] ?? (b.start < engine.today.start ? timeCovered(by: mine.filter { $0.category == .reward }) : nil)
            let day = String(RFC3339.format(micros: b.start, utcOffsetSeconds: engine.utcOffset(at: b.start)).prefix(10))
            // The day's own limit: a schedule may set one.
            let limit = CalendarDate.key(of: day).flatMap { engine.policy.rules(forDay: $0).dailyLimit }.map { $0 / Seconds.micro }
            var report = ControlReply.ReportDay(
                day: day,
                learningCreditedSeconds: credited / Seconds.micro,
                learningRefusedSeconds: reasons.values.reduce(0, +) / Seconds.micro,
                refused: reasons.sorted { ($1.value, $0.key.rawValue) < ($0.value, $1.key.rawValue) }
                    .map { .init(reason: $0.key.rawValue, seconds: $0.value / Seconds.micro) },
                pointsEarned: points(.earned), pointsSpent: -points(.redeemed), pointsAdjusted: points(.adjusted) + points(.chore),
                rewardUsedSeconds: rewardUsed.map { $0 / Seconds.micro }, rewardDailyLimitSeconds: limit,
                topApps: apps.sorted { ($1.value.seconds, $0.key) < ($0.value.seconds, $1.key) }.prefix(5)
                    .map { .init(app: $0.key, category: $0.value.category.rawValue, seconds: $0.value.seconds / Seconds.micro,
                                 creditedSeconds: $0.value.credited / Seconds.micro) })
            report.goalMet = engine.policy.points.dailyGoal.map { credited >= $0 }
            // Screen time: today's from the engine, a past day's as saved at its end (a day the
            // daemon did not see end has none: its screen time is not known), against the limit
            // saved with it, or else the day's own.
            let saved = b.start == engine.today.start ? engine.screenDay : screen[b.start]
            if engine.policy.screen.configured || saved != nil {
                report.screenUsedSeconds = saved.map { $0.used / Seconds.micro }
                report.screenLimitSeconds = (saved.map { $0.limit } ?? CalendarDate.key(of: day).flatMap {
                    engine.policy.rules(forDay: $0).screenDailyLimit }).map { $0 / Seconds.micro }
                report.screenBonusSeconds = saved.map { $0.bonus / Seconds.micro }
            }
            return report
        }
    }

    /// The time at least one of these sessions ran (overlaps counted once).
    public static func timeCovered(by sessions: [SessionRecord]) -> Microseconds {
        var total: Microseconds = 0, reach = Microseconds.min
        for s in sessions.sorted(by: { $0.start < $1.start }) {
            let from = max(s.start, reach)
            if s.end > from { total += s.end - from }
            reach = max(reach, s.end)
        }
        return total
    }
}
