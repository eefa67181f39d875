import Foundation
import Testing

/// A real KWin (kwin_wayland --virtual, Plasma 5.27 on Debian 12), headless, with Xwayland, on a
/// session bus of its own (dbus-run-session), all as the child (uid 65534 unless `uid` says
/// another); its windows are xterms through Xwayland (foot dies on KWin's virtual output).
/// docs/dev/recipes.md has the recipe.
///
/// Everything the child runs is in a folder of this session's (the clone may sit in a folder the
/// child cannot read): a copy of kwin_wayland (the installed one carries a file capability, which
/// a process of setpriv's may not take: EPERM) and a copy of the KWin script's package.
///
/// KWin runs with its screen locker (no `--no-lockscreen`, autolock off): the locker serves
/// `org.freedesktop.ScreenSaver`, whose `SimulateUserActivity` is the input a test can give KWin
/// here. (xdotool's input through Xwayland 22 stays inside Xwayland: KWin never sees it, and its
/// virtual backend has no input devices.)
public final class KWinSession {
    public let dir: String
    public let uid: UInt32
    /// The session bus (dbus-run-session's), KWin's process, Xwayland's display (":N").
    public let busAddress: String
    public let kwinPID: Int32
    public private(set) var display = ""
    /// The copied script's main.js, for `stctl hook kde --script`.
    public let scriptPath: String
    private let session: Process
    private let keepOpen: Pipe
    private let sessionID: Int32
    private var processes: [Process] = []

    /// `scriptPackage`: the KWin script's package folder (desktop/kwin/screentime).
    public init(scriptPackage: String, uid: UInt32 = 65534) throws {
        self.uid = uid
        let fm = FileManager.default
        dir = fm.temporaryDirectory.appendingPathComponent("screentime-kwin-\(UUID().uuidString)").path
        for (path, mode, own) in [(dir, 0o755, false), (dir + "/run", 0o700, true), (dir + "/home", 0o755, true),
                                  (dir + "/home/.config", 0o755, true), (dir + "/out", 0o755, true)] {
            try fm.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: mode])
            if own { try fm.setAttributes([.ownerAccountID: uid, .groupOwnerAccountID: uid], ofItemAtPath: path) }
        }
        // Xwayland puts its socket there; root makes it, as a system's tmpfiles would.
        if !fm.fileExists(atPath: "/tmp/.X11-unix") {
            try? fm.createDirectory(atPath: "/tmp/.X11-unix", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o1777])
        }
        // cp drops the file capability (a copy by FileManager might keep it).
        guard KWinSession.run("/usr/bin/cp", ["/usr/bin/kwin_wayland", dir + "/kwin_wayland"]) == 0 else {
            throw FixtureFailure("cannot copy /usr/bin/kwin_wayland (is kwin-wayland installed?)")
        }
        try fm.copyItem(atPath: scriptPackage, toPath: dir + "/script")
        scriptPath = dir + "/script/contents/code/main.js"
        _ = KWinSession.run("/usr/bin/chmod", ["-R", "a+rX", dir + "/script"])
        // The locker must not lock the session while a test waits for input.
        try "[Daemon]\nAutolock=false\nLockOnResume=false\n".write(toFile: dir + "/home/.config/kscreenlockerrc", atomically: true, encoding: .utf8)
        try fm.setAttributes([.posixPermissions: 0o644, .ownerAccountID: uid], ofItemAtPath: dir + "/home/.config/kscreenlockerrc")
        // dbus-run-session's program: KWin in the background, where things are for the test, then
        // `cat` on a pipe the test holds, so that the bus outlives a KWin that dies.
        try """
            #!/bin/sh
            ./kwin_wayland --virtual --xwayland --socket wayland-kw >out/kwin.log 2>&1 &
            printf '%s\\n%s\\n' "$DBUS_SESSION_BUS_ADDRESS" "$!" >out/info.part && mv out/info.part out/info
            exec cat
            """.write(toFile: dir + "/session.sh", atomically: true, encoding: .utf8)
        try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir + "/session.sh")

        session = Process()
        session.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        // A session of its own, so that everything in it can be found (and killed) by its id.
        session.arguments = ["--wait", "/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups",
                             "/usr/bin/dbus-run-session", "--", "./session.sh"]
        session.currentDirectoryURL = URL(fileURLWithPath: dir)
        session.environment = ["PATH": "/usr/bin:/bin", "HOME": dir + "/home", "XDG_RUNTIME_DIR": dir + "/run"]
        keepOpen = Pipe()
        session.standardInput = keepOpen
        session.standardOutput = FileHandle.nullDevice
        session.standardError = FileHandle.nullDevice
        try session.run()

        var info: [String] = []
        Wait.whether(within: 10) { [dir, session] in   // (not self: it is not all set yet)
            info = ((try? String(contentsOfFile: dir + "/out/info", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
            return info.count >= 2 || !session.isRunning
        }
        guard info.count >= 2, let pid = Int32(info[1]) else {
            KWinSession.killSession(of: session, sid: nil)
            throw FixtureFailure("dbus-run-session did not start KWin")
        }
        busAddress = info[0]
        kwinPID = pid
        sessionID = KWinSession.stat(pid).map { $0.sid } ?? -1
        // Ready: KWin's scripting and the locker answer on the bus, and Xwayland takes clients.
        let ready = wait {
            self.call(["org.kde.KWin", "/Scripting", "org.freedesktop.DBus.Peer", "Ping"]) == 0
                && self.call(["org.freedesktop.ScreenSaver", "/ScreenSaver", "org.freedesktop.DBus.Peer", "Ping"]) == 0
        }
        var found: String? = nil
        if ready {
            _ = wait {
                found = KWinSession.xwaylandDisplay(of: pid)
                return found != nil
            }
        }
        guard let found, wait({ self.runAsChild("/usr/bin/xdpyinfo", ["-display", found]).status == 0 }) else {
            KWinSession.killSession(of: session, sid: sessionID)
            throw FixtureFailure("KWin did not come up (ready \(ready)); its log: \((try? String(contentsOfFile: dir + "/out/kwin.log", encoding: .utf8)) ?? "")")
        }
        display = found
    }

    deinit {
        for p in processes where p.isRunning { kill(p.processIdentifier, SIGKILL) }
        KWinSession.killSession(of: session, sid: sessionID)
        for p in processes { reap(p) }
        // KWin made Xwayland's socket and lock file; nothing serves that display any more.
        if display.hasPrefix(":") {
            try? FileManager.default.removeItem(atPath: "/tmp/.X11-unix/X\(display.dropFirst())")
            try? FileManager.default.removeItem(atPath: "/tmp/.X\(display.dropFirst())-lock")
        }
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// The environment of a program of the child's inside this session.
    public var environment: [String: String] {
        ["PATH": "/usr/bin:/bin", "HOME": dir + "/home", "XDG_RUNTIME_DIR": dir + "/run", "DBUS_SESSION_BUS_ADDRESS": busAddress,
         "WAYLAND_DISPLAY": "wayland-kw", "DISPLAY": display]
    }

    /// Starts a program as the child in this session (its stderr to `stderr` when given); it is
    /// killed when the session ends.
    public func spawn(_ path: String, _ args: [String], stderr: String? = nil) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        p.arguments = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", path] + args
        p.environment = environment
        p.standardOutput = FileHandle.nullDevice
        if let stderr {
            _ = FileManager.default.createFile(atPath: stderr, contents: nil)
            p.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderr))
        } else {
            p.standardError = FileHandle.nullDevice
        }
        try p.run()
        processes.append(p)
        return p
    }

    /// Runs a program as the child in this session, for at most 30 s (then it is killed: status
    /// -1); its status and output. It is waited for until Foundation has seen it end: a stressed
    /// run once saw a `busctl` that had answered still "running" 2 s later, taken for a hang.
    @discardableResult
    public func runAsChild(_ path: String, _ args: [String]) -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        p.arguments = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", path] + args
        p.environment = environment
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        guard (try? p.run()) != nil else { return (-1, "") }
        var data = Data()
        let reader = out.fileHandleForReading
        let deadline = Date().addingTimeInterval(30)
        var ended = false
        while Date() < deadline {
            var ready = pollfd(fd: reader.fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 100) > 0 else { continue }
            let chunk = reader.availableData
            if chunk.isEmpty { ended = true; break }
            data += chunk
        }
        // Its output ends with it, a moment before Foundation sees the end (seconds, on a loaded machine).
        if ended { Wait.whether(within: deadline.timeIntervalSinceNow, every: 0.01) { !p.isRunning } }
        let killed = p.isRunning
        if killed { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
        return (killed ? -1 : p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// `busctl --user call DEST PATH INTERFACE METHOD [SIGNATURE ARGS…]` as the child; its status.
    @discardableResult
    public func call(_ args: [String]) -> Int32 {
        runAsChild("/usr/bin/busctl", ["--user", "call"] + args).status
    }

    /// Input, as far as KWin's idle time knows it (see the type's comment).
    public func simulateActivity() {
        #expect(call(["org.freedesktop.ScreenSaver", "/ScreenSaver", "org.freedesktop.ScreenSaver", "SimulateUserActivity"]) == 0)
    }

    /// An xterm of the child's with this WM_CLASS and title, through Xwayland; its window id once
    /// KWin shows it. It runs `cat`, which ends when the xterm does (its terminal is gone): a
    /// `sleep` there outlives a killed xterm.
    public func xterm(class name: String, title: String) throws -> (process: Process, window: String) {
        let p = try spawn("/usr/bin/xterm", ["-display", display, "-name", name.lowercased(), "-class", name, "-T", title, "-e", "cat"])
        var window = ""
        _ = wait {
            window = self.runAsChild("/usr/bin/xdotool", ["search", "--onlyvisible", "--class", "^\(name)$"]).output
                .split(separator: "\n").first.map(String.init) ?? ""
            return !window.isEmpty && p.isRunning
        }
        guard !window.isEmpty else { throw FixtureFailure("the xterm \(name) did not appear") }
        return (p, window)
    }

    /// Activates a window the way a pager would (_NET_ACTIVE_WINDOW); returns once KWin made it active.
    public func activate(_ window: String) {
        #expect(runAsChild("/usr/bin/xdotool", ["windowactivate", "--sync", window]).status == 0)
    }

    /// Ends KWin as a crash would (the bus stays).
    public func killKWin() { kill(kwinPID, SIGKILL) }

    /// Polls `done` while KWin's session runs: 60 s at most, as a look often runs busctl or
    /// xdotool, which take a while on a loaded machine (500 looks 20 ms apart, before #37).
    public func wait(_ done: () -> Bool) -> Bool {
        var held = false
        Wait.whether(within: 60) {
            held = done()
            return held || !session.isRunning
        }
        return held
    }

    /// Xwayland's display, from the command line KWin started it with.
    static func xwaylandDisplay(of kwin: Int32) -> String? {
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), let s = stat(pid), s.ppid == kwin,
                  let cmdline = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { continue }
            let args = cmdline.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if args.first?.hasSuffix("Xwayland") == true, let d = args.first(where: { $0.hasPrefix(":") }) { return d }
        }
        return nil
    }

    /// The parent and session of a process (fields 4 and 6 of /proc/PID/stat, after the name).
    static func stat(_ pid: Int32) -> (ppid: Int32, sid: Int32)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 4, let ppid = Int32(fields[1]), let sid = Int32(fields[3]) else { return nil }
        return (ppid, sid)
    }

    /// SIGKILL (children of the test runner may have SIGTERM ignored) to every process of the
    /// session, until none is left; then the session's own process.
    static func killSession(of session: Process, sid: Int32?) {
        if let sid, sid > 1, sid != getsid(0) {
            Wait.whether(within: 5, every: 0.01) {
                let left = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap(Int32.init)
                    .filter { stat($0)?.sid == sid }
                for pid in left { kill(pid, SIGKILL) }
                return left.isEmpty
            }
        }
        if session.isRunning { kill(session.processIdentifier, SIGKILL) }
        reap(session)
    }

    @discardableResult
    static func run(_ path: String, _ args: [String]) -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        guard (try? p.run()) != nil else { return -1 }
        p.waitUntilExit()
        return p.terminationStatus
    }
}
