import Glibc
import ScreenTimeLinux
import ScreenTimeCore

/// Follows the watched user's logind session on the system bus and turns it into engine events:
/// `idle_changed` from `IdleHint`/`IdleSinceHint`, `lock_changed` from `LockedHint`, the
/// `Lock`/`Unlock` signals and `Active` (a session switched away from counts as locked). Also
/// reports `PrepareForSleep`, so the daemon can save before the machine sleeps.
///
/// Only messages whose sender is logind's current owner are believed: any process may emit a
/// signal on the system bus, and a child must not be able to fake "unlocked" or "not idle".
/// Without a system bus or logind it says why (`problem`) and tries again; a logind restart is
/// followed (`NameOwnerChanged`).
public final class LogindObserver {
    /// What the daemon should know besides events.
    public enum Notice: Equatable, Sendable {
        case watching(session: String)
        case lost(String)
        case preparingForSleep(Bool)
    }

    public let uid: UInt32
    private let address: String?
    private var bus: Bus?
    private var owner: String?
    private var session: String?
    private var retryAt: Microseconds = 0
    private var rereadSession = false
    /// The session's state as last reported to the engine.
    private var idle = false
    private var lockedHint = false
    private var lockSignal: Bool? = nil
    private var active = true
    private var reportedLocked = false
    private var pending: [Event.Kind] = []
    private var notices: [Notice] = []
    /// logind said a session began or ended (`SessionNew`, `SessionRemoved`), or was (re)connected:
    /// the user's sessions should be listed again (`takeSessionsChanged`).
    private var sessionsChanged = true
    /// Why logind is not watched right now; nil while it is.
    public private(set) var problem: String? = "logind has not been asked yet"

    private static let login1 = Bus.login1
    private static let sessionInterface = Bus.loginSessionInterface

    /// `address`: a bus address instead of the system bus (tests).
    public init(uid: UInt32, address: String? = nil) {
        self.uid = uid
        self.address = address
    }

    /// True while a session of the user is followed.
    public var watching: Bool { session != nil }
    public var descriptor: Int32? { bus?.descriptor }
    public var wantsWrite: Bool { bus?.wantsWrite ?? false }
    /// When `update` should run again even if nothing arrives (monotonic µs).
    public var nextRetry: Microseconds? { session == nil ? retryAt : nil }

    /// Handles what arrived on the bus, connects and looks for the session when it is time; adds
    /// the events to log and returns what else happened.
    public func update(now: Microseconds, into kinds: inout [Event.Kind]) -> [Notice] {
        if bus == nil, now >= retryAt { connect(now: now) }
        if let bus {
            do { try bus.process() } catch {
                drop("lost the system bus (\(error)); trying again", retryAt: now + 5 * Seconds.micro)
            }
        }
        if bus != nil, owner != nil, session == nil, now >= retryAt { findSession(now: now) }
        if rereadSession, let session {
            rereadSession = false
            readSession(session, now: now)
        }
        kinds.append(contentsOf: pending)
        pending.removeAll()
        defer { notices.removeAll() }
        return notices
    }

    private func drop(_ why: String, retryAt: Microseconds) {
        bus = nil
        owner = nil
        if session != nil || problem != why { notices.append(.lost(why)) }
        session = nil
        problem = why
        self.retryAt = retryAt
    }

    private func connect(now: Microseconds) {
        let bus: Bus
        do { bus = try Bus(.system, address: address) } catch {
            drop("no system bus (\(error.description)): idle and lock come only from desktop hooks", retryAt: now + 30 * Seconds.micro)
            return
        }
        do {
            try bus.onMessages(matching: "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(Self.login1)'") { [unowned self] m in
                let args = m.arguments.compactMap(\.string)
                guard m.sender == "org.freedesktop.DBus", args.count == 3 else { return }
                ownerChanged(to: args[2].isEmpty ? nil : args[2])
            }
            try bus.onMessages(matching: "type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',arg0='\(Self.sessionInterface)'") { [unowned self] m in
                guard trusted(m), m.path == session, m.arguments.count >= 2 else { return }
                apply(m.arguments[1].dictionary)
                if m.arguments.count >= 3, !m.arguments[2].elements.isEmpty { rereadSession = true }
            }
            try bus.onMessages(matching: "type='signal',interface='\(Self.sessionInterface)'") { [unowned self] m in
                guard trusted(m), m.path == session else { return }
                switch m.member {
                case "Lock": lockSignal = true
                case "Unlock": lockSignal = false
                default: return
                }
                reportLock()
            }
            for member in ["SessionNew", "SessionRemoved"] {
                try bus.onMessages(matching: "type='signal',interface='org.freedesktop.login1.Manager',member='\(member)'") { [unowned self] m in
                    guard trusted(m) else { return }
                    sessionsChanged = true
                    // No session followed yet: look for it now, not at the next retry (up to 10 s
                    // later, in which its lock or idle would go unheard).
                    if session == nil { retryAt = 0 }
                }
            }
            try bus.onMessages(matching: "type='signal',interface='org.freedesktop.login1.Manager',member='PrepareForSleep'") { [unowned self] m in
                guard trusted(m), let sleeping = m.arguments.first?.bool else { return }
                notices.append(.preparingForSleep(sleeping))
            }
            let reply = try bus.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner", [.string(Self.login1)])
            self.bus = bus
            owner = reply.arguments.first?.string
        } catch {
            self.bus = bus
            owner = nil
            problem = "logind is not running on the system bus: idle and lock come only from desktop hooks"
            retryAt = now + 30 * Seconds.micro
        }
    }

    private func trusted(_ m: BusMessage) -> Bool { owner != nil && m.sender == owner }

    /// Whether sessions began or ended since the last call (the list of them is then asked for again).
    public func takeSessionsChanged() -> Bool {
        defer { sessionsChanged = false }
        return sessionsChanged
    }

    /// logind's signals reach this observer (a bus, and logind on it).
    public var hearsSignals: Bool { bus != nil && owner != nil }

    private func ownerChanged(to newOwner: String?) {
        owner = newOwner
        sessionsChanged = true
        if session != nil { notices.append(.lost(newOwner == nil ? "logind stopped" : "logind restarted")) }
        session = nil
        lockSignal = nil
        problem = newOwner == nil ? "logind stopped: idle and lock come only from desktop hooks" : "logind restarted; looking for the session again"
        retryAt = 0
    }

    /// The user's session: the daemon's own (`GetSessionByPID`) when it is the user's, else the
    /// best of `ListSessions` — active first, then graphical.
    private func findSession(now: Microseconds) {
        guard let bus else { return }
        var candidates: [String] = []
        if let own = try? bus.call(Self.login1, "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "GetSessionByPID",
                                   [.uint32(UInt32(getpid()))]).arguments.first?.string {
            candidates.append(own)
        }
        for s in (try? bus.loginSessions(of: uid)) ?? [] where !candidates.contains(s.path) { candidates.append(s.path) }
        var best: (path: String, properties: [String: BusValue], score: Int)? = nil
        for path in candidates {
            guard let props = try? properties(of: path), props["User"]?.elements.first?.uint32 == uid else { continue }
            let graphical = ["x11", "wayland", "mir"].contains(props["Type"]?.string ?? "")
            let score = (props["Active"]?.bool == true ? 2 : 0) + (graphical ? 1 : 0)
            if best == nil || score > best!.score { best = (path, props, score) }
        }
        guard let best else {
            problem = "no logind session of uid \(uid) yet; looking again every 10 s"
            retryAt = now + 10 * Seconds.micro
            return
        }
        session = best.path
        problem = nil
        notices.append(.watching(session: best.path))
        apply(best.properties)
    }

    private func properties(of path: String) throws(BusError) -> [String: BusValue] {
        guard let bus else { throw BusError("no bus") }
        return try bus.loginSessionProperties(path)
    }

    private func readSession(_ path: String, now: Microseconds) {
        do { apply(try properties(of: path)) } catch {
            notices.append(.lost("cannot read the session (\(error.description))"))
            session = nil
            retryAt = now + Seconds.micro
        }
    }

    /// Takes the session's properties (all, or those that changed) and reports what differs.
    private func apply(_ p: [String: BusValue]) {
        if let i = p["IdleHint"]?.bool, i != idle {
            idle = i
            let since = p["IdleSinceHint"]?.uint64.flatMap { $0 > 0 ? WallTime(micros: Int64($0)) : nil }
            pending.append(.idleChanged(idle: i, since: i ? since : nil))
        }
        if let l = p["LockedHint"]?.bool, l != lockedHint {
            lockedHint = l
            lockSignal = nil   // the hint, once it moves, is the truth again
        }
        if let a = p["Active"]?.bool { active = a }
        reportLock()
    }

    private func reportLock() {
        let locked = (lockSignal ?? lockedHint) || !active
        guard locked != reportedLocked else { return }
        reportedLocked = locked
        pending.append(.lockChanged(locked: locked))
    }
}
