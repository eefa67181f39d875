import ScreenTimeCore

/// What a child's own side may say about their session, and what the daemon makes of it
/// (docs/security.md, "A child's claim may only ever cost the child"). In system mode a hook event
/// from one of the child's own processes can only make accounting stricter: an idleness, a lock
/// they claim (which refuses learning and never stops game time), each bounded per day; focus and
/// input from their side are believed only from the session's compositor proven sealed; input is
/// counted only from trusted sources. In user mode the child's daemon is the child's, and
/// everything is taken as said.
///
/// The state here is the idleness the child's side claimed, which only trusted input ends, and
/// the day's allowance of claims. The caller does the I/O: it reads the compositor's facts (the
/// `compositor` closure) and logs what is decided.
public struct ChildClaims: Sendable {
    /// System mode (the daemon is root's); false: user mode, where nothing here applies.
    public let system: Bool
    /// The idleness in force is one the child's own side said (a hook of theirs, or their logind
    /// session's idle hint, which they may set themselves). Believed, since it can only cost them,
    /// until input from a trusted source shows someone at the keys.
    public private(set) var idleClaimedByChild = false
    /// Idle since the daemon started, until the first trusted input (system mode).
    public private(set) var idleUntilInput = false
    /// What the child's own requests and claims may still add to the state today.
    public var quota = ChildQuota()

    public init(system: Bool) { self.system = system }

    /// Why an idleness ends at trusted input.
    public enum IdleEnd: Sendable, Equatable {
        /// The child's own side had said idle.
        case claimed
        /// Nobody had shown input since the daemon started.
        case sinceStart
    }

    /// Who sent a hook event: the peer's uid and pid (from the kernel), and the hook it names.
    public struct Sender: Sendable, Equatable {
        public var uid: UInt32
        public var pid: Int32
        public var hook: String?
        public init(uid: UInt32, pid: Int32, hook: String?) { self.uid = uid; self.pid = pid; self.hook = hook }
        /// Root: a hook the daemon runs, or root itself.
        var isRoot: Bool { uid == 0 }
    }

    /// What to do with a hook event.
    public enum Verdict: Sendable, Equatable {
        /// Take `kind` (possibly rewritten: a lock from the child's side is their claim); when
        /// `endingIdle` is set, an `idle_changed` of `idle: false` goes before it.
        case take(Event.Kind, endingIdle: IdleEnd?)
        /// A repeat of what the child's side said already: answered, nothing kept.
        case alreadySaid
        /// Input that is not counted in system mode (from a hook of root's other than the X11
        /// one, or from the believed compositor): answered, not kept. `source` in words.
        case notCounted(source: String)
        /// Refused, in the sender's words.
        case refused(String)
    }

    /// System mode, at the start: idle until trusted input shows someone at the keys. Returns
    /// whether to log `idle_changed` (idle) now.
    public mutating func startIdle() -> Bool {
        guard system else { return false }
        idleUntilInput = true
        return true
    }

    /// logind's idle hint for the child's session: what to log of it (nil: nothing). In system
    /// mode the hint is the child's desktop's word (their side may set it): a claim, which may
    /// start an idleness (learning is refused; screen time goes on), and only trusted input ends it.
    public mutating func logindIdle(_ kind: Event.Kind) -> Event.Kind? {
        guard system, case .idleChanged(let idle, let since, _) = kind else { return kind }
        guard idle else { return nil }
        idleClaimedByChild = true
        return .idleChanged(idle: true, since: since, claimed: true)
    }

    /// Input from a trusted source (the seat's devices, a hook of root's, a compositor proven
    /// sealed): whether an idleness the child's side claimed ends before it (system mode).
    public mutating func trustedInput() -> IdleEnd? {
        guard system, idleClaimedByChild || idleUntilInput else { return nil }
        let why: IdleEnd = idleClaimedByChild ? .claimed : .sinceStart
        idleClaimedByChild = false
        idleUntilInput = false
        return why
    }

    /// Judges a hook event from `sender` (already known to be the child or root). `lockClaimed`:
    /// the lock the child's side claims now (the engine's); `today`: the start of the engine's
    /// day, for the quota; `compositorPID`: the compositor believed now, if any; `compositor`:
    /// asked only for focus or input from the child's own process, says why it is not believed
    /// (nil: believed).
    public mutating func judge(_ kind: Event.Kind, from sender: Sender, lockClaimed: Bool, today: Microseconds,
                               compositorPID: Int32?, compositor: () -> String?) -> Verdict {
        guard system else { return .take(kind, endingIdle: nil) }
        var kind = kind
        if !sender.isRoot {
            // A lock said by the child's own side is their claim. It refuses learning credit, and
            // game time goes on (else a "locked" claim would freeze it); they may take back their
            // own claim. Logind's lock is what stops game time.
            if case .lockChanged(let locked, _) = kind { kind = .lockChanged(locked: locked, claimed: true) }
            // So is an idleness: it refuses learning, and screen time goes on (docs/spec/screen.md).
            if case .idleChanged(true, let since, _) = kind { kind = .idleChanged(idle: true, since: since, claimed: true) }
            if kind.onlyStricter {
                // A repeat changes nothing: answered, not kept again; what their side may add to
                // the state in a day is bounded.
                switch kind {
                case .idleChanged(idle: true, _, _) where idleClaimedByChild: return .alreadySaid
                case .lockChanged(let locked, _) where lockClaimed == locked: return .alreadySaid
                default: break
                }
                guard quota.take(.claim, onDay: today) else { return .refused(ChildQuota.refusal(.claim).words()) }
            }
        }
        // Input is counted from the seat's own keyboards and pointers and from the X11 hook of
        // root's, which leaves XTEST out; not from a compositor, which counts software input too
        // (a remote-desktop session, a virtual keyboard).
        let uncounted = kind.isInput && !(sender.isRoot && (sender.hook == nil || sender.hook == "x11"))
        let source = sender.isRoot ? "the \(sender.hook ?? "") hook" : "the session's compositor"
        if uncounted, sender.isRoot || compositorPID == sender.pid { return .notCounted(source: source) }
        if !sender.isRoot, !kind.onlyStricter, let why = compositor() { return .refused(why) }
        if uncounted { return .notCounted(source: source) }
        // Past here, input is from a trusted source: it ends an idleness the child's side claimed;
        // an idleness their side says is theirs.
        if case .idleChanged(let idle, _, _) = kind {
            idleClaimedByChild = idle && !sender.isRoot
            if !idle { idleUntilInput = false }
        }
        return .take(kind, endingIdle: kind.isInputCount ? trustedInput() : nil)
    }
}

extension Event.Kind {
    /// Input, or the end of an idleness: what says a person is at the keys.
    public var isInput: Bool {
        switch self {
        case .input, .idleChanged(idle: false, _, _): true
        default: false
        }
    }

    /// Input events alone (what ends a claimed idleness; an `idle_changed` of false ends it itself).
    var isInputCount: Bool {
        if case .input = self { true } else { false }
    }

    /// What can only make accounting stricter: the child going idle; a lock the child claims, or
    /// takes back (it refuses learning only, never stops game time). Anything else a hook says
    /// (focus, input, back from idle) can credit time.
    public var onlyStricter: Bool {
        switch self {
        case .idleChanged(idle: true, _, _), .lockChanged(_, claimed: true): true
        default: false
        }
    }
}
