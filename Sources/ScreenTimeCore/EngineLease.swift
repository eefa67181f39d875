/// Game time from the family's budget (docs/household.md). With `[household]`, the daily and
/// weekly limits are the family's, over all of the child's machines: a machine plays only game
/// time it holds, which it takes from the family database a minute at a time while a game runs
/// (`lease_granted` events), and a few seconds on credit while it asks (paid from the next grant).
/// Cut off from the database, it plays what it holds and the credit, then nothing: the family's
/// limit is passed by at most that credit on each machine.
struct FamilyLease: Sendable, Codable, Equatable {
    /// Game time held here: leased, not yet played.
    var held: Microseconds = 0
    /// Game time played on credit (before a grant came): paid from the next one.
    var owed: Microseconds = 0
    /// Time used after the family said its limit was reached (a grace before the stop or the lock):
    /// paid from the next grant too (a parent's bonus), but it does not use up the credit.
    var overdrawn: Microseconds = 0
    /// The day and week the lease is for (day keys); a new day starts with none held.
    var day: Int64 = .min
    var week: Int64 = .min
    /// Leased here today and this week.
    var ownToday: Microseconds = 0
    var ownThisWeek: Microseconds = 0
    /// Leased to the child's other machines today and this week, as the last answer said.
    var othersToday: Microseconds = 0
    var othersThisWeek: Microseconds = 0
    /// The family's limit that the last answer reached (nothing more to lease today or this week).
    var spent: Reason? = nil
    /// Screen time only: how much of the day's counted screen time was taken from the lease (screen
    /// time is counted in spans, and an idleness learned afterwards gives some back).
    var counted: Microseconds = 0

    /// A grant for today: it pays what was played on credit first.
    mutating func take(_ g: LeaseGrant, day key: Int64, week: Int64) {
        start(day: key, week: week)
        let repaid = min(owed, g.granted), repaidToo = min(overdrawn, g.granted - repaid)
        owed -= repaid
        overdrawn -= repaidToo
        held += g.granted - repaid - repaidToo
        ownToday += g.granted
        ownThisWeek += g.granted
        othersToday = max(0, g.dayTotal - ownToday)
        othersThisWeek = max(0, g.weekTotal - ownThisWeek)
        spent = g.limit
    }

    /// Time used here: from what is held, the rest on credit.
    mutating func use(_ amount: Microseconds) {
        let fromHeld = min(amount, held)
        held -= fromHeld
        if spent == nil { owed += amount - fromHeld } else { overdrawn += amount - fromHeld }
    }

    /// Time counted and then given back (an idleness learned afterwards): it pays what was used
    /// after the family's no, then what was used on credit, and only then is held again.
    mutating func giveBack(_ amount: Microseconds) {
        let a = min(amount, overdrawn)
        overdrawn -= a
        let b = min(amount - a, owed)
        owed -= b
        held += amount - a - b
    }

    /// What may be used here now: what is held, and while the family has not said no, the credit.
    func mayUse(credit: Microseconds) -> Microseconds { held + (spent == nil ? max(0, credit - owed) : 0) }

    /// A new day: nothing held (what was held counts as yesterday's); a new week also forgets the week's.
    mutating func start(day key: Int64, week: Int64) {
        guard key != day else { return }
        if week != self.week {
            self.week = week
            ownThisWeek = 0
            othersThisWeek = 0
            if spent == .weeklyLimit { spent = nil }
        }
        day = key
        held = 0
        owed = 0
        overdrawn = 0
        ownToday = 0
        othersToday = 0
        counted = 0
        if spent == .dailyLimit { spent = nil }
    }
}

/// What the family database granted a machine (the `lease_granted` event).
public struct LeaseGrant: Sendable, Equatable {
    /// The day (key: days since 1970-01-01 in the policy's zone) it is for.
    public var day: Int64
    /// Game time granted now (µs; 0: none left).
    public var granted: Microseconds
    /// All machines' leases of the day and of its week, this one's included (µs).
    public var dayTotal: Microseconds
    public var weekTotal: Microseconds
    /// The family's limit this grant reached (`daily_limit`, `weekly_limit`), if any.
    public var limit: Reason?
    /// Screen time, not game time (`"of": "screen"`).
    public var screen: Bool

    public init(day: Int64, granted: Microseconds, dayTotal: Microseconds, weekTotal: Microseconds, limit: Reason? = nil, screen: Bool = false) {
        self.day = day; self.granted = granted; self.dayTotal = dayTotal; self.weekTotal = weekTotal; self.limit = limit; self.screen = screen
    }
}

/// What a machine asks the family database for: `want` of game time (or screen time) on `day`,
/// under its policy's limits for that day and week.
public struct LeaseRequest: Sendable, Equatable {
    public var day: Int64
    public var weekStart: Int64
    public var want: Microseconds
    public var dailyLimit: Microseconds?
    public var weeklyLimit: Microseconds?
    public var screen = false
}

extension Engine {

    /// A lease is asked for when less than this is held,
    static let leaseLow = Seconds.of(30)
    /// and this much at a time.
    static let leaseSize = Seconds.of(60)
    /// Played on credit while a lease is asked for (a game just started, a lease running out).
    static let leaseCredit = Seconds.of(10)

    /// What the shell should ask the family database for now (nil: nothing): game time first, then
    /// screen time.
    public var leaseWanted: LeaseRequest? { gameLeaseWanted ?? screenLeaseWanted }

    /// Game time to ask for: while a game runs, less than half a minute is held, the child may play
    /// more than that, and the family has not said its limit is reached.
    var gameLeaseWanted: LeaseRequest? {
        guard leased, lease.spent == nil, lease.held < Self.leaseLow, !rewardPids.isEmpty || focusedRewardPid != nil || siteRewardInUse else { return nil }
        let may = familyAvailable().seconds - budget.bonusRemaining     // bonus time is not leased
        guard may > lease.held else { return nil }
        return LeaseRequest(day: day.key, weekStart: day.weekKey, want: min(Self.leaseSize, may - lease.held + lease.owed + lease.overdrawn),
                            dailyLimit: rules.dailyLimit, weeklyLimit: policy.rewards.weeklyLimit)
    }

    mutating func leaseGranted(_ g: LeaseGrant) {
        guard leased, g.day == day.key else { return }       // an answer for another day: of no use now
        guard g.screen else { lease.take(g, day: day.key, week: day.weekKey); return }
        screenLease.take(g, day: day.key, week: day.weekKey)
        // Time again here (a grant within the grace after zero): what was due is not.
        if screen.zeroSaid, let left = screenLeftHere()?.left, left > 0 { screenTimeAgain(at: now) }
    }

    /// Game time used today and this week against the limits: here, and with a household, what the
    /// child's other computers leased.
    var usedTodayByFamily: Microseconds { budget.usedToday + (leased ? lease.othersToday : 0) }
    var usedThisWeekByFamily: Microseconds { budget.usedThisWeek + (leased ? lease.othersThisWeek : 0) }

    /// Game time played here: from what is held, the rest on credit.
    mutating func leaseUsed(_ amount: Microseconds) {
        guard leased, amount > 0 else { return }
        lease.use(amount)
    }

    /// The game time held, and the credit left while the family has not said no, bound what may
    /// be played now (`availableNow`); its reason when it does.
    func leaseBound(_ best: (Microseconds, Reason)) -> (Microseconds, Reason) {
        guard leased else { return best }
        let may = lease.mayUse(credit: Self.leaseCredit)
        guard may < best.0 else { return best }
        return (may, lease.spent ?? .noLease)
    }
}

/// Screen time from the family's budget, leased like game time (docs/household.md): with
/// `[household]` and a daily or weekly screen limit, the limits are the family's over all of the
/// child's computers; each counts only screen time it holds, and a few seconds on credit while it
/// asks. A parent's screen bonus raises the limits this computer asks under, for today.
extension Engine {
    /// Screen time is leased: a household, and a daily or weekly screen limit that holds today.
    var screenLeased: Bool {
        leased && !screen.freeDay && (rules.screenDailyLimit != nil || policy.screen.weeklyLimit != nil)
    }

    /// Screen time to ask for: while it counts, less than half a minute is held, the limits leave
    /// more than that, and the family has not said its limit is reached.
    var screenLeaseWanted: LeaseRequest? {
        guard screenLeased, screenLease.spent == nil, screenLease.held < Self.leaseLow, screenCounting,
              let may = screenLeftByLimits()?.left, may > screenLease.held else { return nil }
        return LeaseRequest(day: day.key, weekStart: day.weekKey,
                            want: min(Self.leaseSize, may - screenLease.held + screenLease.owed + screenLease.overdrawn),
                            dailyLimit: rules.screenDailyLimit.map { $0 + screen.bonus },
                            weeklyLimit: policy.screen.weeklyLimit.map { $0 + screen.bonus }, screen: true)
    }

    /// Screen time counted since the last call is taken from the lease (time given back by an
    /// idleness learned afterwards pays what is owed first, then is held again: it was leased here).
    mutating func accountScreenLease() {
        guard screenLeased else { return }
        screenLease.start(day: day.key, week: day.weekKey)
        let used = screen.usedToday - screenLease.counted
        screenLease.counted = screen.usedToday
        if used > 0 { screenLease.use(used) } else if used < 0 { screenLease.giveBack(-used) }
    }

    /// The screen time this computer holds, and its credit, bound what is left here.
    func screenLeaseBound(_ best: (left: Microseconds, limit: Reason)?) -> (left: Microseconds, limit: Reason)? {
        guard let best, screenLeased else { return best }
        let may = screenLease.mayUse(credit: Self.leaseCredit)
        guard may < best.left else { return best }
        let limit: Reason = switch screenLease.spent {
        case .weeklyLimit?: .screenWeeklyLimit
        case .dailyLimit?: .screenDailyLimit
        default: rules.screenDailyLimit != nil ? .screenDailyLimit : .screenWeeklyLimit
        }
        return (may, limit)
    }

    /// Screen time the child's other computers leased today and this week.
    var screenOthersToday: Microseconds { screenLeased ? screenLease.othersToday : 0 }
    var screenOthersThisWeek: Microseconds { screenLeased ? screenLease.othersThisWeek : 0 }
}
