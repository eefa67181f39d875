/// The figures a child and a parent see (status, the bar, the indicator, the page), as of a
/// moment: between two events time runs on, and so do they.
extension Engine {
    /// This engine as it will be at boot-clock reading `mono` if nothing else happens: time passes
    /// to then (game time is used, deadlines pass), on a copy. The daemon answers `status` from it,
    /// so that figures are those of the moment they are asked for, not of the last event.
    public func asOf(mono: Microseconds) -> Engine {
        guard let t = clock.time(atMono: mono), t > now else { return self }
        var copy = self
        copy.advance(to: t)
        copy.out.removeAll()
        return copy
    }

    /// Game time is running out now: a game counts, and there is time left for it.
    public var rewardCountingNow: Bool { rewardCounting && availableNow().seconds > 0 }

    /// Learning is being counted now: a learning app the policy trusts is in use, the child is
    /// not idle (by the session or by the input threshold), the screen is not locked.
    public var learningCountingNow: Bool {
        guard !locked, !lockClaimed, idle.openSince == nil else { return false }
        if let last = lastInput, now - last > policy.validation.idleAfter { return false }
        return sessions.values.contains { $0.key.trusted && category($0.key) == .learning && $0.inUseSince != nil }
    }

    /// Learning today as of now: what sessions judged so far credited, and the use so far today of
    /// the learning sessions still open (their judgement at the end may refuse some of it), within
    /// the daily cap. `learningCreditedToday` is the credited part alone.
    public var learningTodaySoFar: Microseconds {
        let todayStart = clock.time(atWall: day.start)
        // Time said idle or locked (logind, a hook, the child's own claim) is not learning either.
        var away = idle.asOf(now)
        away.formUnion(lockedTime.asOf(now))
        var open: Microseconds = 0
        for s in sessions.values where s.key.trusted && category(s.key) == .learning {
            var span = s.used.clipped(to: todayStart, now)
            if let since = s.inUseSince {
                var end = now
                if let last = lastInput, now - last > policy.validation.idleAfter { end = max(since, last) }
                if end > max(since, todayStart) { span.insert(max(since, todayStart), end) }
            }
            open += span.subtracting(away).measure
        }
        return min(learningCreditedToday + open, max(learningCreditedToday, policy.points.dailyLearningCap))
    }

    /// The calendar (trusted wall µs) at the engine's now.
    public var calendarNow: Microseconds { clock.wall(at: now) }

    /// Bonus time left today.
    public var bonusLeftToday: Microseconds { budget.bonusRemaining }

    /// Until when a parent stopped the games (calendar µs), while the stop holds.
    public var gamesStoppedUntil: Microseconds? { stoppedByParent ? gamesStopped?.until : nil }

    /// How much of minutes redeemed or given now could still be played today (nil: nothing bounds
    /// today's game time). The game time already waiting (allowance, earlier grants) is played
    /// first; bonus time is played first of all, within the allowed hours.
    public var roomTodayForMoreMinutes: Microseconds? {
        var room: Microseconds? = nil
        func bound(_ x: Microseconds) { room = min(room ?? .max, x) }
        if let limit = rules.dailyLimit { bound(limit - usedTodayByFamily) }
        if let limit = policy.rewards.weeklyLimit { bound(limit - usedThisWeekByFamily) }
        if let spans = allowedSpans { bound(spans.reduce(0) { $0 + max(0, $1.end - max($1.start, now)) } - budget.bonusRemaining) }
        return room.map { max(0, $0 - budget.availableWithinLimits) }
    }
}
