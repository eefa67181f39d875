/// The daily learning goal and the streak of days that met it (`docs/spec/family.md`).
struct Streak: Sendable, Codable {
    /// Days in a row that met the goal, up to yesterday.
    var before: Int = 0
    /// Today's goal is met (the day in progress counts once it is).
    var metToday = false

    var days: Int { before + (metToday ? 1 : 0) }

    /// A day ended: it met the goal or broke the streak.
    mutating func dayEnded() {
        before = metToday ? before + 1 : 0
        metToday = false
    }
}

extension Engine {
    /// The streak now: days in a row with the goal met (today counts once its goal is met).
    public var streakDays: Int { streak.days }

    /// Today's goal is met.
    public var goalMetToday: Bool { streak.metToday }

    /// Learning credited today reached the day's goal: the streak grows by today, and every
    /// `streak_bonus_days`-th day in a row pays `streak_bonus_points` (a `bonus` ledger entry).
    /// Credit is the day's as its sessions are judged; a session still open at midnight counts for
    /// the days it fell on, but a day's goal is settled when the day ends.
    mutating func checkGoal(at wall: Microseconds) {
        guard let goal = policy.points.dailyGoal, !streak.metToday, learningCreditedToday >= goal else { return }
        streak.metToday = true
        let days = streak.days
        if let every = policy.points.streakBonusDays, every > 0, let points = policy.points.streakBonusPoints, points > 0, days % every == 0 {
            out.append(.ledger(ledger.append(.bonus, points: points, at: wall, note: "\(days)")))
        }
    }
}
