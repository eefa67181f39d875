import ArgumentParser
import Foundation
import ScreenTimeCore
import ScreenTimeLinux
import ScreenTimePolicy
import ScreenTimeStore

/// `screentimed import`: adds an event log to a child's state as the daemon would have lived it.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add an event log to a child's state, as if the daemon had lived through it.",
        discussion: "The events are checked first; when a line is malformed nothing is saved (exit 2).")

    @OptionGroup var state: StateOptions

    @Option(name: .long, help: "The policy the events are judged by (recorded when it differs from the stored one).")
    var policy: String

    @Argument(help: "The event log: one JSON event per line.")
    var events: String

    func run() throws {
        let policyText: String
        do throws(PolicyError) { policyText = try PolicyLoader.loadWithText(path: policy).text } catch {
            throw fail(error.description, code: 2)
        }
        guard let data = FileHandle(forReadingAtPath: events)?.readDataToEndOfFile() else {
            throw fail("\(events): cannot be read (no such file, or no permission)", code: 2)
        }
        var decoded: [Event] = []
        var failure: String? = nil
        data.withUnsafeBytes { raw in
            EventLogLines.forEach(in: raw.bindMemory(to: UInt8.self)) { n, line in
                do throws(EventLog.LineError) { decoded.append(try EventLog.decode(bytes: line)) } catch {
                    failure = "\(events):\(n): \(error.reason)"
                    return false
                }
                return true
            }
        }
        if let failure { throw fail(failure, code: 2) }
        do {
            let store = try state.open(create: true)
            let lock = try state.lockForWriting()
            defer { withExtendedLifetime(lock) {} }
            var live = try LiveState(store: store, policyText: policyText, policyFile: policy)
            for e in decoded {
                live.ingest(e)
                if live.unsavedEvents >= 1000 { try live.flush() }
            }
            try live.flush(checkpoint: true)
            print("\(state.databasePath): \(decoded.count) \(decoded.count == 1 ? "event" : "events") added; balance \(live.engine.ledger.balance)")
        } catch let e as StoreError {
            throw fail(e.description, code: 1)
        } catch let e as PolicyError {
            throw fail(e.description, code: 1)
        }
    }
}
