import Foundation
import TestSupport
import Testing

/// Issue #15, findings 2 and 3: a parent's request retried after a lost answer is carried out
/// once; wrong parent passphrases lock out only the caller who typed them, across restarts.
///
/// Test users: 65042 (a child, user mode), 65043 and 65044 (two children, system mode), 65045 (an
/// adult not named as a parent, who knows the passphrase), 65046 (a child, user mode).
@Suite("Parent requests: retries are carried out once; passphrase locks are each caller's own", .ownThread, .serialized)
struct ParentRequestTests {
    static let retryChild: UInt32 = TestUser.ensure(uid: 65042, name: "stkid65042")
    static let emma: UInt32 = TestUser.ensure(uid: 65043, name: "stkid65043")
    static let tom: UInt32 = TestUser.ensure(uid: 65044, name: "stkid65044")
    static let adult: UInt32 = TestUser.ensure(uid: 65045, name: "stadult65045")
    static let lockChild: UInt32 = TestUser.ensure(uid: 65046, name: "stkid65046")

    /// Sends one raw request line as root, and returns the reply line ("" when `read` is false: the
    /// answer is never read, as when the parent's connection is lost).
    static func raw(_ socket: String, _ line: String, read: Bool = true) throws -> String {
        let r = try ReplayBinaryTests.runBinary("/usr/bin/python3", ["-c", #"""
            import socket, sys
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(5)
            s.sendall(sys.argv[2].encode() + b"\n")
            if sys.argv[3] == "1":
                data = b""
                while not data.endswith(b"\n"):
                    chunk = s.recv(65536)
                    if not chunk: break
                    data += chunk
                print(data.decode(), end="")
            s.close()
            """#, socket, line, read ? "1" : "0"])
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("a redemption whose answer was lost, sent again with its id after a kill -9, is answered as the first time and paid once; an adjustment too; no id pays each time")
    func retriedRedemption() throws {
        _ = Self.retryChild
        let d = try LiveDaemon(policy: "version = 1\ntimezone = \"UTC\"\n[points]\nper_reward_minute = 1\n", uid: Self.retryChild)
        _ = try d.waitFor("watching uid")
        let root = { (args: [String]) in try ReplayBinaryTests.runBinary(ControlSocketTests.stctl, args + ["--socket", d.socket]) }
        #expect(try root(["adjust", "100", "--reason", "chores"]).status == 0)
        // The parent's redemption is carried out and saved, but its answer never read; then the daemon is killed.
        let redeem = #"{"v":1,"command":"redeem","minutes":10,"id":"3f1c-retry-1"}"#
        _ = try Self.raw(d.socket, redeem, read: false)
        try d.poll("SELECT count(*) FROM ledger WHERE kind = 'redeemed'") { $0 == "1" }
        try d.killAndRestart()
        let again = try Self.raw(d.socket, redeem)
        #expect(again.contains(#""ok":true"#) && again.contains(#""balance":90"#) && again.contains(#""cost":10"#), "\(again)")
        #expect(try d.sql("SELECT count(*) FROM ledger WHERE kind = 'redeemed'") == "1")
        #expect(try d.json(["status"])["balance"] as? Int == 90)
        // The same id for another request is refused, and changes nothing.
        let reused = try Self.raw(d.socket, #"{"v":1,"command":"redeem","minutes":20,"id":"3f1c-retry-1"}"#)
        #expect(reused.contains(#""ok":false"#) && reused.contains("request id 3f1c-retry-1 was used before for another request (redeem 10)"), "\(reused)")
        // An adjustment, retried with its id, is added once.
        let adjust = #"{"v":1,"command":"adjust","points":5,"reason":"bonus","id":"3f1c-retry-2"}"#
        #expect(try Self.raw(d.socket, adjust).contains(#""balance":95"#))
        #expect(try Self.raw(d.socket, adjust).contains(#""balance":95"#))
        // Old clients, without an id, keep working: each request is carried out.
        #expect(try Self.raw(d.socket, #"{"v":1,"command":"redeem","minutes":1}"#).contains(#""balance":94"#))
        #expect(try Self.raw(d.socket, #"{"v":1,"command":"redeem","minutes":1}"#).contains(#""balance":93"#))
        // stctl gives each command an id of its own: two commands, two redemptions.
        #expect(try root(["redeem", "1"]).status == 0)
        #expect(try root(["redeem", "1"]).status == 0)
        #expect(try d.sql("SELECT count(*) FROM ledger WHERE kind = 'redeemed'") == "5")
        // Five ids kept: the two above, and one for each stctl command (the first adjustment too).
        #expect(try d.sql("SELECT count(*) FROM answered_request WHERE caller_uid = 0") == "5")
        let log = try d.waitFor("was carried out before: answered again, not carried out again")
        #expect(log.contains("redeem 10 from root (request 3f1c-retry-1) was carried out before"), "\(log)")
        try d.stop()
    }

    @Test("stctl sends a parent command once more, with the same id, when the answer is lost")
    func stctlRetries() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("screentime-retry-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let socket = dir + "/control.sock"
        // A stand-in daemon: closes the first connection without an answer, answers the second.
        let fake = Process()
        fake.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        fake.arguments = ["-c", #"""
            import socket, sys
            path, out = sys.argv[1], open(sys.argv[2], "w", buffering=1)
            l = socket.socket(socket.AF_UNIX); l.bind(path); l.listen(4); l.settimeout(20)
            for n in range(2):
                c, _ = l.accept(); data = b""
                while not data.endswith(b"\n"): data += c.recv(65536)
                out.write(data.decode())
                if n == 1: c.sendall(b'{"balance":40,"cost":20,"ok":true,"v":1}\n')
                c.close()
            """#, socket, dir + "/requests"]
        try fake.run()
        defer { if fake.isRunning { kill(fake.processIdentifier, SIGKILL) }; reap(fake) }
        try Wait.until("the fake daemon to bind \(socket)", within: 15, every: 0.01) { FileManager.default.fileExists(atPath: socket) }
        let r = try ReplayBinaryTests.runBinary(ControlSocketTests.stctl, ["redeem", "20", "--socket", socket])
        #expect(r.status == 0 && r.stdout.contains("40"), "\(r.stdout)\(r.stderr)")
        let sent = try String(contentsOfFile: dir + "/requests", encoding: .utf8).split(separator: "\n")
        let ids = sent.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? String
        }
        #expect(sent.count == 2 && ids.count == 2 && ids[0] == ids[1] && ids[0].count == 36, "\(sent)")
    }

    static func adjust(_ socket: String, as uid: UInt32, user: String?, passphrase: String) throws -> ReplayBinaryTests.Run {
        try ReplayBinaryTests.runBinary("/usr/bin/setpriv", ["--reuid=\(uid)", "--regid=\(uid)", "--init-groups", ControlSocketTests.stctl,
                                                             "adjust", "1", "--reason", "chores", "--passphrase-stdin", "--socket", socket]
                                        + (user.map { ["--user", $0] } ?? []), stdin: passphrase + "\n")
    }

    @Test("system mode: a sibling's five wrong passphrases lock only the sibling; the adult who knows it, and the child, are not locked out; the child's own lock is the child's")
    func siblingLockout() throws {
        _ = (Self.emma, Self.tom, Self.adult)
        let hash = try PassphraseEndToEndTests.mkpasswd("tea for two")
        let parents = "passphrase_hash = \"\(hash)\""
        let d = try SystemModeTests.SystemDaemon(policies: [
            "stkid65043": SystemModeTests.policy(games: "/nonexistent/game", learning: "/nonexistent/app", parents: parents),
            "stkid65044": SystemModeTests.policy(games: "/nonexistent/game", learning: "/nonexistent/app", parents: parents)])
        _ = try d.waitFor("screentimed: watching uid 65043, 65044;")
        // tom guesses emma's parent passphrase five times, and is locked out.
        for _ in 0..<5 { #expect(try Self.adjust(d.socket, as: Self.tom, user: "stkid65043", passphrase: "guess").status == 1) }
        let locked = try Self.adjust(d.socket, as: Self.tom, user: "stkid65043", passphrase: "tea for two")
        #expect(locked.stderr.contains("locked for 15 more minutes"), "\(locked.stderr)")
        // The adult who knows the passphrase, and emma's own parent at her keyboard, are not.
        let adult = try Self.adjust(d.socket, as: Self.adult, user: "stkid65043", passphrase: "tea for two")
        #expect(adult.status == 0, "\(adult.stderr)")
        let atHers = try Self.adjust(d.socket, as: Self.emma, user: nil, passphrase: "tea for two")
        #expect(atHers.status == 0, "\(atHers.stderr)")
        // emma's own five wrong guesses lock emma's tries, not the adult's.
        for _ in 0..<5 { _ = try Self.adjust(d.socket, as: Self.emma, user: nil, passphrase: "guess") }
        #expect(try Self.adjust(d.socket, as: Self.emma, user: nil, passphrase: "tea for two").stderr.contains("locked for 15 more minutes"))
        #expect(try Self.adjust(d.socket, as: Self.adult, user: "stkid65043", passphrase: "tea for two").status == 0)
        #expect(try d.sql("stkid65043", "SELECT count(*) FROM ledger WHERE kind = 'adjusted'") == "3")
        try d.stop()
    }

    @Test("user mode: five wrong passphrases stay locked after the daemon is killed and started again")
    func lockSurvivesRestart() throws {
        _ = Self.lockChild
        let hash = try PassphraseEndToEndTests.mkpasswd("tea for two")
        let d = try LiveDaemon(policy: "version = 1\ntimezone = \"UTC\"\n[parents]\npassphrase_hash = \"\(hash)\"\n",
                               arguments: ["--sample-every", "1h", "--no-logind"], uid: Self.lockChild)
        _ = try d.waitFor("watching uid")
        for _ in 0..<5 { #expect(try Self.adjust(d.socket, as: Self.lockChild, user: nil, passphrase: "guess").status == 1) }
        try d.killAndRestart()
        let after = try Self.adjust(d.socket, as: Self.lockChild, user: nil, passphrase: "tea for two")
        #expect(after.status == 1 && after.stderr.contains("locked for 15 more minutes"), "\(after.stderr)")
        try d.restart()
        #expect(try Self.adjust(d.socket, as: Self.lockChild, user: nil, passphrase: "tea for two").stderr.contains("locked for 15 more minutes"))
        #expect(try d.json(["status"])["balance"] as? Int == 0)
        try d.stop()
    }
}
