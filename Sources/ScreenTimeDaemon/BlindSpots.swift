import ControlProtocol
import ScreenTimeCore

/// What the daemon cannot see or say for a child right now, as `status` lists it ("blind spots"):
/// a state it did not write, notices that reach nobody, no desktop hook, the seat's input missing,
/// a compositor not believed, logind not followed, the family database out of reach. The observers
/// are read by the daemon; this only words what they say, in the order a parent reads them (the
/// focused window first: without it nothing learned is credited).
public struct BlindSpots: Sendable {
    /// How notices reach the child's desktop.
    public enum Notices: Sendable, Equatable {
        /// Not asked, and why (`--no-notifications`).
        case off(String)
        /// The child's own notification service (user mode): there now or not, and why.
        case notifier(available: Bool, problem: String?)
        /// Through a relay on the child's session bus (system mode): the bus is there, and what
        /// the relay last said was wrong.
        case relay(sessionBus: Bool, problem: String?, uid: UInt32)
    }

    /// logind's view of the child's session.
    public enum Logind: Sendable, Equatable {
        case notAsked
        case watching
        case notWatching(problem: String?)
    }

    /// A rollback or a replaced state the journal's chain heads showed at start, in words.
    public var rollback: String? = nil
    public var notices: Notices
    /// The desktop hooks connected now.
    public var hooks: [String]
    /// What is missing of the seat's input (system mode).
    public var seat: String? = nil
    /// The compositor refused as not sealed, while it still runs: its name, pid and why.
    public var refusedCompositor: (name: String, pid: Int32, why: String)? = nil
    public var logind: Logind
    /// The family database, as the household link last found it.
    public var household: ControlReply.Status.Household? = nil
    /// Why the child's login sessions cannot be listed now (screen time, docs/spec/screen.md).
    public var loginSessions: String? = nil

    public init(notices: Notices, hooks: [String], logind: Logind) {
        self.notices = notices; self.hooks = hooks; self.logind = logind
    }

    /// Whether notices reach the child's desktop now.
    public var notifying: Bool {
        switch notices {
        case .off: false
        case .notifier(let available, _): available
        case .relay(let bus, let problem, _): bus && problem == nil
        }
    }

    /// The blind spots, in words. `engine`: whether a hook ever reported focus, and whether the
    /// policy credits learning without one.
    public func words(engine: Engine) -> [String] {
        var blind: [String] = []
        if hooks.isEmpty {
            blind.append(engine.hasFocusHook
                         ? "no desktop hook is connected: the focused window is only what `stctl hook event` said last"
                         : engine.policy.validation.learningNeedsFocusHook
                         ? "no desktop hook has reported the focused window: learning is not credited"
                         : "no desktop hook has reported the focused window: learning counts while the app uses the CPU")
        }
        if let rollback { blind.append("this state is not the one the daemon wrote before: \(rollback)") }
        switch notices {
        case .off(let why): blind.append(why)
        case .notifier(let available, let problem): if !available { blind.append(problem ?? "desktop notifications are off") }
        case .relay(let bus, let problem, let uid):
            if !(bus && problem == nil) { blind.append(problem ?? "no desktop session bus (/run/user/\(uid)/bus): notices go to the journal only") }
        }
        if let seat { blind.append(seat) }
        if let r = refusedCompositor {
            blind.append("\(r.name) (pid \(r.pid)) is not believed, so the focused window it reports is not taken: \(r.why) (docs/security.md says what to change)")
        }
        switch logind {
        case .watching: break
        case .notWatching(let problem): blind.append(problem ?? "logind is not watched: idle and lock come only from desktop hooks")
        case .notAsked: blind.append("logind is not asked (--no-logind): idle and lock come only from desktop hooks")
        }
        if let why = loginSessions {
            blind.append("the login sessions cannot be listed (\(why)): screen time is not counted, and no session is locked, until logind answers")
        }
        if let h = household, !h.reachable, let since = h.unreachableSince {
            blind.append("the family database has been out of reach since \(since) (\(h.problem ?? "no answer")): points are counted here and sent when it is back; redemptions wait for it")
        }
        return blind
    }
}
