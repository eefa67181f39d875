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

    /// The blind spots, in English (the status's `blind_spots`).
    public func words(engine: Engine) -> [String] {
        spots(engine: engine).map { $0.words() }
    }

    /// The blind spots, each a code and its figures (the status's `blind_spot_codes`), in the
    /// order a parent reads them. `engine`: whether a hook ever reported focus, and whether the
    /// policy credits learning without one.
    public func spots(engine: Engine) -> [BlindSpot] {
        var blind: [BlindSpot] = []
        if hooks.isEmpty {
            blind.append(BlindSpot(engine.hasFocusHook ? .hookGone : engine.policy.validation.learningNeedsFocusHook ? .noHookNoLearning : .noHookCPU))
        }
        if let rollback { blind.append(BlindSpot(.rollback, ["detail": rollback])) }
        switch notices {
        case .off: blind.append(BlindSpot(.notificationsOff))
        case .notifier(let available, let problem): if !available { blind.append(BlindSpot(.noNotifications, problem.map { ["detail": $0] } ?? [:])) }
        case .relay(let bus, let problem, let uid):
            if let problem { blind.append(BlindSpot(.relayFailed, ["detail": problem])) }
            else if !bus { blind.append(BlindSpot(.noSessionBus, ["path": "/run/user/\(uid)/bus"])) }
        }
        if let seat { blind.append(BlindSpot(.seatInput, ["detail": seat])) }
        if let r = refusedCompositor { blind.append(BlindSpot(.compositorNotBelieved, ["name": r.name, "pid": "\(r.pid)", "detail": r.why])) }
        switch logind {
        case .watching: break
        case .notWatching(let problem): blind.append(BlindSpot(.logindNotWatched, problem.map { ["detail": $0] } ?? [:]))
        case .notAsked: blind.append(BlindSpot(.logindNotAsked))
        }
        if let why = loginSessions { blind.append(BlindSpot(.loginSessionsUnknown, ["detail": why])) }
        if let h = household, !h.reachable, let since = h.unreachableSince {
            blind.append(BlindSpot(.familyOutOfReach, ["since": since, "detail": h.problem ?? "no answer"]))
        }
        return blind
    }
}
