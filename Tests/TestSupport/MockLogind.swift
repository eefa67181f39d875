import Foundation
import ScreenTimeLinux
import ScreenTimeSystemd
import Testing

/// A private system bus (a real dbus-daemon) with python3-dbusmock's logind template on it
/// (docs/dev/recipes.md). The mock is the one part that is not the real thing: logind itself needs
/// systemd as PID 1, which this machine does not run.
public final class MockLogind {
    private let bus: PrivateBus
    public var address: String { bus.address }
    private var mock: Process?
    private var displayManager: Process?

    public init() throws {
        bus = try PrivateBus(.system)
        try startMock()
    }

    /// (Re)starts logind's mock: a new owner of org.freedesktop.login1, with no sessions.
    public func startMock() throws {
        mock = try bus.startMock("logind", owning: "org.freedesktop.login1")
    }

    public func stopMock() {
        guard let mock else { return }
        kill(mock.processIdentifier, SIGKILL)
        reap(mock)
        self.mock = nil
    }

    deinit {
        stopMock()
        if let displayManager {
            kill(displayManager.processIdentifier, SIGKILL)
            reap(displayManager)
        }
    }

    /// GDM's manager beside logind on this system bus (python3-dbusmock, with a template of the
    /// test's: dbusmock has none for GDM, which cannot run here either). GNOME Shell locks its
    /// screen only when GDM answers its `Version` (LoginManager.canLock, 43): without it, it
    /// makes no screen shield and leaves logind's Lock unheard.
    public func addDisplayManager(version: String = "43.0") throws {
        let template = bus.dir + "/gdm.py"
        try """
            BUS_NAME = 'org.gnome.DisplayManager'
            MAIN_OBJ = '/org/gnome/DisplayManager/Manager'
            MAIN_IFACE = 'org.gnome.DisplayManager.Manager'
            SYSTEM_BUS = True

            def load(mock, parameters):
                mock.AddProperties(MAIN_IFACE, {'Version': '\(version)'})
                mock.AddMethods(MAIN_IFACE, [('RegisterSession', 'a{sv}', '', ''), ('RegisterDisplay', 'a{ss}', '', '')])
            """.write(toFile: template, atomically: true, encoding: .utf8)
        displayManager = try bus.startMock(template, owning: "org.gnome.DisplayManager")
    }

    /// Calls a method of the mock (its control interface, or logind's own).
    @discardableResult
    public func call(_ path: String, _ interface: String, _ member: String, _ args: [BusValue] = []) throws -> BusMessage {
        try Bus(.system, address: address).call("org.freedesktop.login1", path, interface, member, args)
    }

    public func addSession(_ id: String, uid: UInt32, name: String, active: Bool = true) throws {
        try call("/org/freedesktop/login1", "org.freedesktop.DBus.Mock", "AddSession",
                 [.string(id), .string("seat0"), .uint32(uid), .string(name), .bool(active)])
        try managerSignal("SessionNew", session: id)
    }

    /// Real logind says so on its manager (`SessionNew`, `SessionRemoved`); the template does not.
    private func managerSignal(_ name: String, session id: String) throws {
        try call("/org/freedesktop/login1", "org.freedesktop.DBus.Mock", "EmitSignal",
                 [.string("org.freedesktop.login1.Manager"), .string(name), .string("so"),
                  .array(element: "v", [.variant(.string(id)), .variant(.objectPath("/org/freedesktop/login1/session/\(id)"))])])
    }

    /// logind's GetSessionByPID, which the template lacks, answering `id` for every pid.
    public func answerSessionByPID(_ id: String) throws {
        try call("/org/freedesktop/login1", "org.freedesktop.DBus.Mock", "AddMethod",
                 [.string("org.freedesktop.login1.Manager"), .string("GetSessionByPID"), .string("u"), .string("o"),
                  .string("ret = dbus.ObjectPath('/org/freedesktop/login1/session/\(id)')")])
    }

    /// What the template lacks for a desktop's own screen locker (swayidle, GNOME Shell), which
    /// real logind does:
    /// - `LockSession`/`UnlockSession` (and `LockSessions`/`UnlockSessions`, for every session)
    ///   send the `Lock`/`Unlock` signal on the session's object, which its locker listens to
    ///   (the template's only log the call). An unknown session is refused as logind refuses it.
    /// - `GetSession("auto")` (and `"self"`) answers `session`: real logind answers the caller's
    ///   own session, and swayidle asks for "auto" (the template answers a path named "auto").
    /// The calls are still recorded (`calls`). Not the default: other tests count lock signals.
    public func actAsLogindForLockers(session: String) throws {
        for (member, signal) in [("LockSession", "Lock"), ("UnlockSession", "Unlock")] {
            try addManagerMethod(member, in: "s", out: "", """
                path = '/org/freedesktop/login1/session/' + args[0]
                if path not in objects:
                    raise dbus.exceptions.DBusException('No session "%s" known' % args[0], name='org.freedesktop.login1.NoSuchSession')
                objects[path].EmitSignal('org.freedesktop.login1.Session', '\(signal)', '', [])
                """)
            try addManagerMethod(member + "s", in: "", out: "", """
                for path in [p for p in objects if p.startswith('/org/freedesktop/login1/session/')]:
                    objects[path].EmitSignal('org.freedesktop.login1.Session', '\(signal)', '', [])
                """)
        }
        try addManagerMethod("GetSession", in: "s", out: "o",
                             "ret = dbus.ObjectPath('/org/freedesktop/login1/session/' + ('\(session)' if args[0] in ('auto', 'self') else args[0]))")
    }

    /// A method of logind's manager, added to the mock (or put in place of the template's): dbusmock
    /// runs `code` (Python: `args`, `objects`, `ret`).
    private func addManagerMethod(_ member: String, in inSignature: String, out outSignature: String, _ code: String) throws {
        try call("/org/freedesktop/login1", "org.freedesktop.DBus.Mock", "AddMethod",
                 [.string("org.freedesktop.login1.Manager"), .string(member), .string(inSignature), .string(outSignature), .string(code)])
    }

    /// The sessions logind's manager was asked to act on by `member` (`LockSession`,
    /// `TerminateSession`), oldest first, as dbusmock recorded the calls.
    public func calls(_ member: String) throws -> [String] {
        let reply = try call("/org/freedesktop/login1", "org.freedesktop.DBus.Mock", "GetMethodCalls", [.string(member)])
        return (reply.arguments.first?.elements ?? []).compactMap { $0.elements.last?.elements.first?.string }
    }

    /// A session's lock as a desktop's screen locker tells logind (`SetLockedHint`).
    public func lockedHint(_ id: String, _ locked: Bool) throws {
        try call("/org/freedesktop/login1/session/\(id)", "org.freedesktop.login1.Session", "SetLockedHint", [.bool(locked)])
    }

    /// The session is gone, as after logind ended it (the template has no call for it: its object
    /// is removed, and `ListSessions` no longer lists it).
    public func removeSession(_ id: String) throws {
        try call("/org/freedesktop/login1", "org.freedesktop.DBus.Mock", "RemoveObject", [.objectPath("/org/freedesktop/login1/session/\(id)")])
        try managerSignal("SessionRemoved", session: id)
    }

    public func setSession(_ id: String, _ properties: [String: BusValue]) throws {
        try call("/org/freedesktop/login1/session/\(id)", "org.freedesktop.DBus.Mock", "UpdateProperties",
                 [.string("org.freedesktop.login1.Session"),
                  .array(element: "{sv}", properties.sorted { $0.key < $1.key }.map { .dictEntry(.string($0.key), .variant($0.value)) })])
    }

    public func emit(on path: String, _ interface: String, _ member: String, _ signature: String, _ args: [BusValue]) throws {
        try call(path, "org.freedesktop.DBus.Mock", "EmitSignal",
                 [.string(interface), .string(member), .string(signature), .array(element: "v", args.map { .variant($0) })])
    }

    /// A signal sent by someone who is not logind (as any process on the bus could).
    public func forge(_ path: String, _ member: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-send")
        p.arguments = ["--bus=\(address)", "--type=signal", path, "org.freedesktop.login1.Session.\(member)"]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
    }
}

