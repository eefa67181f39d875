import Foundation
import TestSupport
import Testing

/// Issue #15, finding 2 (in part): the ledger's chain head goes to the journal with each save that
/// adds entries, where the child cannot take it back; a state restored from an older copy then has
/// an older head than the journal's last.
@Suite("The ledger's chain head in the journal", .ownThread, .serialized)
struct ChainHeadJournalTests {
    static let child: UInt32 = TestUser.ensure(uid: 65051, name: "stchain65051")

    @Test("each save that adds ledger entries logs SCREENTIME_CHAIN_SEQ and SCREENTIME_CHAIN_HEAD, the stored hash")
    func chainHead() throws {
        let (dir, launcher) = try JournalTests.journalFolder()
        let listener = try JournalTests.listen(in: dir)
        defer { kill(listener.processIdentifier, SIGKILL); reap(listener) }
        let d = try LiveDaemon(policy: "version = 1\ntimezone = \"UTC\"\n[points]\nper_reward_minute = 1\n",
                               arguments: ["--sample-every", "1s", "--no-logind", "--no-notifications", "--log", "auto"],
                               uid: Self.child, launcher: launcher, journalStream: true)
        defer { if d.process.isRunning { kill(d.process.processIdentifier, SIGKILL) } }
        _ = try JournalTests.entry(dir, event: "started")
        try EnforcementTests.parent(d, ["adjust", "10", "--reason", "chores"])
        try EnforcementTests.parent(d, ["redeem", "2"])
        let head = try JournalTests.entry(dir, event: "chain_head") { $0["SCREENTIME_CHAIN_SEQ"] == ["2"] }
        #expect(head["SCREENTIME_CHAIN_HEAD"] == [try d.sql("SELECT hash FROM ledger WHERE seq = 2")], "\(head)")
        #expect(head["PRIORITY"] == ["6"], "\(head)")
        try d.stop()
    }
}
