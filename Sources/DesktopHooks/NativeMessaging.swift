import ControlProtocol
import FoundationEssentials
import ScreenTimeCore

/// The browsers' native messaging framing (Chromium's and Firefox's alike): each message is JSON
/// in UTF-8, after its length as a 32-bit number in the machine's byte order. Used by
/// `screentime-browser-host`, which the browser starts and speaks to on its standard input and output.
public struct NativeMessageReader {
    /// What the extension may send in one message (its reports are a few hundred bytes).
    public static let maxMessage = 64 * 1024
    private var buffer: [UInt8] = []

    public init() {}

    public enum Failure: Error, Equatable { case tooLong(Int) }

    /// The whole messages in what was read so far (the rest waits for more).
    public mutating func append(_ bytes: [UInt8]) throws(Failure) -> [[UInt8]] {
        buffer += bytes
        var out: [[UInt8]] = []
        while buffer.count >= 4 {
            let length = buffer.withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self))) }
            guard length <= Self.maxMessage else { throw .tooLong(length) }
            guard buffer.count >= 4 + length else { break }
            out.append(Array(buffer[4..<(4 + length)]))
            buffer.removeFirst(4 + length)
        }
        return out
    }

    /// One message framed for the browser.
    public static func frame(_ json: String) -> [UInt8] {
        let body = Array(json.utf8)
        let n = UInt32(body.count).littleEndian
        return withUnsafeBytes(of: n) { Array($0) } + body
    }
}

/// What the extension reports, read from its message; and the daemon's answer, for it.
public enum BrowserMessages {
    /// The `site_changed` hook event for a report `{"type": "report", "host": …, "audible": […],
    /// "focused": …}`; nil with why when the message is not one. `browser`: the host's parent, the
    /// browser that started it (the daemon looks that up itself, and believes no pid said).
    public static func event(fromReport message: [UInt8], browser: Int32) -> (event: String?, problem: String?) {
        guard let value = try? JSONLineReader.parse(String(decoding: message, as: UTF8.self)), case .object(let members) = value else {
            return (nil, "a message must be a JSON object")
        }
        let fields = Dictionary(members, uniquingKeysWith: { _, last in last })
        guard fields["type"] == .string("report") else { return (nil, "the messages are {\"type\": \"report\", …} and {\"type\": \"ask\", …}") }
        var w = JSONWriter()
        w.beginObject()
        w.key("event"); w.string("site_changed")
        w.key("pid"); w.int(Int64(browser))
        switch fields["host"] {
        case .string(let h)?:
            guard SiteReport.isHost(h) else { return (nil, "'host' must be a host name, not \"\(h.prefix(100))\"") }
            w.key("host"); w.string(h)
        case .null?, nil: w.key("host"); w.null()
        default: return (nil, "'host' must be a host name or null")
        }
        if case .array(let items)? = fields["audible"] {
            var hosts: [String] = []
            for case .string(let h) in items.prefix(100) where SiteReport.isHost(h) { hosts.append(h) }
            w.key("audible"); w.beginArray(); for h in hosts { w.string(h) }; w.endArray()
        }
        if case .bool(let b)? = fields["focused"] { w.key("focused"); w.bool(b) }
        w.endObject()
        return (w.output, nil)
    }

    /// The child's request for more game time from the extension's page, `{"type": "ask",
    /// "minutes": 1–240, "reason": "…"}`, as the daemon's `ask` (the family loop: a parent answers
    /// it); nil when the message is of another type, and a problem when it is an ask but a bad one.
    /// The daemon knows the child by the connection's peer, as for `stctl ask`.
    public static func ask(from message: [UInt8]) -> (request: ControlRequest?, problem: String?)? {
        guard let value = try? JSONLineReader.parse(String(decoding: message, as: UTF8.self)), case .object(let members) = value else { return nil }
        let fields = Dictionary(members, uniquingKeysWith: { _, last in last })
        guard fields["type"] == .string("ask") else { return nil }
        guard case .number(let n)? = fields["minutes"], let minutes = n.int64, (1...240).contains(minutes) else {
            return (nil, "'minutes' must be a whole number from 1 to 240")
        }
        var reason: String? = nil
        switch fields["reason"] {
        case .string(let r)?:
            let trimmed = String(r.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
            guard trimmed.count <= 200 else { return (nil, "'reason' must be at most 200 characters") }
            reason = trimmed.isEmpty ? nil : trimmed
        case .null?, nil: break
        default: return (nil, "'reason' must be text")
        }
        return (ControlRequest(.ask, minutes: minutes, reason: reason), nil)
    }

    /// The answer to an ask, for the extension's page: `{"asked": true}`, or why not.
    public static func asked(_ reply: ControlReply?) -> String {
        guard let reply, reply.ok else { return error(reply?.error ?? "screentime is not running") }
        var w = JSONWriter()
        w.beginObject()
        w.key("asked"); w.bool(true)
        w.endObject()
        return w.output
    }

    /// The answer to the extension: the hosts it must not show, each with its site and why, or
    /// why the daemon did not take the report (`{"stops": [...]}` or `{"error": "..."}`).
    public static func answer(_ reply: ControlReply?) -> String {
        var w = JSONWriter()
        w.beginObject()
        if let reply, reply.ok {
            w.key("stops"); w.beginArray()
            for s in reply.siteStops ?? [] {
                w.beginObject()
                w.key("host"); w.string(s.host)
                w.key("site"); w.string(s.site)
                w.key("reason"); w.string(s.reason)
                w.endObject()
            }
            w.endArray()
        } else {
            w.key("error"); w.string(reply?.error ?? "screentime is not running")
        }
        w.endObject()
        return w.output
    }

    /// `{"error": "..."}`: a message that was not a report.
    public static func error(_ why: String) -> String {
        var w = JSONWriter()
        w.beginObject()
        w.key("error"); w.string(why)
        w.endObject()
        return w.output
    }
}
