import Foundation
import TestSupport
import Testing

/// Issue #16: the plug pulled on the daemon's writes. The daemon runs with powercut-vfs
/// (Scripts/powercut-vfs.c, loaded with LD_PRELOAD into its libsqlite3), under which a write
/// reaches the file only when SQLite syncs it: a SIGKILL then loses exactly what a power cut
/// would. The daemon is started again without it on the same state, as after the power comes back.
@Suite("A power cut", .ownThread)
struct PowerCutTests {
    static let child: UInt32 = TestUser.ensure(uid: 65061, name: "stchild65061")
    static let parentPolicy = "version = 1\ntimezone = \"UTC\"\n"

    /// powercut-vfs, built for this run where the child can read it.
    static let shim: String = {
        let out = Readable.folder + "/powercut-vfs.so"
        let source = ReplayBinaryTests.root.appendingPathComponent("Tests/EndToEndTests/Scripts/powercut-vfs.c").path
        let r = try? ReplayBinaryTests.runBinary("/usr/bin/cc", ["-shared", "-fPIC", "-O1", "-o", out, source, "-lsqlite3"])
        if r?.status != 0 {
            Issue.record("could not build \(source): \(r?.stderr ?? "no /usr/bin/cc"); `make test-deps` installs gcc and libsqlite3-dev")
        }
        chmod(out, 0o755)
        return out
    }()

    /// How the child runs the daemon under powercut-vfs (`LiveDaemon.restart(asChild:)`).
    static var withShim: [String] { ["/usr/bin/env", "LD_PRELOAD=\(shim)"] }

    static func bootMicros() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_BOOTTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }

    /// Starts the daemon again under powercut-vfs, and checks that its state goes through it.
    static func underShim(_ d: LiveDaemon) throws {
        try d.restart(asChild: withShim)
        _ = try d.waitFor("powercut-vfs: holding unsynced writes to \(d.database)\n")
    }

    @Test("powercut-vfs loses a commit that was not synced and keeps one that was")
    func shimLosesWhatIsNotSynced() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("screentime-powercut-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = dir + "/t.sqlite"
        // The sqlite3 shell under it: a synced commit (FULL), one that is not (NORMAL, in WAL mode),
        // both seen by the process; then it kills itself.
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        p.arguments = [db]
        p.environment = ["PATH": "/usr/bin:/bin", "LD_PRELOAD": Self.shim]
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = FileHandle.nullDevice
        try p.run()
        input.fileHandleForWriting.write(Data("""
            PRAGMA journal_mode = WAL;
            PRAGMA synchronous = FULL;
            CREATE TABLE t (x TEXT);
            INSERT INTO t VALUES ('synced');
            PRAGMA synchronous = NORMAL;
            INSERT INTO t VALUES ('not synced');
            SELECT 'seen: ' || group_concat(x, ', ') FROM t;
            .shell kill -9 $PPID

            """.utf8))
        try input.fileHandleForWriting.close()
        let seen = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.ending == .signal(SIGKILL))
        #expect(seen.contains("seen: synced, not synced"), "\(seen)")
        let after = try ReplayBinaryTests.runBinary("/usr/bin/sqlite3", [db, "SELECT group_concat(x, ', ') FROM t; PRAGMA integrity_check;"])
        #expect(after.stdout == "synced\nok\n", "\(after.stdout)\(after.stderr)")
    }

    @Test("an adjustment and a redemption answered just before a power cut are there after it")
    func answeredActionsSurvive() throws {
        let d = try LiveDaemon(policy: Self.parentPolicy, arguments: ["--sample-every", "200ms", "--no-logind", "--no-notifications"], uid: Self.child)
        defer { d.remove() }
        _ = try d.waitFor("watching uid")
        try Self.underShim(d)
        for args in [["adjust", "100", "--reason", "chores"], ["redeem", "2"]] {
            let r = try ReplayBinaryTests.runBinary(ControlSocketTests.stctl, args + ["--socket", d.socket])
            #expect(r.status == 0, "\(args): \(r.stderr)")
        }
        try d.cutAndStartAgain()
        let ledger = try d.sql("SELECT kind || ' ' || points || ' ' || coalesce(reward_micros, '') FROM ledger ORDER BY seq")
        #expect(ledger == "adjusted 100 \nredeemed -4 120000000", "the ledger after the power cut: \(ledger)")
        try d.stop()
    }

    @Test("a power cut loses at most the last second or so of observed time")
    func observedTimeIsKept() throws {
        let d = try LiveDaemon(arguments: ["--sample-every", "200ms", "--no-logind", "--no-notifications"], uid: Self.child)
        defer { d.remove() }
        _ = try d.waitFor("watching uid")
        try Self.underShim(d)
        let started = Self.bootMicros()
        // Something to observe: a new process of the child's every 0.3 s.
        let busy = try ChildProcesses(uid: Self.child)
        defer { busy.end() }
        // Six seconds observed (the experiment itself: not a wait for something), then the cut.
        usleep(6_000_000)
        let cut = Self.bootMicros()
        try d.cutAndStartAgain()
        // The newest event saved before the cut, and how many of the six seconds' processes were.
        let restarts = try d.sql("SELECT seq FROM event WHERE line LIKE '%\"event\":\"daemon_started\"%' ORDER BY seq DESC LIMIT 2").split(separator: "\n")
        let (mine, after) = try (#require(restarts.last), #require(restarts.first))
        let last = try d.sql("SELECT line FROM event WHERE seq < \(after) ORDER BY seq DESC LIMIT 1")
        let event = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any], "\(last)")
        let mono = Int64(try #require(event["mono"] as? Double, "\(last)") * 1e6)   // seconds of the boot clock
        let seen = Int(try d.sql("SELECT count(*) FROM event WHERE seq > \(mine) AND seq < \(after) AND line LIKE '%\"event\":\"process_started\"%'")) ?? 0
        let lost = Double(cut - mono) / 1e6
        print("power cut after \(Double(cut - started) / 1e6) s observed: \(seen) processes saved; the newest saved event is \(lost) s older than the cut")
        #expect(seen >= 5, "the processes of the six seconds before the cut were lost")
        // At most a second unsaved, a sample, the new process's 0.3 s, and a loaded machine's delays.
        #expect(lost < 3, "the newest saved event is \(lost) s older than the power cut")
        try d.stop()
    }
}

extension LiveDaemon {
    /// The power cut: the daemon is killed (SIGKILL: nothing more is written, and under powercut-vfs
    /// nothing it did not sync is in the files), then started again as usual on the same state.
    func cutAndStartAgain() throws {
        func starts() -> Int { ((try? String(contentsOfFile: log, encoding: .utf8))?.components(separatedBy: "watching uid").count ?? 1) - 1 }
        let before = starts()
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try startAgain()
        Wait.whether(within: 10) { starts() > before || !process.isRunning }
        #expect(starts() > before, "the daemon did not start again after the power cut: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
    }

    /// Removes the daemon's folder, once it has stopped (a failed test's daemon is killed).
    func remove() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: base)
    }
}

/// A shell of the child's that starts a short-lived process every 0.3 s, for the daemon to observe.
struct ChildProcesses {
    let shell: Process

    init(uid: UInt32) throws {
        shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        shell.arguments = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "/bin/sh", "-c", "while :; do sleep 0.3; done"]
        try shell.run()
    }

    /// Ends the shell and the process it runs (stopped first, so that it starts no other).
    func end() {
        let pid = shell.processIdentifier
        kill(pid, SIGSTOP)
        let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        for child in children.split(separator: " ").compactMap({ Int32($0) }) { kill(child, SIGKILL) }
        kill(pid, SIGKILL)
        shell.waitUntilExit()
    }
}
