/// The engine: a pure fold of events into state and effects (DESIGN.md §2). No I/O, no clock
/// reads, no randomness: everything it knows came in an event, so the daemon and
/// `screentimed replay` reach the same ledger from the same log.
///
/// Between two events time passes without anything being observed; the engine then walks through
/// its own deadlines (a warning due, reward time running out, a day ending, a grant expiring, a
/// session going unused) so that each happens at its exact moment, not at the next event.
public struct Engine: Sendable {
    public private(set) var policy: Policy
    private var classifier: Classifier
    private var calendar: PolicyCalendar
    public internal(set) var clock = TrustedClock()
    /// Engine time up to which everything has been accounted.
    public internal(set) var now: Microseconds = 0
    var started = false

    // The calendar day in force, in engine time.
    private var day = PolicyCalendar.Day(key: 0, weekKey: 0, start: 0, end: 0, allowed: nil)
    private var dayEnd: Microseconds = 0
    private var allowedSpans: [(start: Microseconds, end: Microseconds)]?

    // What is running and what the child is looking at.
    struct TrackedProcess: Sendable, Codable {
        var facts: ProcessFacts
        var match: AppMatch?
        var lastCPU: CPUSample?
    }
    struct CPUSample: Sendable, Codable {
        var millis: Int64
        var at: Microseconds
    }
    var processes: [Int32: TrackedProcess] = [:]
    var presence: [AppMatch: Set<Int32>] = [:]
    var rewardPids: Set<Int32> = []
    var blockedPids: Set<Int32> = []
    var focus: FocusedWindow?
    var focusMatch: AppMatch?
    var focusHookSeen = false
    var locked = false

    // What the rules judge sessions by.
    var idle = Stretches()
    var lockedTime = Stretches()
    var rewardRunning = Stretches()
    var periodicInput = IntervalSet()
    var cpuClaimed = IntervalSet()
    var lastInput: Microseconds?
    var periodicDetector: PeriodicInputDetector

    // Sessions, points, reward time.
    var sessions: [AppMatch: OpenSession] = [:]
    /// Learning sessions that ended less than `idle_after` after the last input: whether that tail
    /// was idle is known only when the next input comes or the gap grows past the threshold.
    var awaitingJudgement: [AwaitingSession] = []
    struct AwaitingSession: Sendable, Codable {
        var session: OpenSession
        var end: Microseconds
    }
    var learningCredited: [Int64: Microseconds] = [:]
    /// Points not yet paid, in µs × points/hour: nothing is lost to rounding.
    var pointRemainder: Int64 = 0
    public internal(set) var ledger = Ledger()
    var budget = RewardBudget()

    // Enforcement.
    var warned: Set<Microseconds> = []
    struct Told: Sendable, Codable { var at: Microseconds; var count: Int; var reason: Reason }
    var stopping: [Int32: Told] = [:]
    var paused: Set<Int32> = []

    private var out: [Effect] = []

    public init(policy: Policy) {
        self.policy = policy
        self.classifier = Classifier(apps: policy.apps)
        self.calendar = PolicyCalendar(timeZone: policy.timeZone)
        self.periodicDetector = PeriodicInputDetector(threshold: policy.validation.periodicInputVariation,
                                                      maxGap: policy.validation.idleAfter)
    }

    // MARK: - Folding events

    /// Applies one event; appends what the shell must do.
    public mutating func apply(_ event: Event, into effects: inout [Effect]) {
        let observation = clock.observe(wall: event.at.micros, mono: event.mono)
        let t = clock.now
        if !started {
            started = true
            now = t
            enterDay(containing: t)
        }
        if case .daemonStarted = event.kind {
            // Nothing was observed while the daemon was down: what it knew ends where it stopped.
            endEverything(at: now)
        }
        advance(to: t)
        switch observation {
        case .steady: break
        case .jumped(let by):
            for key in sessions.keys { sessions[key]!.clockJumped += abs(by) }
            out.append(.clockJumped(at: clock.wall(at: t), by: by))
        case .rebooted:
            endEverything(at: t)
            clock.completeReboot()
            enterDay(containing: t)
        }
        handle(event, at: t)
        enforce(at: t)
        effects.append(contentsOf: out)
        out.removeAll(keepingCapacity: true)
    }

    /// A new policy from now on. Sessions in progress end now and are judged by the old one;
    /// what runs is classified again and goes on under the new one. Points, reward minutes and
    /// today's use are kept.
    public mutating func adopt(_ newPolicy: Policy, into effects: inout [Effect]) {
        for key in sessions.keys.sorted(by: { (sessions[$0]!.start, $0.entry) < (sessions[$1]!.start, $1.entry) }) {
            close(key, at: now)
        }
        judgeAwaiting()
        policy = newPolicy
        classifier = Classifier(apps: newPolicy.apps)
        calendar = PolicyCalendar(timeZone: newPolicy.timeZone)
        periodicDetector = PeriodicInputDetector(threshold: newPolicy.validation.periodicInputVariation,
                                                 maxGap: newPolicy.validation.idleAfter)
        for pid in processes.keys.sorted() { setMatch(of: pid, to: classifier.classify(process: processes[pid]!.facts)) }
        if let window = focus, let pid = window.pid {
            focusMatch = classifier.classify(window: window, process: processes[pid]?.facts)
        }
        stopping = stopping.filter { blockedPids.contains($0.key) || rewardPids.contains($0.key) }
        warned = []
        if started {
            let oldWeek = day.weekKey
            enterDay(containing: now)
            if day.weekKey != oldWeek { budget.startDay(newWeek: true) }
            refreshSessions(at: now)
            enforce(at: now)
        }
        effects.append(contentsOf: out)
        out.removeAll(keepingCapacity: true)
    }

    /// Ends the timeline: open sessions close at the last event's time and are judged.
    public mutating func finish(into effects: inout [Effect]) {
        for key in sessions.keys.sorted(by: { (sessions[$0]!.start, $0.entry) < (sessions[$1]!.start, $1.entry) }) {
            close(key, at: now)
        }
        judgeAwaiting()
        effects.append(contentsOf: out)
        out.removeAll()
    }

    private mutating func handle(_ event: Event, at t: Microseconds) {
        switch event.kind {
        case .processStarted(let facts):
            if let old = processes[facts.pid] {
                if let a = old.facts.startTicks, let b = facts.startTicks, a != b {
                    processGone(facts.pid)          // the pid was reused by a new process
                    processAppeared(facts)
                } else {
                    // exec: same pid, a new program, judged afresh (stopped again if it is a game too).
                    setMatch(of: facts.pid, to: classifier.classify(process: facts))
                    processes[facts.pid]!.facts = facts
                    stopping[facts.pid] = nil
                }
            } else {
                processAppeared(facts)
            }
            // The focused window may belong to it: a program seen after its window, or one that exec'd.
            if let window = focus, window.pid == facts.pid {
                focusMatch = classifier.classify(window: window, process: facts)
            }
            refreshSessions(at: t)
        case .processExited(let pid):
            guard processes[pid] != nil else { return }
            processGone(pid)
            refreshSessions(at: t)
        case .processCPU(let pid, let millis):
            cpuSample(pid: pid, millis: millis, at: t)
        case .focusChanged(let window):
            focusHookSeen = true
            if let pid = window.pid {
                focus = window
                focusMatch = classifier.classify(window: window, process: processes[pid]?.facts)
            } else {
                focus = nil
                focusMatch = nil
            }
            refreshSessions(at: t)
        case .input:
            if let last = lastInput, t - last > policy.validation.idleAfter { idle.add(last, t) }
            lastInput = t
            judgeAwaiting()
            if let run = periodicDetector.input(at: t) { periodicInput.insert(run.start, run.end) }
        case .idleChanged(let isIdle, let since):
            var from = t
            if isIdle, let s = since { from = min(t, max(0, t - (event.at.micros - s.micros))) }
            idle.set(isIdle, at: from)
        case .lockChanged(let isLocked):
            locked = isLocked
            lockedTime.set(isLocked, at: t)
            refreshSessions(at: t)
        case .redeem(let minutes, let by):
            redeem(minutes: minutes, by: by, at: t)
        case .adjust(let points, let reason):
            out.append(.ledger(ledger.append(.adjusted, points: points, at: clock.wall(at: t), note: reason)))
        case .tick, .daemonStarted:
            break
        }
        rewardRunning.set(!rewardPids.isEmpty || focusedRewardPid != nil, at: t)
    }

    // MARK: - Processes

    private mutating func processAppeared(_ facts: ProcessFacts) {
        processes[facts.pid] = TrackedProcess(facts: facts, match: nil)
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

    private mutating func processGone(_ pid: Int32) {
        setMatch(of: pid, to: nil)
        processes[pid] = nil
        stopping[pid] = nil
        paused.remove(pid)
        if focus?.pid == pid {
            focus = nil
            focusMatch = nil
        }
    }

    /// Lenient policies without a focus hook count a learning app as used while it works the CPU.
    private mutating func cpuSample(pid: Int32, millis: Int64, at t: Microseconds) {
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
    private mutating func endEverything(at t: Microseconds) {
        for pid in processes.keys.sorted() { processGone(pid) }
        focus = nil
        focusMatch = nil
        locked = false
        lockedTime.set(false, at: t)
        idle.set(false, at: t)
        refreshSessions(at: t)
    }

    private var focusedRewardPid: Int32? {
        guard let m = focusMatch, let pid = focus?.pid, policy.apps[m.entry].category == .reward else { return nil }
        return pid
    }

    // MARK: - Sessions

    private func category(_ key: AppMatch) -> AppCategory { policy.apps[key.entry].category }

    private func isPresent(_ key: AppMatch) -> Bool { presence[key] != nil || focusMatch == key }

    private func isInUse(_ key: AppMatch) -> Bool {
        switch category(key) {
        case .learning:
            return focusHookSeen && focusMatch == key
        case .reward:
            guard !locked else { return false }
            return policy.rewards.countsWhile == .running ? isPresent(key) : focusMatch == key
        case .neutral, .blocked:
            return false
        }
    }

    private func minDwell(_ key: AppMatch) -> Microseconds? {
        category(key) == .learning ? policy.validation.minFocusDwell : nil
    }

    /// Opens, closes and marks use of sessions after anything that changes what runs or is seen.
    private mutating func refreshSessions(at t: Microseconds) {
        var keys = Set(sessions.keys)
        keys.formUnion(presence.keys)
        if let m = focusMatch { keys.insert(m) }
        for key in keys.sorted(by: { ($0.entry, $0.trusted ? 1 : 0) < ($1.entry, $1.trusted ? 1 : 0) }) {
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

    private mutating func open(_ key: AppMatch, at t: Microseconds) {
        let pid = presence[key]?.min() ?? focus?.pid ?? 0
        sessions[key] = OpenSession(key: key, pid: pid, start: t)
    }

    /// Sessions unused for longer than the idle threshold end where their use ended.
    private mutating func splitUnusedSessions(at t: Microseconds) {
        for key in sessions.keys.sorted(by: { $0.entry < $1.entry }) {
            guard let s = sessions[key], s.inUseSince == nil, let last = s.lastUseEnd,
                  last + policy.validation.idleAfter <= t else { continue }
            close(key, at: last)
            if isPresent(key) {
                open(key, at: last)
            }
        }
    }

    private mutating func close(_ key: AppMatch, at end: Microseconds) {
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
    private mutating func judgeAwaiting() {
        guard !awaitingJudgement.isEmpty else { return }
        let waiting = awaitingJudgement
        awaitingJudgement.removeAll()
        for w in waiting { settle(w.session, end: w.end) }
        forgetOldTimes()
    }

    private mutating func settle(_ s: OpenSession, end: Microseconds) {
        let record = judge(s, end: end)
        out.append(.sessionClosed(record))
        if record.points > 0 {
            out.append(.ledger(ledger.append(.earned, points: record.points, at: record.end, note: record.app)))
        }
    }

    private mutating func judge(_ s: OpenSession, end: Microseconds) -> SessionRecord {
        let entry = policy.apps[s.key.entry]
        var record = SessionRecord(app: entry.name, category: entry.category, pid: s.pid, start: clock.wall(at: s.start),
                                   end: clock.wall(at: end), seconds: end - s.start, creditedSeconds: 0, points: 0,
                                   verdict: .rejected, refused: [], flags: [])
        guard entry.category == .learning else { return record }
        var idleTimes = idle.asOf(end)
        // The gap since the last input is idle once it is longer than idle_after, back to its start.
        if let last = lastInput, max(now, end) - last > policy.validation.idleAfter { idleTimes.insert(last, end) }
        let evidence = SessionEvidence(session: s, end: end, idle: idleTimes, locked: lockedTime.asOf(end),
                                       rewardRunning: rewardRunning.asOf(end), periodicInput: periodicInput,
                                       focusHookSeen: focusHookSeen, validation: policy.validation)
        var j = SessionJudgement(remaining: s.used.clipped(to: s.start, end))
        for rule in creditRules { rule.judge(evidence, &j) }
        DailyCapRule(cap: policy.points.dailyLearningCap).judge(&j, days: splitByDay(j.remaining), credited: &learningCredited)

        let credited = j.remaining.measure
        pointRemainder += credited * (entry.pointsPerHour ?? policy.points.learningPerHour)
        let points = pointRemainder / (3600 * Seconds.micro)
        pointRemainder -= points * 3600 * Seconds.micro
        record.creditedSeconds = credited
        record.points = points
        record.refused = j.refused
        record.flags = j.flags
        record.verdict = credited == 0 ? .rejected : (j.refused.isEmpty ? .credited : .partial)
        return record
    }

    /// Splits engine-time spans by the calendar day they fall on.
    private func splitByDay(_ set: IntervalSet) -> [(Int64, IntervalSet)] {
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
    private mutating func forgetOldTimes() {
        let horizon = (sessions.values.map(\.start) + awaitingJudgement.map(\.session.start)).min() ?? now
        idle.forget(before: horizon)
        lockedTime.forget(before: horizon)
        rewardRunning.forget(before: horizon)
        periodicInput.forget(before: horizon)
        cpuClaimed.forget(before: horizon)
    }

    // MARK: - Time passing

    private mutating func advance(to target: Microseconds) {
        while let d = nextDeadline(), d <= target {
            pass(to: d)
            due(at: d)
        }
        pass(to: target)
    }

    /// Time passes with nothing observed: reward time is used while it counts.
    private mutating func pass(to t: Microseconds) {
        guard t > now else { return }
        if rewardCounting {
            let available = availableNow().seconds
            budget.use(min(t - now, available))
        }
        now = t
    }

    private mutating func due(at t: Microseconds) {
        if t >= dayEnd {
            let oldWeek = day.weekKey
            enterDay(containing: t)
            budget.startDay(newWeek: day.weekKey != oldWeek)
        }
        let lost = budget.expire(by: t)
        if lost > 0 {
            out.append(.ledger(ledger.append(.expired, points: 0, at: clock.wall(at: t), note: "reward time not used in time", rewardSeconds: lost)))
        }
        splitUnusedSessions(at: t)
        if let last = lastInput, t - last > policy.validation.idleAfter { judgeAwaiting() }
        enforce(at: t)
    }

    private func nextDeadline() -> Microseconds? {
        var best = Microseconds.max
        func consider(_ d: Microseconds) { if d > now, d < best { best = d } }
        consider(dayEnd)
        if !awaitingJudgement.isEmpty, let last = lastInput { consider(last + policy.validation.idleAfter + 1) }
        if let e = budget.nextExpiry { consider(e) }
        if let spans = allowedSpans { for s in spans { consider(s.start); consider(s.end) } }
        for s in sessions.values where s.inUseSince == nil {
            if let last = s.lastUseEnd { consider(last + policy.validation.idleAfter) }
        }
        for told in stopping.values { consider(told.at + retellDelay(told.count)) }
        if rewardCounting {
            let available = availableNow().seconds
            if available > 0 {
                consider(now + available)
                for w in policy.enforcement.warnBefore where w < available && !warned.contains(w) { consider(now + available - w) }
            }
        }
        return best == .max ? nil : best
    }

    mutating func enterDay(containing t: Microseconds) {
        day = calendar.day(containing: clock.wall(at: t), allowedHours: policy.rewards.allowedHours)
        dayEnd = clock.time(atWall: day.end)
        allowedSpans = day.allowed.map { $0.map { (clock.time(atWall: $0.start), clock.time(atWall: $0.end)) } }
    }

    // MARK: - Reward time and enforcement

    /// Reward time is being used now.
    private var rewardCounting: Bool {
        guard !locked else { return false }
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

    /// Reward time that may be used from now on, and the limit that bounds it.
    private func availableNow() -> (seconds: Microseconds, limit: Reason) {
        var best = (budget.grantRemaining, Reason.noRewardTime)
        if let limit = policy.rewards.dailyLimit, limit - budget.usedToday < best.0 { best = (limit - budget.usedToday, .dailyLimit) }
        if let limit = policy.rewards.weeklyLimit, limit - budget.usedThisWeek < best.0 { best = (limit - budget.usedThisWeek, .weeklyLimit) }
        if let spans = allowedSpans {
            var left: Microseconds = 0
            for s in spans where s.start <= now && now < s.end {
                left = s.end - now
                // A window that runs to midnight goes on in tomorrow's window that starts at midnight.
                if s.end == dayEnd, let windows = policy.rewards.allowedHours, let first = windows.first, first.startMinute == 0 {
                    left += Microseconds(first.endMinute) * 60 * Seconds.micro
                }
            }
            if left < best.0 { best = (left, .outsideHours) }
        }
        return (max(0, best.0), best.1)
    }

    private mutating func redeem(minutes: Int64, by: String?, at t: Microseconds) {
        let cost = minutes * policy.points.perRewardMinute
        guard ledger.balance >= cost else {
            out.append(.refused(Refusal(at: clock.wall(at: t), request: "redeem \(minutes) min",
                                        reason: "it costs \(cost) points and the balance is \(ledger.balance)")))
            return
        }
        let seconds = minutes * 60 * Seconds.micro
        out.append(.ledger(ledger.append(.redeemed, points: -cost, at: clock.wall(at: t), note: by, rewardSeconds: seconds)))
        budget.grant(seconds, expiresAt: policy.rewards.redemptionExpiresAfter.map { t + $0 })
    }

    private mutating func enforce(at t: Microseconds) {
        let (available, limit) = availableNow()
        if available <= 0 {
            var due = rewardPids.filter { stopping[$0] == nil && !paused.contains($0) }
            if let pid = focusedRewardPid, stopping[pid] == nil, !paused.contains(pid) { due.insert(pid) }
            for pid in due.sorted() { tellStop(pid, reason: limit, at: t, action: policy.enforcement.action) }
        } else {
            if !paused.isEmpty {
                for pid in paused.sorted() { out.append(.resume(pid: pid, at: clock.wall(at: t))) }
                paused.removeAll()
            }
            if !stopping.isEmpty { stopping = stopping.filter { $0.value.reason == .blocked } }
            if rewardCounting {
                var crossed = false
                for w in policy.enforcement.warnBefore where available <= w && !warned.contains(w) {
                    warned.insert(w)
                    crossed = true
                }
                if crossed { out.append(.warn(Warning(at: clock.wall(at: t), remaining: available, limit: limit))) }
            }
        }
        if !warned.isEmpty { warned = warned.filter { $0 >= available } }
        if !blockedPids.isEmpty || blockedFocusPid != nil {
            var due = blockedPids.filter { stopping[$0] == nil }
            if let pid = blockedFocusPid, stopping[pid] == nil { due.insert(pid) }
            for pid in due.sorted() { tellStop(pid, reason: .blocked, at: t, action: .terminate) }
        }
        // A process still alive after the grace period is told again, then less and less often.
        if !stopping.isEmpty {
            for (pid, told) in stopping.sorted(by: { $0.key < $1.key }) where t - told.at >= retellDelay(told.count) {
                tellStop(pid, reason: told.reason, at: t, action: .terminate, count: told.count + 1)
            }
        }
    }

    /// Grace after the first stop, then twice as long each time, at most 10 minutes.
    private func retellDelay(_ count: Int) -> Microseconds {
        let grace = max(policy.enforcement.grace, Seconds.micro)
        return min(grace << min(count, 20), max(grace, Seconds.of(minutes: 10)))
    }

    private var blockedFocusPid: Int32? {
        guard let m = focusMatch, let pid = focus?.pid, policy.apps[m.entry].category == .blocked else { return nil }
        return pid
    }

    private mutating func tellStop(_ pid: Int32, reason: Reason, at t: Microseconds, action: Policy.StopAction, count: Int = 0) {
        let app = processes[pid]?.match.map { policy.apps[$0.entry].name }
            ?? focusMatch.map { policy.apps[$0.entry].name } ?? "?"
        out.append(.stop(StopOrder(at: clock.wall(at: t), pid: pid, app: app, reason: reason, action: action, repeatCount: count)))
        if action == .pause {
            paused.insert(pid)
        } else {
            stopping[pid] = Told(at: t, count: count, reason: reason)
        }
    }

    // MARK: - What the shell and stctl read

    /// How long after the last event something is due (a warning, a stop, a day's end, …): the
    /// daemon sends a `tick` then, so that it happens on time.
    public var timeToNextDeadline: Microseconds? { nextDeadline().map { $0 - now } }

    public struct RewardFigures: Sendable, Equatable {
        public var granted: Microseconds
        public var used: Microseconds
        public var remaining: Microseconds
        public var expired: Microseconds
        public var usedToday: Microseconds
        public var availableNow: Microseconds
    }

    public var reward: RewardFigures {
        RewardFigures(granted: budget.totalGranted, used: budget.totalUsed, remaining: budget.grantRemaining,
                      expired: budget.totalExpired, usedToday: budget.usedToday, availableNow: availableNow().seconds)
    }

    /// The UTC offset of the policy's zone at a wall time, to print times the way a parent reads them.
    public func utcOffset(at wall: Microseconds) -> Int32 { calendar.utcOffset(at: wall) }
}
