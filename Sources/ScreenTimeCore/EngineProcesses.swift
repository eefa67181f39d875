/// What runs: processes appearing, exec'ing and leaving, and what the focused window is.
extension Engine {
    mutating func processAppeared(_ facts: ProcessFacts) {
        processes[facts.pid] = TrackedProcess(facts: facts, match: nil, seen: now)
        setMatch(of: facts.pid, to: classifier.classify(process: facts))
    }

    mutating func setMatch(of pid: Int32, to match: AppMatch?) {
        if let old = processes[pid]?.match {
            presence[old]?.remove(pid)
            if presence[old]?.isEmpty == true { presence[old] = nil }
        }
        processes[pid]?.match = match
        rewardPids.remove(pid)
        blockedPids.remove(pid)
        guard let match else { return }
        presence[match, default: []].insert(pid)
        switch policy.apps[match.entry].category {
        case .reward: rewardPids.insert(pid)
        case .blocked: blockedPids.insert(pid)
        case .learning, .neutral: break
        }
    }

    mutating func processGone(_ pid: Int32) {
        setMatch(of: pid, to: nil)
        processes[pid] = nil
        stopping[pid] = nil
        paused.remove(pid)
        pauseUndone.remove(pid)
        siteReportGone(pid)
        if focus?.pid == pid {
            focus = nil
            focusMatch = nil
        }
    }

    /// Lenient policies without a focus hook count a learning app as used while it works the CPU.
    mutating func cpuSample(pid: Int32, millis: Int64, at t: Microseconds) {
        guard var p = processes[pid] else { return }
        defer { p.lastCPU = CPUSample(millis: millis, at: t); processes[pid] = p }
        guard !focusHookSeen, !policy.validation.learningNeedsFocusHook,
              let match = p.match, policy.apps[match.entry].category == .learning,
              let prev = p.lastCPU, t > prev.at, sessions[match] != nil else { return }
        // At least 2 % of a core between the two samples.
        guard (millis - prev.millis) * 1000 * 50 >= t - prev.at else { return }
        let fresh = IntervalSet([(prev.at, t)]).subtracting(cpuClaimed)
        for span in fresh.spans { sessions[match]!.addUse(span.start, span.end) }
        cpuClaimed.insert(prev.at, t)
    }

    /// A reboot: nothing of the old boot survives it.
    mutating func endEverything(at t: Microseconds) {
        for pid in processes.keys.sorted() { processGone(pid) }
        focus = nil
        focusMatch = nil
        locked = false
        lockClaimed = false
        lockedTime.set(false, at: t)
        idle.set(false, at: t)
        refreshSessions(at: t)
        // The login sessions are told afresh (logind's own list) when the daemon is back.
        screen.logins = [:]
        screen.idle = false
        sites = SiteState()
    }

    var focusedRewardPid: Int32? {
        // A site is stopped in the browser, never by stopping the browser.
        guard let m = focusMatch, let pid = focus?.pid, policy.apps[m.entry].category == .reward, !policy.apps[m.entry].isSite else { return nil }
        return pid
    }
}
