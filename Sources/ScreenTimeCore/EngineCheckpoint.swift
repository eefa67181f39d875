import FoundationEssentials

extension Engine {
    /// Everything the engine knows at one moment, to start again from there instead of from the
    /// first event. Restored with the same policy, it goes on exactly as the engine it came from.
    public struct Checkpoint: Codable, Sendable {
        /// Bumped when the layout changes; an older checkpoint is ignored (the log is replayed instead).
        /// 2: a boot clock running ahead of the wall clock is a fault (a checkpoint of format 1 may
        /// hold a calendar a faked clock moved ahead: the log is replayed under the new rule).
        /// 3: the daily allowance in the budget, and the family loop (requests, chores).
        /// 4: the calendar only goes forward (the clock's segments and boot id): a checkpoint of an
        /// older format may hold a calendar a night switched off left behind.
        /// 5: bonus time (a kind of grant), games stopped by a parent, minutes taken back.
        /// 6: screen time (the child's login sessions, what was counted today and this week).
        /// 7: screen time leased from the family in a household (what was taken of today's counted time).
        /// 8: websites (the browsers' reports, the sites told to stop, when each process was first seen).
        public static let currentFormat = 8
        public var format: Int
        var clock: TrustedClock
        var now: Microseconds
        var started: Bool
        var processes: [TrackedPID]
        var focus: FocusedWindow?
        var focusMatch: AppMatch?
        var focusHookSeen: Bool
        var locked: Bool
        /// Absent from checkpoints written before a child's lock claim was told apart.
        var lockClaimed: Bool?
        var idle: Stretches
        var lockedTime: Stretches
        /// Absent from checkpoints written before hook gaps were known.
        var hookGapTime: Stretches?
        var rewardRunning: Stretches
        var periodicInput: IntervalSet
        var cpuClaimed: IntervalSet
        var lastInput: Microseconds?
        var periodicDetector: PeriodicInputDetector
        var sessions: [OpenSession]
        var awaitingJudgement: [AwaitingSession]
        var learningCredited: [DayCredit]
        var pointRemainder: Int64
        var balance: Int64
        var budget: RewardBudget
        var warned: [Microseconds]
        var stopping: [ToldPID]
        var paused: [Int32]
        /// Absent from checkpoints written before undone pauses were known.
        var pauseUndone: [Int32]?
        var clockFaults: [ClockFault]?
        var clockFaultCount: Int?
        /// Absent from checkpoints written before the family loop.
        var family: FamilyState?
        /// Absent from checkpoints written before app and group limits.
        var appUse: AppUse?
        var appWarned: [String: [Microseconds]]?
        /// Absent from checkpoints written before goals and streaks.
        var streak: Streak?
        /// Absent from checkpoints written before households.
        var lease: FamilyLease?
        var others: OthersAppUse?
        /// Games a parent stopped until a time.
        var gamesStopped: GamesStop?
        /// Screen time (format 6).
        var screen: ScreenState?
        /// Screen time leased from the family (format 7; only in a household).
        var screenLease: FamilyLease?
        /// Websites (format 8).
        var sites: SiteState?

        struct TrackedPID: Codable, Sendable { var pid: Int32; var process: TrackedProcess }
        struct ToldPID: Codable, Sendable { var pid: Int32; var told: Told }
        struct DayCredit: Codable, Sendable { var day: Int64; var credited: Microseconds }
    }

    /// The checkpoint as stored: JSON with sorted keys, the same bytes for the same state.
    public var checkpointData: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(checkpoint)) ?? Data()
    }

    public var checkpoint: Checkpoint {
        Checkpoint(
            format: Checkpoint.currentFormat, clock: clock, now: now, started: started,
            processes: processes.keys.sorted().map { Checkpoint.TrackedPID(pid: $0, process: processes[$0]!) },
            focus: focus, focusMatch: focusMatch, focusHookSeen: focusHookSeen, locked: locked, lockClaimed: lockClaimed,
            idle: idle, lockedTime: lockedTime, hookGapTime: hookGapTime, rewardRunning: rewardRunning,
            periodicInput: periodicInput, cpuClaimed: cpuClaimed, lastInput: lastInput, periodicDetector: periodicDetector,
            sessions: sessions.values.sorted { ($0.start, $0.key) < ($1.start, $1.key) },
            awaitingJudgement: awaitingJudgement,
            learningCredited: learningCredited.keys.sorted().map { Checkpoint.DayCredit(day: $0, credited: learningCredited[$0]!) }, pointRemainder: pointRemainder,
            balance: ledger.balance, budget: budget, warned: warned.sorted(),
            stopping: stopping.keys.sorted().map { Checkpoint.ToldPID(pid: $0, told: stopping[$0]!) },
            paused: paused.sorted(), pauseUndone: pauseUndone.sorted(), clockFaults: clockFaults, clockFaultCount: clockFaultCount,
            family: family, appUse: appUse, appWarned: appWarned.mapValues { $0.sorted() },
            streak: streak, lease: leased ? lease : nil, others: leased ? others : nil, gamesStopped: gamesStopped,
            screen: screen, screenLease: leased ? screenLease : nil, sites: sites)
    }

    /// An engine that goes on from a checkpoint, under the policy it was taken with.
    public init(policy: Policy, checkpoint c: Checkpoint) {
        self.init(policy: policy)
        clock = c.clock
        now = c.now
        started = c.started
        for t in c.processes {
            processes[t.pid] = TrackedProcess(facts: t.process.facts, match: nil, lastCPU: t.process.lastCPU, seen: t.process.seen)
            setMatch(of: t.pid, to: t.process.match)
        }
        focus = c.focus
        focusMatch = c.focusMatch
        focusHookSeen = c.focusHookSeen
        locked = c.locked
        lockClaimed = c.lockClaimed ?? false
        idle = c.idle
        lockedTime = c.lockedTime
        hookGapTime = c.hookGapTime ?? Stretches()
        rewardRunning = c.rewardRunning
        periodicInput = c.periodicInput
        cpuClaimed = c.cpuClaimed
        lastInput = c.lastInput
        periodicDetector = c.periodicDetector
        sessions = Dictionary(uniqueKeysWithValues: c.sessions.map { ($0.key, $0) })
        awaitingJudgement = c.awaitingJudgement
        learningCredited = Dictionary(uniqueKeysWithValues: c.learningCredited.map { ($0.day, $0.credited) })
        pointRemainder = c.pointRemainder
        ledger = Ledger(balance: c.balance)
        budget = c.budget
        warned = Set(c.warned)
        stopping = Dictionary(uniqueKeysWithValues: c.stopping.map { ($0.pid, $0.told) })
        paused = Set(c.paused)
        pauseUndone = Set(c.pauseUndone ?? [])
        clockFaults = c.clockFaults ?? []
        clockFaultCount = c.clockFaultCount ?? clockFaults.count
        family = c.family ?? FamilyState()
        appUse = c.appUse ?? AppUse()
        appWarned = (c.appWarned ?? [:]).mapValues { Set($0) }
        streak = c.streak ?? Streak()
        lease = c.lease ?? FamilyLease()
        others = c.others ?? OthersAppUse()
        gamesStopped = c.gamesStopped
        screen = c.screen ?? ScreenState()
        screenLease = c.screenLease ?? FamilyLease()
        sites = c.sites ?? SiteState()
        rebuildAudibleSites()
        if started {
            enterDay(containing: now)
            grantAllowance()
        }
    }
}
