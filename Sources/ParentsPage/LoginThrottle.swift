import ScreenTimeCore

/// Wrong passphrases at the login, by browser (issue #36). The page logs in for every browser as
/// one user, so the daemon counts its tries per browser too; here each browser waits longer after
/// each wrong try (1 s, 2 s, 4 s, … 5 minutes at most) before it may try again. A browser is its
/// address, or, once a parent logged in with it, its own cookie: a child guessing at one computer
/// slows only themselves, not a parent who logged in from there before, nor one at another.
public struct LoginThrottle: Sendable {
    public static let longestWait: Microseconds = 5 * 60 * Seconds.micro
    /// Browsers remembered at most (the oldest are forgotten first).
    static let remembered = 10_000

    struct Tries: Sendable { var failures: Int; var last: Microseconds }
    private var tries: [String: Tries] = [:]

    public init() {}

    /// How long `client` must still wait before its next try (0: it may try now).
    public func wait(_ client: String, now: Microseconds) -> Microseconds {
        guard let t = tries[client], t.failures > 0 else { return 0 }
        return max(0, t.last + Self.delay(after: t.failures) - now)
    }

    /// The wait after `failures` wrong tries in a row.
    static func delay(after failures: Int) -> Microseconds {
        min(Self.longestWait, Seconds.micro << min(Int64(failures - 1), 20))
    }

    /// A try of `client`'s was wrong at `now`.
    public mutating func failed(_ client: String, now: Microseconds) {
        if tries[client] == nil, tries.count >= Self.remembered,
           let oldest = tries.min(by: { $0.value.last < $1.value.last })?.key {
            tries[oldest] = nil
        }
        tries[client, default: Tries(failures: 0, last: now)].failures += 1
        tries[client]?.last = now
    }

    /// `client` logged in: its count starts again.
    public mutating func succeeded(_ client: String) { tries[client] = nil }
}
