import Foundation
import ScreenTimeCore
import ScreenTimePolicy

/// The engine and the store of one child, kept in step: every event is appended to the log before
/// it is applied, and what it caused is saved in the same transaction. Start-up rebuilds the
/// engine by replaying the stored log under the stored policies — the same path `check` and
/// `replay` take.
public struct LiveState {
    public private(set) var engine: Engine
    public let store: Store
    private var batch = Store.Batch()
    private var effects: [Effect] = []
    /// The policy text in force, as stored.
    public private(set) var policyText: String
    /// How far the family ledger has this state's entries, and this state the family's
    /// (docs/household.md): saved with the next flush, in the same transaction as the events.
    public var householdMarks = Store.HouseholdMarks() {
        didSet { batch.household = householdMarks }
    }

    /// What a replay of the stored log produced: the engine as it stands, and the ledger it wrote.
    public struct Rebuilt {
        public var engine: Engine
        public var policyText: String
        /// The ledger entries the replay wrote, which follow the first `ledgerBefore` stored ones.
        public var ledger: [LedgerEntry]
        public var events: Int
        /// Where the stored log begins when retention removed its oldest part.
        public var base: Store.LogBase?
        /// The ledger before the first replayed event: its length and balance (0 from the start;
        /// nil from a checkpoint, which does not record it).
        public var ledgerBefore: Int64?
        public var balanceBefore: Int64
        /// From the start: the newest stored checkpoint was (true) or was not (false) what the
        /// replay reached at that event; nil when there is none to compare.
        public var checkpointConfirmed: Bool?
    }

    /// Replays the stored log under the stored policies: from the newest checkpoint (start-up), or
    /// from where the log begins (`check`, which then also compares the checkpoint). Nil when
    /// nothing is stored yet.
    public static func rebuild(from store: Store, fromCheckpoint: Bool) throws -> Rebuilt? {
        let base = try store.logBase()
        let checkpoint = try store.latestCheckpoint()
        var replay: LogReplay? = nil
        var ledgerBefore: Int64? = base?.ledgerSeq ?? 0
        if fromCheckpoint, let cp = checkpoint, cp.eventSeq > base?.eventSeq ?? 0 {
            // A checkpoint this version cannot read is passed over: the log is replayed instead.
            replay = try? LogReplay(store: store, start: .checkpoint(eventSeq: cp.eventSeq, policySeq: cp.policySeq, state: cp.state))
            if replay != nil { ledgerBefore = nil }
        }
        if replay == nil {
            replay = try LogReplay(store: store, start: base.map { .base($0) } ?? .firstEvent)
        }
        guard var replay else { return nil }
        let balanceBefore = replay.engine.ledger.balance
        var confirmed: Bool? = nil
        let events = try store.events(after: replay.eventSeq)
        for (seq, line) in events {
            try replay.apply(seq: seq, event: try replay.decode(seq: seq, line: line))
            if !fromCheckpoint, let cp = checkpoint, cp.eventSeq == seq, replay.policySeq == cp.policySeq {
                confirmed = replay.engine.checkpointData == cp.state
            }
        }
        try replay.adoptRemaining()
        return Rebuilt(engine: replay.engine, policyText: replay.policyText, ledger: replay.ledger, events: events.count,
                       base: base, ledgerBefore: ledgerBefore, balanceBefore: balanceBefore, checkpointConfirmed: confirmed)
    }

    /// Opens a child's state, replaying what is stored; `policyText` becomes the policy in force
    /// (recorded only when it differs from the stored one).
    public init(store: Store, policyText: String, policyFile: String) throws {
        self.store = store
        let policy = try PolicyLoader.parse(policyText, file: policyFile)
        if var rebuilt = try LiveState.rebuild(from: store, fromCheckpoint: true) {
            if rebuilt.policyText != policyText {
                rebuilt.engine.adopt(policy, into: &effects)
                batch.policy = policyText
            }
            engine = rebuilt.engine
        } else {
            engine = Engine(policy: policy)
            batch.policy = policyText
        }
        self.policyText = policyText
        householdMarks = try store.householdMarks()
        batch.household = nil
        collect()
    }

    /// Logs an event and applies it; returns what the shell must act on or tell (warnings, stops,
    /// sessions, ledger entries, …; `dayEnded` only goes to the store). Saved with the next `flush`.
    @discardableResult
    public mutating func ingest(_ event: Event) -> [Effect] {
        batch.events.append(EventLog.encode(event))
        engine.apply(event, into: &effects)
        return collect()
    }

    /// Logs an event, applies it and saves it at once (redemptions, adjustments): when it cannot
    /// be saved, it is undone — the engine and the unsaved batch are as before — and the error
    /// thrown, so that nothing is granted that is not on disk.
    /// `answering`: the parent request it carries out, saved in the same transaction (made from
    /// what the event caused and the engine after it).
    @discardableResult
    public mutating func ingestSaved(_ event: Event, answering: (([Effect], Engine) -> Store.AnsweredRequest)? = nil) throws -> [Effect] {
        let (engineBefore, batchBefore) = (engine, batch)
        let actions = ingest(event)
        if let answering { batch.answered.append(answering(actions, engine)) }
        do { try flush() } catch {
            (engine, batch) = (engineBefore, batchBefore)
            throw error
        }
        return actions
    }

    /// A new policy from now on (recorded with the events it rules); returns what the shell must
    /// act on (a game allowed no longer is stopped at once).
    @discardableResult
    public mutating func adopt(policyText text: String, file: String) throws -> [Effect] {
        try flush()
        engine.adopt(try PolicyLoader.parse(text, file: file), into: &effects)
        batch.policy = text
        policyText = text
        let actions = collect()
        try flush()
        return actions
    }

    /// A checkpoint is saved with every this many events, and when the daemon stops.
    public static let checkpointEvery = 10_000
    private var eventsSinceCheckpoint = 0

    /// Saves everything not yet saved, in one transaction; with a checkpoint when it is time, or
    /// when `checkpoint` asks for one.
    public mutating func flush(checkpoint: Bool = false) throws {
        let count = batch.events.count
        if checkpoint || eventsSinceCheckpoint + count >= LiveState.checkpointEvery {
            batch.checkpoint = engine.checkpointData
        }
        if let head = try store.commit(batch) { onChainHead?(head.seq, head.hash) }
        eventsSinceCheckpoint = batch.checkpoint == nil ? eventsSinceCheckpoint + count : 0
        batch = Store.Batch()
    }

    public var unsavedEvents: Int { batch.events.count }
    /// The event lines not saved yet (a simulation reads them after the stored ones).
    public var unsavedEventLines: [String] { batch.events }

    /// Told the ledger's new chain head (entry number, hash) after each save that added entries:
    /// the daemon logs it where the child cannot take it back (the journal), so that a state
    /// restored from an older copy shows.
    public var onChainHead: (@Sendable (Int64, String) -> Void)?

    /// Ledger entries from a wall time on: saved, and not saved yet.
    public func ledger(from start: Microseconds) throws -> [LedgerEntry] {
        try store.ledger().map(\.entry).filter { $0.at >= start } + batch.ledger.filter { $0.at >= start }
    }

    /// Sessions that started between two wall times: saved, and not saved yet.
    public func sessions(from start: Microseconds, to end: Microseconds) throws -> [SessionRecord] {
        try store.sessions(from: start, to: end) + batch.sessions.filter { $0.start >= start && $0.start < end }
    }

    /// Points earned by learning between two wall times: saved, and not saved yet.
    public func pointsEarned(from start: Microseconds, to end: Microseconds) throws -> Int64 {
        try store.pointsEarned(from: start, to: end)
            + batch.ledger.lazy.filter { $0.kind == .earned && $0.at >= start && $0.at < end }.reduce(0) { $0 + $1.points }
    }

    /// Reward time used on each day that began between two wall times and is over (by its start):
    /// saved, and not saved yet. The day in progress is the engine's to tell.
    public func rewardUsed(from start: Microseconds, to end: Microseconds) throws -> [Microseconds: Microseconds] {
        var used = try store.rewardUsed(from: start, to: end)
        for d in batch.days where d.start >= start && d.start < end { used[d.start] = d.rewardUsed }
        return used
    }

    /// Screen time on each day that began between two wall times and is over: saved, and not saved yet.
    public func screenUsed(from start: Microseconds, to end: Microseconds) throws -> [Microseconds: ScreenDayTotals] {
        var used = try store.screenUsed(from: start, to: end)
        for d in batch.days where d.start >= start && d.start < end { if let s = d.screen { used[d.start] = s } }
        return used
    }

    /// Moves what is to be saved into the batch; returns the rest.
    @discardableResult
    private mutating func collect() -> [Effect] {
        var actions: [Effect] = []
        for e in effects {
            switch e {
            case .ledger(let l):
                batch.ledger.append(l)
                actions.append(e)    // the journal tells redemptions and adjustments
            case .sessionClosed(let s):
                batch.sessions.append(s)
                actions.append(e)    // the child hears of it (points earned, time not counted)
            case .dayEnded(let d): batch.days.append(d)
            case .warn, .stop, .resume, .refused, .clockJumped, .clockFault, .request, .chore, .gamesStopped, .lockSession, .endSession, .siteStop: actions.append(e)
            }
        }
        effects.removeAll(keepingCapacity: true)
        return actions
    }
}
