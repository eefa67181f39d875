import Foundation
import ScreenTimeCore
import TestSupport
import Testing

/// Issue #15: the child restarted their own (user-mode) daemon under libfaketime, which read a boot
/// clock 57 years ahead: retention removed every event, the redeemed time expired, the history
/// was empty, the calendar stayed ahead, and check said ok.
@Suite("A faked clock changes nothing", .ownThread, .serialized)
struct ClockTamperTests {
    static let child: UInt32 = TestUser.ensure(uid: 65050, name: "stclock65050")
    static let faketime = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"

    static let policy = """
        version = 1
        timezone = "UTC"
        [points]
        per_reward_minute = 1
        [rewards]
        redemption_expires_after = "1h"
        """

    static func parent(_ d: LiveDaemon, _ args: [String]) throws {
        let r = try ReplayBinaryTests.runBinary(ControlSocketTests.stctl, args + ["--socket", d.socket])
        #expect(r.status == 0, "\(args): \(r.stderr)")
    }

    @Test("restarted under FAKETIME=+1d: no event removed, no redemption expired, the history whole, the next normal start on today's calendar; check reports the faked clock")
    func fakedRestart() throws {
        try #require(FileManager.default.fileExists(atPath: Self.faketime), "libfaketime is missing: make test installs the faketime package")
        let d = try LiveDaemon(policy: Self.policy, arguments: ["--sample-every", "1s", "--no-logind", "--no-notifications"], uid: Self.child)
        defer { if d.process.isRunning { kill(d.process.processIdentifier, SIGKILL) } }
        _ = try d.waitFor("watching uid")
        try Self.parent(d, ["adjust", "100", "--reason", "chores"])
        try Self.parent(d, ["redeem", "30"])
        let events = Int(try d.sql("SELECT count(*) FROM event")) ?? 0
        #expect(events >= 3)

        // The child restarts the daemon under libfaketime. (Through a second env: the first program
        // libfaketime is loaded into can lose its arguments.)
        try d.restart(asChild: ["/usr/bin/env", "LD_PRELOAD=\(Self.faketime)", "FAKETIME=+1d", "/usr/bin/env"])
        _ = try d.waitFor("a clock that cannot be true: the daemon was given a boot clock")
        let faked = try d.status()
        #expect(faked["reward_remaining_seconds"] as? Int == 30 * 60, "\(faked)")
        #expect(faked["balance"] as? Int == 70, "\(faked)")

        // And normally again.
        try d.restart()
        let status = try d.status()
        #expect(status["reward_remaining_seconds"] as? Int == 30 * 60, "\(status)")
        #expect(Int(try d.sql("SELECT count(*) FROM event")) ?? 0 > events)
        #expect(try d.sql("SELECT count(*) FROM log_base") == "0")
        #expect(try d.sql("SELECT group_concat(kind) FROM ledger") == "adjusted,redeemed")
        #expect(try d.sql("SELECT count(*) FROM event WHERE line LIKE '%\"event\":\"clock_faked\"%'") == "1")
        // Today, by the calendar the engine keeps: the history of the last day shows both entries.
        let history = try #require(try d.json(["history", "--days", "1"])["history"] as? [[String: Any]])
        #expect(history.map { $0["kind"] as? String } == ["adjusted", "redeemed"], "\(history)")
        let now = Int64(Date().timeIntervalSince1970 * 1e6)
        #expect(history.allSatisfy { entry in
            (entry["at"] as? String).flatMap(RFC3339.parse).map { abs($0.micros - now) < 120 * Seconds.micro } == true
        }, "\(history)")

        kill(d.process.processIdentifier, SIGTERM)
        d.process.waitUntilExit()
        #expect(d.process.terminationStatus == 0)
        let check = try CrashTests.check(d.base + "/state", uid: "\(Self.child)")
        #expect(check.status == 1, "\(check.stdout)")
        #expect(check.stderr.contains("a clock that cannot be true: at ") && check.stderr.contains("the daemon was given a boot clock")
                && check.stderr.contains("days ahead of the kernel's"), "\(check.stderr)")
    }
}
