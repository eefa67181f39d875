/// Reward minutes: the day's allowance, and grants (redemptions and gifts); used while a reward
/// app counts, the allowance first; grants expiring when the policy says; all of it bounded by the
/// daily and weekly limits.
///
/// Bonus time (a parent's minutes for today) is a grant of its own kind: used before anything
/// else, not counted against the limits (`usedToday`, `usedThisWeek` leave it out), and gone when
/// the day ends.
struct RewardBudget: Sendable, Codable {
    struct Grant: Sendable, Codable {
        var remaining: Microseconds
        /// Engine time it expires at; nil: never.
        var expiresAt: Microseconds?
        /// Bonus time for today: it ends with the day, whatever `expiresAt` says.
        var bonus: Bool = false
        /// The points one minute of it cost (0: given), for a refund when it is taken back.
        var pointsPerMinute: Int64 = 0
    }

    private(set) var grants: [Grant] = []
    private(set) var usedToday: Microseconds = 0
    private(set) var usedThisWeek: Microseconds = 0
    private(set) var totalGranted: Microseconds = 0
    private(set) var totalUsed: Microseconds = 0
    private(set) var totalExpired: Microseconds = 0
    /// Taken back by a parent (`revoke`).
    private(set) var totalRevoked: Microseconds = 0
    /// Bonus time used today (not counted against the limits, but played).
    private(set) var bonusUsedToday: Microseconds = 0
    /// Today's allowance: what is left of it, how much it was, how much of it was used.
    private(set) var allowanceLeft: Microseconds = 0
    private(set) var allowanceToday: Microseconds = 0
    private(set) var allowanceUsedToday: Microseconds = 0
    /// The day the allowance is for (nil: none granted yet).
    private(set) var allowanceDay: Int64?
    /// All allowance granted, and used, over the timeline.
    private(set) var totalAllowance: Microseconds = 0
    private(set) var totalAllowanceUsed: Microseconds = 0

    var grantRemaining: Microseconds { grants.reduce(0) { $0 + $1.remaining } }
    /// Bonus time left today.
    var bonusRemaining: Microseconds { grants.reduce(0) { $0 + ($1.bonus ? $1.remaining : 0) } }
    /// Reward time that may be used, before the limits: the allowance left and the grants (bonus
    /// time included).
    var available: Microseconds { allowanceLeft + grantRemaining }
    /// What the day's and week's limits bound: all but the bonus time.
    var availableWithinLimits: Microseconds { available - bonusRemaining }
    var nextExpiry: Microseconds? {
        var best: Microseconds? = nil
        for g in grants { if let e = g.expiresAt, e < best ?? .max { best = e } }
        return best
    }

    mutating func grant(_ amount: Microseconds, expiresAt: Microseconds?, pointsPerMinute: Int64 = 0) {
        grants.append(Grant(remaining: amount, expiresAt: expiresAt, pointsPerMinute: pointsPerMinute))
        totalGranted += amount
    }

    /// Bonus time for today (`startDay` ends it).
    mutating func grantBonus(_ amount: Microseconds) {
        grants.insert(Grant(remaining: amount, expiresAt: nil, bonus: true), at: 0)
        totalGranted += amount
    }

    /// Takes back up to `amount` of unused minutes a parent redeemed or gave: those that would be
    /// used last first, bonus time last of all. Returns the time taken and the points it cost.
    mutating func revoke(_ amount: Microseconds) -> (taken: Microseconds, cost: Int64) {
        var left = amount, cost: Int64 = 0
        let order = grants.indices.sorted { a, b in
            grants[a].bonus != grants[b].bonus ? !grants[a].bonus : a > b
        }
        for k in order where left > 0 {
            let take = min(left, grants[k].remaining)
            grants[k].remaining -= take
            left -= take
            cost += take * grants[k].pointsPerMinute / (60 * Seconds.micro)
        }
        grants.removeAll { $0.remaining == 0 }
        totalRevoked += amount - left
        return (amount - left, cost)
    }

    /// The day's allowance. A new day's replaces what was left of the last; on the same day (a
    /// policy reloaded) it becomes the new amount less what was used of it today.
    mutating func setAllowance(_ amount: Microseconds, day: Int64) {
        if allowanceDay != day {
            allowanceDay = day
            allowanceUsedToday = 0
            allowanceToday = 0
        }
        totalAllowance += amount - allowanceToday
        allowanceToday = amount
        allowanceLeft = max(0, amount - allowanceUsedToday)
    }

    /// Uses reward time: bonus time first, then the allowance, then the grant that expires first.
    /// The caller bounds `amount` by what is available. Returns how much of it was bonus time.
    @discardableResult
    mutating func use(_ amount: Microseconds) -> Microseconds {
        var left = amount
        var bonus: Microseconds = 0
        for k in grants.indices where grants[k].bonus && left > 0 {
            let take = min(left, grants[k].remaining)
            grants[k].remaining -= take
            left -= take
            bonus += take
        }
        bonusUsedToday += bonus
        totalUsed += bonus
        let fromAllowance = min(left, allowanceLeft)
        allowanceLeft -= fromAllowance
        allowanceUsedToday += fromAllowance
        totalAllowanceUsed += fromAllowance
        left -= fromAllowance
        var k = 0
        while left > 0, k < grants.count {
            let take = min(left, grants[k].remaining)
            grants[k].remaining -= take
            left -= take
            k += 1
        }
        let used = amount - bonus - left
        grants.removeAll { $0.remaining == 0 }
        usedToday += used
        usedThisWeek += used
        totalUsed += used
        return bonus
    }

    /// Reward time played although none was available (a paused game someone let go on): counted
    /// as played today and this week in full, taken from the allowance and grants as far as they reach.
    /// Returns how much of it was bonus time.
    @discardableResult
    mutating func played(_ amount: Microseconds) -> Microseconds {
        guard amount > 0 else { return 0 }
        let covered = min(amount, available)
        let bonus = use(covered)
        usedToday += amount - covered
        usedThisWeek += amount - covered
        return bonus
    }

    /// Removes grants expired by `time`; returns how much time was lost.
    mutating func expire(by time: Microseconds) -> Microseconds {
        var lost: Microseconds = 0
        grants.removeAll { g in
            guard !g.bonus, let e = g.expiresAt, e <= time else { return false }
            lost += g.remaining
            return true
        }
        totalExpired += lost
        return lost
    }

    /// A new day: today's use starts again, and what was left of the allowance and of the bonus
    /// time is gone. Returns the bonus time that was not used.
    @discardableResult
    mutating func startDay(newWeek: Bool) -> Microseconds {
        usedToday = 0
        bonusUsedToday = 0
        allowanceLeft = 0
        if newWeek { usedThisWeek = 0 }
        let bonusLost = bonusRemaining
        grants.removeAll { $0.bonus }
        totalExpired += bonusLost
        return bonusLost
    }
}

extension RewardBudget {
    /// A budget saved before the allowance existed has none (its layout only grew).
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        grants = try c.decode([Grant].self, forKey: .grants)
        usedToday = try c.decode(Microseconds.self, forKey: .usedToday)
        usedThisWeek = try c.decode(Microseconds.self, forKey: .usedThisWeek)
        totalGranted = try c.decode(Microseconds.self, forKey: .totalGranted)
        totalUsed = try c.decode(Microseconds.self, forKey: .totalUsed)
        totalExpired = try c.decode(Microseconds.self, forKey: .totalExpired)
        totalRevoked = try c.decodeIfPresent(Microseconds.self, forKey: .totalRevoked) ?? 0
        bonusUsedToday = try c.decodeIfPresent(Microseconds.self, forKey: .bonusUsedToday) ?? 0
        allowanceLeft = try c.decodeIfPresent(Microseconds.self, forKey: .allowanceLeft) ?? 0
        allowanceToday = try c.decodeIfPresent(Microseconds.self, forKey: .allowanceToday) ?? 0
        allowanceUsedToday = try c.decodeIfPresent(Microseconds.self, forKey: .allowanceUsedToday) ?? 0
        allowanceDay = try c.decodeIfPresent(Int64.self, forKey: .allowanceDay)
        totalAllowance = try c.decodeIfPresent(Microseconds.self, forKey: .totalAllowance) ?? 0
        totalAllowanceUsed = try c.decodeIfPresent(Microseconds.self, forKey: .totalAllowanceUsed) ?? 0
    }
}

/// Finds machine-made input: 20 or more intervals between inputs whose coefficient of variation is
/// below the strictness threshold. A gap longer than the idle threshold starts over.
struct PeriodicInputDetector: Sendable, Codable {
    static let intervalsNeeded = 20
    let threshold: Double
    let maxGap: Microseconds
    private var times: [Microseconds] = []

    init(threshold: Double, maxGap: Microseconds) {
        self.threshold = threshold
        self.maxGap = maxGap
        times.reserveCapacity(Self.intervalsNeeded + 1)
    }

    /// Records an input; returns the span of the regular run when the input looks machine-made.
    mutating func input(at t: Microseconds) -> (start: Microseconds, end: Microseconds)? {
        if let last = times.last, t - last > maxGap { times.removeAll(keepingCapacity: true) }
        if times.count == Self.intervalsNeeded + 1 { times.removeFirst() }
        times.append(t)
        guard times.count == Self.intervalsNeeded + 1 else { return nil }
        var sum = 0.0, sumSq = 0.0
        for k in 1..<times.count {
            let d = Double(times[k] - times[k - 1])
            sum += d
            sumSq += d * d
        }
        let n = Double(Self.intervalsNeeded)
        let mean = sum / n
        guard mean > 0 else { return nil }
        let variance = max(0, sumSq / n - mean * mean)
        return variance.squareRoot() / mean < threshold ? (times[0], t) : nil
    }
}
