import Foundation
@testable import ScreenTimeLinux
import TestSupport
import Testing

@Suite("The parent passphrase", .ownThread)
struct PassphraseTests {
    /// A yescrypt hash made by Debian's `mkpasswd` (whois), as a parent would make one.
    static func mkpasswd(_ phrase: String) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/mkpasswd")
        p.arguments = ["-m", "yescrypt", "--stdin"]
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        try p.run()
        input.fileHandleForWriting.write(Data((phrase + "\n").utf8))
        try input.fileHandleForWriting.close()
        let hash = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(hash.hasPrefix("$y$"))
        return hash
    }

    @Test("a yescrypt hash from mkpasswd: the right passphrase matches, others do not")
    func yescrypt() throws {
        let hash = try Self.mkpasswd("correct horse battery")
        #expect(Passphrase.matches("correct horse battery", hash: hash))
        #expect(!Passphrase.matches("correct horse batterY", hash: hash))
        #expect(!Passphrase.matches("", hash: hash))
        #expect(!Passphrase.matches("correct horse battery", hash: "not a hash"))
        #expect(!Passphrase.matches("correct horse battery", hash: "$y$broken"))
    }

    @Test("five wrong passphrases lock for 15 minutes, during which none is even checked")
    func lockout() {
        var gate = PassphraseGate()
        var checks = 0
        for k in 1...4 {
            #expect(gate.attempt(at: Int64(k)) { checks += 1; return false } == .wrong(triesLeft: 5 - k))
        }
        #expect(gate.attempt(at: 5) { checks += 1; return false } == .wrong(triesLeft: 0))
        #expect(checks == 5)
        #expect(gate.attempt(at: 6) { checks += 1; return true } == .locked(remaining: PassphraseGate.lockFor - 1))
        #expect(checks == 5)
        let open = 5 + PassphraseGate.lockFor
        #expect(gate.attempt(at: open - 1) { true } == .locked(remaining: 1))
        #expect(gate.attempt(at: open) { true } == .accepted)
        // A success forgets earlier failures.
        for k in 1...4 { _ = gate.attempt(at: open + Int64(k)) { false } }
        #expect(gate.attempt(at: open + 5) { true } == .accepted)
        #expect(gate.attempt(at: open + 6) { false } == .wrong(triesLeft: 4))
    }

    @Test("a gate as saved goes on where it was; a clock set back does not make its lock longer than 15 minutes")
    func saved() {
        var counting = PassphraseGate(failures: 4, lockedUntil: nil)
        #expect(counting.attempt(at: 100) { false } == .wrong(triesLeft: 0))
        var locked = PassphraseGate(failures: counting.failures, lockedUntil: counting.lockedUntil)
        #expect(locked.attempt(at: 101) { true } == .locked(remaining: PassphraseGate.lockFor - 1))
        // The wall clock set back a day: still locked, for 15 minutes at most from now.
        let back: Int64 = 100 - 86_400 * 1_000_000
        #expect(locked.attempt(at: back) { true } == .locked(remaining: PassphraseGate.lockFor))
        #expect(locked.attempt(at: back + PassphraseGate.lockFor) { true } == .accepted)
    }
}
