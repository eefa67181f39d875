/// One of a user's logind sessions, as system mode needs it to start the desktop hook itself.
public struct LoginSession: Sendable, Equatable {
    public var id: String
    /// "x11", "wayland", "tty", …
    public var type: String
    /// The X display (":0"), for an X11 session.
    public var display: String
    /// The session's leader process (its environment has the session's XAUTHORITY, usually).
    public var leader: Int32
    /// "online", "active" or "closing".
    public var state: String
    public var remote: Bool
    /// The seat it is on ("seat0"; empty: none, as a remote or a background session).
    public var seat: String = ""

    /// The session a person at `seat`'s keyboard and pointer is using: active there, local.
    public func holds(seat name: String) -> Bool { seat == name && state == "active" && !remote }

    /// A local X11 session that is not ending: one the daemon runs the X11 hook for.
    public var wantsX11Hook: Bool { type == "x11" && !display.isEmpty && state != "closing" && !remote }
    /// A local Wayland session that is not ending: the daemon runs the sway hook for it when it is sway's.
    public var isLocalWayland: Bool { type == "wayland" && state != "closing" && !remote }
}

/// logind's manager and sessions, asked over a bus: shared by `LogindObserver` (the one session it
/// follows) and `LoginSessions` (all of a child's, in system mode).
extension Bus {
    static let login1 = "org.freedesktop.login1"
    static let loginSessionInterface = "org.freedesktop.login1.Session"

    /// The sessions of `uid` (`ListSessions`): their ids and object paths.
    func loginSessions(of uid: UInt32) throws(BusError) -> [(id: String, path: String)] {
        let list = try call(Self.login1, "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "ListSessions")
        return (list.arguments.first?.elements ?? []).compactMap { s in
            let f = s.elements
            guard f.count == 5, f[1].uint32 == uid, let id = f[0].string, let path = f[4].string else { return nil }
            return (id, path)
        }
    }

    /// A session's properties, variants unwrapped.
    func loginSessionProperties(_ path: String) throws(BusError) -> [String: BusValue] {
        try call(Self.login1, path, "org.freedesktop.DBus.Properties", "GetAll", [.string(Self.loginSessionInterface)])
            .arguments.first?.dictionary ?? [:]
    }
}

/// Asks logind (`ListSessions`, then each session's properties) which sessions a user has.
public final class LoginSessions {
    private let address: String?
    private var bus: Bus?

    /// `address`: the system bus (default: `DBUS_SYSTEM_BUS_ADDRESS`, else the standard socket).
    public init(address: String? = nil) { self.address = address }

    /// The sessions of `uid` now; throws when logind cannot be asked (then the next call connects again).
    public func sessions(of uid: UInt32) throws(BusError) -> [LoginSession] {
        do {
            if bus == nil { bus = try Bus(.system, address: address) }
            let bus = bus!
            return try bus.loginSessions(of: uid).map { s throws(BusError) in
                let p = try bus.loginSessionProperties(s.path)
                return LoginSession(id: s.id, type: p["Type"]?.string ?? "", display: p["Display"]?.string ?? "",
                                    leader: Int32(bitPattern: p["Leader"]?.uint32 ?? 0), state: p["State"]?.string ?? "",
                                    remote: p["Remote"]?.bool ?? false, seat: p["Seat"]?.elements.first?.string ?? "")
            }.sorted { $0.id < $1.id }
        } catch {
            bus = nil
            throw error
        }
    }

    /// Asks logind to lock a session (`LockSession`: the session's screen locker locks it) or end
    /// it (`TerminateSession`: its processes are killed). Throws when logind refuses or cannot be asked.
    public func lock(session id: String) throws(BusError) { try manager("LockSession", session: id) }
    public func terminate(session id: String) throws(BusError) { try manager("TerminateSession", session: id) }

    private func manager(_ member: String, session id: String) throws(BusError) {
        do {
            if bus == nil { bus = try Bus(.system, address: address) }
            _ = try bus!.call(Bus.login1, "/org/freedesktop/login1", "org.freedesktop.login1.Manager", member, [.string(id)])
        } catch {
            bus = nil
            throw error
        }
    }
}
