import ScreenTimeWords

/// What the daemon cannot see or say for a child right now (`status`'s blind spots), as a code
/// and its figures, put in words by the reader as `Why` is (the status's `blind_spots` keeps the
/// English for readers that do not know the codes). A `detail` figure is what a part of the
/// computer said (an error of logind's, of the bus): quoted as it came, never translated.
public struct BlindSpot: Sendable, Equatable, Codable {
    public var code: Code
    public var figures: [String: String]

    public init(_ code: Code, _ figures: [String: String] = [:]) {
        self.code = code
        self.figures = figures
    }

    /// On the wire: `{"code": …, "figures": {…}}`, the figures left out when there are none.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(code, forKey: .code)
        if !figures.isEmpty { try c.encode(figures, forKey: .figures) }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        code = Code(rawValue: try c.decode(String.self, forKey: .code)) ?? .unknown
        figures = try c.decodeIfPresent([String: String].self, forKey: .figures) ?? [:]
    }

    private enum Keys: String, CodingKey { case code, figures }

    public enum Code: String, Sendable, CaseIterable, Codable {
        /// No desktop hook connected, but one said what was focused before.
        case hookGone = "hook_gone"
        /// No desktop hook has said what is focused, and learning needs one.
        case noHookNoLearning = "no_hook_no_learning"
        /// No desktop hook has said what is focused; learning counts by the CPU.
        case noHookCPU = "no_hook_cpu"
        /// The state is not the one the daemon wrote (`detail`: how it differs).
        case rollback
        /// Notifications off by the daemon's options.
        case notificationsOff = "notifications_off"
        /// No notification service answers (`detail`: what was wrong, when known).
        case noNotifications = "no_notifications"
        /// System mode: the child's session bus is not there (`path`).
        case noSessionBus = "no_session_bus"
        /// System mode: the relay on the child's session bus failed (`detail`).
        case relayFailed = "relay_failed"
        /// System mode: the seat's input is not read (`detail`: why), so input does not count.
        case seatInput = "seat_input"
        /// A compositor not believed (`name`, `pid`, `detail`: why).
        case compositorNotBelieved = "compositor_not_believed"
        /// logind is not followed (`detail`, when known).
        case logindNotWatched = "logind_not_watched"
        /// logind is not asked (--no-logind).
        case logindNotAsked = "logind_not_asked"
        /// The login sessions cannot be listed (`detail`).
        case loginSessionsUnknown = "login_sessions_unknown"
        /// The family database is out of reach (`since`, `detail`).
        case familyOutOfReach = "family_out_of_reach"
        /// A code this reader does not know (a newer daemon's): the reader says the English of
        /// `blind_spots` instead of them all.
        case unknown
    }

    /// In the words of `tr` (English unless given). What a part of the computer said (`detail`)
    /// is a whole sentence in English, said as it is there; in another language it is quoted
    /// after a sentence of the reader's.
    public func words(_ tr: Translator = .english) -> String {
        let f = figures
        let detail = f["detail"], english = tr.language == nil
        switch code {
        case .hookGone: return tr("no desktop hook is connected: the focused window is only what `stctl hook event` said last", f)
        case .noHookNoLearning: return tr("no desktop hook has reported the focused window: learning is not credited", f)
        case .noHookCPU: return tr("no desktop hook has reported the focused window: learning counts while the app uses the CPU", f)
        case .rollback: return tr("this state is not the one the daemon wrote before: {detail}", f)
        case .notificationsOff: return tr("desktop notifications are off (--no-notifications)", f)
        case .noNotifications:
            guard let detail else { return tr("desktop notifications are off", f) }
            return english ? detail : tr("desktop notifications do not reach the desktop: {detail}", f)
        case .noSessionBus: return tr("no desktop session bus ({path}): notices go to the journal only", f)
        case .relayFailed: return english ? detail ?? "" : tr("desktop notifications do not reach the desktop: {detail}", f)
        case .seatInput: return english ? detail ?? "" : tr("input at the keyboard is not counted, so learning earns nothing: {detail}", f)
        case .compositorNotBelieved:
            return tr("{name} (pid {pid}) is not believed, so the focused window it reports is not taken: {detail} (docs/security.md says what to change)", f)
        case .logindNotWatched:
            guard let detail else { return tr("logind is not watched: idle and lock come only from desktop hooks", f) }
            return english ? detail : tr("logind is not watched ({detail}): idle and lock come only from desktop hooks", f)
        case .logindNotAsked: return tr("logind is not asked (--no-logind): idle and lock come only from desktop hooks", f)
        case .loginSessionsUnknown: return tr("the login sessions cannot be listed ({detail}): screen time is not counted, and no session is locked, until logind answers", f)
        case .familyOutOfReach:
            return tr("the family database has been out of reach since {since} ({detail}): points are counted here and sent when it is back; redemptions wait for it", f)
        case .unknown: return ""
        }
    }
}
