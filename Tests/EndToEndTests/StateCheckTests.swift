import Foundation
import TestSupport
import Testing

/// `screentimed import` and `screentimed check` on real SQLite files; tampering is done with the
/// real `sqlite3` command, behind the daemon's back.
@Suite("screentimed check, end to end", .ownThread)
struct StateCheckTests {
    static let root = ReplayBinaryTests.root
    static let daemon = ReplayBinaryTests.binary
    static let policy = root.appendingPathComponent("Tests/Scenarios/shared/redeem-and-play/policy.toml").path

    /// A state folder holding the demo afternoon, judged by the shared scenarios' policy (Berlin
    /// time, TuxMath at 30 points/hour): GCompris earns 39 (2388.5 s at 60/h = 39.81, 0.81 carried),
    /// TuxMath 8 (871.4 s at 30/h = 7.26, plus 0.81), the redemption costs 40: balance 7.
    static func importedState() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("screentime-state-\(UUID().uuidString)").path
        let r = try ReplayBinaryTests.runBinary(daemon, ["import", "--state-dir", dir, "--policy", policy,
                                                         Readable.path("policies/demo-day.jsonl")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "\(dir)/screentime.sqlite: 429 events added; balance 7\n")
        return dir
    }

    static func sqlite(_ dir: String, _ sql: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        p.arguments = [dir + "/screentime.sqlite", sql]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
    }

    @Test("an imported day checks out: the chain is whole and the log gives the same ledger")
    func whole() throws {
        let dir = try Self.importedState()
        let r = try ReplayBinaryTests.runBinary(Self.daemon, ["check", "--state-dir", dir])
        #expect(r.status == 0)
        #expect(r.stdout == "\(dir)/screentime.sqlite: ok — 429 events, 3 ledger entries, balance 7; the hash chain is whole and replaying the log gives the same ledger\n")
    }

    @Test("tampering with the ledger is found and the entry named", arguments: [
        ("UPDATE ledger SET points = 50, balance_after = 50 WHERE seq = 1",
         "ledger entry 1 (2026-11-23T14:40:00+01:00, earned +50): its contents do not match its hash (edited?)"),
        ("DELETE FROM ledger WHERE seq = 2",
         "ledger entry 3 (2026-11-23T15:50:00+01:00, redeemed -40): entry 2 is missing (deleted?)"),
        ("INSERT INTO ledger (seq, at_micros, kind, points, balance_after, previous_hash, hash) SELECT 4, at_micros, 'adjusted', 100, 114, hash, 'forged' FROM ledger WHERE seq = 3",
         "ledger entry 4 (2026-11-23T15:50:00+01:00, adjusted +100): its contents do not match its hash (edited?)"),
        ("DELETE FROM ledger WHERE seq = 3",
         "the event log gives ledger entry 3 (2026-11-23T15:50:00+01:00, redeemed -40), which is not in the ledger"),
    ])
    func tampered(_ sql: String, _ message: String) throws {
        let dir = try Self.importedState()
        try Self.sqlite(dir, sql)
        let r = try ReplayBinaryTests.runBinary(Self.daemon, ["check", "--state-dir", dir])
        #expect(r.status == 1)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr == "\(dir)/screentime.sqlite: \(message)\n")
    }

    @Test("a checkpoint edited behind the daemon's back is found")
    func tamperedCheckpoint() throws {
        let dir = try Self.importedState()
        try Self.sqlite(dir, "UPDATE checkpoint SET state = CAST(replace(CAST(state AS TEXT), '\"balance\":7,', '\"balance\":700,') AS BLOB)")
        let r = try ReplayBinaryTests.runBinary(Self.daemon, ["check", "--state-dir", dir])
        #expect(r.status == 1)
        #expect(r.stderr == "\(dir)/screentime.sqlite: the newest checkpoint is not the state the event log gives at that point (edited?); delete it (DELETE FROM checkpoint) and the daemon replays the log instead\n")
    }

    @Test("importing twice continues the same ledger; check still holds")
    func importTwice() throws {
        let dir = try Self.importedState()
        let events = try ReplayBinaryTests.temp("more-\(UUID().uuidString).jsonl", """
            {"at": "2026-11-24T15:00:00+01:00", "event": "adjust", "points": 6, "reason": "dishes"}
            """)
        let r = try ReplayBinaryTests.runBinary(Self.daemon, ["import", "--state-dir", dir, "--policy", Self.policy, events])
        #expect(r.stdout == "\(dir)/screentime.sqlite: 1 event added; balance 13\n")
        let c = try ReplayBinaryTests.runBinary(Self.daemon, ["check", "--state-dir", dir])
        #expect(c.status == 0, "\(c.stderr)")
    }

    @Test("a malformed log saves nothing; a missing state is said")
    func nothingSaved() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("screentime-state-\(UUID().uuidString)").path
        let events = try ReplayBinaryTests.temp("bad-\(UUID().uuidString).jsonl", """
            {"at": "2026-11-24T15:00:00+01:00", "event": "adjust", "points": 6, "reason": "dishes"}
            {"at": "2026-11-24T15:00:01+01:00", "event": "adjust"}
            """)
        let r = try ReplayBinaryTests.runBinary(Self.daemon, ["import", "--state-dir", dir, "--policy", Self.policy, events])
        #expect(r.status == 2)
        #expect(r.stderr == "\(events):2: missing field 'points' (a whole number)\n")
        #expect(!FileManager.default.fileExists(atPath: dir))
        let c = try ReplayBinaryTests.runBinary(Self.daemon, ["check", "--state-dir", dir])
        #expect(c.status == 1)
        #expect(c.stderr == "\(dir)/screentime.sqlite: no state here yet (wrong --state-dir?)\n")
    }
}
