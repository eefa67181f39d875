import ArgumentParser
import Foundation
import ScreenTimeCore
import ScreenTimeStore

/// `screentimed check`: is the ledger whole, and does the event log reproduce it exactly?
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Verify a child's state: the database, the ledger's hash chain and balances, and that replaying the event log gives the same ledger.",
        discussion: "Exit status 0 when everything holds; 1 with the first problem found.")

    @OptionGroup var state: StateOptions

    func run() throws {
        do {
            let store = try state.open(create: false, readOnly: true)
            let integrity = try store.integrityCheck()
            guard integrity == "ok" else { throw fail("\(store.path): SQLite finds the file damaged: \(integrity)", code: 1) }
            let stored = try store.ledger()
            guard let rebuilt = try LiveState.rebuild(from: store, fromCheckpoint: false) else {
                guard stored.isEmpty else { throw fail("\(store.path): the ledger has entries but no policy is stored", code: 1) }
                print("\(store.path): ok, empty")
                return
            }
            func describe(_ seq: Int64, _ e: LedgerEntry) -> String {
                let at = RFC3339.format(micros: e.at, utcOffsetSeconds: rebuilt.engine.utcOffset(at: e.at))
                return "ledger entry \(seq) (\(at), \(e.kind.rawValue) \(e.points > 0 ? "+" : "")\(e.points))"
            }
            if let broken = try store.firstBrokenLink() {
                let entry = stored.first { $0.seq == broken.seq }
                throw fail("\(store.path): \(entry.map { describe($0.seq, $0.entry) } ?? "ledger entry \(broken.seq)"): \(broken.problem)", code: 1)
            }
            for (k, expected) in rebuilt.ledger.enumerated() {
                guard k < stored.count else {
                    throw fail("\(store.path): the event log gives \(describe(Int64(k + 1), expected)), which is not in the ledger", code: 1)
                }
                if stored[k].entry != expected {
                    throw fail("\(store.path): \(describe(stored[k].seq, stored[k].entry)) differs from what the event log gives: \(describe(Int64(k + 1), expected)), balance \(expected.balanceAfter)", code: 1)
                }
            }
            if stored.count > rebuilt.ledger.count {
                let extra = stored[rebuilt.ledger.count]
                throw fail("\(store.path): \(describe(extra.seq, extra.entry)) is in the ledger, but the event log does not give it", code: 1)
            }
            if rebuilt.checkpointConfirmed == false {
                throw fail("\(store.path): the newest checkpoint is not the state the event log gives at that point (edited?); delete it (DELETE FROM checkpoint) and the daemon replays the log instead", code: 1)
            }
            if rebuilt.checkpointConfirmed == false {
                throw fail("\(store.path): the newest checkpoint is not the state the event log gives at that point (edited?); delete it (DELETE FROM checkpoint) and the daemon replays the log instead", code: 1)
            }
            print("\(store.path): ok — \(rebuilt.events) events, \(stored.count) ledger entries, balance \(rebuilt.engine.ledger.balance); the hash chain is whole and replaying the log gives the same ledger")
        } catch let e as StoreError {
            throw fail(e.description, code: 1)
        }
    }
}
