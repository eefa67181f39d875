import Foundation
import ScreenTimeCore

/// `screentimed check`'s verdict on a child's state: SQLite's own integrity check, the ledger's
/// hash chain and balances, and that replaying the event log gives exactly the stored ledger (and
/// the newest checkpoint). Only reads.
public struct StateAudit {
    public struct Summary: Sendable, Equatable {
        public var events: Int
        public var ledgerEntries: Int
        public var balance: Int64
        /// Where the log begins when retention removed its oldest part.
        public var base: Store.LogBase?
    }

    /// The first problem found, said so that it names the entry.
    public struct Problem: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// A stored time further than this after now cannot be true (nor a machine's clock that far behind).
    public static let futureSlack: Microseconds = 366 * 86_400 * Seconds.micro

    /// Nil summary: nothing stored yet. `now`: the kernel's wall clock, to find stored times that
    /// lie in the future (nil: not looked for).
    public static func run(_ store: Store, now: Microseconds? = nil) throws -> Summary? {
        func problem(_ text: String) -> Problem { Problem(description: "\(store.path): \(text)") }
        let integrity = try store.integrityCheck()
        guard integrity == "ok" else { throw problem("SQLite finds the file damaged: \(integrity)") }
        let stored = try store.ledger()
        guard let rebuilt = try LiveState.rebuild(from: store, fromCheckpoint: false) else {
            guard stored.isEmpty else { throw problem("the ledger has entries but no policy is stored") }
            return nil
        }
        func describe(_ seq: Int64, _ e: LedgerEntry) -> String {
            let at = RFC3339.format(micros: e.at, utcOffsetSeconds: rebuilt.engine.utcOffset(at: e.at))
            return "ledger entry \(seq) (\(at), \(e.kind.rawValue) \(e.points > 0 ? "+" : "")\(e.points))"
        }
        if let broken = try store.firstBrokenLink() {
            let entry = stored.first { $0.seq == broken.seq }
            throw problem("\(entry.map { describe($0.seq, $0.entry) } ?? "ledger entry \(broken.seq)"): \(broken.problem)")
        }
        // Entries before the log's base are vouched for by the chain and the base's balance.
        let before = Int(rebuilt.ledgerBefore ?? 0)
        guard before <= stored.count else {
            throw problem("the removed part of the event log gave \(before) ledger entries, but the ledger has only \(stored.count) (deleted?)")
        }
        let balanceAtBase = before == 0 ? 0 : stored[before - 1].entry.balanceAfter
        if balanceAtBase != rebuilt.balanceBefore {
            throw problem("\(describe(stored[before - 1].seq, stored[before - 1].entry)): its balance \(balanceAtBase) is not the balance \(rebuilt.balanceBefore) where the event log begins")
        }
        for (k, expected) in rebuilt.ledger.enumerated() {
            let seq = Int64(before + k + 1)
            guard before + k < stored.count else {
                throw problem("the event log gives \(describe(seq, expected)), which is not in the ledger")
            }
            let got = stored[before + k]
            if got.entry != expected {
                throw problem("\(describe(got.seq, got.entry)) differs from what the event log gives: \(describe(seq, expected)), balance \(expected.balanceAfter)")
            }
        }
        if stored.count > before + rebuilt.ledger.count {
            let extra = stored[before + rebuilt.ledger.count]
            throw problem("\(describe(extra.seq, extra.entry)) is in the ledger, but the event log does not give it")
        }
        try impossibleTimes(rebuilt, stored: stored, now: now, describe: describe, problem: problem)
        if rebuilt.checkpointConfirmed == false {
            throw problem("the newest checkpoint is not the state the event log gives at that point (edited?); delete it (DELETE FROM checkpoint) and the daemon replays the log instead")
        }
        return Summary(events: rebuilt.events, ledgerEntries: stored.count, balance: rebuilt.engine.ledger.balance, base: rebuilt.base)
    }

    /// Clock readings the log shows could not be true, and stored times that lie far in the future:
    /// a faked clock ran the daemon. Nothing was counted by a fault the engine saw; entries dated in
    /// the future were written by an older screentime that believed such a clock.
    static func impossibleTimes(_ rebuilt: LiveState.Rebuilt, stored: [StoredLedgerEntry], now: Microseconds?,
                                describe: (Int64, LedgerEntry) -> String, problem: (String) -> Problem) throws {
        let engine = rebuilt.engine
        func at(_ w: Microseconds) -> String { RFC3339.format(micros: w, utcOffsetSeconds: engine.utcOffset(at: w)) }
        if let first = engine.clockFaults.first {
            let more = engine.clockFaultCount > 1 ? " (\(engine.clockFaultCount) such readings in all)" : ""
            throw problem("a clock that cannot be true: at \(at(first.at)) \(first.words)\(more). Nothing was counted by it and the "
                          + "ledger is whole, but someone ran the daemon under a faked clock, or the wall clock was set back while the machine slept (docs/state.md, \"Clocks\")")
        }
        guard let now else { return }
        let limit = now + futureSlack
        if let e = stored.first(where: { $0.entry.at > limit }) {
            throw problem("\(describe(e.seq, e.entry)) is dated more than a year after now (\(at(now))): a faked clock wrote it, or this machine's clock is wrong now")
        }
        let calendar = engine.clock.wall(at: engine.now)
        if calendar > limit {
            throw problem("the daemon's calendar stands at \(at(calendar)), more than a year after now (\(at(now))): a faked clock moved it, or this machine's clock is wrong now")
        }
    }
}

extension StateAudit {
    /// The state's ledger against the chain heads a witness saw (the journal): every head must be
    /// in it, with its hash (ChainWitness). Only reads.
    public static func witness(_ store: Store, heads: [ChainHead]) throws(StoreError) -> ChainWitness.Verdict {
        ChainWitness.judge(heads: heads, ledger: try store.ledger().map { (seq: $0.seq, hash: $0.hash) })
    }
}
