import ScreenTimeCore
import Testing

/// Issue #15, finding 2: a state put back from an older copy (or replaced) shows against the chain
/// heads the journal saw.
@Suite("ChainWitness: the ledger against the chain heads the journal saw")
struct ChainWitnessTests {
    static let ledger: [(seq: Int64, hash: String)] = [(1, "h1"), (2, "h2"), (3, "h3")]
    static func head(_ seq: Int64, _ hash: String, at: Int64 = 0) -> ChainHead { ChainHead(seq: seq, hash: hash, loggedAt: at) }

    @Test("no heads: nothing to compare")
    func noHeads() {
        #expect(ChainWitness.judge(heads: [], ledger: Self.ledger) == .noHeads)
        #expect(!ChainWitness.Verdict.noHeads.isProblem)
    }

    @Test("every head in the ledger with its hash: holds, newest by number")
    func holds() {
        let v = ChainWitness.judge(heads: [Self.head(3, "h3", at: 30), Self.head(1, "h1", at: 10), Self.head(2, "h2", at: 20)], ledger: Self.ledger)
        #expect(v == .holds(newest: Self.head(3, "h3", at: 30), heads: 3))
        #expect(!v.isProblem)
    }

    @Test("the journal saw entry 4, the ledger ends at 3: rolled back, naming entry 4 and the end")
    func rolledBack() {
        let v = ChainWitness.judge(heads: [Self.head(2, "h2", at: 20), Self.head(4, "h4", at: 40)], ledger: Self.ledger)
        #expect(v == .rolledBack(head: Self.head(4, "h4", at: 40), ledgerEnd: 3))
        #expect(v.isProblem)
        let words = ChainWitness.words(v, journalQuery: "journalctl _UID=1000 SCREENTIME_EVENT=chain_head")
        #expect(words.hasPrefix("rolled back: the journal saw ledger entry 4 (hash h4…"), "\(words)")
        #expect(words.contains("this ledger ends at entry 3") && words.contains("put back from an older copy"), "\(words)")
        #expect(words.contains("journalctl _UID=1000 SCREENTIME_EVENT=chain_head") && words.contains("stctl adjust"), "\(words)")
    }

    @Test("rolled back to a state with no entries at all")
    func rolledBackToEmpty() {
        let v = ChainWitness.judge(heads: [Self.head(1, "h1")], ledger: [])
        #expect(v == .rolledBack(head: Self.head(1, "h1"), ledgerEnd: 0))
        #expect(ChainWitness.words(v, journalQuery: "q").contains("this ledger has no entries"))
    }

    @Test("entry 3 with another hash: replaced (another state, or one started anew)")
    func replaced() {
        let v = ChainWitness.judge(heads: [Self.head(3, "other", at: 30)], ledger: Self.ledger)
        #expect(v == .replaced(head: Self.head(3, "other", at: 30), stored: "h3"))
        #expect(ChainWitness.words(v, journalQuery: "q").hasPrefix("replaced: ledger entry 3 has hash h3… here, but the journal saw other…"))
    }

    @Test("a head logged after the real one cannot hide it: the child's own fake head for the restored state changes nothing")
    func fakeHeadAfterwards() {
        // The journal saw 4 (the real daemon), then the child logged a head that matches the copy.
        let v = ChainWitness.judge(heads: [Self.head(3, "h3", at: 50), Self.head(4, "h4", at: 40)], ledger: Self.ledger)
        #expect(v == .rolledBack(head: Self.head(4, "h4", at: 40), ledgerEnd: 3))
    }

    @Test("of several heads the ledger lacks, the highest numbered is reported")
    func worst() {
        let v = ChainWitness.judge(heads: [Self.head(5, "h5"), Self.head(7, "h7"), Self.head(6, "h6")], ledger: Self.ledger)
        #expect(v == .rolledBack(head: Self.head(7, "h7"), ledgerEnd: 3))
    }
}
