import ScreenTimeCore

/// Decides when a hook reports `input`, from the desktop's "time since the last input" read at
/// each poll. A report goes out when input starts after a quiet second, and while input goes on
/// without pause, every 1.5 to 4.5 seconds (drawn at random each time): well inside any sensible
/// `idle_after`, so steady use is never mistaken for idleness, and irregular enough (a spread of
/// about 29 % of the mean) not to look periodic.
///
/// Why not at every poll: a person typing steadily would then be reported at the poll's exact
/// rhythm, which is what a mouse jiggler looks like (`periodic_input`). Input that starts after a
/// pause is reported when it starts, so a jiggler's lone nudges keep their exact period and are
/// still caught, while a person's bursts and the random keep-alives are irregular.
///
/// (Keep-alives every 15 to 45 s, as first written, let a child typing steadily for longer than a
/// short `idle_after` be judged idle.)
public struct InputThrottle: Sendable {
    public let quietGap: Microseconds
    public let keepAlive: ClosedRange<Microseconds>
    /// The desktop's idle counter and our clock disagree by a few milliseconds from poll to poll.
    static let tolerance: Microseconds = 50_000
    private var lastInput: Microseconds? = nil
    private var lastReport: Microseconds? = nil
    private var nextKeepAlive: Microseconds = 0

    public init(quietGap: Microseconds = Seconds.micro, keepAlive: ClosedRange<Microseconds> = 1_500_000...4_500_000) {
        self.quietGap = quietGap
        self.keepAlive = keepAlive
    }

    /// `idle`: time since the last input as the desktop says it, read at `now` (monotonic).
    /// True: report one input now.
    public mutating func observe<R: RandomNumberGenerator>(idle: Microseconds, now: Microseconds, random: inout R) -> Bool {
        let inputAt = now - max(0, idle)
        guard let previous = lastInput else {
            lastInput = inputAt
            return idle < quietGap ? report(now, &random) : false
        }
        guard inputAt > previous + Self.tolerance else { return false }
        lastInput = inputAt
        if inputAt - previous >= quietGap { return report(now, &random) }
        if let last = lastReport, now - last < nextKeepAlive { return false }
        return report(now, &random)
    }

    private mutating func report<R: RandomNumberGenerator>(_ now: Microseconds, _ random: inout R) -> Bool {
        lastReport = now
        nextKeepAlive = Microseconds.random(in: keepAlive, using: &random)
        return true
    }
}
