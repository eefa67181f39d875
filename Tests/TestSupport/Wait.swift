import Foundation

/// Waiting for what a test needs, instead of sleeping for a guessed time (#37).
///
/// A test that sleeps 2 s and then looks either waits longer than it needs or, on a loaded
/// machine, looks too early. These wait for the thing itself (a line in a log, a file, a process
/// state, a saved event) and give up only after a generous bound; a bound is a limit, not a
/// delay, so it costs nothing when things go well. This file is the one place that sleeps
/// between looks.
public enum Wait {
    /// What was awaited did not happen within its bound.
    public struct TimedOut: Error, CustomStringConvertible {
        public var what: String
        public var seconds: Double
        public var description: String { "waited \(Wait.seconds(seconds)) for \(what), in vain" }
    }

    /// Waits until `condition` holds, looking every `step` seconds; throws `TimedOut` (saying what
    /// was awaited, and for how long) when it has not held within `seconds`. An error the
    /// condition throws ends the wait at once.
    public static func until(_ what: String, within seconds: Double = 15, every step: Double = 0.02,
                             _ condition: () throws -> Bool) throws {
        guard try whether(within: seconds, every: step, condition) else { throw TimedOut(what: what, seconds: seconds) }
    }

    /// Waits until `value` gives something, and returns it; throws `TimedOut` as `until` does.
    public static func `for`<T>(_ what: String, within seconds: Double = 15, every step: Double = 0.02,
                                _ value: () throws -> T?) throws -> T {
        var found: T? = nil
        try until(what, within: seconds, every: step) {
            found = try value()
            return found != nil
        }
        return found!
    }

    /// Waits until `condition` holds, `seconds` at most; says whether it did. For a wait whose end
    /// the test goes on from either way (a process given a moment to end before it is killed).
    @discardableResult
    public static func whether(within seconds: Double, every step: Double = 0.02, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while true {
            if try condition() { return true }
            if Date() >= deadline { return false }
            usleep(useconds_t(step * 1_000_000))
        }
    }

    static func seconds(_ s: Double) -> String { s == s.rounded() ? "\(Int(s)) s" : "\(s) s" }
}
