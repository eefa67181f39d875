/// The anti-gaming rules. Each is a small type that looks at what happened during one session and
/// refuses the part of its time it is responsible for, under its own reason code. They run in
/// order when a session closes; what one refused, the next does not see.

/// Everything a rule may look at, up to the session's end.
struct SessionEvidence {
    var session: OpenSession
    var end: Microseconds
    var idle: IntervalSet
    var locked: IntervalSet
    var rewardRunning: IntervalSet
    var periodicInput: IntervalSet
    var focusHookSeen: Bool
    /// While the desktop hook was gone (after `focus_changed` with `hook_lost`).
    var hookGap: IntervalSet
    var validation: Policy.Validation

    var seconds: Microseconds { end - session.start }
}

struct SessionJudgement {
    var remaining: IntervalSet
    private(set) var refused: [(reason: Reason, seconds: Microseconds)] = []
    private(set) var flags: [Reason] = []

    init(remaining: IntervalSet) { self.remaining = remaining }

    mutating func refuse(_ part: IntervalSet, _ reason: Reason) {
        let hit = remaining.intersection(part)
        guard !hit.isEmpty else { return }
        remaining = remaining.subtracting(hit)
        note(reason, hit.measure)
    }

    mutating func refuseAll(_ reason: Reason) { refuse(remaining, reason) }

    /// Records time not credited that was never in `remaining` (not in use, or never created).
    mutating func note(_ reason: Reason, _ seconds: Microseconds) {
        if let k = refused.firstIndex(where: { $0.reason == reason }) {
            refused[k].seconds += seconds
        } else {
            refused.append((reason, seconds))
        }
    }

    mutating func flag(_ reason: Reason) { if !flags.contains(reason) { flags.append(reason) } }
}

protocol CreditRule: Sendable {
    func judge(_ e: SessionEvidence, _ j: inout SessionJudgement)
}

/// Time the app ran without being used: not focused, or no hook could say it was (the time a
/// hook that had reported went missing is `hook_gap`).
struct UnfocusedRule: CreditRule {
    func judge(_ e: SessionEvidence, _ j: inout SessionJudgement) {
        let notUsed = e.seconds - e.session.used.measure - e.session.flicker.measure
        guard notUsed > 0 else { return }
        let gap = min(notUsed, e.hookGap.clipped(to: e.session.start, e.end).measure)
        if gap > 0 { j.note(.hookGap, gap) }
        guard notUsed - gap > 0 else { return }
        let cpuSuffices = !e.validation.learningNeedsFocusHook
        j.note(!e.focusHookSeen && !cpuSuffices ? .noFocusHook : .unfocused, notUsed - gap)
    }
}

/// Focus that stayed on the app for less than `min_focus_dwell`.
struct FocusFlickerRule: CreditRule {
    func judge(_ e: SessionEvidence, _ j: inout SessionJudgement) {
        let t = e.session.flicker.measure
        if t > 0 { j.note(.focusFlicker, t) }
    }
}

struct LockedRule: CreditRule {
    func judge(_ e: SessionEvidence, _ j: inout SessionJudgement) { j.refuse(e.locked, .locked) }
}

/// No input for longer than `idle_after`, back-dated to the last input; or the session said idle.
struct IdleRule: CreditRule {
    func judge(_ e: SessionEvidence, _ j: inout SessionJudgement) { j.refuse(e.idle, .idle) }
}

/// A reward app was running at the same time.
struct ConcurrentRewardRule: CreditRule {
    func judge(_ e: SessionEvidence, _ j: inout SessionJudgement) { j.refuse(e.rewardRunning, .concurrentReward) }
}

/// Input with machine-like regularity: flagged (lenient), its time refused (moderate), or the
/// whole session refused (strict).
struct PeriodicInputRule: CreditRule {
    func judge(_ e: SessionEvidence, _ j: inout SessionJudgement) {
        let touched = e.session.used.intersection(e.periodicInput)
        guard !touched.isEmpty else { return }
        switch e.validation.periodicInputAction {
        case .flagOnly: j.flag(.periodicInput)
        case .refuseTime: j.refuse(e.periodicInput, .periodicInput)
        case .refuseSession: j.refuseAll(.periodicInput)
        }
    }
}

/// A program that only looked like a learning app, or one the child could have replaced.
struct UntrustedExeRule: CreditRule {
    func judge(_ e: SessionEvidence, _ j: inout SessionJudgement) {
        if !e.session.key.trusted { j.refuseAll(.untrustedExe) }
    }
}

struct TooShortRule: CreditRule {
    func judge(_ e: SessionEvidence, _ j: inout SessionJudgement) {
        if e.seconds < e.validation.minSession { j.refuseAll(.tooShort) }
    }
}

/// A wall-clock jump during the session: the time it pretended to add was never there.
struct ClockJumpRule: CreditRule {
    func judge(_ e: SessionEvidence, _ j: inout SessionJudgement) {
        if e.session.clockJumped > 0 { j.note(.clockJump, e.session.clockJumped) }
    }
}

/// The day's learning credit cap. Unlike the others it remembers: what each day has credited.
struct DailyCapRule {
    /// The cap of a day (by its key): the day's schedule may set its own.
    let cap: (Int64) -> Microseconds

    /// `days` splits the remaining time by calendar day: (day key, the part on that day).
    func judge(_ j: inout SessionJudgement, days: [(Int64, IntervalSet)], credited: inout [Int64: Microseconds]) {
        var over = IntervalSet()
        for (day, part) in days {
            let room = max(0, cap(day) - credited[day, default: 0])
            let kept = part.prefix(measure: room)
            credited[day, default: 0] += kept.measure
            over.formUnion(part.subtracting(kept))
        }
        j.refuse(over, .dailyCap)
    }
}

/// The rules in the order they judge.
let creditRules: [any CreditRule] = [
    UnfocusedRule(), FocusFlickerRule(), LockedRule(), IdleRule(), ConcurrentRewardRule(),
    PeriodicInputRule(), UntrustedExeRule(), TooShortRule(), ClockJumpRule(),
]
