import ScreenTimeCore

/// When a child's daemon speaks to the family database (`[household]`, docs/household.md), and
/// what it makes of the answers' timing: a background turn every second (this computer's ledger
/// entries out, the others' in), one request in flight at a time, a lease of game time when the
/// engine wants one, the link started again when it is gone, and the database out of reach when
/// it does not answer. The link itself (a process speaking PostgreSQL) is the daemon's; this is
/// given the monotonic time and what happened, and says what to do next.
public struct HouseholdTurns: Sendable {
    /// A background turn every second: what this machine wrote goes out, what others wrote comes in.
    public static let turnEvery = Seconds.of(1)
    /// A request not answered in this long means the link is stuck (it answers within 4 s).
    public static let silence = Seconds.of(10)
    /// After the link is gone, it is started again this much later; a start that failed, later still.
    public static let restartAfter = Seconds.of(5)
    public static let retryStartAfter = Seconds.of(10)
    /// A lease not granted (no answer, an error) is asked again this much later.
    public static let leaseRetryAfter = Seconds.of(5)

    /// The background request in flight: its id; for a send, the last local entry in it; when it
    /// was sent; for a read, the day of the game time it shared.
    public struct Flight: Sendable, Equatable {
        public var id: Int64
        public var sendingThrough: Int64?
        public var since: Microseconds
        public var appDay: Int64?
        public init(id: Int64, sendingThrough: Int64?, since: Microseconds, appDay: Int64?) {
            self.id = id; self.sendingThrough = sendingThrough; self.since = since; self.appDay = appDay
        }
    }

    /// The lease of game time asked for and not answered yet.
    public struct LeaseFlight: Sendable, Equatable {
        public var id: Int64
        public var day: Int64
        public var since: Microseconds
        /// Screen time, not game time.
        public var screen = false
    }

    public private(set) var inFlight: Flight? = nil
    public private(set) var leaseInFlight: LeaseFlight? = nil
    /// When a lease may be asked for again; the next background turn; when a gone link is started again.
    public private(set) var nextLease: Microseconds = 0
    public private(set) var nextTurn: Microseconds = 0
    public private(set) var nextStart: Microseconds = 0
    /// Since when the family database has not answered (wall clock), and why; nil while it answers.
    public private(set) var unreachableSince: Microseconds? = nil
    public private(set) var problem: String? = nil
    /// The family database has answered once since the daemon started.
    public private(set) var answered = false
    /// What the other computers played of the limited apps and groups, as last told to the engine.
    public private(set) var othersShared: (day: Int64, shared: [SharedAppTime])? = nil

    public init() {}

    /// Whether the database answers now, for `status`.
    public var reachable: Bool { answered && unreachableSince == nil }

    /// When the household next needs a turn (monotonic). `linkRunning`: a link is there;
    /// `leaseWanted`: the engine wants game time from the family.
    public func due(linkRunning: Bool, leaseWanted: Bool) -> Microseconds {
        guard linkRunning else { return nextStart }
        var due = inFlight == nil ? nextTurn : .max
        if leaseInFlight == nil, leaseWanted { due = min(due, nextLease) }
        return due
    }

    // MARK: The link

    /// The link is gone: nothing in flight will be answered; it is started again a little later.
    public mutating func linkGone(now: Microseconds) {
        inFlight = nil
        leaseInFlight = nil
        nextStart = now + Self.restartAfter
    }

    /// Whether to start the link now (none running); if so, the next try is later should it fail.
    public mutating func startLink(now: Microseconds) -> Bool {
        guard now >= nextStart else { return false }
        nextStart = now + Self.retryStartAfter
        return true
    }

    /// The link started: a turn at once.
    public mutating func linkStarted(now: Microseconds) { nextTurn = now }

    /// Requests not answered for longer than `silence`: given up (a late answer is not taken);
    /// returns why the database is out of reach, one reason for each.
    public mutating func silences(now: Microseconds) -> [String] {
        var why: [String] = []
        if let flight = inFlight, now - flight.since > Self.silence {
            inFlight = nil
            why.append("the household link has not answered for \(Self.silence / Seconds.micro) s")
        }
        if let lease = leaseInFlight, now - lease.since > Self.silence {
            leaseInFlight = nil
            nextLease = now + Self.leaseRetryAfter
            why.append("the household link has not answered a lease for \(Self.silence / Seconds.micro) s")
        }
        return why
    }

    // MARK: Asking

    /// Whether a lease may be asked for now (one at a time, not before `nextLease`).
    public func mayAskLease(now: Microseconds) -> Bool { leaseInFlight == nil && now >= nextLease }

    public mutating func leaseAsked(id: Int64, day: Int64, screen: Bool = false, now: Microseconds) {
        leaseInFlight = LeaseFlight(id: id, day: day, since: now, screen: screen)
    }

    /// Whether a background turn is due now (nothing in flight); if so, the next one is a second on.
    public mutating func takeTurn(now: Microseconds) -> Bool {
        guard inFlight == nil, now >= nextTurn else { return false }
        nextTurn = now + Self.turnEvery
        return true
    }

    /// This turn sends this computer's entries up to `through`.
    public mutating func sending(id: Int64, through: Int64, now: Microseconds) {
        inFlight = Flight(id: id, sendingThrough: through, since: now, appDay: nil)
    }

    /// This turn reads the others' entries, sharing the game time of `appDay` (nil: none shared).
    public mutating func reading(id: Int64, appDay: Int64?, now: Microseconds) {
        inFlight = Flight(id: id, sendingThrough: nil, since: now, appDay: appDay)
    }

    /// What a parent did goes to the family ledger at once: the next turn now.
    public mutating func turnNow() { nextTurn = 0 }

    // MARK: Answers

    /// What an answer with `id` answers.
    public enum Answered: Sendable, Equatable {
        /// The lease asked for on `day` (of screen time, or of game time).
        case lease(day: Int64, screen: Bool)
        /// The background request in flight.
        case flight(Flight)
        /// Nothing in flight: a late answer, not taken.
        case nothing
    }

    /// Matches an answer to what is in flight, which it answers (nothing is in flight after it).
    public mutating func answer(id: Int64) -> Answered {
        if let lease = leaseInFlight, lease.id == id {
            leaseInFlight = nil
            return .lease(day: lease.day, screen: lease.screen)
        }
        if let flight = inFlight, flight.id == id {
            inFlight = nil
            return .flight(flight)
        }
        return .nothing
    }

    /// A lease answered with an error or not understood: asked again a little later.
    public mutating func leaseFailed(now: Microseconds) { nextLease = now + Self.leaseRetryAfter }

    /// What to say when the database answers.
    public enum Reached: Sendable, Equatable {
        /// It answers again, after not answering since then (wall clock).
        case again(since: Microseconds)
        /// It answers for the first time since the daemon started.
        case first
    }

    /// The database answered; what to say of it (nil: nothing new).
    public mutating func reached() -> Reached? {
        let news: Reached? = unreachableSince.map { .again(since: $0) } ?? (answered ? nil : .first)
        unreachableSince = nil
        problem = nil
        answered = true
        return news
    }

    /// The database did not answer, or answered an error (`why`), at wall time `wall`: whether it
    /// just went out of reach (said once; status tells the latest reason).
    public mutating func unreachable(_ why: String, wall: Microseconds) -> Bool {
        problem = why
        guard unreachableSince == nil else { return false }
        unreachableSince = wall
        return true
    }

    /// The others' game time of `day`, as a read brought it: whether it is new to the engine.
    public mutating func othersPlayed(day: Int64, _ shared: [SharedAppTime]) -> Bool {
        if let before = othersShared, before.day == day, before.shared == shared { return false }
        othersShared = (day, shared)
        return true
    }
}
