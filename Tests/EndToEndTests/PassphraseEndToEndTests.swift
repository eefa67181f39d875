import Foundation
import TestSupport
import Testing

/// The parent passphrase with the real daemon and real stctl, from the child's uid (a parent at
/// the child's keyboard): accepted, refused, and locked after five wrong ones.
@Suite("The parent passphrase, end to end", .ownThread)
struct PassphraseEndToEndTests {
    static func mkpasswd(_ phrase: String) throws -> String {
        let r = try ReplayBinaryTests.runBinary("/usr/bin/mkpasswd", ["-m", "yescrypt", "--stdin"], stdin: phrase + "\n")
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func adjust(_ d: LiveDaemon, _ points: Int, passphrase: String) throws -> ReplayBinaryTests.Run {
        try ReplayBinaryTests.runBinary("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", ControlSocketTests.stctl,
                                                             "adjust", "\(points)", "--reason", "chores", "--passphrase-stdin", "--socket", d.socket],
                                        stdin: passphrase + "\n")
    }

    @Test("the right passphrase makes a parent; five wrong ones lock it for 15 minutes; each failure is logged")
    func passphrase() throws {
        let hash = try Self.mkpasswd("tea for two")
        let d = try LiveDaemon(policy: "version = 1\ntimezone = \"UTC\"\n[parents]\npassphrase_hash = \"\(hash)\"\n",
                               arguments: ["--sample-every", "1h", "--no-logind"])
        _ = try d.waitFor("watching uid")
        let without = try d.stctl(["adjust", "3", "--reason", "chores"])
        #expect(without.status == 1)
        #expect(without.stderr.hasPrefix("stctl: adjust is for parents: "), "\(without.stderr)")

        let right = try adjust(d, 10, passphrase: "tea for two")
        #expect(right.status == 0, "\(right.stderr)")
        #expect(right.stdout == "Added 10 points; the balance is now 10.\n")

        for left in [4, 3, 2, 1] {
            let wrong = try adjust(d, 100, passphrase: "tea for three")
            #expect(wrong.status == 1)
            #expect(wrong.stderr == "stctl: wrong parent passphrase (\(left) more \(left == 1 ? "try" : "tries") before a 15-minute lock)\n")
        }
        let fifth = try adjust(d, 100, passphrase: "coffee")
        #expect(fifth.stderr == "stctl: wrong parent passphrase; that was the fifth: parent commands by passphrase are locked for 15 minutes\n")
        let locked = try adjust(d, 100, passphrase: "tea for two")
        #expect(locked.status == 1)
        #expect(locked.stderr == "stctl: parent commands by passphrase are locked for 15 more minutes after 5 wrong passphrases\n")
        // Refusals changed nothing; a parent by uid (root) is not locked out.
        #expect(try d.status()["balance"] as? Int == 10)
        let root = try ReplayBinaryTests.runBinary(ControlSocketTests.stctl, ["adjust", "1", "--reason", "root", "--socket", d.socket])
        #expect(root.status == 0)
        let log = try d.waitFor("not checked: locked after 5 wrong ones")
        #expect(log.components(separatedBy: "wrong parent passphrase from nobody for adjust").count - 1 == 5)
        #expect(log.contains("parent passphrase accepted from nobody for adjust"))
        try d.stop()
    }
}
