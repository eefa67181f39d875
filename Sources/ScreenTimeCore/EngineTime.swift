/// Time passing between events: the engine walks through its own deadlines so that each thing
/// happens at its moment, not at the next event.
extension Engine {
    mutating func advance(to target: Microseconds) {
        while let d = nextDeadline(), d <= target {
            pass(to: d)
            due(at: d)
        }
        pass(to: target)
    }

    /// Time passes with nothing observed: reward time is used while it counts.
    mutating func pass(to t: Microseconds) {
        guard t > now else { return }
        passScreen(to: t)
        if rewardCounting {
            let available = availableNow().seconds
            let bonus = budget.use(min(t - now, available))
            leaseUsed(min(t - now, available) - bonus)
            useAppTime(min(t - now, available), apps: countingApps)
        }
        now = t
    }

    mutating func due(at t: Microseconds) {
        if t >= dayEnd { startNewDay(at: t) }
        endGamesStopIfDue()
        expireRequests(at: t)
        let lost = budget.expire(by: t)
        if lost > 0 {
            out.append(.ledger(ledger.append(.expired, points: 0, at: clock.wall(at: t), note: "reward time not used in time", rewardSeconds: lost)))
        }
        splitUnusedSessions(at: t)
        siteDeadlinePassed(at: t)
        if let last = lastInput, t - last > policy.validation.idleAfter { judgeAwaiting() }
        enforce(at: t)
        enforceScreen(at: t)
    }

    func nextDeadline() -> Microseconds? {
        var best = Microseconds.max
        func consider(_ d: Microseconds) { if d > now, d < best { best = d } }
        consider(dayEnd)
        if !awaitingJudgement.isEmpty, let last = lastInput { consider(last + policy.validation.idleAfter + 1) }
        if let e = budget.nextExpiry { consider(e) }
        if let e = nextRequestExpiry { consider(e) }
        if let e = gamesStopEnds { consider(e) }
        if let spans = allowedSpans { for s in spans { consider(s.start); consider(s.end) } }
        for s in sessions.values where s.inUseSince == nil {
            if let last = s.lastUseEnd { consider(last + policy.validation.idleAfter) }
        }
        for told in stopping.values { consider(told.at + retellDelay(told.count)) }
        if let d = nextAppDeadline() { consider(d) }
        if let d = nextScreenDeadline() { consider(d) }
        if let d = nextSiteDeadline { consider(d) }
        if rewardCounting {
            let available = availableNow().seconds
            if available > 0 { consider(now + available) }
            let family = familyAvailable().seconds
            for w in policy.enforcement.warnBefore where w < family && !warned.contains(w) { consider(now + family - w) }
            // The moment to ask the family for the next minute of game time.
            if leased, lease.spent == nil, lease.held > Self.leaseLow { consider(now + lease.held - Self.leaseLow) }
        }
        return best == .max ? nil : best
    }

    /// Today ended (the calendar reached its end, by time passing or by a step): the day that holds
    /// `t` begins, with its limits and allowance fresh. Days the computer was off in between begin
    /// and end unseen: nothing was used on them.
    mutating func startNewDay(at t: Microseconds) {
        let oldWeek = day.weekKey
        out.append(.dayEnded(DayTotals(start: day.start, rewardUsed: budget.usedToday + budget.bonusUsedToday, screen: screenDay)))
        let screenWeek = day.weekKey
        enterDay(containing: t)
        screen.startDay(newWeek: day.weekKey != screenWeek)
        placeScreenHours()
        let bonusLost = budget.startDay(newWeek: day.weekKey != oldWeek)
        if bonusLost > 0 {
            out.append(.ledger(ledger.append(.expired, points: 0, at: clock.wall(at: t), note: "bonus time not used on its day", rewardSeconds: bonusLost)))
        }
        appUse.startDay(newWeek: day.weekKey != oldWeek)
        appWarned = [:]
        streak.dayEnded()
        grantAllowance()
        family.forget(before: day.key, chores: policy.chores)
    }

    /// The calendar stepped (forward with the wall clock, or holding after a step back): a day it
    /// passed ends now; otherwise today's end and allowed hours are placed anew in engine time.
    mutating func calendarMoved(at t: Microseconds) {
        if clock.wall(at: t) >= day.end {
            startNewDay(at: t)
            return
        }
        placeDay()
    }

    /// Today's end and allowed hours in engine time, as the calendar now places them.
    mutating func placeDay() {
        dayEnd = clock.time(atWall: day.end)
        allowedSpans = day.allowed.map { $0.map { (clock.time(atWall: $0.start), clock.time(atWall: $0.end)) } }
        placeScreenHours()
    }

    /// The day's allowance (none: zero), granted once a day.
    mutating func grantAllowance() {
        budget.setAllowance(rules.dailyAllowance ?? 0, day: day.key)
    }

    mutating func enterDay(containing t: Microseconds) {
        // The day's schedule decides its hours: its key first, then the day with those hours.
        let key = calendar.day(containing: clock.wall(at: t), allowedHours: nil).key
        rules = policy.rules(forDay: key)
        day = calendar.day(containing: clock.wall(at: t), allowedHours: rules.allowedHours)
        placeDay()
        lease.start(day: day.key, week: day.weekKey)
        screenLease.start(day: day.key, week: day.weekKey)
        others.start(day: day.key, week: day.weekKey)
    }
}
