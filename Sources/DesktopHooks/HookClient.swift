import ControlProtocol
import FoundationEssentials
import Glibc
import ScreenTimeCore
import ScreenTimeLinux

/// A desktop hook's one connection to the daemon: sends `hook_event` requests, each named with the
/// hook, and reads each answer. The connection stays open: the daemon counts it as a connected hook,
/// and when it closes (the hook ends, the session ends), nothing counts as focused any more.
/// When the daemon restarts, the hook connects again and tells the focus again.
public final class HookClient {
    public let hook: String
    public let socketPath: String
    /// System mode: the child whose session this is (the daemon's own hooks run as root).
    public let user: String?
    private var connection: UnixConnection?
    private var reader = FrameReader()
    private var focus: String?
    private var down: String? = nil
    private let log: (String) -> Void

    /// The daemon will not take this hook's events (another user's session, an old daemon): a
    /// hook cannot do anything useful then, and says why.
    public struct Refused: Error, CustomStringConvertible { public var description: String }

    public init(hook: String, socketPath: String, user: String? = nil, log: @escaping (String) -> Void) {
        self.hook = hook
        self.socketPath = socketPath
        self.user = user
        self.log = log
    }

    /// The window in focus now (nil pid: nothing focused). Sent when it differs from the last one.
    public func focused(pid: Int32?, appID: String?, title: String?, flatpak: String? = nil) throws(Refused) {
        var w = JSONWriter()
        w.beginObject()
        w.key("event"); w.string("focus_changed")
        w.key("pid"); if let pid { w.int(Int64(pid)) } else { w.null() }
        if let appID { w.key("app_id"); w.string(String(appID.prefix(200))) }
        if let title { w.key("title"); w.string(String(title.prefix(500))) }
        if let flatpak { w.key("flatpak"); w.string(String(flatpak.prefix(200))) }
        w.endObject()
        guard w.output != focus else { return }
        focus = w.output
        try send(w.output)
    }

    /// One input report (see `InputThrottle` for when).
    public func input() throws(Refused) { try send(#"{"event":"input","count":1}"#) }

    /// Sends one event; when the daemon cannot be reached the event is dropped (there is no one to
    /// count it) and the hook tries again with the next one.
    public func send(_ event: String) throws(Refused) {
        if connection == nil {
            guard connect() else { return }
            if let focus, focus != event { exchange(focus) }
        }
        if let refusal = exchange(event) {
            if refusal.hasPrefix("hook events are taken only") || refusal.hasPrefix("this screentimed speaks") {
                throw Refused(description: refusal)
            }
            log("the daemon refused \(event): \(refusal)")
        }
    }

    private func connect() -> Bool {
        do {
            let c = try UnixConnection.connect(path: socketPath)
            c.setTimeout(seconds: 5)
            connection = c
            reader = FrameReader()
            if down != nil { log("connected to the daemon again at \(socketPath)") }
            down = nil
            return true
        } catch {
            if down == nil { log("\(error.description); events are dropped until it is back") }
            down = error.description
            return false
        }
    }

    /// Sends one request and waits for its answer; returns the refusal, if any.
    @discardableResult
    private func exchange(_ event: String) -> String? {
        guard let c = connection else { return nil }
        var request = ControlRequest(.hookEvent, event: event, hook: hook)
        request.user = user
        guard c.write(request.line) else { return lost() }
        while true {
            guard let bytes = c.read() else { return lost() }
            if let line = reader.append(bytes).first {
                guard let reply = try? ControlReply.read(line: line) else { return lost() }
                return reply.ok ? nil : (reply.error ?? "refused")
            }
            if reader.overflowed { return lost() }
        }
    }

    private func lost() -> String? {
        connection = nil
        if down == nil { log("lost the daemon at \(socketPath); trying again with the next event") }
        down = "lost"
        return nil
    }
}
