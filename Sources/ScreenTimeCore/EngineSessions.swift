/// Sessions: when they open, when they are in use, when they end, and how they are judged.
extension Engine {
    func category(_ key: AppMatch) -> AppCategory { policy.apps[key.entry].category }

    func isPresent(_ key: AppMatch) -> Bool { presence[key] != nil || focusMatch == key || sites.audible[key] != nil }

    func isInUse(_ key: AppMatch) -> Bool {
        switch category(key) {
        case .learning:
            return focusHookSeen && focusMatch == key
        case .reward:
            guard !locked else { return false }
            // A site: while its browser's window shows it or a tab of it plays sound, until it is stopped.
            if isSite(key) { return (focusMatch == key || sites.audible[key] != nil) && !siteStopped(key) }
            return policy.rewards.countsWhile == .running ? isPresent(key) : focusMatch == key
        case .neutral, .blocked:
            return false
        }
    }

    func minDwell(_ key: AppMatch) -> Microseconds? {
        category(key) == .learning ? policy.validation.minFocusDwell : nil
    }

    /// Opens, closes and marks use of sessions after anything that changes what runs or is seen.
    mutating func refreshSessions(at t: Microseconds) {
        var keys = Set(sessions.keys)
        keys.formUnion(presence.keys)
        keys.formUnion(sites.audible.keys)
        if let m = focusMatch { keys.insert(m) }
        for key in keys.sorted() {
            let cat = category(key)
            guard cat == .learning || cat == .reward else { continue }
            let present = isPresent(key)
            if present, sessions[key] == nil { open(key, at: t) }
            guard sessions[key] != nil else { continue }
            guard present else { close(key, at: t); continue }
            let inUse = isInUse(key)
            if inUse, sessions[key]!.inUseSince == nil {
                // A long stretch of running unused is a session of its own.
                if !sessions[key]!.everUsed, t - sessions[key]!.start > policy.validation.idleAfter {
                    close(key, at: t)
                    open(key, at: t)
                }
                sessions[key]!.beginUse(at: t)
            } else if !inUse, sessions[key]!.inUseSince != nil {
                sessions[key]!.endUse(at: t, minDwell: minDwell(key))
            }
        }
    }

    mutating func open(_ key: AppMatch, at t: Microseconds) {
        let pid = presence[key]?.min() ?? (focusMatch == key ? focus?.pid : nil) ?? sites.audible[key]?.min() ?? focus?.pid ?? 0
        sessions[key] = OpenSession(key: key, pid: pid, start: t)
    }

    /// Sessions unused for longer than the idle threshold end where their use ended.
    mutating func splitUnusedSessions(at t: Microseconds) {
        for key in sessions.keys.sorted() {
            guard let s = sessions[key], s.inUseSince == nil, let last = s.lastUseEnd,
                  last + policy.validation.idleAfter <= t else { continue }
            close(key, at: last)
            if isPresent(key) {
                open(key, at: last)
            }
        }
    }

    mutating func close(_ key: AppMatch, at end: Microseconds) {
        guard var s = sessions.removeValue(forKey: key) else { return }
        s.endUse(at: end, minDwell: minDwell(key))
        if category(key) == .learning, let last = lastInput, end - last <= policy.validation.idleAfter, !s.used.isEmpty {
            awaitingJudgement.append(AwaitingSession(session: s, end: end))
        } else {
            settle(s, end: end)
        }
        forgetOldTimes()
    }

    /// Judges the sessions whose last input gap is now resolved (or, at the end, as far as it is known).
    mutating func judgeAwaiting() {
        guard !awaitingJudgement.isEmpty else { return }
        let waiting = awaitingJudgement
        awaitingJudgement.removeAll()
        for w in waiting { settle(w.session, end: w.end) }
        forgetOldTimes()
    }

    mutating func settle(_ s: OpenSession, end: Microseconds) {
        let (record, credited) = judge(s, end: end)
        if record.category == .learning { screenLearningJudged(start: s.start, end: end, credited: credited) }
        out.append(.sessionClosed(record))
        if record.points > 0 {
            out.append(.ledger(ledger.append(.earned, points: record.points, at: record.end, note: record.app)))
            checkGoal(at: record.end)
        }
    }

    /// The session's record, and the time credited (engine time).
    mutating func judge(_ s: OpenSession, end: Microseconds) -> (SessionRecord, IntervalSet) {
        let entry = policy.apps[s.key.entry]
        var record = SessionRecord(app: entry.name, category: entry.category, pid: s.pid, start: clock.wall(at: s.start),
                                   end: clock.wall(at: end), seconds: end - s.start, creditedSeconds: 0, points: 0,
                                   verdict: .rejected, refused: [], flags: [])
        guard entry.category == .learning else { return (record, IntervalSet()) }
        var idleTimes = idle.asOf(end)
        // The gap since the last input is idle once it is longer than idle_after, back to its start.
        if let last = lastInput, max(now, end) - last > policy.validation.idleAfter { idleTimes.insert(last, end) }
        let evidence = SessionEvidence(session: s, end: end, idle: idleTimes, locked: lockedTime.asOf(end),
                                       rewardRunning: rewardRunning.asOf(end), periodicInput: periodicInput,
                                       focusHookSeen: focusHookSeen, hookGap: hookGapTime.asOf(end), validation: policy.validation)
        var j = SessionJudgement(remaining: s.used.clipped(to: s.start, end))
        for rule in creditRules { rule.judge(evidence, &j) }
        DailyCapRule(cap: { [policy] in policy.rules(forDay: $0).dailyLearningCap })
            .judge(&j, days: splitByDay(j.remaining), credited: &learningCredited)

        let credited = j.remaining.measure
        pointRemainder += credited * (entry.pointsPerHour ?? policy.points.learningPerHour)
        let points = pointRemainder / (3600 * Seconds.micro)
        pointRemainder -= points * 3600 * Seconds.micro
        record.creditedSeconds = credited
        record.points = points
        record.refused = j.refused
        record.flags = j.flags
        record.verdict = credited == 0 ? .rejected : (j.refused.isEmpty ? .credited : .partial)
        return (record, j.remaining)
    }

    /// Splits engine-time spans by the calendar day they fall on.
    func splitByDay(_ set: IntervalSet) -> [(Int64, IntervalSet)] {
        var out: [(Int64, IntervalSet)] = []
        for span in set.spans {
            var a = span.start
            while a < span.end {
                let key: Int64, end: Microseconds
                if a >= clock.time(atWall: day.start), a < dayEnd {
                    (key, end) = (day.key, dayEnd)
                } else {
                    let d = calendar.day(containing: clock.wall(at: a), allowedHours: nil)
                    (key, end) = (d.key, clock.time(atWall: d.end))
                }
                let b = min(span.end, end)
                if out.last?.0 == key { out[out.count - 1].1.insert(a, b) } else { out.append((key, IntervalSet([(a, b)]))) }
                a = b
            }
        }
        return out
    }

    /// Keeps the judging timelines only as far back as an open session reaches.
    mutating func forgetOldTimes() {
        let horizon = (sessions.values.map(\.start) + awaitingJudgement.map(\.session.start)).min() ?? now
        idle.forget(before: horizon)
        lockedTime.forget(before: horizon)
        hookGapTime.forget(before: horizon)
        rewardRunning.forget(before: horizon)
        periodicInput.forget(before: horizon)
        cpuClaimed.forget(before: horizon)
    }
}
