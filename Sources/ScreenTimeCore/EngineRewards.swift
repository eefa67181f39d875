/// Reward time: what is available, what is used, and what the enforcer is told.
extension Engine {
    /// Reward time is being used now.
    var rewardCounting: Bool {
        guard !locked else { return false }
        if siteRewardInUse { return true }
        switch policy.rewards.countsWhile {
        case .running:
            if rewardPids.contains(where: { stopping[$0] == nil && !paused.contains($0) }) { return true }
            if let pid = focusedRewardPid { return stopping[pid] == nil && !paused.contains(pid) }
            return false
        case .focused:
            guard let pid = focusedRewardPid else { return false }
            return stopping[pid] == nil && !paused.contains(pid)
        }
    }

    /// Reward time that may be used here from now on, and the limit that bounds it: with a
    /// household, what the family allows bounded by the game time this machine holds.
    /// Bonus time is not the family's: no lease bounds it.
    func availableNow() -> (seconds: Microseconds, limit: Reason) {
        let family = familyAvailable()
        let bonus = min(budget.bonusRemaining, family.seconds)
        let (seconds, limit) = leaseBound((family.seconds - bonus, family.limit))
        return (bonus + max(0, seconds), limit)
    }

    /// Reward time that may be used from now on, and the limit that bounds it, before what this
    /// machine holds of the family's game time: with a household, the daily and weekly limits
    /// count the game time leased to the child's other machines too. Warnings and status say this.
    /// Bonus time is beyond the day's and week's limits, not beyond the allowed hours; a parent's
    /// stop holds over everything.
    func familyAvailable() -> (seconds: Microseconds, limit: Reason) {
        if stoppedByParent { return (0, .stoppedByParent) }
        let usedToday = usedTodayByFamily, usedThisWeek = usedThisWeekByFamily
        var best = (budget.availableWithinLimits, Reason.noRewardTime)
        // A free day (a parent's): no limit holds for the rest of the day; what was redeemed still pays.
        let free = screen.freeDay
        if !free, let limit = rules.dailyLimit, limit - usedToday < best.0 { best = (limit - usedToday, .dailyLimit) }
        if !free, let limit = policy.rewards.weeklyLimit, limit - usedThisWeek < best.0 { best = (limit - usedThisWeek, .weeklyLimit) }
        best.0 = max(0, best.0) + budget.bonusRemaining
        if !free, let spans = allowedSpans {
            let left = hoursLeft(spans, windows: \.allowedHours)
            if left < best.0 { best = (left, .outsideHours) }
        }
        return (max(0, best.0), best.1)
    }

    /// Points into minutes, for a parent (`by` names them) or for the child (`by` is "child": only
    /// with `child_may_redeem`, and within `child_redeem_daily_max` for the day).
    /// `familySeq`: the family ledger paid it already (docs/household.md).
    mutating func redeem(minutes: Int64, by: String?, familySeq: Int64? = nil, at t: Microseconds) {
        let seconds = minutes * 60 * Seconds.micro
        let request = "redeem \(minutes) min"
        if by == RequestDecision.child {
            guard policy.rewards.childMayRedeem else {
                refuse(request, .childMayNotRedeem, "the policy lets only a parent redeem points (a child may ask: stctl ask)", at: t)
                return
            }
            let already = family.childRedeemed(on: day.key)
            if let cap = policy.rewards.childRedeemDailyMax, already + seconds > cap {
                let minute = 60 * Seconds.micro
                refuse(request, .childRedeemLimit, "a child may redeem \(cap / minute) min a day, and \(already / minute) min were redeemed today",
                       ["most": "\(cap / minute)", "already": "\(already / minute)"], at: t)
                return
            }
        }
        guard pay(minutes: minutes, note: by, request: request, familySeq: familySeq, at: t) else { return }
        if by == RequestDecision.child { family.addChildRedeemed(seconds, on: day.key) }
    }

    /// Pays minutes from the balance into reward time; refuses (`insufficient_points`) what it cannot
    /// pay. `familySeq`: the family ledger paid them already, against the family's balance, as its
    /// entry of that number: that decision stands (this machine may not have heard of all the
    /// family's entries yet).
    mutating func pay(minutes: Int64, note: String?, request: String, familySeq: Int64? = nil, at t: Microseconds) -> Bool {
        let cost = minutes * policy.points.perRewardMinute
        guard familySeq != nil || ledger.balance >= cost else {
            refuse(request, .insufficientPoints, "it costs \(cost) points and the balance is \(ledger.balance)", ["cost": "\(cost)", "balance": "\(ledger.balance)"], at: t)
            return false
        }
        let seconds = minutes * 60 * Seconds.micro
        out.append(.ledger(ledger.append(.redeemed, points: -cost, at: clock.wall(at: t), note: note, rewardSeconds: seconds, familySeq: familySeq)))
        budget.grant(seconds, expiresAt: policy.rewards.redemptionExpiresAfter.map { t + $0 }, pointsPerMinute: policy.points.perRewardMinute)
        return true
    }

    mutating func refuse(_ request: String, _ code: RefusalCode, _ reason: String, whyCode: String? = nil, _ figures: [String: String] = [:], at t: Microseconds) {
        out.append(.refused(Refusal(at: clock.wall(at: t), request: request, code: code, reason: reason, whyCode: whyCode, figures: figures)))
    }

    mutating func enforce(at t: Microseconds) {
        let (available, limit) = availableNow()
        if available <= 0 {
            var due = rewardPids.filter { stopping[$0] == nil && !paused.contains($0) }
            if let pid = focusedRewardPid, stopping[pid] == nil, !paused.contains(pid) { due.insert(pid) }
            for pid in due.sorted() { tellStop(pid, reason: limit, at: t, action: policy.enforcement.action) }
        } else {
            // Time again: paused games go on, stopped ones are not told again; not those over their
            // app's own limit.
            if !paused.isEmpty {
                for pid in paused.sorted() where !overAppLimit(pid) {
                    out.append(.resume(pid: pid, at: clock.wall(at: t)))
                    paused.remove(pid)
                    pauseUndone.remove(pid)
                }
            }
            if !stopping.isEmpty {
                // (Not `filter` with a closure over `self`: that copied the whole engine each time.)
                for (pid, told) in stopping where !(told.reason == .blocked || (told.reason == .appLimit && overAppLimit(pid))) {
                    stopping[pid] = nil
                }
            }
            enforceAppLimits(at: t, available: available)
            if rewardCounting {
                // Warned by what the family allows, not by the minute this machine holds of it.
                let family = familyAvailable()
                var crossed = false
                for w in policy.enforcement.warnBefore where family.seconds <= w && !warned.contains(w) {
                    warned.insert(w)
                    crossed = true
                }
                if crossed { out.append(.warn(Warning(at: clock.wall(at: t), remaining: family.seconds, limit: family.limit))) }
            }
        }
        if !warned.isEmpty { let family = familyAvailable().seconds; warned = warned.filter { $0 >= family } }
        if !blockedPids.isEmpty || blockedFocusPid != nil {
            var due = blockedPids.filter { stopping[$0] == nil }
            if let pid = blockedFocusPid, stopping[pid] == nil { due.insert(pid) }
            for pid in due.sorted() { tellStop(pid, reason: .blocked, at: t, action: .terminate) }
        }
        enforceSites(at: t, available: available, limit: limit)
        // A process still alive after the grace period is told again, then less and less often.
        if !stopping.isEmpty {
            for (pid, told) in stopping.sorted(by: { $0.key < $1.key }) where t - told.at >= retellDelay(told.count) {
                tellStop(pid, reason: told.reason, at: t, action: .terminate, count: told.count + 1)
            }
        }
    }

    /// A paused game ran again (someone let it go on) from `from` to `t`: that time was played,
    /// past what was available. It is paused again at once; let go on a second time in the same
    /// pause, it is terminated (a child who keeps sending SIGCONT would otherwise play on between
    /// two looks).
    mutating func gameContinued(_ pid: Int32, since from: Microseconds, at t: Microseconds) {
        guard paused.contains(pid) else { return }
        let bonus = budget.played(t - from)
        leaseUsed(t - from - bonus)
        let (available, limit) = availableNow()
        guard available <= 0 else {       // time again meanwhile: it may run
            paused.remove(pid)
            pauseUndone.remove(pid)
            return
        }
        if pauseUndone.contains(pid) {
            paused.remove(pid)
            pauseUndone.remove(pid)
            tellStop(pid, reason: limit, at: t, action: .terminate)
        } else {
            pauseUndone.insert(pid)
            tellStop(pid, reason: limit, at: t, action: .pause, count: 1)
        }
    }

    /// Grace after the first stop, then twice as long each time, at most 10 minutes.
    func retellDelay(_ count: Int) -> Microseconds {
        let grace = max(policy.enforcement.grace, Seconds.micro)
        return min(grace << min(count, 20), max(grace, Seconds.of(minutes: 10)))
    }

    var blockedFocusPid: Int32? {
        guard let m = focusMatch, let pid = focus?.pid, policy.apps[m.entry].category == .blocked, !policy.apps[m.entry].isSite else { return nil }
        return pid
    }

    mutating func tellStop(_ pid: Int32, reason: Reason, at t: Microseconds, action: Policy.StopAction, count: Int = 0) {
        let app = processes[pid]?.match.map { policy.apps[$0.entry].name }
            ?? focusMatch.map { policy.apps[$0.entry].name } ?? "?"
        out.append(.stop(StopOrder(at: clock.wall(at: t), pid: pid, app: app, reason: reason, action: action, repeatCount: count)))
        if action == .pause {
            paused.insert(pid)
        } else {
            stopping[pid] = Told(at: t, count: count, reason: reason)
        }
    }
}
