import ScreenTimeCore

/// Parents who gave the passphrase once (`login`) and act by a token since (the parents' page,
/// docs/web.md): which children each token may act for, from which uid, until when. Kept in
/// memory only: a restart of the daemon logs every parent out, and no token is ever written down.
public struct ParentSessions: Sendable {
    public struct Session: Sendable {
        /// The uid that logged in: the token is worth nothing from any other.
        public let caller: UInt32
        /// The children whose policy's passphrase it was.
        public let children: Set<UInt32>
        /// Monotonic microseconds: a changed wall clock neither lengthens nor ends a session.
        public let until: Microseconds
        /// Which parent logged in (one of the policies' `[parents] users`); nil when no policy names any.
        public let parent: String?
    }

    /// At most this many open at once; the oldest goes first (a page that logs in in a loop
    /// cannot make the daemon keep more).
    public static let most = 64
    /// How long a session may be asked for, in minutes (default 30).
    public static let minutes: ClosedRange<Int64> = 1...720
    public static let defaultMinutes: Int64 = 30

    private var sessions: [String: Session] = [:]

    public init() {}

    /// Opens a session under `token` (the daemon's: `RandomToken.hex()`, 256 random bits).
    public mutating func open(token: String, caller: UInt32, children: Set<UInt32>, minutes: Int64, now: Microseconds, parent: String?) {
        forgetEnded(now: now)
        if sessions.count >= Self.most, let oldest = sessions.min(by: { $0.value.until < $1.value.until })?.key { sessions[oldest] = nil }
        sessions[token] = Session(caller: caller, children: children, until: now + minutes * 60 * Seconds.micro, parent: parent)
    }

    /// The session of `token`, if it is open and `caller` opened it.
    public func session(_ token: String, caller: UInt32, now: Microseconds) -> Session? {
        guard let s = sessions[token], s.caller == caller, now < s.until else { return nil }
        return s
    }

    /// Ends a session; false when there was none open (for this caller).
    public mutating func close(_ token: String, caller: UInt32) -> Bool {
        guard sessions[token]?.caller == caller else { return false }
        sessions[token] = nil
        return true
    }

    private mutating func forgetEnded(now: Microseconds) {
        sessions = sessions.filter { now < $0.value.until }
    }
}
