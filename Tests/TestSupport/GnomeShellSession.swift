import Foundation
import ScreenTimeLinux
import Testing

/// A real GNOME Shell (Debian's gnome-shell 43), headless on Wayland, as a test child in a session
/// bus of its own, with the screentime extension enabled and real foot windows
/// (docs/dev/recipes.md). logind is python3-dbusmock's (`MockLogind`): the one part that is not
/// the real thing, since logind needs systemd as PID 1.
///
/// The shell also runs a small test-only extension, the *driver*, written here: it hides the
/// overview at start (where new windows get no focus) and activates a window by its title, as a
/// person clicking on it would (the screentime extension itself offers no method that changes
/// windows). Input comes from Mutter's own idle monitor: with `MUTTER_DEBUG_RESET_IDLETIME=1`,
/// its `ResetIdletime` D-Bus method counts as input, exactly as a key press resets the idle time.
public final class GnomeShellSession {
    public let uid: UInt32
    public let dir: String
    public let logind: MockLogind
    /// The shell's session bus.
    public private(set) var sessionBus = ""
    /// dbus-run-session, which runs the shell.
    private var shell: Int32 = 0
    public static let extensionUUID = "screentime@screentime"

    /// `packed`: the extension as tools/pack-gnome-extension made it (the folder named by its
    /// uuid). `systemWide`: install it in a folder of root's on the shell's `XDG_DATA_DIRS` (as
    /// `make install` does) rather than in the child's home. `socket`: SCREENTIME_SOCKET, the
    /// daemon the extension talks to (nil: found as in real use). `idleDelay`: GNOME's
    /// `idle-delay`, in seconds (0: never idle). `logind`: the mock logind to add the session to
    /// (one the daemon asks too; nil: one of its own). `dataFoldersFirst`: folders put first on
    /// the shell's `XDG_DATA_DIRS`.
    public init(uid: UInt32, packed: String, systemWide: Bool = false, socket: String? = nil, idleDelay: Int = 0,
                environment extra: [String: String] = [:], logind given: MockLogind? = nil, dataFoldersFirst: [String] = []) throws {
        self.uid = uid
        let fm = FileManager.default
        dir = fm.temporaryDirectory.appendingPathComponent("screentime-gnome-\(UUID().uuidString)").path
        let home = dir + "/home", run = dir + "/run", share = dir + "/share"
        let userExtensions = home + "/.local/share/gnome-shell/extensions"
        try fm.createDirectory(atPath: userExtensions, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try fm.createDirectory(atPath: run, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try fm.createDirectory(atPath: share + "/gnome-shell/extensions", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir)
        try fm.copyItem(atPath: packed, toPath: (systemWide ? share + "/gnome-shell/extensions/" : userExtensions + "/") + Self.extensionUUID)
        try Self.writeDriver(into: userExtensions + "/driver@screentime-test")
        try """
            #!/bin/sh
            gsettings set org.gnome.shell disable-user-extensions false
            gsettings set org.gnome.shell enabled-extensions "['\(Self.extensionUUID)', 'driver@screentime-test']"
            gsettings set org.gnome.desktop.session idle-delay \(idleDelay)
            # systemd's user manager on the bus before the shell asks it (the shell's question does
            # not start a service: the answer must be there already; writeSessionBus says why).
            gdbus call --session --timeout 120 --dest org.freedesktop.systemd1 --object-path /org/freedesktop/systemd1 \\
              --method org.freedesktop.systemd1.Manager.GetUnit org.freedesktop.IBus.session.GNOME.service >/dev/null || exit 1
            echo "$DBUS_SESSION_BUS_ADDRESS" > \(run)/session-bus.tmp && mv \(run)/session-bus.tmp \(run)/session-bus
            exec gnome-shell --headless --wayland --virtual-monitor 1024x768 --no-x11
            """.write(toFile: dir + "/shell.sh", atomically: true, encoding: .utf8)
        try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir + "/shell.sh")
        for path in [home, home + "/.local", home + "/.local/share", home + "/.local/share/gnome-shell", userExtensions, run] {
            try fm.setAttributes([.ownerAccountID: uid, .groupOwnerAccountID: uid], ofItemAtPath: path)
        }
        _ = try? fm.subpathsOfDirectory(atPath: userExtensions).map {
            try fm.setAttributes([.ownerAccountID: uid, .groupOwnerAccountID: uid], ofItemAtPath: userExtensions + "/" + $0)
        }

        logind = try given ?? MockLogind()
        try logind.addSession("c2", uid: uid, name: UserAccount.name(of: uid) ?? "uid\(uid)")

        var environment = ["PATH": "/usr/bin:/bin", "HOME": home, "XDG_RUNTIME_DIR": run, "XDG_SESSION_ID": "c2",
                           "DBUS_SYSTEM_BUS_ADDRESS": logind.address, "MUTTER_DEBUG_RESET_IDLETIME": "1"]
        if let socket { environment["SCREENTIME_SOCKET"] = socket }
        if systemWide || !dataFoldersFirst.isEmpty { environment["XDG_DATA_DIRS"] = (dataFoldersFirst + [share, "/usr/share"]).joined(separator: ":") }
        environment.merge(extra) { $1 }
        try Self.writeSessionBus(into: dir)
        _ = fm.createFile(atPath: dir + "/shell.log", contents: nil)
        // Through Spawn: every signal at its default and none blocked. The test runner blocks most
        // signals in its threads, and Foundation's Process passes that on: a session bus started
        // so never hears its activated services end, and hangs.
        // In the child's home: the test runner's folder (the clone) may be one the child cannot enter.
        shell = try Spawn.start("/bin/sh", ["-c", "cd \(home) && exec \"$0\" \"$@\" >\(dir)/shell.log 2>&1", "/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)",
                                           "--clear-groups", "/usr/bin/dbus-run-session", "--config-file=\(dir)/session.conf", "--", dir + "/shell.sh"], environment: environment)
        // Ready when the screentime extension runs (state 1: enabled) and the driver answers.
        // 240 s at most: each look makes two bus calls, slow on a loaded machine (300 looks 100 ms
        // apart, before #37).
        var ready = false
        Wait.whether(within: 240, every: 0.1) {
            if sessionBus.isEmpty, let address = try? String(contentsOfFile: run + "/session-bus", encoding: .utf8) {
                sessionBus = address.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            ready = !sessionBus.isEmpty
                && call("org.gnome.Shell", "/org/gnome/Shell", "org.gnome.Shell.Extensions.GetExtensionInfo", [Self.extensionUUID]).contains("'state': <1.0>")
                && call("org.gnome.Shell", "/org/screentime/TestDriver", "org.screentime.TestDriver.Ready").contains("true")
            if !ready, Spawn.ended(shell) != nil { shell = 0; return true }   // the shell ended: no use waiting
            return ready
        }
        if ready { return }
        // What it got to, for a run that fails under load: the bus, the extension's state, the driver.
        let reached = sessionBus.isEmpty ? "no session bus was written"
            : "the extension: \(call("org.gnome.Shell", "/org/gnome/Shell", "org.gnome.Shell.Extensions.GetExtensionInfo", [Self.extensionUUID]).prefix(300)); "
              + "the test driver: \(call("org.gnome.Shell", "/org/screentime/TestDriver", "org.screentime.TestDriver.Ready").prefix(200))"
        let ended = shell == 0 ? "the shell ended" : "the shell still ran after 240 s"
        let tail = (try? String(contentsOfFile: dir + "/shell.log", encoding: .utf8))?.suffix(3000) ?? ""
        stop()
        throw FixtureFailure("GNOME Shell did not start with the extension enabled (\(ended); \(reached)):\n\(tail)")
    }

    /// The shell's session bus: Debian's session.conf and its session services, but for systemd's
    /// user manager, which answers as in a GNOME session that systemd runs (here none does): IBus
    /// is its unit (org.freedesktop.IBus.session.GNOME.service), so the shell leaves ibus-daemon
    /// to it (shell.sh starts it before the shell: the shell's question of it starts no service).
    /// Otherwise GNOME Shell 43 starts ibus-daemon itself with GLib.spawn_async and a child setup
    /// written in JavaScript, which runs in the forked child: when another of the shell's threads
    /// held GObject's type lock at the fork, the child waits for it for good, and the shell with
    /// it, reading the child's exec report (seen here under load: the shell's main thread in
    /// g_spawn_async from ibusManager.js, its child in g_type_get_qdata; two CI runs lost the lock
    /// test to it, one seen as the Screencast service's activation timing out meanwhile).
    static func writeSessionBus(into dir: String) throws {
        let fm = FileManager.default
        let installed = "/usr/share/dbus-1/services", ours = dir + "/services"
        try fm.createDirectory(atPath: ours, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        for name in try fm.contentsOfDirectory(atPath: installed) where name.hasSuffix(".service") && name != "org.freedesktop.systemd1.service" {
            try fm.copyItem(atPath: installed + "/" + name, toPath: ours + "/" + name)
        }
        try """
            #!/usr/bin/python3
            # systemd's user manager, as much as GNOME Shell asks of it: whether a unit exists (GetUnit).
            from gi.repository import Gio, GLib
            NODE = Gio.DBusNodeInfo.new_for_xml('<node><interface name="org.freedesktop.systemd1.Manager"><method name="GetUnit">'
                                                '<arg type="s" direction="in"/><arg type="o" direction="out"/></method></interface></node>')
            UNITS = {"org.freedesktop.IBus.session.GNOME.service": "/org/freedesktop/systemd1/unit/ibus"}
            def call(connection, sender, path, interface, method, parameters, invocation):
                name = parameters.unpack()[0]
                if name in UNITS:
                    invocation.return_value(GLib.Variant("(o)", (UNITS[name],)))
                else:
                    invocation.return_dbus_error("org.freedesktop.systemd1.NoSuchUnit", "Unit " + name + " not loaded.")
            def connected(connection, name):
                connection.register_object("/org/freedesktop/systemd1", NODE.interfaces[0], call, None, None)
            loop = GLib.MainLoop()
            Gio.bus_own_name(Gio.BusType.SESSION, "org.freedesktop.systemd1", Gio.BusNameOwnerFlags.NONE, connected, None, lambda *_: loop.quit())
            loop.run()
            """.write(toFile: dir + "/systemd-user.py", atomically: true, encoding: .utf8)
        try "[D-BUS Service]\nName=org.freedesktop.systemd1\nExec=/usr/bin/python3 \(dir)/systemd-user.py\n"
            .write(toFile: ours + "/org.freedesktop.systemd1.service", atomically: true, encoding: .utf8)
        let debian = try String(contentsOfFile: "/usr/share/dbus-1/session.conf", encoding: .utf8)
        guard debian.contains("<standard_session_servicedirs />") else {
            throw FixtureFailure("/usr/share/dbus-1/session.conf has no <standard_session_servicedirs />: the test's session bus needs another way to name its services")
        }
        try debian.replacingOccurrences(of: "<standard_session_servicedirs />", with: "<servicedir>\(ours)</servicedir>")
            .write(toFile: dir + "/session.conf", atomically: true, encoding: .utf8)
    }

    deinit { stop() }

    /// Every process of the test child's (the shell, its session bus, its windows); then the folder.
    /// SIGKILL: the test runner's children may have inherited SIGTERM ignored.
    public func stop() {
        Self.killAll(uid: uid)
        Wait.whether(within: 2, every: 0.01) { shell <= 0 || Spawn.ended(shell) != nil }
        shell = 0
        Self.killAll(uid: uid)
        try? FileManager.default.removeItem(atPath: dir)
    }

    public static func killAll(uid: UInt32) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/pkill")
        p.arguments = ["-KILL", "-U", "\(uid)"]
        try? p.run()
        reap(p)
    }

    /// The environment of a program of the child's in this session.
    public var environment: [String: String] {
        ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": dir + "/home", "XDG_RUNTIME_DIR": dir + "/run", "WAYLAND_DISPLAY": "wayland-0",
         "DBUS_SESSION_BUS_ADDRESS": sessionBus]
    }

    /// Runs a program as the child in this session; its standard output.
    @discardableResult
    public func run(_ path: String, _ arguments: [String]) -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        p.arguments = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", path] + arguments
        p.environment = environment
        p.currentDirectoryURL = URL(fileURLWithPath: dir + "/home")
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return "" }
        let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        reap(p)
        return out
    }

    /// A D-Bus method call on the shell's session bus, as the child (gdbus); its printed answer.
    @discardableResult
    public func call(_ destination: String, _ path: String, _ method: String, _ arguments: [String] = []) -> String {
        run("/usr/bin/gdbus", ["call", "--session", "--timeout", "10", "--dest", destination, "--object-path", path, "--method", method] + arguments)
    }

    /// A property of the extension's indicator (/org/screentime/Indicator), as gdbus prints it.
    public func indicator(_ property: String) -> String {
        call("org.gnome.Shell", "/org/screentime/Indicator", "org.freedesktop.DBus.Properties.Get", ["org.screentime.Indicator", property])
    }

    /// A foot terminal of the child's with this app id and title; returns once it has the focus (as
    /// a new window gets it).
    public func foot(appID: String, title: String) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        p.arguments = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "/usr/bin/foot", "-a", appID, "-T", title, "sleep", "600"]
        p.environment = environment
        p.currentDirectoryURL = URL(fileURLWithPath: dir + "/home")
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        // A new window takes the focus once it is mapped: wait for that, so that it does not
        // take it later from a window the test activates.
        // 60 s at most: each look is a bus call (300 looks 50 ms apart, before #37).
        guard Wait.whether(within: 60, every: 0.05, {
            call("org.gnome.Shell", "/org/screentime/TestDriver", "org.screentime.TestDriver.Focused") == "('\(title)',)\n"
        }) else { throw FixtureFailure("the foot window \(title) did not appear") }
        return p
    }

    /// Activates the window with this title, as a click on it would; returns the wall clock (µs)
    /// just before the shell switched.
    public func activate(_ title: String) throws -> Int64 {
        let out = call("org.gnome.Shell", "/org/screentime/TestDriver", "org.screentime.TestDriver.Activate", [title])
        // gdbus prints "(int64 1795…,)": the number is the last word (the type's "64" is not part of it).
        guard let t = out.split(separator: " ").last.flatMap({ Int64($0.filter(\.isNumber)) }), t > 0 else { throw FixtureFailure("no window \(title) to activate: \(out)") }
        return t
    }

    /// The screentime menu: opened; its items' labels (" [off]" after one that cannot be
    /// clicked), as gdbus prints them; an item clicked by its label (false: there is none to
    /// click); a field (by its hint) typed into; a notification's button pressed.
    @discardableResult
    public func openMenu() -> Bool { call("org.gnome.Shell", "/org/screentime/TestDriver", "org.screentime.TestDriver.OpenMenu").contains("true") }
    public func menuItems() -> String { call("org.gnome.Shell", "/org/screentime/TestDriver", "org.screentime.TestDriver.MenuItems") }
    public func click(_ label: String) -> Bool {
        call("org.gnome.Shell", "/org/screentime/TestDriver", "org.screentime.TestDriver.Click", [label]).contains("true")
    }
    public func type(into hint: String, _ text: String) -> Bool {
        call("org.gnome.Shell", "/org/screentime/TestDriver", "org.screentime.TestDriver.Type", [hint, text]).contains("true")
    }
    public func press(notification title: String, button: String) -> Bool {
        call("org.gnome.Shell", "/org/screentime/TestDriver", "org.screentime.TestDriver.Press", [title, button]).contains("true")
    }

    /// The notifications the shell has shown ("title: body"), as gdbus prints them.
    public func notificationsShown() -> String {
        call("org.gnome.Shell", "/org/screentime/TestDriver", "org.screentime.TestDriver.Shown")
    }

    /// Input through Mutter's remote-desktop interface (what GNOME's remote desktop and other
    /// programs of the child's may use), for `seconds`: a session of
    /// org.gnome.Mutter.RemoteDesktop, started, moving the pointer and pressing a key every 0.3 s.
    /// Returns Mutter's idle time (ms) just after, which says whether Mutter took it as input.
    public func remoteDesktopInput(seconds: Double) -> Int {
        let script = """
            import dbus, time
            bus = dbus.SessionBus()
            rd = bus.get_object('org.gnome.Mutter.RemoteDesktop', '/org/gnome/Mutter/RemoteDesktop')
            path = rd.CreateSession(dbus_interface='org.gnome.Mutter.RemoteDesktop')
            s = dbus.Interface(bus.get_object('org.gnome.Mutter.RemoteDesktop', path), 'org.gnome.Mutter.RemoteDesktop.Session')
            s.Start()
            end = time.monotonic() + \(seconds)
            k = 0
            while time.monotonic() < end:
                k += 1
                s.NotifyPointerMotionRelative(float(k % 7 - 3), float(k % 5 - 2))
                s.NotifyKeyboardKeycode(dbus.UInt32(30 + k % 5), True)
                s.NotifyKeyboardKeycode(dbus.UInt32(30 + k % 5), False)
                time.sleep(0.3)
            idle = dbus.Interface(bus.get_object('org.gnome.Mutter.IdleMonitor', '/org/gnome/Mutter/IdleMonitor/Core'), 'org.gnome.Mutter.IdleMonitor')
            print(int(idle.GetIdletime()))
            s.Stop()
            """
        return Int(run("/usr/bin/python3", ["-c", script]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// Input, as Mutter counts it: its idle time starts again from zero.
    public func input() {
        call("org.gnome.Mutter.IdleMonitor", "/org/gnome/Mutter/IdleMonitor/Core", "org.gnome.Mutter.IdleMonitor.ResetIdletime")
    }

    /// The test-only driver extension (GNOME 43's legacy form).
    private static func writeDriver(into folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try #"{"uuid": "driver@screentime-test", "name": "screentime test driver", "description": "test only", "shell-version": ["43", "44"]}"#
            .write(toFile: folder + "/metadata.json", atomically: true, encoding: .utf8)
        try """
            'use strict';
            // Test only: what a person does with the mouse. Not shipped.
            const {Gio, St} = imports.gi;
            const Main = imports.ui.main;
            const PopupMenu = imports.ui.popupMenu;
            const XML = `<node><interface name="org.screentime.TestDriver">
              <method name="Ready"><arg type="b" direction="out"/></method>
              <method name="Activate"><arg type="s" direction="in"/><arg type="x" direction="out"/></method>
              <method name="Shown"><arg type="as" direction="out"/></method>
              <method name="Focused"><arg type="s" direction="out"/></method>
              <method name="OpenMenu"><arg type="b" direction="out"/></method>
              <method name="MenuItems"><arg type="as" direction="out"/></method>
              <method name="Click"><arg type="s" direction="in"/><arg type="b" direction="out"/></method>
              <method name="Type"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="b" direction="out"/></method>
              <method name="Press"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="b" direction="out"/></method>
            </interface></node>`;
            // The titles of the notifications shown, as a person saw them; the notifications
            // themselves, for their buttons.
            const shown = [];
            const notes = [];
            // The screentime extension's top-bar menu, and every item in it a person could reach
            // (the submenus' too), with its label.
            const menu = () => Main.panel.statusArea.screentime.menu;
            const items = () => {
                const out = [];
                const walk = m => m._getMenuItems().forEach(i => {
                    if (i instanceof PopupMenu.PopupMenuSection) { walk(i); return; }
                    out.push(i);
                    if (i instanceof PopupMenu.PopupSubMenuMenuItem) walk(i.menu);
                });
                walk(menu());
                return out.filter(i => i.visible);
            };
            const label = i => (i.label ? i.label.text : '');
            const entry = (actor, hint) => {
                if (actor instanceof St.Entry && actor.hint_text === hint) return actor;
                for (const c of actor.get_children()) { const e = entry(c, hint); if (e) return e; }
                return null;
            };
            const byTitle = title => global.get_window_actors().map(a => a.meta_window).find(w => w.get_title() === title);
            let ready = false;
            const driver = {
                Ready() { return ready; },
                Shown() { return shown; },
                Focused() { const w = global.display.focus_window; return w ? w.get_title() : ''; },
                // What a person does with the pointer: opens the menu; clicks an item (a submenu's
                // opens, an item is activated); types into a field (by its hint); presses a
                // notification's button (by its title and the button's label).
                OpenMenu() { menu().open(false); return menu().isOpen; },
                MenuItems() { return items().map(i => label(i) + (i.reactive ? '' : ' [off]')); },
                Click(text) {
                    const i = items().find(x => label(x) === text && x.reactive);
                    if (!i) return false;
                    if (i instanceof PopupMenu.PopupSubMenuMenuItem) i.setSubmenuShown(true); else i.activate(null);
                    return true;
                },
                Type(hint, text) {
                    const e = entry(menu().box, hint);
                    if (!e) return false;
                    e.grab_key_focus();
                    e.set_text(text);
                    return true;
                },
                Press(title, button) {
                    const n = notes.slice().reverse().find(x => x.title.includes(title) && x.actions.some(a => a.label === button));
                    if (!n) return false;
                    n.actions.find(a => a.label === button).callback();
                    return true;
                },
                Activate(title) {
                    const w = byTitle(title);
                    if (!w) return -1;
                    const t = Date.now() * 1000;
                    w.activate(global.get_current_time());
                    return t;
                },
            };
            function init() {
                let object = null;
                return {
                    enable() {
                        const hide = () => { Main.overview.hide(); ready = true; };
                        if (Main.layoutManager._startingUp) Main.layoutManager.connect('startup-complete', hide); else hide();
                        Main.messageTray.connect('source-added', (tray, source) =>
                            source.connect('notification-show', (s, n) => { shown.push(`${n.title}: ${n.bannerBodyText}`); notes.push(n); }));
                        object = Gio.DBusExportedObject.wrapJSObject(XML, driver);
                        object.export(Gio.DBus.session, '/org/screentime/TestDriver');
                    },
                    disable() { object.unexport(); },
                };
            }
            """.write(toFile: folder + "/extension.js", atomically: true, encoding: .utf8)
    }
}
