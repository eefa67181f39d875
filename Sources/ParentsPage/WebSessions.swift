import ScreenTimeCore
import ScreenTimeLinux

/// The parents logged in to the page: a random id in an HttpOnly cookie names a session, which
/// holds the daemon's parent-session token (the passphrase itself is never kept) and the token
/// every form must carry (CSRF). Time is given by the caller (monotonic microseconds), so this
/// decides and does no I/O.
public struct WebSessions: Sendable {
    public struct Session: Sendable, Equatable {
        public let id: String
        /// The daemon's token (`login`), sent with each request in place of the passphrase.
        public let daemonToken: String
        /// The token each form carries; a request that changes something without it is refused.
        public let csrf: String
        /// The children the passphrase was for.
        public let children: [String]
        public let until: Microseconds
        /// A line to show once on the next page ("Approved: 20 min for emma", or a refusal).
        public var flash: Flash?
    }

    /// At most this many sessions at once (the oldest is ended first).
    public static let most = 32
    private var sessions: [String: Session] = [:]

    public init() {}

    public mutating func open(daemonToken: String, children: [String], lifetime: Microseconds, now: Microseconds) -> Session {
        sessions = sessions.filter { now < $0.value.until }
        if sessions.count >= Self.most, let oldest = sessions.min(by: { $0.value.until < $1.value.until })?.key { sessions[oldest] = nil }
        let session = Session(id: Self.randomToken(), daemonToken: daemonToken, csrf: Self.randomToken(), children: children,
                              until: now + lifetime, flash: nil)
        sessions[session.id] = session
        return session
    }

    /// The session a cookie names, while it lasts.
    public func session(_ id: String, now: Microseconds) -> Session? {
        guard let s = sessions[id], now < s.until else { return nil }
        return s
    }

    /// Ends a session (logout): its cookie is worth nothing from now on.
    public mutating func close(_ id: String) -> Session? { sessions.removeValue(forKey: id) }

    public mutating func setFlash(_ flash: Flash?, of id: String) { sessions[id]?.flash = flash }

    /// The flash line, shown once.
    public mutating func takeFlash(of id: String) -> Flash? {
        defer { sessions[id]?.flash = nil }
        return sessions[id]?.flash
    }

    /// 32 random bytes from the kernel, in hex (`RandomToken`).
    public static func randomToken() -> String { RandomToken.hex() }

    /// Equal, in a time that does not tell how much of the two is equal.
    public static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var diff: UInt8 = 0
        for i in x.indices { diff |= x[i] ^ y[i] }
        return diff == 0
    }
}

/// An `application/x-www-form-urlencoded` body or query: name=value pairs, `+` for spaces,
/// `%XX` escapes. A name given twice keeps its first value.
public struct FormFields: Sendable {
    public private(set) var values: [String: String] = [:]

    public init(_ text: String) {
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]) else { continue }
            let value = parts.count > 1 ? Self.decode(parts[1]) : ""
            if values[name] == nil, let value { values[name] = value }
        }
    }

    public subscript(_ name: String) -> String? { values[name] }

    /// Nil for a malformed escape or bytes that are not UTF-8.
    static func decode(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var i = text.utf8.startIndex
        let u = text.utf8
        while i < u.endIndex {
            let c = u[i]
            if c == UInt8(ascii: "+") { bytes.append(32) } else if c == UInt8(ascii: "%") {
                let h = u.index(after: i)
                guard h < u.endIndex, u.index(after: h) < u.endIndex,
                      let hi = hexValue(u[h]), let lo = hexValue(u[u.index(after: h)]) else { return nil }
                bytes.append(hi << 4 | lo)
                i = u.index(after: u.index(after: h))
                continue
            } else { bytes.append(c) }
            i = u.index(after: i)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// The `Cookie:` header's name=value pairs.
public enum CookieHeader {
    public static func value(of name: String, in header: String?) -> String? {
        guard let header else { return nil }
        for part in header.split(separator: ";") {
            let kv = part.split(separator: "=", maxSplits: 1)
            if kv.count == 2, kv[0].trimmingWhitespace() == name { return String(kv[1].trimmingWhitespace()) }
        }
        return nil
    }
}

extension Substring {
    func trimmingWhitespace() -> Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return s
    }
}
