import Foundation
import TestSupport
import Testing

/// Issue #38: when screen time runs out the daemon asks logind to lock the child's session
/// (`LockSession`); here a real desktop then really locks. LogindEndToEndTests shows the daemon
/// asks; these show what the child then sees.
///
/// logind is python3-dbusmock's (`MockLogind`, on a private system bus): real logind needs systemd
/// as PID 1, which this machine does not run. Like real logind, it answers `LockSession` with the
/// `Lock` signal on the session's object (`actAsLogindForLockers`), which the desktop's own locker
/// listens to. Everything else is real: the daemon, sway, swayidle, swaylock, grim, foot, GNOME Shell.
///
/// GNOME Shell (43) makes its screen shield, and listens to logind's Lock, only when GDM answers
/// on the system bus (LoginManager.canLock asks org.gnome.DisplayManager's `Version`, and wants
/// /run/systemd/seats, which this machine has). GDM cannot run here: a dbusmock of its manager
/// answers (`MockLogind.addDisplayManager`). Without it the shell runs but cannot lock:
/// org.gnome.ScreenSaver is not even on its session bus (gdbus's GetActive printed nothing).
///
/// The children are uids 65080 (sway) and 65081 (GNOME Shell), which no other test uses
/// (GnomeShellSession ends every process of its uid).
@Suite("A real desktop locks when logind asks", .ownThread, .serialized)
struct DesktopLockTests {
    static let swayChild: UInt32 = TestUser.ensure(uid: 65080, name: "stlock65080")
    static let gnomeChild: UInt32 = TestUser.ensure(uid: 65081, name: "stlock65081")

    /// swaylock's colour (`-c`): neither sway's default look nor foot's has it, so a screen that
    /// shows it anywhere shows swaylock.
    static let colour: [UInt8] = [0xd0, 0x20, 0x90]
    static var colourHex: String { colour.map { String(format: "%02x", $0) }.joined() }

    /// Screen time up 3 s after the daemon starts, locked a grace later; unlocked with none left,
    /// locked again a grace later. The grace is long enough for the test to see the unlocked
    /// desktop in between, on a loaded machine.
    static let policy = """
        version = 1
        timezone = "UTC"
        [screen]
        daily_limit = "3s"
        warn_before = ["2s"]
        grace = "10s"
        relocks = 1
        """

    /// swayidle's `unlock` command: ends this session's swaylock with SIGUSR1, which unlocks it
    /// (swaylock(1)), as `pkill -USR1 swaylock` does in a usual sway setup. Only the locker of this
    /// session (its runtime folder), not swaylock's password helper: the locker is the one that
    /// made a session of its own when it went into the background (`-f`).
    static let unlockScript = """
        #!/bin/sh
        for p in $(pgrep -x -U "$(id -u)" swaylock); do
          [ "$(ps -o sid= -p "$p" | tr -d ' ')" = "$p" ] || continue
          tr '\\0' '\\n' < /proc/$p/environ | grep -qx "XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR" && kill -USR1 "$p"
        done
        """

    @Test("sway: the daemon's LockSession locks it through swayidle and swaylock (swaylock's screen, no window gets the keyboard); logind's Unlock unlocks it; with no time left the daemon locks it again")
    func sway() throws {
        let logind = try MockLogind()
        try logind.addSession("c7", uid: Self.swayChild, name: "stlock65080")
        try logind.actAsLogindForLockers(session: "c7")
        let sway = try SwaySession(uid: Self.swayChild, environment: ["DBUS_SYSTEM_BUS_ADDRESS": logind.address])
        let desktop = try SwayDesktop(sway)
        let home = sway.dir + "/home"
        try Self.unlockScript.write(toFile: home + "/unlock-swaylock", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755, .ownerAccountID: Self.swayChild], ofItemAtPath: home + "/unlock-swaylock")

        // swayidle as a sway config's `exec` line starts it (the setup swayidle(1) shows). It asks
        // logind for its session ("auto") and listens to that session's Lock and Unlock.
        try sway.message(["exec swayidle -d -w lock 'swaylock -f -c \(Self.colourHex)' unlock '\(home)/unlock-swaylock' 2>\(home)/swayidle.log"])
        var said = ""
        // Its last word before it waits ("Enable idle timeouts") comes after its D-Bus matches are made.
        try Wait.until("swayidle to listen to logind", within: 30, every: 0.05) {
            said = (try? String(contentsOfFile: home + "/swayidle.log", encoding: .utf8)) ?? ""
            return said.contains("Enable idle timeouts")
        }
        #expect(said.contains("Using session: /org/freedesktop/login1/session/c7"), "\(said)")
        try sway.foot(appID: "learning.app", title: "GCompris")
        try sway.foot(appID: "other.app", title: "Notes")
        let learning = try desktop.window("learning.app"), other = try desktop.window("other.app")
        #expect(try desktop.keyboardFocus() == other, "the newest window has the keyboard")
        #expect(try desktop.screen(showing: Self.colour) == .none, "not locked yet")

        let d = try LiveDaemon(policy: Self.policy, environment: ["DBUS_SYSTEM_BUS_ADDRESS": logind.address], uid: Self.swayChild)
        defer { if d.process.isRunning { kill(d.process.processIdentifier, SIGKILL) } }
        _ = try d.waitFor("following logind session /org/freedesktop/login1/session/c7")
        _ = try d.waitFor("locking session c7 (screen_limit): logind was asked", seconds: 60)
        #expect(try logind.calls("LockSession") == ["c7"])

        // Locked: swaylock, the child's, in this sway, covers the whole screen.
        try Wait.until("swaylock's colour on the whole screen", within: 30, every: 0.1) { try desktop.screen(showing: Self.colour) == .all }
        #expect(desktop.lockers().count == 1, "one swaylock of the child's in this session")
        // An ext-session-lock: sway gives the keyboard to the lock, not to a window, even when a
        // window is focused. (sway's IPC still says the focus moved, and sends its `window`
        // event: the sway hook would report it. The daemon knows the session is locked: logind's
        // Lock signal, below.)
        try sway.message(["[app_id=\"learning.app\"] focus"])
        #expect(try desktop.keyboardFocus() == 0, "no window has the keyboard while locked")
        // The daemon heard logind's Lock signal too.
        _ = try d.poll("SELECT count(*) FROM event WHERE line LIKE '%\"event\":\"lock_changed\",\"locked\":true%'") { $0 == "1" }

        // (swaylock and swayidle tell logind nothing, no LockedHint: the daemon knows the session
        // is locked from logind's Lock signal, and unlocked only from its Unlock. A child who
        // unlocks swaylock itself is not seen unlocked, and not locked again: found here, #38.)
        // Unlocked through logind (as `loginctl unlock-session c7` does): swayidle's unlock
        // command ends swaylock, and the desktop is back, the window focused meanwhile with the keyboard.
        try logind.call("/org/freedesktop/login1", "org.freedesktop.login1.Manager", "UnlockSession", [.string("c7")])
        try Wait.until("swaylock to end", within: 8) { desktop.lockers().isEmpty }
        try Wait.until("the desktop to be shown again", within: 8, every: 0.1) { try desktop.screen(showing: Self.colour) == .none }
        #expect(try desktop.keyboardFocus() == learning)
        #expect(try logind.calls("LockSession") == ["c7"], "seen unlocked before the daemon locked it again")
        _ = try d.poll("SELECT count(*) FROM event WHERE line LIKE '%\"event\":\"lock_changed\",\"locked\":false%'") { $0 == "1" }

        // No time left: locked again a grace later, for real.
        try Wait.until("the daemon to lock c7 again", within: 60, every: 0.2) { try logind.calls("LockSession") == ["c7", "c7"] }
        try Wait.until("swaylock's colour on the whole screen again", within: 30, every: 0.1) { try desktop.screen(showing: Self.colour) == .all }
        #expect(desktop.lockers().count == 1)
        try d.stop()
    }

    @Test("GNOME Shell: the daemon's LockSession locks it (its screen shield is up, and it tells logind it is locked); logind's Unlock unlocks it; with no time left the daemon locks it again")
    func gnomeShell() throws {
        let logind = try MockLogind()
        try logind.actAsLogindForLockers(session: "c2")
        try logind.addDisplayManager()
        // The shell's session is c2 (XDG_SESSION_ID), which GnomeShellSession gives logind.
        let shell = try GnomeShellSession(uid: Self.gnomeChild, packed: try GnomeShellTests.packed(), logind: logind)
        defer { shell.stop() }
        let active = { shell.call("org.gnome.ScreenSaver", "/org/gnome/ScreenSaver", "org.gnome.ScreenSaver.GetActive") }
        let lockedHint = { () throws -> Bool? in
            try logind.call("/org/freedesktop/login1/session/c2", "org.freedesktop.DBus.Properties", "Get",
                            [.string("org.freedesktop.login1.Session"), .string("LockedHint")]).arguments.first?.bool
        }
        #expect(active() == "(false,)\n", "not locked yet")

        let d = try LiveDaemon(policy: Self.policy, environment: ["DBUS_SYSTEM_BUS_ADDRESS": logind.address], uid: Self.gnomeChild)
        defer { if d.process.isRunning { kill(d.process.processIdentifier, SIGKILL) } }
        _ = try d.waitFor("following logind session /org/freedesktop/login1/session/c2")
        _ = try d.waitFor("locking session c2 (screen_limit): logind was asked", seconds: 60)
        #expect(try logind.calls("LockSession") == ["c2"])
        try Wait.until("GNOME Shell's screen shield to be up", within: 30, every: 0.2) { active() == "(true,)\n" }
        // The shell itself tells logind (SetLockedHint), as it does on a real machine; the daemon hears it.
        try Wait.until("GNOME Shell to tell logind it is locked", within: 10, every: 0.1) { try lockedHint() == true }
        _ = try d.poll("SELECT count(*) FROM event WHERE line LIKE '%\"event\":\"lock_changed\",\"locked\":true%'") { $0 == "1" }

        // Unlocked through logind (as `loginctl unlock-session c2` does).
        try logind.call("/org/freedesktop/login1", "org.freedesktop.login1.Manager", "UnlockSession", [.string("c2")])
        try Wait.until("GNOME Shell's screen shield to be down", within: 8, every: 0.1) { active() == "(false,)\n" }
        try Wait.until("GNOME Shell to tell logind it is unlocked", within: 8, every: 0.1) { try lockedHint() == false }
        #expect(try logind.calls("LockSession") == ["c2"], "seen unlocked before the daemon locked it again")

        // No time left: locked again a grace later, for real.
        try Wait.until("the daemon to lock c2 again", within: 60, every: 0.2) { try logind.calls("LockSession") == ["c2", "c2"] }
        try Wait.until("GNOME Shell's screen shield to be up again", within: 30, every: 0.2) { active() == "(true,)\n" }
        try Wait.until("GNOME Shell to tell logind it is locked again", within: 10, every: 0.1) { try lockedHint() == true }
        try d.stop()
    }
}

/// What a person sees of a sway session, asked as its child: the screen (grim, through sway's
/// wlr-screencopy), which node has the keyboard (sway's seat), and the session's swaylock.
struct SwayDesktop {
    let sway: SwaySession
    let display: String

    init(_ sway: SwaySession) throws {
        self.sway = sway
        display = try Wait.for("sway's Wayland socket") {
            (try? FileManager.default.contentsOfDirectory(atPath: sway.dir + "/run"))?.first { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") }
        }
    }

    /// sway's id of the window with this app id.
    func window(_ appID: String) throws -> Int {
        func find(_ node: [String: Any]) -> Int? {
            if node["app_id"] as? String == appID { return node["id"] as? Int }
            for key in ["nodes", "floating_nodes"] {
                for child in node[key] as? [[String: Any]] ?? [] { if let id = find(child) { return id } }
            }
            return nil
        }
        let tree = try JSONSerialization.jsonObject(with: Data(try sway.message(["-r", "-t", "get_tree"]).utf8)) as? [String: Any] ?? [:]
        return try #require(find(tree), "no window \(appID) in sway's tree")
    }

    /// The node that has the seat's keyboard (0: none of sway's windows, e.g. a lock surface).
    func keyboardFocus() throws -> Int {
        let seats = try JSONSerialization.jsonObject(with: Data(try sway.message(["-r", "-t", "get_seats"]).utf8)) as? [[String: Any]] ?? []
        return try #require(seats.first?["focus"] as? Int, "\(seats)")
    }

    enum Share: Equatable { case none, some, all }

    /// How much of the screen shows `colour`, in a screenshot grim takes as the child.
    func screen(showing colour: [UInt8]) throws -> Share {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        p.arguments = ["--reuid=\(sway.uid)", "--regid=\(sway.uid)", "--clear-groups", "/usr/bin/grim", "-t", "ppm", "-"]
        p.environment = sway.environment.merging(["WAYLAND_DISPLAY": display]) { $1 }
        p.currentDirectoryURL = URL(fileURLWithPath: sway.dir + "/home")
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let ppm = [UInt8](out.fileHandleForReading.readDataToEndOfFile())
        reap(p)
        // P6: "P6", width, height, maxval, each after white space, then one white space and the pixels.
        var fields: [String] = [], at = 0
        while fields.count < 4, at < ppm.count {
            while at < ppm.count, ppm[at] == 0x20 || (0x09...0x0d).contains(ppm[at]) { at += 1 }
            let start = at
            while at < ppm.count, !(ppm[at] == 0x20 || (0x09...0x0d).contains(ppm[at])) { at += 1 }
            fields.append(String(decoding: ppm[start..<at], as: UTF8.self))
        }
        at += 1
        guard fields.count == 4, fields[0] == "P6", fields[3] == "255", let w = Int(fields[1]), let h = Int(fields[2]), w > 0, h > 0,
              ppm.count - at == w * h * 3 else { throw FixtureFailure("grim gave no screenshot: \(fields)") }
        var matching = 0
        for pixel in stride(from: at, to: ppm.count, by: 3) where ppm[pixel] == colour[0] && ppm[pixel + 1] == colour[1] && ppm[pixel + 2] == colour[2] {
            matching += 1
        }
        return matching == 0 ? .none : matching == w * h ? .all : .some
    }

    /// The swaylock processes locking this session: the child's, in this sway (its runtime
    /// folder), each the one that went into the background (a session of its own), not its
    /// password helper.
    func lockers() -> [Int32] {
        let pids = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { Int32($0) }
        return pids.filter { pid in
            guard (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) == "swaylock\n",
                  let owner = try? FileManager.default.attributesOfItem(atPath: "/proc/\(pid)")[.ownerAccountID] as? NSNumber,
                  owner.uint32Value == sway.uid,
                  let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")"),
                  let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")   // state, ppid, pgrp, session, …
            let variables = environ.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return fields.count > 3 && fields[3] == "\(pid)" && variables.contains("XDG_RUNTIME_DIR=\(sway.dir)/run")
        }
    }
}
