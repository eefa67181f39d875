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

    /// What a replay of the stored log produced: the engine as it stands, and the ledger it wrote.
    public struct Rebuilt {
        public var engine: Engine
        public var policyText: String
        public var ledger: [LedgerEntry]
        public var events: Int
        /// From the start: the newest stored checkpoint was (true) or was not (false) what the
        /// replay reached at that event; nil when there is none.
        public var checkpointConfirmed: Bool?
    }

    /// Replays the stored log under the stored policies: from the newest checkpoint (start-up), or
    /// from the first event (`check`, which then also compares the checkpoint). Nil when nothing
    /// is stored yet.
    public static func rebuild(from store: Store, fromCheckpoint: Bool) throws -> Rebuilt? {
        let policies = try store.policies()
        guard !policies.isEmpty else { return nil }
        func policy(_ k: Int) throws -> Policy {
            try PolicyLoader.parse(policies[k].text, file: "\(store.path) (policy \(policies[k].seq))")
        }
        let checkpoint = try store.latestCheckpoint()
        var engine = Engine(policy: try policy(0))
        var next = 1
        var after: Int64 = 0
        var confirmed: Bool? = nil
        if fromCheckpoint, let cp = checkpoint, let k = policies.firstIndex(where: { $0.seq == cp.policySeq }),
           let state = try? JSONDecoder().decode(Engine.Checkpoint.self, from: cp.state), state.format == Engine.Checkpoint.currentFormat {
            engine = Engine(policy: try policy(k), checkpoint: state)
            next = k + 1
            after = cp.eventSeq
        }
        var effects: [Effect] = []
        var text = policies[next - 1].text
        let events = try store.events(after: after)
        for (seq, line) in events {
            while next < policies.count, policies[next].fromEvent <= seq {
                text = policies[next].text
                engine.adopt(try policy(next), into: &effects)
                next += 1
            }
            do { engine.apply(try EventLog.decode(line: line), into: &effects) } catch {
                throw StoreError(description: "\(store.path): stored event \(seq) cannot be read: \(error.reason)")
            }
            if !fromCheckpoint, let cp = checkpoint, cp.eventSeq == seq, policies[next - 1].seq == cp.policySeq {
                confirmed = engine.checkpointData == cp.state
            }
        }
        while next < policies.count {
            text = policies[next].text
            engine.adopt(try policy(next), into: &effects)
            next += 1
        }
        let ledger = effects.compactMap { if case .ledger(let l) = $0 { return l } else { return nil } }
        return Rebuilt(engine: engine, policyText: text, ledger: ledger, events: events.count, checkpointConfirmed: confirmed)
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
        collect()
    }

    /// Logs an event and applies it; returns what the shell must act on (warnings, stops, …).
    /// Redemptions, adjustments and a (re)start are saved at once.
    @discardableResult
    public mutating func ingest(_ event: Event) throws -> [Effect] {
        batch.events.append(EventLog.encode(event))
        engine.apply(event, into: &effects)
        let actions = collect()
        switch event.kind {
        case .redeem, .adjust, .daemonStarted: try flush()
        default: break
        }
        return actions
    }

    /// A new policy from now on (recorded with the events it rules).
    public mutating func adopt(policyText text: String, file: String) throws {
        try flush()
        engine.adopt(try PolicyLoader.parse(text, file: file), into: &effects)
        batch.policy = text
        policyText = text
        collect()
        try flush()
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
        try store.commit(batch)
        eventsSinceCheckpoint = batch.checkpoint == nil ? eventsSinceCheckpoint + count : 0
        batch = Store.Batch()
    }

    public var unsavedEvents: Int { batch.events.count }

    /// Moves what is to be saved into the batch; returns the rest.
    @discardableResult
    private mutating func collect() -> [Effect] {
        var actions: [Effect] = []
        for e in effects {
            switch e {
            case .ledger(let l): batch.ledger.append(l)
            case .sessionClosed(let s): batch.sessions.append(s)
            case .warn, .stop, .resume, .refused, .clockJumped: actions.append(e)
            }
        }
        effects.removeAll(keepingCapacity: true)
        return actions
    }
}
