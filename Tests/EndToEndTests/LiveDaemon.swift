import Foundation
import ScreenTimeCore
import TestSupport
import Testing

/// The real screentimed, as the child (uid 65534 unless `uid` says another), on a policy of the
/// test's, with its log in a file.
final class LiveDaemon {
    let base: String
    private(set) var process: Process
    let log: String
    private let environment: [String: String]
    private let arguments: [String]
    /// A command the daemon is started through (`unshare …`), ending in one that runs its arguments.
    private let launcher: [String]
    /// A command run as the child that runs the daemon (`/usr/bin/env LD_PRELOAD=…`), for one start.
    private var asChild: [String] = []
    /// The child's uid: the daemon runs as it, and watches its processes.
    let uid: UInt32
    var socket: String { base + "/control.sock" }
    var database: String { base + "/state/screentime.sqlite" }

    /// `importing`: an event log to add to the state (`screentimed import`) before the daemon starts.
    /// `journalStream`: JOURNAL_STREAM names the daemon's stderr, as systemd sets it when it connects
    /// a service's stderr to the journal.
    init(policy: String = "version = 1\ntimezone = \"UTC\"\n", environment: [String: String] = [:], arguments: [String] = ["--sample-every", "1h"],
         importing events: String? = nil, uid: UInt32 = 65534, launcher: [String] = [],
         journalStream: Bool = false) throws {
        self.uid = uid
        let fm = FileManager.default
        base = fm.temporaryDirectory.appendingPathComponent("screentime-live-\(UUID().uuidString)").path
        try fm.createDirectory(atPath: base, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try fm.setAttributes([.ownerAccountID: uid, .groupOwnerAccountID: uid], ofItemAtPath: base)
        try policy.write(toFile: base + "/policy.toml", atomically: true, encoding: .utf8)
        if let events {
            let r = try ReplayBinaryTests.runBinary("/usr/bin/setpriv", ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", ReplayBinaryTests.binary,
                                                                        "import", "--state-dir", base + "/state", "--policy", base + "/policy.toml", events])
            #expect(r.status == 0, "\(r.stderr)")
        }
        log = base + "/daemon.log"
        _ = fm.createFile(atPath: log, contents: nil)
        var environment = environment
        if journalStream {
            let file = try fm.attributesOfItem(atPath: log)
            environment["JOURNAL_STREAM"] = "\(file[.systemNumber] ?? 0):\(file[.systemFileNumber] ?? 0)"
        }
        self.environment = environment
        self.arguments = arguments
        self.launcher = launcher
        process = try LiveDaemon.start(base: base, socket: base + "/control.sock", log: log, environment: environment, arguments: arguments, uid: uid,
                                       launcher: launcher)
    }

    private static func start(base: String, socket: String, log: String, environment: [String: String], arguments: [String], uid: UInt32,
                              launcher: [String], asChild: [String] = []) throws -> Process {
        let process = Process()
        let command = launcher + ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"] + asChild + [ReplayBinaryTests.binary,
                                  "--policy", base + "/policy.toml", "--state-dir", base + "/state", "--socket", socket] + arguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        out.seekToEndOfFile()
        process.standardError = out
        try process.run()
        return process
    }

    /// Stops the daemon (SIGTERM) and starts it again on the same state; its log goes on.
    /// `asChild`: a command the child runs the daemon through, this time (`/usr/bin/env LD_PRELOAD=…`).
    func restart(asChild: [String] = []) throws {
        func starts() -> Int { ((try? String(contentsOfFile: log, encoding: .utf8))?.components(separatedBy: "watching uid").count ?? 1) - 1 }
        let before = starts()
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        process = try LiveDaemon.start(base: base, socket: socket, log: log, environment: environment, arguments: arguments,
                                       uid: uid, launcher: launcher, asChild: asChild)
        Wait.whether(within: 10) { starts() > before || !process.isRunning }
    }

    /// Starts the daemon again after `stop()`, on the same state (which the test may have changed
    /// meanwhile); does not wait for it to be ready.
    func startAgain() throws {
        process = try LiveDaemon.start(base: base, socket: socket, log: log, environment: environment, arguments: arguments,
                                       uid: uid, launcher: launcher)
    }

    /// Kills the daemon with SIGKILL (nothing is saved on the way out) and starts it again on the same state.
    func killAndRestart() throws {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let starts = (try? String(contentsOfFile: log, encoding: .utf8))?.components(separatedBy: "watching uid").count ?? 0
        process = try LiveDaemon.start(base: base, socket: socket, log: log, environment: environment, arguments: arguments, uid: uid, launcher: launcher)
        Wait.whether(within: 10) { (try? String(contentsOfFile: log, encoding: .utf8))?.components(separatedBy: "watching uid").count ?? 0 > starts }
    }

    /// Ends a learning run: kills the learning app `pid`, waits until the daemon saw it end and,
    /// when it should be `credited`, until its learning shows; stops the daemon. Returns that
    /// status, and the sessions of `app` for `pid` and the balance from replaying the stored log.
    func judged(killing pid: Int32, app: String, credited: Bool) throws -> (status: [String: Any], sessions: [[String: Any]], points: Int) {
        kill(pid, SIGKILL)
        try poll("SELECT count(*) FROM event WHERE line LIKE '%\"process_exited\",\"pid\":\(pid)}%'") { $0 == "1" }
        var status = try self.status()
        if credited {
            // Judged once the idle threshold has passed after the last input.
            try Wait.whether(within: 30) {   // each look runs stctl
                if (status["learning_today_seconds"] as? Int ?? 0) != 0 { return true }
                status = try self.status()
                return false
            }
        }
        try stop()
        let log = base + "/events.jsonl"
        try (try sql("SELECT line FROM event ORDER BY seq") + "\n").write(toFile: log, atomically: true, encoding: .utf8)
        let replay = try ReplayBinaryTests.runBinary(ReplayBinaryTests.binary, ["replay", "--policy", base + "/policy.toml", log])
        let result = try #require(try JSONSerialization.jsonObject(with: Data(replay.stdout.utf8)) as? [String: Any], "\(replay.stderr)")
        let sessions = (result["sessions"] as? [[String: Any]] ?? []).filter { $0["app"] as? String == app && $0["pid"] as? Int == Int(pid) }
        return (status, sessions, result["balance"] as? Int ?? -1)
    }

    /// The seconds of `pid`'s focused time (from the first focus on it to its exit) that the inputs
    /// the daemon logged leave idle by the policy's rule (docs/spec/replay.md): each gap from one
    /// logged input to the next, or to the exit, longer than `idleAfter` seconds is idle whole;
    /// before the first input the daemon cannot tell idle. Read from the raw events, never from the
    /// judgement: a loaded machine can hold a test's input in the hook or on the bus for seconds, and
    /// what reached the daemon that late was rightly not active time.
    func idleSeconds(focusedOn pid: Int32, idleAfter: Double) throws -> Double {
        let events = try loggedEvents()
        func time(_ e: Event) -> Double { Double(e.mono ?? e.at.micros) / 1e6 }
        guard let start = events.first(where: { if case .focusChanged(let w) = $0.kind { return w.pid == pid } else { return false } }).map(time),
              let end = events.first(where: { $0.kind == .processExited(pid: pid) }).map(time) else { return 0 }
        return Self.idle(inputs: events.filter { if case .input = $0.kind { return true } else { return false } }.map(time),
                         from: start, to: end, idleAfter: idleAfter)
    }

    /// The same between two wall times (seconds since 1970) of the log.
    func idleSeconds(from start: Double, to end: Double, idleAfter: Double) throws -> Double {
        let inputs = try loggedEvents().filter { if case .input = $0.kind { return true } else { return false } }.map { Double($0.at.micros) / 1e6 }
        return Self.idle(inputs: inputs, from: start, to: end, idleAfter: idleAfter)
    }

    private func loggedEvents() throws -> [Event] {
        try sql("SELECT line FROM event ORDER BY seq").split(separator: "\n").map { try EventLog.decode(line: String($0)) }
    }

    private static func idle(inputs: [Double], from start: Double, to end: Double, idleAfter: Double) -> Double {
        var idle = 0.0
        var last = inputs.last { $0 <= start }
        for next in inputs.filter({ $0 > start && $0 < end }) + [end] {
            if let from = last, next - from > idleAfter { idle += next - max(from, start) }
            last = next
        }
        return idle
    }

    /// How many `input` events the daemon has logged.
    func inputs() throws -> Int { Int(try sql("SELECT count(*) FROM event WHERE line LIKE '%\"event\":\"input\"%'"))! }

    /// Gives one input (`give`), again after 1.5 s or more (10 times at most) until the daemon has logged
    /// an `input`: a hook that has just connected may not be listening for input yet, and a test of
    /// what follows one input must know the daemon saw it.
    func giveInputUntilLogged(_ give: () -> Void) throws {
        let before = try inputs()
        for _ in 0..<10 {
            give()
            if try Wait.whether(within: 1.5, { try inputs() > before }) { return }
        }
        Issue.record("no input reached the daemon in 10 tries")
    }

    /// Waits until the daemon's log holds `text` (`seconds`, 10 by default, at most, and while it
    /// runs); returns the log. (Records an issue and goes on, rather than throwing: the test's
    /// cleanup that follows still runs.)
    func waitFor(_ text: String, seconds: Int = 10) throws -> String {
        var now = ""
        try Wait.whether(within: Double(seconds)) {
            now = try String(contentsOfFile: log, encoding: .utf8)
            return now.contains(text) || !process.isRunning
        }
        if now.contains(text) { return now }
        Issue.record("the daemon never said \"\(text)\"; it said: \(try String(contentsOfFile: log, encoding: .utf8))")
        return ""
    }

    func sql(_ query: String) throws -> String {
        try ReplayBinaryTests.runBinary("/usr/bin/sqlite3", [database, query]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `stctl status --json`, as the child.
    func status() throws -> [String: Any] { try json(["status"]) }

    /// An stctl command as the child, with `--json`.
    func json(_ args: [String]) throws -> [String: Any] {
        let r = try stctl(args + ["--json"])
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)\(r.stderr)")
    }

    /// An stctl command as the child.
    func stctl(_ args: [String]) throws -> ReplayBinaryTests.Run {
        try ReplayBinaryTests.runBinary("/usr/bin/setpriv", ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups",
                                                             ControlSocketTests.stctl] + args + ["--socket", socket])
    }

    /// Polls `query` until `done` holds for its answer (`within` seconds at most, 30 unless said:
    /// each look runs sqlite3, slow on a loaded machine; 750 looks 20 ms apart before #37);
    /// returns the last answer.
    @discardableResult
    func poll(_ query: String, within seconds: Double = 30, until done: (String) -> Bool) throws -> String {
        var answer = ""
        if try Wait.whether(within: seconds, { answer = try sql(query); return done(answer) }) { return answer }
        Issue.record("\(query) never gave what was expected; last: \(answer)")
        return answer
    }

    /// Waits until the daemon has logged (and saved) that process `pid` runs `exe`: from then on a
    /// focus on it is a focus on that program. (Saved within a second.)
    func waitUntilSeen(_ pid: Int32, runs exe: String) throws {
        _ = try poll("SELECT count(*) FROM event WHERE line LIKE '%\"process_started\",\"pid\":\(pid),\"exe\":\"\(exe)\"%'") { $0 != "0" }
    }

    /// A test that failed before `stop` leaves no daemon behind; no test leaves its folder behind
    /// (SCREENTIME_KEEP_TEST_FILES=1 keeps them, to look into a failure).
    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        if ProcessInfo.processInfo.environment["SCREENTIME_KEEP_TEST_FILES"] == nil { try? FileManager.default.removeItem(atPath: base) }
    }

    func stop() throws {
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let c = try CrashTests.check(base + "/state", uid: "\(uid)")
        #expect(c.status == 0, "\(c.stderr)")
    }
}


extension LiveDaemon {
    struct UnreadableReplay: Error, CustomStringConvertible { var description: String }

    /// The daemon's stored log, replayed by `screentimed replay` under its policy: the result, and
    /// the run (for its output in a failure's message).
    func replayOwnLog() throws -> (result: [String: Any], run: ReplayBinaryTests.Run) {
        let events = base + "/events.jsonl"
        try (try sql("SELECT line FROM event ORDER BY seq") + "\n").write(toFile: events, atomically: true, encoding: .utf8)
        let r = try ReplayBinaryTests.runBinary(ReplayBinaryTests.binary, ["replay", "--policy", base + "/policy.toml", events])
        guard let result = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] else {
            throw UnreadableReplay(description: "screentimed replay printed no result: \(r.stderr)")
        }
        return (result, r)
    }
}
