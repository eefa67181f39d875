import Foundation
import Testing

/// A real X server (Xvfb) with a real window manager (openbox), on a display of its own
/// (docs/dev/recipes.md). Windows are xterms, started as the child (uid 65534).
public final class X11Session {
    public let display: String
    private var processes: [Process] = []
    /// openbox's HOME, removed at the end.
    private var home: String? = nil

    public init() throws {
        let (xvfb, n) = try X11Session.server("/usr/bin/Xvfb", ["-screen", "0", "1280x800x24"], environment: [:])
        display = ":\(n)"
        processes.append(xvfb)
        // openbox keeps its config and cache under HOME: a folder of its own, so that sessions
        // starting at the same moment do not meet there (one was seen to end at once, status 1).
        // One that ends at once anyway is started again, twice at most.
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("screentime-openbox-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        self.home = home
        var ended: Int32? = nil
        for _ in 0..<3 {
            let wm = try X11Session.start("/usr/bin/openbox", ["--sm-disable"], display: display, environment: ["HOME": home])
            processes.append(wm)
            // Up to 30 s: with GNOME Shell and KWin starting in parallel suites, 10 s was seen too short.
            if X11Session.wait(for: { self.output("/usr/bin/xprop", ["-root", "_NET_SUPPORTING_WM_CHECK"]).contains("window id") }, while: wm, seconds: 30) {
                return
            }
            guard !wm.isRunning else { throw FixtureFailure("openbox did not take the display within 30 s") }
            ended = wm.terminationStatus
        }
        throw FixtureFailure("openbox ended at once, three times (status \(ended ?? -1))")
    }

    /// Starts an X server that says its display number (`-displayfd 1`) and answers; returns it
    /// with the number. Xvfb, or Xephyr inside this session.
    static func server(_ path: String, _ args: [String], environment: [String: String]) throws -> (Process, Int) {
        // The server chooses a free display itself and says which (`-displayfd`): no two sessions
        // (of parallel tests, or of other runs) can pick the same one, and stale lock files of
        // killed servers are the server's to clear.
        let server = Process()
        server.executableURL = URL(fileURLWithPath: path)
        server.arguments = ["-displayfd", "1"] + args + ["-nolisten", "tcp"]
        server.environment = ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }
        let chosen = Pipe()
        server.standardOutput = chosen
        server.standardError = FileHandle.nullDevice
        try server.run()
        var said = ""
        let reader = chosen.fileHandleForReading
        for _ in 0..<1000 where !said.hasSuffix("\n") && server.isRunning {
            var ready = pollfd(fd: reader.fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 20) > 0 else { continue }
            let data = reader.availableData
            if data.isEmpty { break }
            said += String(decoding: data, as: UTF8.self)
        }
        guard let n = Int(said.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            if server.isRunning { kill(server.processIdentifier, SIGKILL) }
            reap(server)
            throw FixtureFailure("\(path) did not start (it said \"\(said)\")")
        }
        guard X11Session.wait(for: { X11Session.run("/usr/bin/xdpyinfo", ["-display", ":\(n)"]) == 0 }, while: server) else {
            kill(server.processIdentifier, SIGKILL)
            reap(server)
            throw FixtureFailure("\(path) on :\(n) does not answer")
        }
        return (server, n)
    }

    /// An X server (Xephyr) in a window of this one: its keyboard and mouse are real devices to
    /// it, not XTEST ones, so what `xdotool` does on this display reaches it as a person's input
    /// would. Returns its display, with its window here at (0, 0).
    public func nested() throws -> String {
        let (xephyr, n) = try X11Session.server("/usr/bin/Xephyr", ["-screen", "640x480", "-no-host-grab"], environment: ["DISPLAY": display])
        processes.append(xephyr)
        return ":\(n)"
    }

    deinit {
        // SIGTERM first: Xvfb then removes its lock file and socket.
        for p in processes.reversed() where p.isRunning { kill(p.processIdentifier, SIGTERM) }
        Wait.whether(within: 1) { !processes.contains(where: \.isRunning) }
        for p in processes.reversed() where p.isRunning { kill(p.processIdentifier, SIGKILL) }
        for p in processes { reap(p) }
        if let home { try? FileManager.default.removeItem(atPath: home) }
    }

    /// An xterm of the child's (uid 65534 unless `uid` says another) with this WM_CLASS and title,
    /// running `sleep`; returns its window id.
    public func xterm(class name: String, title: String, uid: UInt32 = 65534) throws -> (process: Process, window: String) {
        try window(["/usr/bin/xterm", "-name", name.lowercased(), "-class", name, "-T", title, "-e", "/usr/bin/env", "--default-signal", "sleep", "600"],
                   search: ["--class", "^\(name)$"], uid: uid, what: "the xterm \(name)")
    }

    /// An xmessage of `uid` (a window of another program than xterm) whose WM_CLASS instance is
    /// `name`; returns its window id.
    public func xmessage(name: String, uid: UInt32 = 65534) throws -> (process: Process, window: String) {
        try window(["/usr/bin/xmessage", "-name", name, "homework"], search: ["--classname", "^\(name)$"], uid: uid, what: "the xmessage \(name)")
    }

    /// Starts `command` as `uid` and waits for its window, found by `xdotool search` with `search`.
    private func window(_ command: [String], search: [String], uid: UInt32, what: String) throws -> (process: Process, window: String) {
        let p = try X11Session.start("/usr/bin/setpriv", ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"] + command, display: display)
        processes.append(p)
        var window = ""
        _ = X11Session.wait(for: {
            window = self.output("/usr/bin/xdotool", ["search", "--onlyvisible"] + search).split(separator: "\n").first.map(String.init) ?? ""
            return !window.isEmpty
        }, while: p)
        guard !window.isEmpty else { throw FixtureFailure("\(what) did not appear") }
        return (p, window)
    }

    /// Starts a process on this display (its output discarded) and keeps it until the session ends.
    public func spawn(_ path: String, _ args: [String], environment: [String: String] = [:]) throws -> Process {
        let p = try X11Session.start(path, args, display: display, environment: environment)
        processes.append(p)
        return p
    }

    /// Focuses a window the way a click would, and waits until the window manager says so.
    public func activate(_ window: String) {
        #expect(X11Session.run("/usr/bin/xdotool", ["windowactivate", "--sync", window], display: display) == 0)
    }

    public func xdotool(_ args: [String]) {
        #expect(X11Session.run("/usr/bin/xdotool", args, display: display) == 0)
    }

    public func output(_ path: String, _ args: [String]) -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        p.environment = ["DISPLAY": display, "PATH": "/usr/bin:/bin"]
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return "" }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    static func start(_ path: String, _ args: [String], display: String? = nil, environment: [String: String] = [:]) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        var env = ["PATH": "/usr/bin:/bin", "HOME": "/tmp"]
        if let display { env["DISPLAY"] = display }
        p.environment = env.merging(environment) { $1 }
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    @discardableResult
    public static func run(_ path: String, _ args: [String], display: String? = nil) -> Int32 {
        guard let p = try? start(path, args, display: display) else { return -1 }
        p.waitUntilExit()
        return p.terminationStatus
    }

    /// Polls `done` for up to `seconds` while `process` runs.
    static func wait(for done: () -> Bool, while process: Process, seconds: Int = 10) -> Bool {
        var held = false
        Wait.whether(within: Double(seconds)) {
            held = done()
            return held || !process.isRunning
        }
        return held
    }
}
