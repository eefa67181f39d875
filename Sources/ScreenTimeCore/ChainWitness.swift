/// A ledger chain head seen outside the state: the daemon said (in the journal) that ledger entry
/// `seq` had hash `hash`, at wall time `loggedAt` (the journal's clock, µs since the epoch).
public struct ChainHead: Sendable, Equatable {
    public var seq: Int64
    public var hash: String
    public var loggedAt: Microseconds

    public init(seq: Int64, hash: String, loggedAt: Microseconds) {
        self.seq = seq
        self.hash = hash
        self.loggedAt = loggedAt
    }
}

/// Whether a state's ledger still holds every chain head a witness (the journal) saw. The ledger is
/// append-only, so every head ever logged for it stays in it: a head it lacks means the state was
/// put back from an older copy (rolled back); a head it holds with another hash means it was
/// replaced by another state. Decides only: the heads and the ledger come from elsewhere.
public enum ChainWitness {
    public enum Verdict: Sendable, Equatable {
        /// The witness saw no head (nothing saved yet, or the journal does not keep them).
        case noHeads
        /// Every head seen is in the ledger; `newest` is the one with the highest number.
        case holds(newest: ChainHead, heads: Int)
        /// The ledger has no entry `head.seq`: it ends at `ledgerEnd` (0: no entries).
        case rolledBack(head: ChainHead, ledgerEnd: Int64)
        /// The ledger's entry `head.seq` has hash `stored`, not the one seen.
        case replaced(head: ChainHead, stored: String)

        public var isProblem: Bool {
            switch self {
            case .noHeads, .holds: false
            case .rolledBack, .replaced: true
            }
        }
    }

    /// `ledger`: the state's entries as (number, hash), in any order. Of the heads the ledger
    /// contradicts, the one with the highest number is reported (the latest the state lost).
    public static func judge(heads: [ChainHead], ledger: [(seq: Int64, hash: String)]) -> Verdict {
        guard let newest = heads.max(by: { ($0.seq, $0.loggedAt) < ($1.seq, $1.loggedAt) }) else { return .noHeads }
        var hashes: [Int64: String] = [:]
        for e in ledger { hashes[e.seq] = e.hash }
        let end = ledger.map(\.seq).max() ?? 0
        let contradicted = heads.filter { hashes[$0.seq] != $0.hash }
        guard let worst = contradicted.max(by: { ($0.seq, $0.loggedAt) < ($1.seq, $1.loggedAt) }) else {
            return .holds(newest: newest, heads: heads.count)
        }
        if let stored = hashes[worst.seq] { return .replaced(head: worst, stored: stored) }
        return .rolledBack(head: worst, ledgerEnd: end)
    }

    /// What a verdict means, for a person: what happened, which entry, what to do. `journalQuery`:
    /// the command that shows the heads (`journalctl _UID=1000 SCREENTIME_EVENT=chain_head`).
    public static func words(_ verdict: Verdict, journalQuery: String) -> String {
        func at(_ w: Microseconds) -> String { RFC3339.format(micros: w, utcOffsetSeconds: 0) }
        let what = "points spent or taken since then are back, and game time used may be too. The journal keeps the evidence "
            + "(\(journalQuery)); set the balance right with `stctl adjust`, and use system mode, where the child cannot "
            + "replace the state (docs/state.md, \"Rollback\")"
        switch verdict {
        case .noHeads:
            return "the journal has no chain heads for this state: nothing to compare"
        case .holds(let newest, let heads):
            return "the ledger holds every chain head the journal saw (\(heads), the newest entry \(newest.seq), logged \(at(newest.loggedAt)))"
        case .rolledBack(let head, let end):
            let ends = end == 0 ? "has no entries" : "ends at entry \(end)"
            return "rolled back: the journal saw ledger entry \(head.seq) (hash \(head.hash.prefix(12))…, logged \(at(head.loggedAt))), "
                + "but this ledger \(ends). The state was put back from an older copy: \(what)"
        case .replaced(let head, let stored):
            return "replaced: ledger entry \(head.seq) has hash \(stored.prefix(12))… here, but the journal saw \(head.hash.prefix(12))… "
                + "for it (logged \(at(head.loggedAt))). This is not the state the daemon wrote (a copy of another one, or one started anew): "
                + "if a parent started it anew on purpose, heads logged before that are expected to differ (`check --journal-since`); otherwise \(what)"
        }
    }
}
