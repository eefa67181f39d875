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
        ownToday = 0
        othersToday = 0
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

    public init(day: Int64, granted: Microseconds, dayTotal: Microseconds, weekTotal: Microseconds, limit: Reason? = nil) {
        self.day = day; self.granted = granted; self.dayTotal = dayTotal; self.weekTotal = weekTotal; self.limit = limit
    }
}

/// What a machine asks the family database for: `want` of game time on `day`, under its policy's
/// limits for that day and week.
public struct LeaseRequest: Sendable, Equatable {
    public var day: Int64
    public var weekStart: Int64
    public var want: Microseconds
    public var dailyLimit: Microseconds?
    public var weeklyLimit: Microseconds?
}

extension Engine {

    /// A lease is asked for when less than this is held,
    static let leaseLow = Seconds.of(30)
    /// and this much at a time.
    static let leaseSize = Seconds.of(60)
    /// Played on credit while a lease is asked for (a game just started, a lease running out).
    static let leaseCredit = Seconds.of(10)

    /// What the shell should ask the family database for now (nil: nothing): while a game runs,
    /// less than half a minute is held, the child may play more than that, and the family has not
    /// said its limit is reached.
    public var leaseWanted: LeaseRequest? {
        guard leased, lease.spent == nil, lease.held < Self.leaseLow, !rewardPids.isEmpty || focusedRewardPid != nil else { return nil }
        let may = familyAvailable().seconds - budget.bonusRemaining     // bonus time is not leased
        guard may > lease.held else { return nil }
        return LeaseRequest(day: day.key, weekStart: day.weekKey, want: min(Self.leaseSize, may - lease.held + lease.owed),
                            dailyLimit: rules.dailyLimit, weeklyLimit: policy.rewards.weeklyLimit)
    }

    mutating func leaseGranted(_ g: LeaseGrant) {
        guard leased, g.day == day.key else { return }       // an answer for another day: of no use now
        lease.start(day: day.key, week: day.weekKey)
        let repaid = min(lease.owed, g.granted)
        lease.owed -= repaid
        lease.held += g.granted - repaid
        lease.ownToday += g.granted
        lease.ownThisWeek += g.granted
        lease.othersToday = max(0, g.dayTotal - lease.ownToday)
        lease.othersThisWeek = max(0, g.weekTotal - lease.ownThisWeek)
        lease.spent = g.limit
    }

    /// Game time used today and this week against the limits: here, and with a household, what the
    /// child's other computers leased.
    var usedTodayByFamily: Microseconds { budget.usedToday + (leased ? lease.othersToday : 0) }
    var usedThisWeekByFamily: Microseconds { budget.usedThisWeek + (leased ? lease.othersThisWeek : 0) }

    /// Game time played here: from what is held, the rest on credit.
    mutating func leaseUsed(_ amount: Microseconds) {
        guard leased, amount > 0 else { return }
        let held = min(amount, lease.held)
        lease.held -= held
        lease.owed += amount - held
    }

    /// The game time held, and the credit left while the family has not said no, bound what may
    /// be played now (`availableNow`); its reason when it does.
    func leaseBound(_ best: (Microseconds, Reason)) -> (Microseconds, Reason) {
        guard leased else { return best }
        let may = lease.held + (lease.spent == nil ? max(0, Self.leaseCredit - lease.owed) : 0)
        guard may < best.0 else { return best }
        return (may, lease.spent ?? .noLease)
    }
}
