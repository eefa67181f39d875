import ArgumentParser
import Foundation
import ScreenTimeCore
import ScreenTimeLinux
import ScreenTimePolicy
import ScreenTimeSystemd
import ScreenTimeStore

/// `screentimed check`: is the ledger whole, and does the event log reproduce it exactly?
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Verify a child's state: the database, the ledger's hash chain and balances, that replaying the event log gives the same ledger, that no clock reading in it is impossible, and that it holds every chain head the journal saw (not rolled back).",
        discussion: "Exit status 0 when everything holds; 1 with the first problem found. A journal that cannot be read, or has no chain heads, is said in one line and is not a failure.")

    @OptionGroup var state: StateOptions

    @Option(name: .long, help: "Read the chain heads from the journal files in this folder (as journalctl -D) instead of this machine's journal.")
    var journalDirectory: String?

    @Option(name: .long, help: "Only chain heads the journal received from this time on (RFC 3339, e.g. 2026-11-23T15:00:00Z): after a parent started the state anew on purpose.")
    var journalSince: String?

    @Flag(name: .long, help: "Also check the family ledger (docs/household.md): its chain and balances, and that it and this state hold the same entries.")
    var household = false

    func run() throws {
        var since: Microseconds? = nil
        if let journalSince {
            guard let t = RFC3339.parse(journalSince) else { throw fail("--journal-since: not an RFC 3339 time: \"\(journalSince)\"", code: 2) }
            since = t.micros
        }
        do {
            let store = try state.open(create: false, readOnly: true)
            guard let summary = try StateAudit.run(store, now: KernelClock.wallMicros()) else {
                let journal = try compareWithJournal(store, since: since)
                print("\(store.path): ok, empty")
                if let journal { print(journal) }
                return
            }
            let journal = try compareWithJournal(store, since: since)
            var from = ""
            if let base = summary.base {
                from = " (since \(RFC3339.format(micros: base.at, utcOffsetSeconds: 0)); \(base.eventsRemoved) older events were removed by retention)"
            }
            print("\(store.path): ok — \(summary.events) events\(from), \(summary.ledgerEntries) ledger entries, balance \(summary.balance); the hash chain is whole and replaying the log gives the same ledger")
            if let journal { print(journal) }
            if household { print(try checkHousehold(store)) }
        } catch let e as StoreError {
            throw fail(e.description, code: 1)
        } catch let e as StateAudit.Problem {
            throw fail(e.description, code: 1)
        } catch let e as HouseholdAudit.Problem {
            throw fail(e.description, code: 1)
        } catch let e as ExitCode {
            throw e
        } catch {
            throw fail("\(state.databasePath): \(error)", code: 1)
        }
    }

    /// The state against the chain heads the journal saw for its owner (user mode: the daemon runs
    /// as the owner of the state). A rollback or a replaced state is a problem; a journal that
    /// cannot be read, or has no heads, is a note (one line); so is a state that holds them all.
    /// A state root owns (system mode: the child cannot put a copy back) is not compared.
    func compareWithJournal(_ store: Store, since: Microseconds?) throws -> String? {
        guard let owner = ProcFS.mode(of: store.path)?.uid, owner != 0 else { return nil }
        let source: JournalReader.Source = journalDirectory.map { .directory($0) } ?? .local
        let query = ChainHeadJournal.query(uid: owner, from: source)
        let heads: [ChainHead]
        do { heads = try ChainHeadJournal.heads(uid: owner, from: source, since: since) } catch {
            return "\(store.path): not compared with the journal: \(error.description)"
        }
        let verdict = try StateAudit.witness(store, heads: heads)
        if verdict.isProblem { throw fail("\(store.path): \(ChainWitness.words(verdict, journalQuery: query))", code: 1) }
        if verdict == .noHeads {
            let reach = getuid() == 0 ? "" : " (the system journal may need root or the systemd-journal group)"
            return "\(store.path): the journal has no chain heads for uid \(owner)\(reach): not compared with it (\(query))"
        }
        return "\(store.path): \(ChainWitness.words(verdict, journalQuery: query))"
    }

    /// The family ledger the state's policy names, checked by the household link, and against this state.
    func checkHousehold(_ store: Store) throws -> String {
        guard let text = try store.policies().last?.text, let settings = try PolicyLoader.parse(text, file: store.path).household else {
            throw HouseholdAudit.Problem(description: "\(store.path): the policy in force names no family database ([household]); nothing to check with --household")
        }
        let link = try HouseholdLink(executable: InstalledFiles.beside("screentime-household"),
                                     hello: .init(database: settings.database, password: try HouseholdShare.readCredentials(settings.credentials),
                                                  caFile: settings.caFile))
        // The child's name in the family: as the policy says, else their account's (the state's
        // owner in user mode; in system mode, the state's folder is named after them).
        let owner = ProcFS.mode(of: store.path)?.uid ?? 0
        let folder = URL(fileURLWithPath: store.path).deletingLastPathComponent().lastPathComponent
        let name = settings.child ?? (owner != 0 ? UserAccount.name(of: owner) : nil) ?? folder
        let id = link.send(.check, child: name, machine: settings.machine)
        guard let reply = link.wait(for: id, timeoutMillis: 15_000) else {
            throw HouseholdAudit.Problem(description: "\(settings.database): the family database did not answer within 15 s")
        }
        if let error = reply.error { throw HouseholdAudit.Problem(description: "\(settings.database): \(error)") }
        let rows = reply.rows ?? []
        if let problem = reply.problem { throw HouseholdAudit.Problem(description: "\(settings.database): \(name)'s family ledger: \(problem)") }
        if let problem = HouseholdAudit.problem(local: try store.ledger(), marks: try store.householdMarks(), family: rows, machine: settings.machine) {
            throw HouseholdAudit.Problem(description: "\(store.path): \(problem)")
        }
        let own = rows.filter { $0.machine == settings.machine }.count
        return "\(settings.database): ok — \(name)'s family ledger has \(rows.count) entries (\(own) of them \(settings.machine)'s), balance \(reply.balance ?? 0); the chain is whole, and this state and the family ledger hold the same entries"
    }
}
