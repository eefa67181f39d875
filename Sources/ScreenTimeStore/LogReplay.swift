import Foundation
import ScreenTimeCore
import ScreenTimePolicy

/// The stored event log replayed under the stored policies, one event at a time, from a starting
/// point: the first event, where retention moved the log's start to, or a checkpoint. Start-up,
/// `check` and retention all replay through this, so they agree by construction.
public struct LogReplay {
    public enum Start {
        case firstEvent
        case base(Store.LogBase)
        case checkpoint(eventSeq: Int64, policySeq: Int64, state: Data)
    }

    public private(set) var engine: Engine
    /// The text of the policy in force, and its row.
    public private(set) var policyText: String
    public private(set) var policySeq: Int64
    /// The last event applied (or the one the start stands for; 0 before the first).
    public private(set) var eventSeq: Int64
    /// The ledger entries written since the start.
    public private(set) var ledger: [LedgerEntry] = []
    public private(set) var sessions = 0
    /// Told every effect as it comes (`stctl simulate` gathers them).
    public var observer: (([Effect]) -> Void)? = nil
    /// False: the stored policies recorded later are not adopted (a simulation keeps its own).
    public var followsStoredPolicies = true

    private let policies: [(seq: Int64, fromEvent: Int64, text: String)]
    private let path: String
    private var next: Int
    private var effects: [Effect] = []

    /// Nil when no policy is stored yet (a new, empty state).
    public init?(store: Store, start: Start) throws {
        let policies = try store.policies()
        guard !policies.isEmpty else { return nil }
        self.policies = policies
        path = store.path
        // A checkpoint of an older format is passed over (the log is replayed instead); the state
        // standing for removed events cannot be, so an older one is read as it is (its layout only grew).
        func decode(_ state: Data, what: String, older: Bool = false) throws -> Engine.Checkpoint {
            guard let c = try? JSONDecoder().decode(Engine.Checkpoint.self, from: state),
                  c.format == Engine.Checkpoint.currentFormat || (older && c.format < Engine.Checkpoint.currentFormat) else {
                throw StoreError(description: "\(store.path): \(what) cannot be read by this version of screentime")
            }
            return c
        }
        func index(of seq: Int64) throws -> Int {
            guard let k = policies.firstIndex(where: { $0.seq == seq }) else {
                throw StoreError(description: "\(store.path): policy \(seq) is missing (deleted?)")
            }
            return k
        }
        switch start {
        case .firstEvent:
            engine = Engine(policy: try LogReplay.parse(policies[0], path))
            next = 1
            eventSeq = 0
        case .base(let base):
            let k = try index(of: base.policySeq)
            engine = Engine(policy: try LogReplay.parse(policies[k], path),
                            checkpoint: try decode(base.state, what: "the state standing for the removed events (log_base)", older: true))
            next = k + 1
            eventSeq = base.eventSeq
        case .checkpoint(let seq, let policySeq, let state):
            let k = try index(of: policySeq)
            engine = Engine(policy: try LogReplay.parse(policies[k], path), checkpoint: try decode(state, what: "checkpoint \(seq)"))
            next = k + 1
            eventSeq = seq
        }
        policyText = policies[next - 1].text
        policySeq = policies[next - 1].seq
    }

    private static func parse(_ p: (seq: Int64, fromEvent: Int64, text: String), _ path: String) throws -> Policy {
        try PolicyLoader.parse(p.text, file: "\(path) (policy \(p.seq))")
    }

    /// A stored event line, read.
    public func decode(seq: Int64, line: String) throws -> Event {
        do { return try EventLog.decode(line: line) } catch {
            throw StoreError(description: "\(path): stored event \(seq) cannot be read: \(error.reason)")
        }
    }

    /// Applies event `seq`, after adopting the policies recorded before it.
    public mutating func apply(seq: Int64, event: Event) throws {
        try adopt(upTo: seq)
        engine.apply(event, into: &effects)
        eventSeq = seq
        collect()
    }

    /// Adopts the policies recorded after the last event.
    public mutating func adoptRemaining() throws { try adopt(upTo: .max) }

    /// Replaces the policy from here on (a simulation); the stored ones after are not adopted.
    public mutating func substitute(_ policy: Policy, text: String) {
        followsStoredPolicies = false
        engine.adopt(policy, into: &effects)
        policyText = text
        collect()
    }

    /// Judges what is open at the last event (as `screentimed replay` does at its end).
    public mutating func finish() {
        engine.finish(into: &effects)
        collect()
    }

    private mutating func adopt(upTo seq: Int64) throws {
        while followsStoredPolicies, next < policies.count, policies[next].fromEvent <= seq {
            engine.adopt(try LogReplay.parse(policies[next], path), into: &effects)
            policyText = policies[next].text
            policySeq = policies[next].seq
            next += 1
        }
        collect()
    }

    private mutating func collect() {
        if let observer, !effects.isEmpty { observer(effects) }
        for e in effects {
            switch e {
            case .ledger(let l): ledger.append(l)
            case .sessionClosed: sessions += 1
            default: break
            }
        }
        effects.removeAll(keepingCapacity: true)
    }
}
