/// A usage session still going on: one app, from when it appeared until it is gone, or until it
/// went unused for longer than the idle threshold. Times are engine times.
struct OpenSession: Sendable, Codable {
    let key: AppMatch
    let pid: Int32
    let start: Microseconds
    /// Time the app was in use: focused (learning), counting (reward).
    var used = IntervalSet()
    /// Focus stints shorter than the minimum dwell.
    var flicker = IntervalSet()
    /// In use since, while it is.
    var inUseSince: Microseconds?
    var lastUseEnd: Microseconds?
    /// How much wall-clock time jumps claimed during the session.
    var clockJumped: Microseconds = 0

    init(key: AppMatch, pid: Int32, start: Microseconds) {
        self.key = key
        self.pid = pid
        self.start = start
    }

    var everUsed: Bool { inUseSince != nil || lastUseEnd != nil }

    mutating func beginUse(at t: Microseconds) {
        if inUseSince == nil { inUseSince = t }
    }

    /// Ends a stint of use; with `minDwell`, a shorter stint is flicker, not use.
    mutating func endUse(at t: Microseconds, minDwell: Microseconds?) {
        guard let s = inUseSince else { return }
        inUseSince = nil
        lastUseEnd = t
        if let d = minDwell, t - s < d { flicker.insert(s, t) } else { used.insert(s, t) }
    }

    /// Use learned after the fact (CPU activity between two samples).
    mutating func addUse(_ from: Microseconds, _ to: Microseconds) {
        used.insert(max(from, start), to)
        lastUseEnd = max(lastUseEnd ?? to, to)
    }
}
