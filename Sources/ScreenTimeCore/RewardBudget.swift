/// Reward minutes: granted by redemptions, used while a reward app counts, expiring when the
/// policy says, and bounded by the daily and weekly limits.
struct RewardBudget: Sendable, Codable {
    struct Grant: Sendable, Codable {
        var remaining: Microseconds
        /// Engine time it expires at; nil: never.
        var expiresAt: Microseconds?
    }

    private(set) var grants: [Grant] = []
    private(set) var usedToday: Microseconds = 0
    private(set) var usedThisWeek: Microseconds = 0
    private(set) var totalGranted: Microseconds = 0
    private(set) var totalUsed: Microseconds = 0
    private(set) var totalExpired: Microseconds = 0

    var grantRemaining: Microseconds { grants.reduce(0) { $0 + $1.remaining } }
    var nextExpiry: Microseconds? { grants.compactMap(\.expiresAt).min() }

    mutating func grant(_ amount: Microseconds, expiresAt: Microseconds?) {
        grants.append(Grant(remaining: amount, expiresAt: expiresAt))
        totalGranted += amount
    }

    /// Uses reward time, the grant that expires first first. The caller bounds `amount` by what is available.
    mutating func use(_ amount: Microseconds) {
        var left = amount
        var k = 0
        while left > 0, k < grants.count {
            let take = min(left, grants[k].remaining)
            grants[k].remaining -= take
            left -= take
            k += 1
        }
        let used = amount - left
        grants.removeAll { $0.remaining == 0 }
        usedToday += used
        usedThisWeek += used
        totalUsed += used
    }

    /// Reward time played although none was available (a paused game someone let go on): counted
    /// as played today and this week in full, taken from grants as far as they reach.
    mutating func played(_ amount: Microseconds) {
        guard amount > 0 else { return }
        let fromGrants = min(amount, grantRemaining)
        use(fromGrants)
        usedToday += amount - fromGrants
        usedThisWeek += amount - fromGrants
    }

    /// Removes grants expired by `time`; returns how much time was lost.
    mutating func expire(by time: Microseconds) -> Microseconds {
        var lost: Microseconds = 0
        grants.removeAll { g in
            guard let e = g.expiresAt, e <= time else { return false }
            lost += g.remaining
            return true
        }
        totalExpired += lost
        return lost
    }

    mutating func startDay(newWeek: Bool) {
        usedToday = 0
        if newWeek { usedThisWeek = 0 }
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
