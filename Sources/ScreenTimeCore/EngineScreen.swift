/// Screen time: the computer as a whole (docs/spec/screen.md). A second counts once, whatever the
/// number of the child's login sessions, while at least one is present, the screen is not locked
/// (logind's lock or a trusted hook's; a lock the child's side claims costs learning only) and the
/// child is not idle (by the rules of replay.md: `idle_changed`, and a gap in input longer than
/// `idle_after`, back-dated to the last input). Focused learning does not count until its session
/// is judged: what was credited never counts (unless `learning_counts`), what was refused then does.
///
/// At each `warn_before` the child is warned; at zero warned again, and after `grace` each session
/// is locked (or, with `action = "logout"`, ended). Unlocked with no time left, it is locked again
/// after `grace`, at most `relocks` times; the next unlock ends it after a last warning. A session
/// begun with no time left or outside the allowed hours is ended after `grace`.
struct ScreenState: Sendable, Codable {
    /// One login session of the child's (logind's id), and what is due for it.
    struct Login: Sendable, Codable, Equatable {
        var start: Microseconds
        var tty: Bool
        var remote: Bool
        /// The lock or end due (engine time), after a warning at zero.
        var dueAt: Microseconds?
        var dueEnd = false
        /// Its end was ordered: nothing more is done to it.
        var ending = false
        /// A lock was ordered and the end that is due is for a desktop that did not lock.
        var lockOrdered = false
    }

    var logins: [String: Login] = [:]
    /// A trusted source says the child is idle (a claim of their own side's does not stop screen time).
    var idle = false
    /// Today's counted time, as engine-time spans (a take-back removes spans, not a sum).
    var today = IntervalSet()
    /// The week's counted time before today.
    var weekBefore: Microseconds = 0
    /// Focused learning not counted yet: its session's judgement decides (`learning_counts = false`).
    var learning = IntervalSet()
    /// Today's bonus minutes, a bedtime moved for tonight (minutes after midnight), a free day.
    var bonus: Microseconds = 0
    var bedtime: Int? = nil
    var freeDay = false
    /// Warnings given before zero (their `warn_before`), the warning at zero, the relocks done.
    var warned: [Microseconds] = []      // (an array: a checkpoint is the same bytes for the same state)
    var zeroSaid = false
    var relocksDone = 0
    /// Input at a screen believed locked, unbroken since then (nil: none).
    var lockedInputSince: Microseconds? = nil
    /// The lock is not believed for screen time: input went on at the "locked" screen for longer
    /// than `grace` (until the lock changes again).
    var lockDisbelieved = false

    var usedToday: Microseconds { today.measure }
    var usedThisWeek: Microseconds { weekBefore + today.measure }

    /// The day is over: its totals, and a fresh day (a new week: the week's total starts anew).
    mutating func startDay(newWeek: Bool) {
        weekBefore = newWeek ? 0 : weekBefore + today.measure
        today = IntervalSet()
        bonus = 0
        bedtime = nil
        freeDay = false
        warned = []
        zeroSaid = false
        relocksDone = 0
        lockedInputSince = nil
        for id in logins.keys { logins[id]!.dueAt = nil; logins[id]!.dueEnd = false; logins[id]!.lockOrdered = false }
    }

    /// Takes back counted time (an idleness learned afterwards).
    mutating func takeBack(_ start: Microseconds, _ end: Microseconds) {
        guard end > start else { return }
        let span = IntervalSet([(start, end)])
        today = today.subtracting(span)
        learning = learning.subtracting(span)
    }
}

extension Engine {
    // MARK: Counting

    /// The child's screen time counts now: a session present, not locked (by a trusted source),
    /// not idle by `idle_changed` (a gap in input is cut in `pass`).
    var screenCounting: Bool {
        !screen.logins.isEmpty && !screenLocked && !screen.idle
    }

    /// The screen is locked for screen time: logind or a trusted hook says so, and no input going
    /// on at it says otherwise.
    var screenLocked: Bool { locked && !screen.lockDisbelieved }

    /// Focused learning now that its judgement decides about (`learning_counts = false`): a learning
    /// app the policy trusts, focused, with today's learning cap not reached.
    var screenWaitsForLearning: Bool {
        guard !policy.screen.learningCounts, focusHookSeen, let m = focusMatch, m.trusted,
              policy.apps[m.entry].category == .learning else { return false }
        return learningCreditedToday < rules.dailyLearningCap
    }

    /// Time passes from `now` to `t` with nothing observed: screen time is counted while it counts,
    /// up to `idle_after` past the last input (the rest of a gap is idle).
    mutating func passScreen(to t: Microseconds) {
        guard screenCounting else { return }
        var end = t
        if let last = lastInput { end = min(t, max(now, last + policy.validation.idleAfter)) }
        guard end > now else { return }
        if screenWaitsForLearning { screen.learning.insert(now, end) } else { screen.today.insert(now, end) }
    }

    /// A learning session was judged: its time that waited counts now, but what was credited.
    mutating func screenLearningJudged(start: Microseconds, end: Microseconds, credited: IntervalSet) {
        guard !screen.learning.isEmpty else { return }
        let span = IntervalSet([(start, end)])
        let waited = screen.learning.intersection(span)
        screen.learning = screen.learning.subtracting(span)
        screen.today.formUnion(waited.subtracting(credited))
    }

    /// Input after a gap longer than `idle_after`: the gap was idle from the last input, and what
    /// was counted of it is taken back.
    mutating func screenInputGap(from last: Microseconds, to t: Microseconds) {
        screen.takeBack(last, min(t, last + policy.validation.idleAfter))
    }

    // MARK: Events

    mutating func screenEvent(_ kind: Event.Kind, at t: Microseconds) {
        switch kind {
        case .sessionStarted(let id, let tty, let remote):
            guard screen.logins[id] == nil else { return }
            screen.logins[id] = ScreenState.Login(start: t, tty: tty, remote: remote)
            // Begun with no time left, or outside the allowed hours: ended after the grace.
            if screenLimited, let (left, limit) = screenLeftHere(), left <= 0 {
                warnScreen(remaining: 0, limit: limit, at: t)
                screen.logins[id]!.dueAt = t + policy.screen.grace
                screen.logins[id]!.dueEnd = true
            }
        case .sessionEnded(let id):
            screen.logins[id] = nil
        case .screenBonus(let minutes, _, _):
            giveScreenBonus(minutes, at: t)
        case .bedtimeMoved(let until, _):
            screen.bedtime = until
            placeDay()
            screenTimeAgain(at: t)
        case .freeDay:
            screen.freeDay = true
            screenTimeAgain(at: t)
        case .lockChanged(let isLocked, claimed: false):
            screen.lockDisbelieved = false
            screen.lockedInputSince = nil
            if !isLocked { screenUnlocked(at: t) }
        default:
            break
        }
    }

    /// Input at a screen believed locked. A lock screen takes a password, not minutes of typing:
    /// input with no gap longer than `lockedInputGap` for longer than `grace` says the desktop is
    /// not locked (a screen locker closed without logind knowing, as swaylock is; a lock only
    /// claimed through logind: `loginctl lock-session`, `SetLockedHint`, another session of the
    /// child's own in front). Screen time counts again until the lock changes; with no time left,
    /// the session is ended after a last warning.
    mutating func screenInputWhileLocked(at t: Microseconds, last: Microseconds?) {
        guard screenLimited, screenLocked else {
            screen.lockedInputSince = nil
            return
        }
        guard let since = screen.lockedInputSince, let last, t - last <= Self.lockedInputGap else {
            screen.lockedInputSince = t
            return
        }
        guard t - since > policy.screen.grace else { return }
        screen.lockedInputSince = nil
        guard screen.zeroSaid, let (left, limit) = screenLeftHere(), left <= 0 else {
            // From the last input before the stretch: it was screen time.
            screen.lockDisbelieved = true
            screen.today.insert(since, t)
            return
        }
        warnScreen(remaining: 0, limit: limit, at: t)
        for id in screen.logins.keys.sorted() where !screen.logins[id]!.ending {
            screen.logins[id]!.dueAt = t + policy.screen.grace
            screen.logins[id]!.dueEnd = true
            screen.logins[id]!.lockOrdered = false
        }
    }

    /// Input this far apart is one stretch of use (input is reported every few seconds while a
    /// person types or moves the mouse).
    static let lockedInputGap = Seconds.of(10)

    /// The screen was unlocked (logind, a trusted hook) with no time left: locked again after the
    /// grace, or past `relocks` ended after a last warning.
    mutating func screenUnlocked(at t: Microseconds) {
        guard screenLimited, screen.zeroSaid, let (left, limit) = screenLeftHere(), left <= 0 else { return }
        let end = policy.screen.action == .logout || screen.relocksDone >= policy.screen.relocks
        if end { warnScreen(remaining: 0, limit: limit, at: t) } else { screen.relocksDone += 1 }
        for id in screen.logins.keys.sorted() where !screen.logins[id]!.ending {
            screen.logins[id]!.dueAt = t + policy.screen.grace
            screen.logins[id]!.dueEnd = end
            screen.logins[id]!.lockOrdered = false
        }
    }

    /// A parent's screen minutes for today (a bonus, an approved ask): beyond the day's and week's
    /// limits, and in a household asked of the family under limits raised by them.
    mutating func giveScreenBonus(_ minutes: Int64, at t: Microseconds) {
        screen.bonus += minutes * 60 * Seconds.micro
        screenLease.spent = nil
        screenTimeAgain(at: t)
    }

    /// A parent gave time or hours: what was due is not, and warnings below what is left are given again.
    mutating func screenTimeAgain(at t: Microseconds) {
        let left = screenLeft()?.left
        guard left.map({ $0 > 0 }) ?? true else { return }
        screen.zeroSaid = false
        screen.relocksDone = 0
        if let left { screen.warned = screen.warned.filter { $0 >= left } } else { screen.warned = [] }
        for id in screen.logins.keys where !screen.logins[id]!.ending {
            screen.logins[id]!.dueAt = nil
            screen.logins[id]!.dueEnd = false
            screen.logins[id]!.lockOrdered = false
        }
    }

    // MARK: What is left

    /// Screen time left from now, and the limit that bounds it (nil: no limit applies now); in a
    /// household, the daily and weekly limits count what the child's other computers leased.
    /// Bonus minutes go beyond the day's and week's limits, not beyond the allowed hours.
    /// Warnings and status say this; what is left on this computer is `screenLeftHere`.
    func screenLeft() -> (left: Microseconds, limit: Reason)? {
        guard !screen.freeDay else { return nil }
        var best = screenLeftByLimits()
        if let spans = screenSpans {
            let left = hoursLeft(spans, windows: \.screenAllowedHours)
            if best == nil || left < best!.left { best = (left, .bedtime) }
        }
        return best
    }

    /// What the daily and weekly screen limits leave (nil: neither applies).
    func screenLeftByLimits() -> (left: Microseconds, limit: Reason)? {
        guard !screen.freeDay else { return nil }
        var best: (left: Microseconds, limit: Reason)? = nil
        func consider(_ left: Microseconds, _ limit: Reason) { if best == nil || left < best!.left { best = (left, limit) } }
        if let limit = rules.screenDailyLimit { consider(limit + screen.bonus - screen.usedToday - screenOthersToday, .screenDailyLimit) }
        if let limit = policy.screen.weeklyLimit {
            consider(limit + screen.bonus - screen.usedThisWeek - screenOthersThisWeek, .screenWeeklyLimit)
        }
        return best.map { (max(0, $0.left), $0.limit) }
    }

    /// Screen time left on this computer: in a household, bounded by what it holds of the
    /// family's and its credit (the same rule offline: passed by at most the credit).
    func screenLeftHere() -> (left: Microseconds, limit: Reason)? { screenLeaseBound(screenLeft()) }

    /// What is left of the allowed window holding now (0 outside every window), games' or the
    /// screen's; a window that runs to midnight goes on in tomorrow's first window when it
    /// starts at midnight (`windows`: which of tomorrow's rules, looked up only then).
    func hoursLeft(_ spans: [(start: Microseconds, end: Microseconds)], windows: KeyPath<Policy.DayRules, [HourWindow]?>) -> Microseconds {
        var left: Microseconds = 0
        for s in spans where s.start <= now && now < s.end {
            left = s.end - now
            if s.end == dayEnd, let first = policy.rules(forDay: day.key + 1)[keyPath: windows]?.first, first.startMinute == 0 {
                left += Microseconds(first.endMinute) * 60 * Seconds.micro
            }
        }
        return left
    }

    /// Today's allowed hours for the screen, with a bedtime moved for tonight: every window ends by
    /// it, and the last one that starts before it runs to it; when none starts before it (a parent
    /// after midnight: "until 01:00 tonight"), the day is allowed from its start to it.
    func screenWindows() -> [HourWindow]? {
        guard var windows = rules.screenAllowedHours else { return nil }
        guard let until = screen.bedtime else { return windows }
        windows = windows.filter { $0.startMinute < until }.map { HourWindow(startMinute: $0.startMinute, endMinute: min($0.endMinute, until)) }
        if windows.isEmpty { return [HourWindow(startMinute: 0, endMinute: until)] }
        windows[windows.count - 1].endMinute = until
        return windows
    }

    /// Where today's allowed screen hours fall, in engine time (nil: any hour).
    mutating func placeScreenHours() {
        guard let windows = screenWindows() else { screenSpans = nil; return }
        screenSpans = (calendar.day(containing: day.start, allowedHours: windows).allowed ?? [])
            .map { (clock.time(atWall: $0.start), clock.time(atWall: $0.end)) }
    }

    // MARK: Enforcement

    /// Warnings before zero; at zero a warning and, after the grace, each session locked (or
    /// ended); what was due, carried out when it is due.
    mutating func enforceScreen(at t: Microseconds) {
        accountScreenLease()
        guard screenLimited, !screen.logins.isEmpty else { return }
        guard let family = screenLeft(), let (left, limit) = screenLeftHere() else { return }
        if left > 0, screen.zeroSaid {
            // Time again without a parent's act (idle time given back, a limit raised by a new
            // policy): what was due is not, and the next zero is said and carried out again.
            screen.zeroSaid = false
            for id in screen.logins.keys where !screen.logins[id]!.ending {
                screen.logins[id]!.dueAt = nil
                screen.logins[id]!.dueEnd = false
                screen.logins[id]!.lockOrdered = false
            }
        }
        if family.left > 0 {
            var crossed = false
            for w in policy.screen.warnBefore where family.left <= w && !screen.warned.contains(w) {
                screen.warned.append(w)
                crossed = true
            }
            if crossed { warnScreen(remaining: family.left, limit: family.limit, at: t) }
        }
        if left > 0 { return }
        if !screen.zeroSaid {
            warnScreen(remaining: 0, limit: limit, at: t)
            for id in screen.logins.keys where screen.logins[id]!.dueAt == nil && !screen.logins[id]!.ending {
                screen.logins[id]!.dueAt = t + policy.screen.grace
                screen.logins[id]!.dueEnd = policy.screen.action == .logout
            }
        }
        let reason: Reason = switch limit {
        case .screenWeeklyLimit: .screenWeeklyLimit
        case .bedtime: .bedtime
        default: .screenLimit
        }
        for id in screen.logins.keys.sorted() {
            guard let login = screen.logins[id], let due = login.dueAt, t >= due else { continue }
            screen.logins[id]!.dueAt = nil
            screen.logins[id]!.lockOrdered = false
            if login.lockOrdered && screenLocked { continue }     // it did lock
            if login.dueEnd {
                // Ordered again while the session is still there (logind refused, or was not there).
                screen.logins[id]!.ending = true
                screen.logins[id]!.dueAt = t + max(policy.screen.grace, Self.endAgainAfter)
                out.append(.endSession(SessionOrder(at: clock.wall(at: t), session: id, reason: reason)))
            } else if !screenLocked {
                out.append(.lockSession(SessionOrder(at: clock.wall(at: t), session: id, reason: reason)))
                // A desktop that does not lock when logind asks (no screen locker): ended after another grace.
                screen.logins[id]!.dueAt = t + policy.screen.grace
                screen.logins[id]!.dueEnd = true
                screen.logins[id]!.lockOrdered = true
            }
        }
    }

    /// A session ordered ended that is still there is ordered ended again this much later (or a
    /// grace later, if that is longer).
    static let endAgainAfter = Seconds.of(30)

    mutating func warnScreen(remaining: Microseconds, limit: Reason, at t: Microseconds) {
        if remaining <= 0 { screen.zeroSaid = true }
        out.append(.warn(Warning(at: clock.wall(at: t), remaining: remaining, limit: limit)))
    }

    /// The next moment screen time needs the engine: a warning, zero, the end of a window, what is due.
    func nextScreenDeadline() -> Microseconds? {
        guard screenLimited, !screen.logins.isEmpty else { return nil }
        var best = Microseconds.max
        func consider(_ d: Microseconds) { if d > now, d < best { best = d } }
        for login in screen.logins.values { if let d = login.dueAt { consider(d) } }
        if let spans = screenSpans { for s in spans { consider(s.start); consider(s.end) } }
        if let (left, limit) = screenLeftHere(), left > 0, limit == .bedtime || screenCounting { consider(now + left) }
        if let (left, limit) = screenLeft(), left > 0, limit == .bedtime || screenCounting {
            for w in policy.screen.warnBefore where w < left { consider(now + left - w) }
        }
        // The moment to ask the family for the next minute of screen time.
        if screenCounting, screenLeased, screenLease.spent == nil, screenLease.held > Self.leaseLow {
            consider(now + screenLease.held - Self.leaseLow)
        }
        if screenCounting, let last = lastInput { consider(last + policy.validation.idleAfter) }
        return best == .max ? nil : best
    }

    // MARK: What status and reports read

    public struct ScreenFigures: Sendable, Equatable {
        /// Counted today and this week; today's limit (nil: none), bonus, time left (nil: no limit now).
        public var usedToday: Microseconds
        public var usedThisWeek: Microseconds
        public var dailyLimit: Microseconds?
        public var bonus: Microseconds
        public var left: Microseconds?
        /// What bounds `left`: `screen_daily_limit`, `screen_weekly_limit` or `bedtime`.
        public var limit: Reason?
        /// When today's allowed hours end (wall time; nil: any hour), and whether a free day holds.
        public var bedtime: Microseconds?
        public var freeDay: Bool
        /// The child's login sessions present.
        public var sessions: [String]
        /// Screen time counts now (it goes on between events while it does).
        public var counting: Bool
    }

    public var screenFigures: ScreenFigures {
        let left = screenLeft()
        return ScreenFigures(usedToday: screen.usedToday, usedThisWeek: screen.usedThisWeek, dailyLimit: rules.screenDailyLimit,
                             bonus: screen.bonus, left: left?.left, limit: left?.limit,
                             bedtime: screenSpans?.last.map { clock.wall(at: $0.end) }, freeDay: screen.freeDay,
                             sessions: screen.logins.keys.sorted(), counting: screenCountsNow)
    }

    /// Screen time goes on now, second by second, against the limits: a session counts, the last
    /// input is within `idle_after`, and no focused learning waits for its judgement.
    var screenCountsNow: Bool {
        screenCounting && !screenWaitsForLearning && (lastInput.map { now - $0 < policy.validation.idleAfter } ?? true)
    }

    /// Today's screen totals, for the day's end and a replay's result (nil: the policy has no
    /// `[screen]` and no schedule's screen keys).
    public var screenDay: ScreenDayTotals? {
        guard policy.screen.configured else { return nil }
        return ScreenDayTotals(used: screen.usedToday, limit: rules.screenDailyLimit, bonus: screen.bonus)
    }
}

/// A lock or end of one of the child's login sessions (`lock_session`, `end_session`).
public struct SessionOrder: Sendable, Equatable {
    public var at: Microseconds
    public var session: String
    /// `screen_limit`, `screen_weekly_limit` or `bedtime`.
    public var reason: Reason
    public init(at: Microseconds, session: String, reason: Reason) { self.at = at; self.session = session; self.reason = reason }
}

/// A day's screen time: counted, its limit, the bonus given.
public struct ScreenDayTotals: Sendable, Equatable {
    public var used: Microseconds
    public var limit: Microseconds?
    public var bonus: Microseconds
    public init(used: Microseconds, limit: Microseconds?, bonus: Microseconds) { self.used = used; self.limit = limit; self.bonus = bonus }
}
