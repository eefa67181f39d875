import Foundation
import TestSupport
import Testing

/// A parent's action answered "done" survives a power cut, not only `kill -9`: its commit syncs the
/// write-ahead log before the answer. So do the saves of observed time, once a second. What makes a
/// commit survive a power cut can be seen here (PowerCutTests makes one): the daemon runs under
/// strace, which logs each fsync and fdatasync with the file it syncs, as it happens (the traced
/// daemon waits while strace writes).
@Suite("Durable answers to parents", .ownThread)
struct DurabilityTests {
    static let child: UInt32 = TestUser.ensure(uid: 65060, name: "stchild65060")

    /// The syncs of the state's write-ahead log that strace has logged so far.
    static func walSyncs(_ trace: String) -> Int {
        let text = (try? String(contentsOfFile: trace, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { ($0.contains("fsync(") || $0.contains("fdatasync(")) && $0.contains("screentime.sqlite-wal>") }.count
    }

    @Test("an adjustment, a redemption and a policy reload are synced to disk before the parent is answered; observed time is synced once a second at most, and nothing when nothing is observed")
    func parentActionsAreSynced() throws {
        let trace = FileManager.default.temporaryDirectory.appendingPathComponent("screentime-strace-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: trace) }
        let d = try LiveDaemon(arguments: ["--sample-every", "200ms", "--no-logind"], uid: Self.child,
                               launcher: ["/usr/bin/strace", "-f", "-qq", "-y", "-e", "trace=fsync,fdatasync", "-o", trace])
        defer { try? FileManager.default.removeItem(atPath: d.base) }
        _ = try d.waitFor("watching uid")
        // strace ignores SIGTERM (inherited from the test runner), and a SIGKILL of strace would
        // leave the daemon it traces running: the daemon, its child, is told itself, at the end
        // and on any way out of the test.
        let children = (try? String(contentsOfFile: "/proc/\(d.process.processIdentifier)/task/\(d.process.processIdentifier)/children", encoding: .utf8)) ?? ""
        let daemon = try #require(children.split(separator: " ").first.flatMap { Int32($0) }, "strace has no child")
        defer {
            // Only if it is still the child's (a pid is used again once its process is gone).
            var st = stat()
            if stat("/proc/\(daemon)", &st) == 0, st.st_uid == Self.child { kill(daemon, SIGKILL) }
        }
        var before = Self.walSyncs(trace)
        for args in [["adjust", "10", "--reason", "chores"], ["redeem", "1"], ["policy", "reload"]] {
            if args == ["policy", "reload"] {
                // A changed policy (a reload of the same text changes nothing and saves nothing).
                try "version = 1\ntimezone = \"UTC\"\n[points]\nper_reward_minute = 1\n".write(toFile: d.base + "/policy.toml", atomically: true, encoding: .utf8)
            }
            let r = try ReplayBinaryTests.runBinary(ControlSocketTests.stctl, args + ["--socket", d.socket])
            #expect(r.status == 0, "\(args): \(r.stderr)")
            // Answered: the sync is already in the trace.
            let after = Self.walSyncs(trace)
            #expect(after > before, "\(args): answered before the log was synced")
            before = after
        }
        // Two seconds of sampling with nothing of the child's running: nothing new, nothing saved, no sync.
        // A sleep, not a wait: the test shows that a sync does not come.
        usleep(2_000_000)
        #expect(Self.walSyncs(trace) == before, "the daemon synced its state while it observed nothing new")
        // A new process of the child's every 0.3 s for four seconds: saved once a second, each save synced.
        let busy = try ChildProcesses(uid: Self.child)
        let started = Date()
        // A sleep, not a wait: four seconds of observed time, in which the syncs are counted.
        usleep(4_000_000)
        busy.end()
        let seconds = Date().timeIntervalSince(started)
        let syncs = Self.walSyncs(trace) - before
        print("\(syncs) syncs of the state's log in \(seconds) s of observed time")
        #expect(syncs >= 2 && Double(syncs) <= seconds + 2, "\(syncs) syncs of the log in \(seconds) s of observed time (one a second expected)")
        kill(daemon, SIGTERM)    // strace ends with it
        try d.stop()
    }
}
