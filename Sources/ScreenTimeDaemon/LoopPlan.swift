import ScreenTimeCore

/// What one part of the daemon's run loop (the sampler, a child, the control server, the seat's
/// input, the watchdog…) waits for: descriptors to become readable or writable, and a moment at
/// which it needs a turn anyway.
public struct LoopWait: Sendable, Equatable {
    public var reads: [Int32]
    public var writes: [Int32]
    /// Monotonic microseconds; nil: only when one of its descriptors is ready.
    public var due: Microseconds?

    public init(reads: [Int32] = [], writes: [Int32] = [], due: Microseconds? = nil) {
        self.reads = reads
        self.writes = writes
        self.due = due
    }
}

/// The run loop's one wait for all its parts: every part's descriptors, until the earliest
/// moment any part is due (at once when one is due already), never longer than `longest`, so
/// that a moment a part failed to declare is late by that at most. Each part says what it waits
/// for in one `LoopWait`; the loop asks `poll` for this and nothing else.
public struct LoopPlan: Sendable, Equatable {
    public var reads: [Int32]
    public var writes: [Int32]
    /// For poll(2): 0 when a part is due now; rounded up to whole milliseconds, so that the wait
    /// never ends before the moment it waits for.
    public var timeoutMillis: Int32

    public init(_ waits: [LoopWait], now: Microseconds, longest: Microseconds) {
        reads = waits.flatMap(\.reads)
        writes = waits.flatMap(\.writes)
        let soonest = waits.compactMap(\.due).min().map { max(0, $0 - now) } ?? longest
        timeoutMillis = soonest == 0 ? 0 : Int32(min(soonest / 1000 + 1, longest / 1000))
    }
}
