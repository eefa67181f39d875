import Foundation
import TestSupport
import Testing

/// The daemon's journal entries, in the journal's native protocol. journald does not run here, so
/// the daemon runs in a private mount namespace whose `/run/systemd/journal` is a folder of the
/// test's: the datagram socket bound there (by a listener of the test's) is what `sd_journal_sendv`
/// writes to (docs/dev/recipes.md). Everything else is real: processes, socket, SQLite.
///
/// The child is uid 65004 (its own: this daemon stops game-like processes of its child).
@Suite("The journal: priority, message and SCREENTIME_* fields", .ownThread, .serialized)
struct JournalTests {
    static let child: UInt32 = TestUser.ensure(uid: 65004, name: "stchild65004")

    /// A folder for the journal socket, and the launcher that makes it the daemon's
    /// `/run/systemd/journal` (a tmpfs over /run first: this machine may have no /run/systemd).
    static func journalFolder() throws -> (dir: String, launcher: [String]) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("screentime-journal-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let script = #"mount -t tmpfs tmpfs /run && mkdir -p /run/systemd/journal && mount --bind "$0" /run/systemd/journal && exec "$@""#
        return (dir, ["/usr/bin/unshare", "--mount", "/bin/sh", "-c", script, dir])
    }

    /// Binds the journal's socket in `dir` and writes each entry it receives as a JSON object
    /// (field: [values], a field may come more than once) on a line of `dir/entries.jsonl`.
    /// Both forms of a field are read: `NAME=value\n`, and `NAME\n` + 64-bit length + bytes + `\n`.
    static func listen(in dir: String) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = ["-c", #"""
            import json, os, socket, struct, sys
            path = sys.argv[1] + "/socket"
            s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(path); os.chmod(path, 0o666)
            out = open(sys.argv[1] + "/entries.jsonl", "w", buffering=1)
            while True:
                data, i, fields = s.recv(1 << 20), 0, {}
                while i < len(data):
                    nl = data.index(b"\n", i)
                    head = data[i:nl]
                    if b"=" in head:
                        name, value = head.split(b"=", 1); i = nl + 1
                    else:
                        (n,) = struct.unpack("<Q", data[nl + 1:nl + 9])
                        name, value = head, data[nl + 9:nl + 9 + n]; i = nl + 9 + n + 1
                    fields.setdefault(name.decode(), []).append(value.decode())
                out.write(json.dumps(fields) + "\n")
            """#, dir]
        try p.run()
        Wait.whether(within: 15) { FileManager.default.fileExists(atPath: dir + "/socket") }
        return p
    }

    static func entries(_ dir: String) -> [[String: [String]]] {
        ((try? String(contentsOfFile: dir + "/entries.jsonl", encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: [String]]
        }
    }

    /// Waits (15 s at most) for an entry whose SCREENTIME_EVENT is `event` and that `also` accepts.
    static func entry(_ dir: String, event: String, where also: ([String: [String]]) -> Bool = { _ in true }) throws -> [String: [String]] {
        var found: [String: [String]]? = nil
        Wait.whether(within: 15) {
            found = entries(dir).first { $0["SCREENTIME_EVENT"] == [event] && also($0) }
            return found != nil
        }
        if let found { return found }
        Issue.record("no journal entry with SCREENTIME_EVENT=\(event); got: \(entries(dir))")
        throw CancellationError()
    }

    @Test("a stop, a refusal and a redemption, each with its priority, message and fields; nothing on stderr")
    func stopRefusalRedemption() throws {
        let (dir, launcher) = try Self.journalFolder()
        let listener = try Self.listen(in: dir)
        defer { kill(listener.processIdentifier, SIGKILL); reap(listener) }
        let apps = try AppCopies.folder()
        let game = "\(apps)/supertuxkart", learning = "\(apps)/gcompris-qt"
        // `--log auto` with systemd's JOURNAL_STREAM naming the daemon's stderr: the journal, natively.
        let d = try LiveDaemon(policy: TestPolicy.learningAndGame(learning: learning, game: game, dailyLimit: "2s", idleAfter: "2s"),
                               arguments: ["--sample-every", "200ms", "--no-logind", "--no-notifications", "--log", "auto"],
                               uid: Self.child, launcher: launcher, journalStream: true)
        let started = try Self.entry(dir, event: "started")
        #expect(started["PRIORITY"] == ["6"] && started["SYSLOG_IDENTIFIER"] == ["screentimed"], "\(started)")

        // A redemption the balance does not cover is refused; one it covers is made.
        try EnforcementTests.parent(d, ["adjust", "10", "--reason", "chores"])
        let refusedRedeem = try ReplayBinaryTests.runBinary(ControlSocketTests.stctl, ["redeem", "100", "--anyway", "--socket", d.socket])
        #expect(refusedRedeem.status == 1, "\(refusedRedeem.stdout)\(refusedRedeem.stderr)")
        try EnforcementTests.parent(d, ["redeem", "1", "--anyway"])
        let refused = try Self.entry(dir, event: "refused")
        #expect(refused["PRIORITY"] == ["5"], "\(refused)")
        #expect(refused["SCREENTIME_REQUEST"] == ["redeem 100 min"] && refused["SCREENTIME_REASON"] == ["insufficient_points"], "\(refused)")
        #expect(refused["MESSAGE"]?.first?.hasSuffix(" refused redeem 100 min: it costs 100 points and the balance is 10") == true, "\(refused)")
        let redeem = try Self.entry(dir, event: "redeem")
        #expect(redeem["PRIORITY"] == ["5"], "\(redeem)")
        #expect(redeem["SCREENTIME_POINTS"] == ["-1"] && redeem["SCREENTIME_BALANCE"] == ["9"] && redeem["SCREENTIME_REWARD_SECONDS"] == ["60"], "\(redeem)")
        #expect(redeem["SCREENTIME_BY"] == ["root"], "\(redeem)")
        #expect(redeem["MESSAGE"]?.first?.hasSuffix(" redeemed 1 min of game time for 1 points (root); balance 9") == true, "\(redeem)")

        // Learning time refused: focused with input, then idle, then closed.
        let app = try EnforcementTests.child([learning, "60"], uid: Self.child)
        defer { if app.isRunning { kill(app.processIdentifier, SIGKILL) } }
        try d.waitUntilSeen(app.processIdentifier, runs: learning)
        let hook = try FakeHook.send(to: d.socket, focusOn: app.processIdentifier, inputs: 10, quiet: 3.5, uid: Self.child)
        #expect(FakeHook.taken(hook) == 11, "\(hook.stdout)\(hook.stderr)")
        kill(app.processIdentifier, SIGKILL)
        // (On a loaded machine the hook may come over idle_after after the app was seen: that time
        // is then a session of its own, unfocused; the one with the focus is the last.)
        let session = try Self.entry(dir, event: "session") { $0["SCREENTIME_APP"] == ["GCompris"] && $0["SCREENTIME_REASON"]?.contains("idle") == true }
        let stored = try #require((try d.json(["sessions"])["sessions"] as? [[String: Any]])?.last)
        #expect(session["PRIORITY"] == ["5"], "\(session)")
        #expect(session["SCREENTIME_CATEGORY"] == ["learning"] && session["SCREENTIME_PID"] == ["\(app.processIdentifier)"], "\(session)")
        #expect(session["SCREENTIME_REASON"]?.contains("idle") == true, "\(session)")
        #expect(session["SCREENTIME_POINTS"] == ["\(stored["points"] as? Int ?? -1)"], "journal \(session), stored \(stored)")
        #expect(session["SCREENTIME_CREDITED_SECONDS"] == ["\(stored["credited_seconds"] as? Int ?? -1)"], "journal \(session), stored \(stored)")
        let idle = try #require((stored["refused"] as? [[String: Any]])?.first { $0["reason"] as? String == "idle" })
        let idleIndex = try #require(session["SCREENTIME_REASON"]?.firstIndex(of: "idle"))
        #expect(session["SCREENTIME_REFUSED_SECONDS"]?[idleIndex] == "\(idle["seconds"] as? Int ?? -1)", "journal \(session), stored \(stored)")
        #expect((stored["seconds"] as? Int).map { $0 >= 6 } == true, "\(stored)")
        #expect(session["MESSAGE"]?.first?.contains(" session GCompris ") == true, "\(session)")
        #expect(session["MESSAGE"]?.first?.contains(" idle") == true, "\(session)")

        // The game: stopped when the day's 2 s are gone.
        let p = try EnforcementTests.child([game, "60"], uid: Self.child)
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        #expect(EnforcementTests.ends(p, within: 15))
        let stop = try Self.entry(dir, event: "stop")
        #expect(stop["PRIORITY"] == ["5"], "\(stop)")
        #expect(stop["SCREENTIME_APP"] == ["SuperTuxKart"] && stop["SCREENTIME_REASON"] == ["daily_limit"], "\(stop)")
        #expect(stop["SCREENTIME_PID"] == ["\(p.processIdentifier)"] && stop["SCREENTIME_EXE"] == [game], "\(stop)")
        #expect(stop["SCREENTIME_ACTION"] == ["terminate"] && stop["SCREENTIME_SIGNALLED"] == ["SIGTERM to 1 process"], "\(stop)")
        #expect(stop["MESSAGE"]?.first?.contains(" stop SuperTuxKart (pid \(p.processIdentifier), \(game)): daily_limit; SIGTERM to 1 process") == true, "\(stop)")
        #expect(stop["CODE_FILE"]?.first?.isEmpty == false && stop["CODE_LINE"]?.first.flatMap(Int.init) != nil, "\(stop)")
        try d.stop()
        #expect(try Self.entry(dir, event: "stopped")["MESSAGE"] == ["stopped; everything is saved"])
        // All of it went to the journal: nothing on stderr.
        #expect(try String(contentsOfFile: d.log, encoding: .utf8) == "")
    }

    @Test("no journal to reach: the same lines on stderr, nothing lost")
    func fallsBackToStderr() throws {
        let (dir, launcher) = try Self.journalFolder()   // no socket bound in it
        let d = try LiveDaemon(arguments: ["--sample-every", "1h", "--no-logind", "--no-notifications", "--log", "journal"],
                               uid: Self.child, launcher: launcher)
        _ = try d.waitFor("screentimed: watching uid \(Self.child)")
        try EnforcementTests.parent(d, ["adjust", "5", "--reason", "test"])
        _ = try d.waitFor(" points adjusted by +5 (test (root)); balance 5")
        try d.stop()
        #expect(Self.entries(dir).isEmpty)
    }

    @Test("--log stderr: one plain line per entry; warnings and errors say so")
    func standardError() throws {
        let d = try LiveDaemon(policy: "version = 1\ntimezone = \"UTC\"\n", arguments: ["--sample-every", "1h", "--no-logind", "--no-notifications", "--log", "stderr"],
                               uid: Self.child)
        _ = try d.waitFor("screentimed: watching uid \(Self.child)")
        // A policy that does not load: an error, and the old policy stays.
        try "version = 1\ntimezone = \"UTC\"\ndaily_limt = 3\n".write(toFile: d.base + "/policy.toml", atomically: true, encoding: .utf8)
        let reload = try ReplayBinaryTests.runBinary(ControlSocketTests.stctl, ["policy", "reload", "--socket", d.socket])
        #expect(reload.status == 1, "\(reload.stdout)\(reload.stderr)")
        _ = try d.waitFor("screentimed: error: policy not reloaded, the old one stays in force: ")
        try d.stop()
    }
}
