/// The engine: a pure fold of events into state and effects (docs/architecture.md §2). No I/O, no clock
/// reads, no randomness: everything it knows came in an event, so the daemon and
/// `screentimed replay` reach the same ledger from the same log.
///
/// Between two events time passes without anything being observed; the engine then walks through
/// its own deadlines (a warning due, reward time running out, a day ending, a grant expiring, a
/// session going unused) so that each happens at its exact moment, not at the next event.
public struct Engine: Sendable {
    public private(set) var policy: Policy
    var classifier: Classifier
    var calendar: PolicyCalendar
    public internal(set) var clock = TrustedClock()
    /// Engine time up to which everything has been accounted.
    public internal(set) var now: Microseconds = 0
    var started = false

    // The calendar day in force, in engine time.
    var day = PolicyCalendar.Day(key: 0, weekKey: 0, start: 0, end: 0, allowed: nil)
    var dayEnd: Microseconds = 0
    /// Its limits: the policy's, or those of the schedule in force that day.
    public internal(set) var rules = Policy.DayRules(schedule: nil, dailyLimit: nil, allowedHours: nil, dailyAllowance: nil, dailyLearningCap: 0)
    var allowedSpans: [(start: Microseconds, end: Microseconds)]?

    // What is running and what the child is looking at.
    struct TrackedProcess: Sendable, Codable {
        var facts: ProcessFacts
        var match: AppMatch?
        var lastCPU: CPUSample?
        /// When the engine first saw it (engine time): a browser has `report_within` from then.
        var seen: Microseconds? = nil
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
    /// The screen is locked, as logind or a trusted hook says: no learning, no game time.
    var locked = false
    /// The child's own side says the screen is locked (`lock_changed claimed`): no learning credit.
    public internal(set) var lockClaimed = false

    // What the rules judge sessions by.
    var idle = Stretches()
    var lockedTime = Stretches()
    /// While no desktop hook could say what was focused, after one that had went away.
    var hookGapTime = Stretches()
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
    /// Requests for time, chore claims, the child's own redemptions today.
    var family = FamilyState()
    /// Game time of limited apps and groups, and the warnings given before their limits today.
    var appUse = AppUse()
    var appWarned: [String: Set<Microseconds>] = [:]
    /// Days in a row with the learning goal met.
    var streak = Streak()
    /// With a household: the game time this machine holds of the family's (EngineLease.swift),
    /// and what the other computers played of limited apps and groups (EngineAppLimits.swift).
    var lease = FamilyLease()
    /// Screen time leased the same way (with a daily or weekly screen limit).
    var screenLease = FamilyLease()
    var others = OthersAppUse()
    /// Some reward app of the policy has a limit of its own or a group's (else none of that is looked at).
    var hasAppLimits = false
    /// Game time is leased from the family (the policy names a family database). Kept, not asked
    /// of the policy each time: it is read several times per event (docs/benchmarks.md).
    var leased = false
    /// A parent stopped the games until a time (nil: not stopped).
    var gamesStopped: GamesStop?
    /// Screen time: the child's login sessions, what was counted, a parent's say over tonight (EngineScreen.swift).
    var screen = ScreenState()
    /// Today's allowed screen hours in engine time (nil: any hour).
    var screenSpans: [(start: Microseconds, end: Microseconds)]?
    /// Some screen limit or bedtime is set, in `[screen]` or a schedule (a stored flag: read on every event).
    var screenLimited = false
    /// Websites: what the browsers report, and which of their hosts were told to stop (EngineSites.swift).
    var sites = SiteState()

    // Enforcement.
    var warned: Set<Microseconds> = []
    struct Told: Sendable, Codable { var at: Microseconds; var count: Int; var reason: Reason }
    var stopping: [Int32: Told] = [:]
    var paused: Set<Int32> = []
    /// Paused games that someone let go on once in this pause: the next time, they are terminated.
    var pauseUndone: Set<Int32> = []

    var out: [Effect] = []

    /// Clock readings that could not be true (the first 100): nothing was counted by them.
    public internal(set) var clockFaults: [ClockFault] = []
    /// How many there were in all.
    public internal(set) var clockFaultCount = 0

    mutating func note(_ fault: ClockFault) {
        clockFaultCount += 1
        if clockFaults.count < 100 { clockFaults.append(fault) }
        out.append(.clockFault(fault))
    }

    public init(policy: Policy) {
        self.policy = policy
        self.classifier = Classifier(policy: policy)
        self.calendar = PolicyCalendar(zone: policy.timeZone)
        self.periodicDetector = PeriodicInputDetector(threshold: policy.validation.periodicInputVariation,
                                                      maxGap: policy.validation.idleAfter)
        self.hasAppLimits = policy.apps.contains { $0.category == .reward && $0.isLimited }
        self.leased = policy.household != nil
        self.screenLimited = policy.screenLimited
    }

    // MARK: - Folding events

    /// Applies one event; appends what the shell must do.
    public mutating func apply(_ event: Event, into effects: inout [Effect]) {
        var boot: String? = nil
        if case .daemonStarted(let b) = event.kind { boot = b }
        let observation = clock.observe(wall: event.at.micros, mono: event.mono, boot: boot)
        let t = clock.now
        if !started {
            started = true
            now = t
            enterDay(containing: t)
            grantAllowance()
        }
        if case .daemonStarted = event.kind {
            // Nothing was observed while the daemon was down: what it knew ends where it stopped.
            endEverything(at: now)
        } else if case .rebooted = observation {
            endEverything(at: now)
        }
        // After a new boot this passes the night the computer was off, with nothing running:
        // its midnight ends a day like any other.
        advance(to: t)
        switch observation {
        case .steady: break
        case .rebooted: calendarMoved(at: t)
        case .jumped(let by):
            // With a boot clock, durations come from it: the step costs and creates nothing. In a
            // log without one, engine time is the wall clock's, and the step's time is refused.
            if event.mono == nil { for key in sessions.keys { sessions[key]!.clockJumped += abs(by) } }
            out.append(.clockJumped(at: clock.wall(at: t), by: by))
            calendarMoved(at: t)
        case .bootClockAhead(let by):
            note(ClockFault(kind: .bootClockAhead, at: clock.wall(at: t), bootAhead: by))
        }
        handle(event, at: t)
        enforce(at: t)
        enforceScreen(at: t)
        effects.append(contentsOf: out)
        out.removeAll(keepingCapacity: true)
    }

    /// A new policy from now on. Sessions in progress end now and are judged by the old one;
    /// what runs is classified again and goes on under the new one. Points, reward minutes and
    /// today's use are kept.
    public mutating func adopt(_ newPolicy: Policy, into effects: inout [Effect]) {
        for key in sessions.keys.sorted(by: { (sessions[$0]!.start, $0) < (sessions[$1]!.start, $1) }) {
            close(key, at: now)
        }
        judgeAwaiting()
        policy = newPolicy
        hasAppLimits = newPolicy.apps.contains { $0.category == .reward && $0.isLimited }
        leased = newPolicy.household != nil
        // New limits may leave the family more to lease: ask again.
        lease.spent = nil
        screenLease.spent = nil
        screenLimited = newPolicy.screenLimited
        classifier = Classifier(policy: newPolicy)
        calendar = PolicyCalendar(zone: newPolicy.timeZone)
        periodicDetector = PeriodicInputDetector(threshold: newPolicy.validation.periodicInputVariation,
                                                 maxGap: newPolicy.validation.idleAfter)
        for pid in processes.keys.sorted() { setMatch(of: pid, to: classifier.classify(process: processes[pid]!.facts)) }
        // The browsers' reports hold; what their hosts are, and whether they stop, is judged anew.
        sites.told = [:]
        rebuildAudibleSites()
        if let window = focus, window.pid != nil {
            focusMatch = classifyFocus(window)
        }
        stopping = stopping.filter { blockedPids.contains($0.key) || rewardPids.contains($0.key) || $0.key == focus?.pid }
        warned = []
        appWarned = [:]
        if started {
            let oldWeek = day.weekKey
            enterDay(containing: now)
            if day.weekKey != oldWeek {
                let bonusLost = budget.startDay(newWeek: true)
                if bonusLost > 0 {
                    out.append(.ledger(ledger.append(.expired, points: 0, at: clock.wall(at: now), note: "bonus time not used on its day", rewardSeconds: bonusLost)))
                }
                appUse.startDay(newWeek: true)
            }
            grantAllowance()
            refreshSessions(at: now)
            enforce(at: now)
            enforceScreen(at: now)
        }
        effects.append(contentsOf: out)
        out.removeAll(keepingCapacity: true)
    }

    /// Ends the timeline: open sessions close at the last event's time and are judged.
    public mutating func finish(into effects: inout [Effect]) {
        for key in sessions.keys.sorted(by: { (sessions[$0]!.start, $0) < (sessions[$1]!.start, $1) }) {
            close(key, at: now)
        }
        judgeAwaiting()
        effects.append(contentsOf: out)
        out.removeAll()
    }

    mutating func handle(_ event: Event, at t: Microseconds) {
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
                focusMatch = classifyFocus(window)
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
            hookGapTime.set(window.pid == nil && window.hookLost == true, at: t)
            if window.pid != nil {
                focus = window
                focusMatch = classifyFocus(window)
            } else {
                focus = nil
                focusMatch = nil
            }
            refreshSessions(at: t)
        case .input:
            if let last = lastInput, t - last > policy.validation.idleAfter {
                idle.add(last, t)
                screenInputGap(from: last, to: t)
            }
            screenInputWhileLocked(at: t, last: lastInput)
            lastInput = t
            judgeAwaiting()
            if let run = periodicDetector.input(at: t) {
                // Machine-made input makes the `idle_after` after it count as active too: that
                // tail is the machine's as well (a jiggler's last interval must not pay), until
                // input that is not part of a run says a person is back.
                periodicInput.insert(run.start, run.end + policy.validation.idleAfter)
            } else {
                periodicInput.forget(after: t)
            }
        case .idleChanged(let isIdle, let since, let claimed):
            var from = t
            if isIdle, let s = since { from = min(t, max(0, t - (event.at.micros - s.micros))) }
            // Screen time stops only for an idleness a trusted source says (logind's, root's hooks');
            // learning is refused for either.
            if !claimed {
                if isIdle, !screen.idle { screen.takeBack(from, t) }
                screen.idle = isIdle
            } else if !isIdle {
                screen.idle = false
            }
            idle.set(isIdle, at: from)
        case .lockChanged(let isLocked, let claimed):
            // A lock the child's own side claims costs learning only; a trusted one (logind, a
            // trusted hook) stops game time too, and its unlock ends the child's claim as well.
            if claimed {
                lockClaimed = isLocked
            } else {
                locked = isLocked
                if !isLocked { lockClaimed = false }
            }
            lockedTime.set(locked || lockClaimed, at: t)
            refreshSessions(at: t)
            screenEvent(event.kind, at: t)
        case .redeem(let minutes, let by, let familySeq):
            redeem(minutes: minutes, by: by, familySeq: familySeq, at: t)
        case .leaseGranted(let g):
            leaseGranted(g)
        case .appTimeShared(let day, let shared):
            appTimeShared(day: day, shared)
        case .familyEntry(let e):
            // Points only: minutes redeemed on another machine are played there.
            out.append(.ledger(ledger.append(e.kind, points: e.points, at: clock.wall(at: t), note: e.note, machine: e.machine, familySeq: e.seq)))
        case .adjust(let points, let reason):
            out.append(.ledger(ledger.append(.adjusted, points: points, at: clock.wall(at: t), note: reason)))
        case .gameContinued(let pid, let since):
            gameContinued(pid, since: since.map { min(t, max(0, t - (event.at.micros - $0.micros))) } ?? t, at: t)
        case .clockFaked(let boot, let wall):
            note(ClockFault(kind: .fakedClock, at: clock.wall(at: t), bootAhead: boot, wallAhead: wall))
        case .timeRequested(let id, let minutes, let reason, let screen):
            timeRequested(id: id, minutes: minutes, reason: reason, screen: screen, at: t)
        case .requestDecided(let decision):
            requestDecided(decision, at: t)
        case .choreDone(let chore):
            choreDone(chore, at: t)
        case .choreDecided(let chore, let approved, let by, let reason):
            choreDecided(chore, approved: approved, by: by, reason: reason, at: t)
        case .bonusGiven(let minutes, let by, let reason):
            bonusGiven(minutes: minutes, by: by, reason: reason, at: t)
        case .gamesStopped(let until, let by):
            gamesStopped(until: until.micros, by: by, at: t)
        case .minutesRevoked(let minutes, let refund, let by):
            minutesRevoked(minutes: minutes, refund: refund, by: by, at: t)
        case .sessionStarted, .sessionEnded, .screenBonus, .bedtimeMoved:
            screenEvent(event.kind, at: t)
        case .freeDay:
            screenEvent(event.kind, at: t)
        case .siteChanged(let report):
            siteChanged(report, at: t)
        case .siteReportEnded(let pid):
            siteReportEnded(pid, at: t)
        case .tick, .daemonStarted:
            break
        }
        rewardRunning.set(!rewardPids.isEmpty || focusedRewardPid != nil || siteRewardInUse, at: t)
    }

    // MARK: - What the shell and stctl read

    /// How long after the last event something is due (a warning, a stop, a day's end, …): the
    /// daemon sends a `tick` then, so that it happens on time.
    public var timeToNextDeadline: Microseconds? { nextDeadline().map { $0 - now } }

    /// The games paused now (pause mode): each must stay stopped until the engine says resume.
    public var pausedGames: Set<Int32> { paused }

    /// A desktop hook has reported focus: without one, strict and moderate policies credit no learning.
    public var hasFocusHook: Bool { focusHookSeen }

    public struct RewardFigures: Sendable, Equatable {
        /// Redeemed and gifted minutes: granted, used of them, left (not expired), expired.
        public var granted: Microseconds
        public var used: Microseconds
        public var remaining: Microseconds
        public var expired: Microseconds
        public var usedToday: Microseconds
        public var availableNow: Microseconds
        /// The daily allowance: granted over the timeline, used of it, and what is left today.
        public var allowance: Microseconds = 0
        public var allowanceUsed: Microseconds = 0
        public var allowanceLeftToday: Microseconds = 0
        /// Taken back by a parent; bonus time left today, and used of it today.
        public var revoked: Microseconds = 0
        public var bonusLeftToday: Microseconds = 0
        public var bonusUsedToday: Microseconds = 0
    }

    public var reward: RewardFigures {
        RewardFigures(granted: budget.totalGranted, used: budget.totalUsed, remaining: budget.grantRemaining,
                      expired: budget.totalExpired, usedToday: budget.usedToday, availableNow: familyAvailable().seconds,
                      allowance: budget.totalAllowance, allowanceUsed: budget.totalAllowanceUsed, allowanceLeftToday: budget.allowanceLeft,
                      revoked: budget.totalRevoked, bonusLeftToday: budget.bonusRemaining, bonusUsedToday: budget.bonusUsedToday)
    }

    /// Reward time that can still be used today from now: the least of what is redeemed, what
    /// today's and this week's limits leave, and the allowed hours left today.
    public var rewardAvailableToday: Microseconds {
        if stoppedByParent { return 0 }
        var best = budget.availableWithinLimits
        let free = screen.freeDay
        if !free, let limit = rules.dailyLimit { best = min(best, limit - usedTodayByFamily) }
        if !free, let limit = policy.rewards.weeklyLimit { best = min(best, limit - usedThisWeekByFamily) }
        best = max(0, best) + budget.bonusRemaining
        if !free, let spans = allowedSpans {
            best = min(best, spans.reduce(0) { $0 + max(0, $1.end - max($1.start, now)) })
        }
        return max(0, best)
    }

    /// Learning credited today (sessions judged so far).
    public var learningCreditedToday: Microseconds { learningCredited[day.key] ?? 0 }

    /// The policy's calendar day holding a wall time, as wall-clock microseconds.
    public func day(containing wall: Microseconds) -> (start: Microseconds, end: Microseconds) {
        let d = calendar.day(containing: wall, allowedHours: nil)
        return (d.start, d.end)
    }

    /// Today in the policy's calendar, as wall-clock microseconds.
    public var today: (start: Microseconds, end: Microseconds) { (day.start, day.end) }

    /// Today's day key (days since 1970-01-01 in the policy's calendar).
    public var todayKey: Int64 { day.key }

    /// The app the focused window belongs to, as the policy classifies it (nil: nothing focused,
    /// or nothing the policy names).
    public var focusedApp: (name: String, category: AppCategory, trusted: Bool)? {
        guard let m = focusMatch else { return nil }
        return (policy.apps[m.entry].name, policy.apps[m.entry].category, m.trusted)
    }

    /// What was observed of a process the engine knows (nil: it does not know that pid).
    public func process(_ pid: Int32) -> ProcessFacts? { processes[pid]?.facts }

    /// How the policy classifies a process by its identity alone (`stctl apps`).
    public func classify(_ process: ProcessFacts) -> (name: String, category: AppCategory, trusted: Bool)? {
        classifier.classify(process: process).map { (policy.apps[$0.entry].name, policy.apps[$0.entry].category, $0.trusted) }
    }

    /// The UTC offset of the policy's zone at a wall time, to print times the way a parent reads them.
    public func utcOffset(at wall: Microseconds) -> Int32 { calendar.utcOffset(at: wall) }
}
