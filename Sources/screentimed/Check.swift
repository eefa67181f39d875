import ArgumentParser
import Foundation
import ScreenTimeCore
import ScreenTimeLinux
import ScreenTimeStore

/// `screentimed check`: is the ledger whole, and does the event log reproduce it exactly?
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Verify a child's state: the database, the ledger's hash chain and balances, that replaying the event log gives the same ledger, and that no clock reading in it is impossible.",
        discussion: "Exit status 0 when everything holds; 1 with the first problem found.")

    @OptionGroup var state: StateOptions

    func run() throws {
        do {
            let store = try state.open(create: false, readOnly: true)
            guard let summary = try StateAudit.run(store, now: KernelClock.wallMicros()) else {
                print("\(store.path): ok, empty")
                return
            }
            var since = ""
            if let base = summary.base {
                since = " (since \(RFC3339.format(micros: base.at, utcOffsetSeconds: 0)); \(base.eventsRemoved) older events were removed by retention)"
            }
            print("\(store.path): ok — \(summary.events) events\(since), \(summary.ledgerEntries) ledger entries, balance \(summary.balance); the hash chain is whole and replaying the log gives the same ledger")
        } catch let e as StoreError {
            throw fail(e.description, code: 1)
        } catch let e as StateAudit.Problem {
            throw fail(e.description, code: 1)
        } catch let e as ExitCode {
            throw e
        } catch {
            throw fail("\(state.databasePath): \(error)", code: 1)
        }
    }
}
