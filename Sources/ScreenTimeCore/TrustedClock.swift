/// Turns each event's two clocks into engine time and a calendar time that can be trusted.
///
/// Engine time advances only with the monotonic clock (or the wall clock in a log without `mono`),
/// and never backwards. The calendar time is the wall clock as it was first seen, carried forward
/// by engine time: a wall-clock jump the monotonic clock does not confirm moves neither. And the
/// other way round: a boot clock that runs ahead of the wall clock between two events (by more than
/// `tolerance`) cannot be true — the boot clock counts suspend, so both advance alike — and moves
/// neither either: that step is a fault (`bootClockAhead`), engine time stays where it was, and the
/// next steps count from the new reading. A faked boot clock (libfaketime read 57 years ahead)
/// therefore ages nothing, expires nothing and leaves the calendar where it was.
public struct TrustedClock: Sendable, Codable {
    /// Wall and monotonic readings of one moment may differ by this much before it is a jump.
    public static let tolerance: Microseconds = 2 * Seconds.micro

    public enum Observation: Equatable, Sendable, Codable {
        case steady
        /// The wall clock moved by this much more (or less) than the monotonic clock.
        case jumped(by: Microseconds)
        /// The monotonic clock started again: the machine rebooted.
        case rebooted
        /// The boot clock advanced this much more than the wall clock since the last event: it
        /// cannot be true. No time passed.
        case bootClockAhead(by: Microseconds)
    }

    /// Engine time of the latest event.
    public private(set) var now: Microseconds = 0
    private var started = false
    private var shift: Microseconds = 0          // engine time = raw monotonic + shift
    private var anchorTime: Microseconds = 0     // engine time at the anchor
    private var anchorWall: Microseconds = 0     // trusted wall time at the anchor
    private var lastMono: Microseconds?
    private var lastWall: Microseconds = 0
    /// How far the wall clock stands from the trusted calendar since the last jump.
    private var drift: Microseconds = 0

    private var pendingReboot: Microseconds?

    public init() {}

    /// After a reboot: the calendar may move forward to the new wall clock, never back.
    public mutating func completeReboot() {
        guard let wall = pendingReboot else { return }
        pendingReboot = nil
        anchorWall = max(wall, self.wall(at: now))
        anchorTime = now
        drift = wall - anchorWall
    }

    /// Trusted wall time (µs since the epoch) at an engine time.
    public func wall(at time: Microseconds) -> Microseconds { anchorWall + (time - anchorTime) }
    /// Engine time at a trusted wall time.
    public func time(atWall wall: Microseconds) -> Microseconds { anchorTime + (wall - anchorWall) }

    public mutating func observe(wall: Microseconds, mono: Microseconds?) -> Observation {
        defer { lastWall = wall; lastMono = mono }
        guard started else {
            started = true
            now = mono ?? wall
            anchorTime = now
            anchorWall = wall
            return .steady
        }
        if let m = mono {
            if let lm = lastMono, m < lm - Self.tolerance {
                // A new boot: the monotonic clock restarted. Engine time goes on from where it was;
                // the caller ends the old boot, then `completeReboot()` moves the calendar.
                shift = now - m
                pendingReboot = wall
                return .rebooted
            }
            if let lm = lastMono {
                let ahead = (m - lm) - max(0, wall - lastWall)
                if ahead > Self.tolerance {
                    // Impossible: engine time and the calendar stay; later steps count from here.
                    shift = now - m
                    drift = wall - self.wall(at: now)
                    return .bootClockAhead(by: ahead)
                }
            }
            if lastMono == nil { shift = now - m }
            now = max(now, m + shift)
            let newDrift = wall - self.wall(at: now)
            guard abs(newDrift - drift) > Self.tolerance else { return .steady }
            defer { drift = newDrift }
            return .jumped(by: newDrift - drift)
        }
        // No monotonic clock: the wall clock is all there is. It may not run backwards.
        let step = wall - lastWall
        now += max(0, step)
        return step < -Self.tolerance ? .jumped(by: step) : .steady
    }

    /// The trusted calendar time an event with these readings would be given, without taking it
    /// (retention asks whether an event is old by this, never by the wall time it carries).
    public func calendarTime(wall: Microseconds, mono: Microseconds?) -> Microseconds {
        var probe = self
        if case .rebooted = probe.observe(wall: wall, mono: mono) { probe.completeReboot() }
        return probe.wall(at: probe.now)
    }
}
