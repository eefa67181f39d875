import FoundationEssentials
import Glibc
import ScreenTimeCore
import DesktopHooks
import ScreenTimeLinux
import ScreenTimeSystemd
import Synchronization

/// The KDE Plasma desktop hook (`stctl hook kde`), in the child's Plasma session.
///
/// Focus: it owns `org.screentime.KWinHook` on the session bus and loads the KWin script
/// (`desktop/kwin/screentime`) through `org.kde.KWin /Scripting`; the script calls
/// `org.screentime.KWinHook.Focus(i pid, s resourceClass, s caption)` on
/// `/org/screentime/KWinHook` for each activation and caption change, and `Unfocused()` when no
/// window is active. Only calls from KWin's own connection (the owner of `org.kde.KWin`) are
/// believed; the others are refused.
///
/// Input: the time since the last input from `org.freedesktop.ScreenSaver.GetSessionIdleTime`
/// (Plasma on X11), polled every 200 ms; where that is not there or not supported (KWin on
/// Wayland answers NotSupported), from the Wayland compositor's idle notifications
/// (`WaylandIdle`). Either way through `InputThrottle`.
///
/// It runs until KWin goes away (its name leaves the bus, or the bus closes) or `stop` is asked
/// (SIGTERM): then it unloads its script.
public final class KDEHook {
    public static let busName = "org.screentime.KWinHook"
    public static let objectPath = "/org/screentime/KWinHook"
    public static let interface = "org.screentime.KWinHook"
    /// The name the script is loaded under in KWin.
    public static let scriptName = "screentime"
    static let kwin = "org.kde.KWin"
    static let pollEvery: Microseconds = 200_000
    /// KWin says "nothing is active" for a moment while focus moves: that moment is not a change.
    static let settle: Microseconds = 300_000
    /// How often the hook checks that its script is still loaded: anyone in the session may unload
    /// it over D-Bus, and the focus it told last would then stand while another window is used.
    static let scriptCheckEvery: Microseconds = 2_000_000

    public let scriptPath: String
    public let client: HookClient
    private let log: (String) -> Void

    public init(scriptPath: String, client: HookClient, log: @escaping (String) -> Void) {
        self.scriptPath = scriptPath
        self.client = client
        self.log = log
    }

    public struct Failure: Error, CustomStringConvertible { public var description: String }

    /// Why `run` returned.
    public enum Ending: Sendable { case kwinGone, busClosed, stopped }

    /// Asks a running hook to unload its script and return; safe from any thread (a signal's).
    public final class Stop: Sendable {
        let asked = Atomic<Bool>(false)
        let wakeup = Wakeup()
        public init() {}
        public func ask() {
            asked.store(true, ordering: .relaxed)
            wakeup.poke()
        }
    }

    /// What KWin said: this window is active (pid 0: KWin knows no pid for it), or none is.
    enum Report: Equatable {
        case window(pid: Int32, resourceClass: String, caption: String)
        case nothing
    }

    public func run(until stop: Stop) throws -> Ending {
        let bus: Bus
        do { bus = try Bus(.user) } catch { throw Failure(description: error.description) }
        guard var kwinOwner = bus.owner(of: Self.kwin) else {
            throw Failure(description: "KWin is not on this session bus (no \(Self.kwin)): run this inside the Plasma session")
        }
        var kwinGone = false
        // What KWin said last, not yet told to the daemon (nil: nothing new).
        var seen: Report? = nil
        do {
            try bus.onMessages(matching: "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                               + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(Self.kwin)'") { m in
                let owner = m.arguments.count == 3 ? (m.arguments[2].string ?? "") : ""
                if owner.isEmpty { kwinGone = true } else { kwinOwner = owner }
            }
            try bus.serve(path: Self.objectPath) { m in
                guard m.interface == Self.interface else { return nil }
                guard m.sender == kwinOwner else {
                    return .error(name: "org.freedesktop.DBus.Error.AccessDenied", message: "only KWin reports the active window here")
                }
                switch (m.member, m.arguments.count) {
                case ("Focus", 3):
                    guard let pid = Self.pid(m.arguments[0]), let resourceClass = m.arguments[1].string, let caption = m.arguments[2].string else {
                        return .error(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "Focus takes (i pid, s resourceClass, s caption)")
                    }
                    seen = .window(pid: pid, resourceClass: resourceClass, caption: caption)
                    return .values([])
                case ("Unfocused", 0):
                    seen = .nothing
                    return .values([])
                case ("Focus", _), ("Unfocused", _):
                    return .error(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "Focus takes (i pid, s resourceClass, s caption); Unfocused takes nothing")
                default:
                    return nil
                }
            }
            try bus.requestName(Self.busName)
            try loadScript(bus)
        } catch let e as Failure {
            throw e
        } catch {
            throw Failure(description: "\(error)")
        }

        var idle = IdleSource(bus: bus, log: log)
        var throttle = InputThrottle()
        var random = SystemRandomNumberGenerator()
        var noneSince: Microseconds? = nil
        var nextPoll = SystemClock.monoMicros()
        var nextScriptCheck = nextPoll + Self.scriptCheckEvery

        func input(_ idleTime: Microseconds, _ now: Microseconds) throws {
            if throttle.observe(idle: idleTime, now: now, random: &random) { try client.input() }
        }

        do {
            while true {
                do { try bus.process() } catch { return .busClosed }
                if kwinGone { return .kwinGone }
                if stop.asked.load(ordering: .relaxed) {
                    unloadScript(bus)
                    return .stopped
                }
                var now = SystemClock.monoMicros()
                switch seen {
                case .window(let pid, let resourceClass, let caption):
                    noneSince = nil
                    try client.focused(pid: pid > 0 ? pid : nil, appID: resourceClass.isEmpty ? nil : resourceClass,
                                       title: caption.isEmpty ? nil : caption)
                case .nothing:
                    if noneSince == nil { noneSince = now }
                case nil:
                    break
                }
                seen = nil
                if let since = noneSince, now - since >= Self.settle {
                    noneSince = nil
                    try client.focused(pid: nil, appID: nil, title: nil)
                }
                if now >= nextPoll {
                    if let t = idle.poll(now: now) { try input(t, now) }
                    nextPoll = now + Self.pollEvery
                }
                if now >= nextScriptCheck {
                    nextScriptCheck = now + Self.scriptCheckEvery
                    if !scriptLoaded(bus) {
                        // What was active since it went is not known: nothing, until it tells again.
                        log("the KWin script was unloaded (not by this hook); loading it again")
                        noneSince = nil
                        try client.focused(pid: nil, appID: nil, title: nil)
                        do { try loadScript(bus) } catch { log("\(error)") }
                    }
                }

                var read = [bus.descriptor, stop.wakeup.fd]
                if let fd = idle.descriptor { read.append(fd) }
                let due = min(nextPoll, noneSince.map { $0 + Self.settle } ?? .max)
                let ready = Poll.wait(read: read, write: bus.wantsWrite ? [bus.descriptor] : [],
                                      timeoutMillis: Int32(max(0, min(due - now, Self.pollEvery)) / 1000) + 1)
                if ready.readable.contains(stop.wakeup.fd) { stop.wakeup.drain() }
                if let fd = idle.descriptor, ready.readable.contains(fd) {
                    now = SystemClock.monoMicros()
                    // Input that starts is told at once, not at the next poll.
                    if idle.read(now: now) { try input(0, now) }
                }
            }
        } catch let refused as HookClient.Refused {
            unloadScript(bus)
            throw refused
        }
    }

    /// KWin sends the pid as an int32; any integer is taken.
    static func pid(_ value: BusValue) -> Int32? {
        switch value.unwrapped {
        case .int32(let v): return v
        case .uint32(let v): return Int32(truncatingIfNeeded: v)
        case .int64(let v): return Int32(truncatingIfNeeded: v)
        case .uint64(let v): return Int32(truncatingIfNeeded: v)
        case .double(let v) where v.rounded() == v && abs(v) < 1e9: return Int32(v)
        default: return nil
        }
    }

    private func loadScript(_ bus: Bus) throws {
        // An old copy (a hook that was killed) would report too: there is one script of this name.
        _ = try? bus.call(Self.kwin, "/Scripting", "org.kde.kwin.Scripting", "unloadScript", [.string(Self.scriptName)])
        let loaded = try bus.call(Self.kwin, "/Scripting", "org.kde.kwin.Scripting", "loadScript", [.string(scriptPath), .string(Self.scriptName)])
        if case .int32(let id)? = loaded.arguments.first, id < 0 {
            throw Failure(description: "KWin did not load the script \(scriptPath)")
        }
        _ = try bus.call(Self.kwin, "/Scripting", "org.kde.kwin.Scripting", "start")
    }

    /// False only when KWin says the script is not loaded.
    private func scriptLoaded(_ bus: Bus) -> Bool {
        let reply = try? bus.call(Self.kwin, "/Scripting", "org.kde.kwin.Scripting", "isScriptLoaded", [.string(Self.scriptName)], timeout: 500_000)
        return reply?.arguments.first?.bool ?? true
    }

    private func unloadScript(_ bus: Bus) {
        _ = try? bus.call(Self.kwin, "/Scripting", "org.kde.kwin.Scripting", "unloadScript", [.string(Self.scriptName)], timeout: 500_000)
    }
}

/// Where the hook learns the time since the last input; what is missing is said once.
struct IdleSource {
    private enum Kind { case screenSaver, wayland(WaylandIdle), none }
    private var kind: Kind
    private let bus: Bus
    private let log: (String) -> Void
    private var failing = false

    init(bus: Bus, log: @escaping (String) -> Void) {
        self.bus = bus
        self.log = log
        let asked: String
        do {
            _ = try IdleSource.screenSaverIdle(bus)
            kind = .screenSaver
            return
        } catch {
            asked = "\(error)"
        }
        let env = ProcessInfo.processInfo.environment
        guard let display = env["WAYLAND_DISPLAY"], !display.isEmpty else {
            log("no idle time: \(asked), and WAYLAND_DISPLAY is not set; input is not reported (idle comes only from logind)")
            kind = .none
            return
        }
        let path = display.hasPrefix("/") ? display : (env["XDG_RUNTIME_DIR"] ?? "/run/user/\(getuid())") + "/" + display
        do {
            let w = try WaylandIdle(socketPath: path, now: SystemClock.monoMicros())
            kind = .wayland(w)
            log("\(asked); input comes from the Wayland compositor's \(w.protocolName) instead")
        } catch {
            log("no idle time: \(asked), and \(error.description); input is not reported (idle comes only from logind)")
            kind = .none
        }
    }

    static func screenSaverIdle(_ bus: Bus) throws -> Microseconds {
        let reply = try bus.call("org.freedesktop.ScreenSaver", "/ScreenSaver", "org.freedesktop.ScreenSaver", "GetSessionIdleTime", timeout: 500_000)
        guard let ms = reply.arguments.first?.uint32 else { throw KDEHook.Failure(description: "org.freedesktop.ScreenSaver GetSessionIdleTime gave no time") }
        return Microseconds(ms) * 1000
    }

    var descriptor: Int32? {
        if case .wayland(let w) = kind { return w.descriptor }
        return nil
    }

    /// The time since the last input at `now`, if it is known.
    mutating func poll(now: Microseconds) -> Microseconds? {
        switch kind {
        case .none: return nil
        case .wayland(let w): return w.idle(at: now)
        case .screenSaver:
            do {
                let t = try IdleSource.screenSaverIdle(bus)
                if failing { log("org.freedesktop.ScreenSaver tells the idle time again") }
                failing = false
                return t
            } catch {
                if !failing { log("\(error); input is not reported until it answers again") }
                failing = true
                return nil
            }
        }
    }

    /// Reads the compositor's notifications; true when input just started.
    mutating func read(now: Microseconds) -> Bool {
        guard case .wayland(let w) = kind else { return false }
        do {
            return try w.read(now: now).contains(.resumed)
        } catch {
            log("\(error.description); input is not reported any more")
            kind = .none
            return false
        }
    }
}
