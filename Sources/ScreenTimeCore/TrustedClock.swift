/// Turns each event's two clocks into engine time and a calendar time that can be trusted
/// (docs/events.md, "Reading" and `daemon_started`, says the same in prose).
///
/// - **Engine time** is what durations are measured by: the boot clock within a boot (or the wall
///   clock in a log without `mono`), and never backwards. A wall step creates and destroys no time.
/// - **A new boot** (the kernel's boot id changed; in a log without boot ids, the boot clock
///   started again) is a restart: engine time goes on from where it stopped and then passes, with
///   nothing running, up to the new boot's wall clock, when that is later than the calendar. The
///   night a computer was switched off is thus a night that passed, and its midnight a day's end.
/// - **The calendar** (which local day it is, allowed hours, the times written in the ledger) only
///   goes forward. It follows the wall clock forward (an NTP step forward, a new boot's clock); when
///   the wall clock steps back it holds where it was until the wall clock has caught up, so no day
///   comes twice and a day skipped into is the day spent.
///
/// The calendar is kept as a short history of segments, one per step, so that a past engine time
/// (a session's start, a span split by day) is placed on the calendar it had then.
///
/// One fault is kept from the old clock: a boot clock that ran more than `longestStepBack` ahead
/// of the wall clock between two events cannot be a wall step back (libfaketime once read the boot
/// clock 57 years ahead); that step counts nothing, and the wall clock's offset it came with is
/// taken as it is rather than as a step.
public struct TrustedClock: Sendable, Codable {
    /// Wall and monotonic readings of one moment may differ by this much before it is a step.
    public static let tolerance: Microseconds = 2 * Seconds.micro
    /// The largest wall step back believed between two events (a dual-boot clock in the farthest
    /// time zone is 14 h off; NTP's steps are seconds to hours): beyond it, the boot clock is the liar.
    public static let longestStepBack: Microseconds = 2 * 86_400 * Seconds.micro
    /// How many segments are kept: the open sessions' spans reach back a day at most.
    static let segmentsKept = 64

    public enum Observation: Equatable, Sendable, Codable {
        case steady
        /// The wall clock stepped by this much against the boot clock: forward (the calendar
        /// followed) or back (the calendar holds).
        case jumped(by: Microseconds)
        /// A new boot. `offFor`: the engine time that passed, with nothing running, while the
        /// computer was off (how far the new boot's wall clock was ahead of the calendar).
        case rebooted(offFor: Microseconds)
        /// The boot clock advanced this much more than the wall clock since the last event, or went
        /// back within one boot: it cannot be true. No time passed.
        case bootClockAhead(by: Microseconds)
    }

    /// A stretch of the calendar: from engine time `from` on, the calendar reads
    /// `max(floor, wall + (t - time))`.
    struct Segment: Sendable, Codable, Equatable {
        var from: Microseconds
        var time: Microseconds
        var wall: Microseconds
        var floor: Microseconds

        func calendar(at t: Microseconds) -> Microseconds { max(floor, wall + (t - time)) }
    }

    /// Engine time of the latest event.
    public private(set) var now: Microseconds = 0
    private var started = false
    private var shift: Microseconds = 0          // engine time = raw monotonic + shift
    private var lastMono: Microseconds?
    private var lastWall: Microseconds = 0
    /// The kernel's boot id of the latest event that named one.
    public private(set) var boot: String?
    /// The wall clock's offset from the calendar's line that was taken as it is (after a fault).
    private var drift: Microseconds = 0
    private var segments: [Segment] = []

    public init() {}

    /// The engine time of a boot-clock reading in the latest event's boot (nil: no boot clock yet).
    public func time(atMono mono: Microseconds) -> Microseconds? {
        guard started, lastMono != nil else { return nil }
        return mono + shift
    }

    /// The trusted calendar (wall-clock µs since the epoch) at an engine time.
    public func wall(at time: Microseconds) -> Microseconds {
        guard let s = segment(at: time) else { return time }
        return s.calendar(at: time)
    }

    /// The first engine time at which the calendar reads `wall` or later. A wall time the calendar
    /// skipped over (a step forward, a new boot) is reached at the step; one it held at, when it held.
    public func time(atWall wall: Microseconds) -> Microseconds {
        guard !segments.isEmpty else { return wall }
        var k = segments.count - 1
        while k > 0, wall <= segments[k].calendar(at: segments[k].from) { k -= 1 }
        let s = segments[k]
        var t = s.time + (wall - s.wall)
        if k + 1 < segments.count { t = min(t, segments[k + 1].from) }
        return t
    }

    private func segment(at time: Microseconds) -> Segment? {
        guard var k = segments.indices.last else { return nil }
        while k > 0, segments[k].from > time { k -= 1 }
        return segments[k]
    }

    /// A new segment from `now`: the calendar's line through `wall`, never below `floor`.
    private mutating func startSegment(wall: Microseconds, floor: Microseconds) {
        let s = Segment(from: now, time: now, wall: wall, floor: floor)
        if let last = segments.last, last.from == now { segments[segments.count - 1] = s } else { segments.append(s) }
        if segments.count > Self.segmentsKept { segments.removeFirst(segments.count - Self.segmentsKept) }
    }

    /// Takes one event's readings. `boot`: the kernel's boot id, when the event names one.
    public mutating func observe(wall: Microseconds, mono: Microseconds?, boot: String? = nil) -> Observation {
        defer {
            lastWall = wall
            lastMono = mono
            if let boot { self.boot = boot }
        }
        guard started else {
            started = true
            now = mono ?? wall
            if let m = mono { shift = now - m }
            segments = [Segment(from: now, time: now, wall: wall, floor: wall)]
            return .steady
        }
        guard let m = mono else {
            // No monotonic clock: the wall clock is all there is. It may not run backwards.
            let step = wall - lastWall
            now += max(0, step)
            return step < -Self.tolerance ? .jumped(by: step) : .steady
        }
        let calendarNow = self.wall(at: now)
        let newBoot: Bool
        if let b = boot, let old = self.boot {
            newBoot = b != old
        } else if let lm = lastMono {
            newBoot = m < lm - Self.tolerance
        } else {
            // The events before had no boot clock (a log imported from elsewhere): this is another
            // run's, and the time between them passed with nothing seen, as after a boot.
            newBoot = true
        }
        if newBoot {
            // The computer was off: time passed, with nothing running, up to the new wall clock
            // (none when that is behind the calendar, which then holds).
            let off = max(0, wall - calendarNow)
            now += off
            shift = now - m
            drift = 0
            startSegment(wall: wall, floor: max(segments.last!.floor, calendarNow))
            return .rebooted(offFor: off)
        }
        if let lm = lastMono {
            if m < lm - Self.tolerance {
                // The same boot, and its clock went back: a faked clock before or now. Nothing passes.
                shift = now - m
                drift = wall - line(at: now)
                return .bootClockAhead(by: m - lm)
            }
            let ahead = (m - lm) - (wall - lastWall)
            if ahead > Self.longestStepBack {
                shift = now - m
                drift = wall - line(at: now)
                return .bootClockAhead(by: ahead)
            }
        } else {
            shift = now - m
        }
        now = max(now, m + shift)
        let step = wall - line(at: now) - drift
        guard abs(step) > Self.tolerance else { return .steady }
        let before = self.wall(at: now)
        // Forward: the calendar follows. Back: it holds where it stood until the wall catches up.
        startSegment(wall: wall - drift, floor: step > 0 ? segments.last!.floor : max(segments.last!.floor, before))
        return .jumped(by: step)
    }

    /// The wall clock the calendar's line predicts at engine time `t` (before its floor).
    private func line(at t: Microseconds) -> Microseconds {
        guard let s = segments.last else { return t }
        return s.wall + (t - s.time)
    }

    /// The trusted calendar time an event with these readings would be given, without taking it
    /// (retention asks whether an event is old by this, never by the wall time it carries).
    public func calendarTime(wall: Microseconds, mono: Microseconds?, boot: String? = nil) -> Microseconds {
        var probe = self
        _ = probe.observe(wall: wall, mono: mono, boot: boot)
        return probe.wall(at: probe.now)
    }
}
