import Foundation
import TestSupport
import Testing

/// Issue #15, finding 2: in user mode the child owns the state folder and can put an older copy
/// back (a redemption undone). The daemon logs each new chain head to the journal; `check` and the
/// daemon's start compare the state with them.
///
/// The journal is a REAL systemd-journald (Debian 12's, 252), run headless in a private mount
/// namespace: its `/run/systemd/journal` (the sockets) and `/var/log/journal` (the files, written
/// there from the start because the `flushed` flag is set, as after systemd-journal-flush) are
/// folders of the test's. The daemon runs as the child in a namespace of its own where the same
/// folders are `/run/systemd/journal` and `/var/log/journal`: it sends with `sd_journal_sendv` and
/// journald stamps `_UID` from the socket's credentials, as on a real machine. `check` reads the
/// files with sd-journal (`--journal-directory` as root, this machine's journal as the child).
/// One concession: journald keeps the entries of uids in systemd's dynamic range (61184–65519,
/// which the test users 65052–65059 are in) in the system journal, not in a `user-UID.journal`
/// readable by that user, so the test makes the system journal file readable to all, as the
/// user's own file would be. Nothing is mocked.
@Suite("A state rolled back from an older copy (user mode)", .ownThread, .serialized)
struct RollbackTests {
    static let child: UInt32 = TestUser.ensure(uid: 65052, name: "stroll65052")

    /// A running journald and its folders.
    struct Journald {
        let process: Process
        let run: String
        let files: String

        init() throws {
            let fm = FileManager.default
            let dir = fm.temporaryDirectory.appendingPathComponent("screentime-journald-\(UUID().uuidString)").path
            run = dir + "/run"
            files = dir + "/log"
            for d in [dir, run, files] { try fm.createDirectory(atPath: d, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755]) }
            let script = #"mount -t tmpfs tmpfs /run && mkdir -p /run/systemd/journal /run/log/journal && mount --bind "$0" /run/systemd/journal "#
                + #"&& mount --bind "$1" /var/log/journal && touch /run/systemd/journal/flushed && exec /lib/systemd/systemd-journald"#
            process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
            process.arguments = ["--mount", "/bin/sh", "-c", script, run, files]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            Wait.whether(within: 10) { journalFile() != nil }
            let file = try #require(journalFile(), "systemd-journald made no journal file in \(files)")
            try fm.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        }

        func journalFile() -> String? {
            guard FileManager.default.fileExists(atPath: run + "/socket") else { return nil }
            let ids = (try? FileManager.default.contentsOfDirectory(atPath: files)) ?? []
            return ids.lazy.map { "\(files)/\($0)/system.journal" }.first { FileManager.default.fileExists(atPath: $0) }
        }

        /// Makes the daemon's `/run/systemd/journal` and `/var/log/journal` this journald's.
        var launcher: [String] {
            let script = #"mount -t tmpfs tmpfs /run && mkdir -p /run/systemd/journal && mount --bind "$0" /run/systemd/journal "#
                + #"&& mount --bind "$1" /var/log/journal && shift && exec "$@""#
            return ["/usr/bin/unshare", "--mount", "/bin/sh", "-c", script, run, files]
        }

        /// Waits (15 s at most) until the journal holds an entry of the child's with these fields.
        func wait(for matches: [String]) throws {
            let found = try Wait.whether(within: 15, every: 0.05) {
                !(try ReplayBinaryTests.runBinary("/usr/bin/journalctl", ["-D", files, "--no-pager", "-o", "cat", "_UID=\(RollbackTests.child)"] + matches).stdout.isEmpty)
            }
            if found { return }
            let all = try ReplayBinaryTests.runBinary("/usr/bin/journalctl", ["-D", files, "--no-pager", "-o", "verbose", "_UID=\(RollbackTests.child)"])
            Issue.record("the journal has no entry \(matches); it has: \(all.stdout)")
            throw CancellationError()
        }

        func stop() {
            kill(process.processIdentifier, SIGKILL)
            reap(process)
        }
    }

    /// `screentimed check` as root, on the journal files of the test's journald.
    static func check(_ d: LiveDaemon, _ j: Journald) throws -> ReplayBinaryTests.Run {
        try ReplayBinaryTests.runBinary(ReplayBinaryTests.binary, ["check", "--state-dir", d.base + "/state", "--journal-directory", j.files])
    }

    /// `screentimed check` as the child, on this machine's journal (the journald's, in its namespace).
    static func checkAsChild(_ d: LiveDaemon, _ j: Journald) throws -> ReplayBinaryTests.Run {
        try ReplayBinaryTests.runBinary(j.launcher[0], Array(j.launcher.dropFirst()) + ["/usr/bin/setpriv", "--reuid=\(child)", "--regid=\(child)",
                                        "--clear-groups", ReplayBinaryTests.binary, "check", "--state-dir", d.base + "/state"])
    }

    /// `stctl status --json` once the daemon answers (30 s at most, while it runs: each look runs stctl).
    static func status(_ d: LiveDaemon) throws -> [String: Any] {
        try Wait.whether(within: 30) { try !d.process.isRunning || d.stctl(["status", "--json"]).status == 0 }
        return try d.status()
    }

    static let policy = "version = 1\ntimezone = \"UTC\"\n[points]\nper_reward_minute = 1\n"
    static let arguments = ["--sample-every", "1s", "--no-logind", "--no-notifications", "--log", "auto"]

    @Test("redeem, copy the state, redeem again, put the copy back, start: the daemon logs the rollback, status shows it, check fails naming entry 3")
    func rolledBack() throws {
        let j = try Journald()
        defer { j.stop() }
        let d = try LiveDaemon(policy: Self.policy, arguments: Self.arguments, uid: Self.child, launcher: j.launcher, journalStream: true)
        defer { if d.process.isRunning { kill(d.process.processIdentifier, SIGKILL) } }
        try j.wait(for: ["SCREENTIME_EVENT=started"])
        try EnforcementTests.parent(d, ["adjust", "100", "--reason", "chores"])
        try EnforcementTests.parent(d, ["redeem", "20"])
        try j.wait(for: ["SCREENTIME_EVENT=chain_head", "SCREENTIME_CHAIN_SEQ=2"])
        // The child copies their state folder (balance 80) while the daemon runs.
        let copy = d.base + "/copy"
        #expect(try ReplayBinaryTests.runBinary("/bin/cp", ["-a", d.base + "/state", copy]).status == 0)
        try EnforcementTests.parent(d, ["redeem", "30"])
        try j.wait(for: ["SCREENTIME_EVENT=chain_head", "SCREENTIME_CHAIN_SEQ=3"])
        #expect(try d.sql("SELECT balance_after FROM ledger ORDER BY seq DESC LIMIT 1") == "50")
        try d.stop()

        // ... and puts it back: a whole, consistent state with the old balance.
        #expect(try ReplayBinaryTests.runBinary("/bin/rm", ["-rf", d.base + "/state"]).status == 0)
        #expect(try ReplayBinaryTests.runBinary("/bin/mv", [copy, d.base + "/state"]).status == 0)
        #expect(try d.sql("SELECT balance_after FROM ledger ORDER BY seq DESC LIMIT 1") == "80")
        try d.startAgain()
        try j.wait(for: ["SCREENTIME_EVENT=rollback", "PRIORITY=3", "SCREENTIME_CHAIN_SEQ=3", "SCREENTIME_REASON=rolled_back", "SCREENTIME_LEDGER_SEQ=2"])
        let status = try Self.status(d)
        let blind = status["blind_spots"] as? [String] ?? []
        #expect(blind.contains { $0.contains("rolled back: the journal saw ledger entry 3") }, "\(status)")
        try d.stop()

        let root = try Self.check(d, j)
        #expect(root.status == 1, "\(root.stdout)\(root.stderr)")
        #expect(root.stderr.contains("screentime.sqlite: rolled back: the journal saw ledger entry 3 (hash "), "\(root.stderr)")
        #expect(root.stderr.contains("but this ledger ends at entry 2. The state was put back from an older copy"), "\(root.stderr)")
        #expect(root.stderr.contains("stctl adjust"), "\(root.stderr)")
        let own = try Self.checkAsChild(d, j)
        #expect(own.status == 1 && own.stderr.contains("rolled back: the journal saw ledger entry 3"), "\(own.stdout)\(own.stderr)")
    }

    @Test("the same without putting the copy back: check says ok and that the ledger holds every head")
    func notRolledBack() throws {
        let j = try Journald()
        defer { j.stop() }
        let d = try LiveDaemon(policy: Self.policy, arguments: Self.arguments, uid: Self.child, launcher: j.launcher, journalStream: true)
        defer { if d.process.isRunning { kill(d.process.processIdentifier, SIGKILL) } }
        try j.wait(for: ["SCREENTIME_EVENT=started"])
        try EnforcementTests.parent(d, ["adjust", "100", "--reason", "chores"])
        try EnforcementTests.parent(d, ["redeem", "20"])
        try EnforcementTests.parent(d, ["redeem", "30"])
        try j.wait(for: ["SCREENTIME_EVENT=chain_head", "SCREENTIME_CHAIN_SEQ=3"])
        try d.stop()
        try d.startAgain()
        _ = try Self.status(d)   // answers: started, and compared
        try d.stop()
        let none = try ReplayBinaryTests.runBinary("/usr/bin/journalctl", ["-D", j.files, "--no-pager", "-o", "cat", "SCREENTIME_EVENT=rollback"])
        #expect(none.stdout.isEmpty, "\(none.stdout)")
        let root = try Self.check(d, j)
        #expect(root.status == 0, "\(root.stdout)\(root.stderr)")
        #expect(root.stdout.contains(": ok — "), "\(root.stdout)")
        #expect(root.stdout.contains("the ledger holds every chain head the journal saw (3, the newest entry 3"), "\(root.stdout)")
        let own = try Self.checkAsChild(d, j)
        #expect(own.status == 0 && own.stdout.contains("holds every chain head"), "\(own.stdout)\(own.stderr)")
    }
}
