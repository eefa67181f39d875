import Foundation
import ScreenTimeCore
import TestSupport
import Testing

/// The daemon killed with SIGKILL at random moments while a learning app works. It runs as uid
/// 65534 (a child's user daemon), on a lenient policy where the app's CPU use counts as learning
/// and one second earns one point.
@Suite("screentimed survives SIGKILL", .ownThread, .serialized)
struct CrashTests {
    static let nobody = "65534"

    static func asNobody(_ args: [String], quiet: Bool = true) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        p.arguments = ["--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups"] + args
        if quiet {
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
        }
        try p.run()
        return p
    }

    static func check(_ state: String, uid: String = nobody) throws -> ReplayBinaryTests.Run {
        try ReplayBinaryTests.runBinary("/usr/bin/setpriv", ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups",
                                                             ReplayBinaryTests.binary, "check", "--state-dir", state])
    }

    @Test("100 kills during learning, adjustments and redemptions: check passes after each; nothing answered is lost or doubled; little learning is lost")
    func hundredKills() throws {
        let fm = FileManager.default
        let base = fm.temporaryDirectory.appendingPathComponent("screentime-crash-\(UUID().uuidString)").path
        try fm.createDirectory(atPath: base + "/bin", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        for dir in ["/state", "/run"] {
            try fm.createDirectory(atPath: base + dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try fm.setAttributes([.ownerAccountID: 65534, .groupOwnerAccountID: 65534], ofItemAtPath: base + dir)
        }
        let socket = base + "/run/control.sock"
        try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: base)
        try fm.copyItem(atPath: "/usr/bin/yes", toPath: base + "/bin/gcompris-qt")
        let policy = base + "/policy.toml"
        try """
            version = 1
            timezone = "UTC"
            [points]
            learning_per_hour = 3600
            daily_learning_cap = "24h"
            [validation]
            strictness = "lenient"
            min_session = "0s"
            [[apps]]
            name = "GCompris"
            category = "learning"
            exe = ["\(base)/bin/gcompris-qt"]
            """.write(toFile: policy, atomically: true, encoding: .utf8)

        let learner = try Self.asNobody(["nice", "-n", "19", base + "/bin/gcompris-qt"])
        defer { kill(learner.processIdentifier, SIGKILL); learner.waitUntilExit() }

        // Kill moments spread over the rounds by multiplying with large primes: the same every run.
        func spread(_ round: Int, _ prime: Int) -> UInt32 { UInt32(round * prime % 300_000) }
        var lives: [(spawned: Date, killed: Date)] = []
        var answered = (adjusted: 0, redeemed: 0)
        let stctl = ControlSocketTests.stctl
        for round in 1...100 {
            let started = Date()
            let daemon = try Self.asNobody([ReplayBinaryTests.binary, "--policy", policy, "--state-dir", base + "/state",
                                            "--socket", socket, "--sample-every", "100ms", "--cpu-every", "200ms"])
            // Sleeps, not waits: the kill moments are the experiment (spread, the same every run).
            usleep(150_000 + spread(round, 104_729))
            // A parent at work while the daemon may die at any moment: what was answered must be kept.
            if try ReplayBinaryTests.runBinary(stctl, ["adjust", "1", "--reason", "round \(round)", "--socket", socket]).status == 0 {
                answered.adjusted += 1
            }
            if round % 5 == 0, try ReplayBinaryTests.runBinary(stctl, ["redeem", "1", "--socket", socket]).status == 0 {
                answered.redeemed += 1
            }
            usleep(spread(round, 15_485_863))
            kill(daemon.processIdentifier, SIGKILL)
            daemon.waitUntilExit()
            lives.append((started, Date()))
            let r = try Self.check(base + "/state")
            guard r.status == 0 else {
                Issue.record("round \(round): check failed: \(r.stderr)")
                return
            }
        }
        // One last life, ended properly, so that the last session is judged and saved.
        let lastStarted = Date()
        let last = try Self.asNobody([ReplayBinaryTests.binary, "--policy", policy, "--state-dir", base + "/state",
                                      "--socket", socket, "--sample-every", "100ms", "--cpu-every", "200ms"])
        defer { if last.isRunning { kill(last.processIdentifier, SIGKILL); last.waitUntilExit() } }
        // Up and answering, its start logged (1 s of sleep, before #37); a killed life's socket file
        // may be left, so its answer is waited for, not the file.
        try Wait.until("the last life to answer on its socket", within: 30) {
            try ReplayBinaryTests.runBinary(stctl, ["status", "--socket", socket]).status == 0
        }
        kill(last.processIdentifier, SIGTERM)
        last.waitUntilExit()
        #expect(last.terminationStatus == 0)
        lives.append((lastStarted, Date()))
        let r = try Self.check(base + "/state")
        #expect(r.status == 0, "\(r.stderr)")

        let sum = Process()
        let out = Pipe()
        sum.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        sum.arguments = [base + "/state/screentime.sqlite", """
            SELECT sum(credited_micros), count(*), (SELECT count(*) FROM event WHERE line LIKE '%daemon_started%'),
                   (SELECT count(*) FROM ledger WHERE kind = 'adjusted'), (SELECT count(*) FROM ledger WHERE kind = 'redeemed')
            FROM session
            """]
        sum.standardOutput = out
        try sum.run()
        sum.waitUntilExit()
        let fields = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|")
        let credited = Double(fields[0]).map { $0 / 1e6 } ?? 0
        // Every life that answered had logged its start; a life killed before it could (on a loaded
        // machine, 150 ms may not be enough to start) may or may not have.
        let startsLogged = fields.count == 5 ? Int(fields[2]) ?? 0 : 0
        #expect(startsLogged >= answered.adjusted + 1 && startsLogged <= 101, "\(startsLogged) starts logged, \(answered.adjusted) lives answered")
        // Every adjustment and redemption the daemon said yes to is in the ledger, once.
        #expect(answered.adjusted > 50)
        #expect(fields.count == 5 && fields[3] == "\(answered.adjusted)" && fields[4] == "\(answered.redeemed)")
        // Learning lost: the time the daemon lived but did not credit, at most 2 s a crash, not
        // counting each life's start-up (from its spawn to its logged start; a life killed before
        // it logged its start is all start-up): how fast a process starts is the machine's load
        // (under CI's, 2.03 s a life with start-up), what is lost after is the daemon's.
        let startLines = try ReplayBinaryTests.runBinary("/usr/bin/sqlite3", [base + "/state/screentime.sqlite",
                                                         "SELECT line FROM event WHERE line LIKE '%\"daemon_started\"%'"]).stdout
        let starts = startLines.split(separator: "\n").compactMap { line in
            (try? EventLog.decode(line: String(line))).map { Date(timeIntervalSince1970: Double($0.at.micros) / 1e6) }
        }
        #expect(starts.count == startsLogged, "the starts read from the log")
        let startUp = lives.reduce(0.0) { sum, life in
            let start = starts.first { $0 >= life.spawned.addingTimeInterval(-0.01) && $0 <= life.killed } ?? life.killed
            return sum + max(0, start.timeIntervalSince(life.spawned))
        }
        let alive = lives.reduce(0.0) { $0 + $1.killed.timeIntervalSince($1.spawned) }
        let lost = alive - credited - startUp
        #expect(credited > 0)
        #expect(lost <= 2 * 100, "lived \(alive) s, credited \(credited) s, starting \(startUp) s")
        print("crash test: lived \(String(format: "%.1f", alive)) s, started in \(String(format: "%.2f", startUp / 101)) s a life, credited \(String(format: "%.1f", credited)) s, lost \(String(format: "%.2f", lost / 101)) s a life")
    }
}

@Suite("screentimed on read-only state", .ownThread)
struct ReadOnlyStateTests {
    @Test("the daemon refuses to start on state it cannot write, says why, and changes nothing; check still reads it")
    func readOnly() throws {
        let fm = FileManager.default
        let base = fm.temporaryDirectory.appendingPathComponent("screentime-ro-\(UUID().uuidString)").path
        try fm.createDirectory(atPath: base, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try fm.setAttributes([.ownerAccountID: 65534, .groupOwnerAccountID: 65534], ofItemAtPath: base)
        let policy = base + "/policy.toml"
        try "version = 1\ntimezone = \"UTC\"\n".write(toFile: policy, atomically: true, encoding: .utf8)
        let daemon = try CrashTests.asNobody([ReplayBinaryTests.binary, "--policy", policy, "--state-dir", base + "/state",
                                              "--socket", base + "/control.sock", "--sample-every", "100ms"])
        defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL); daemon.waitUntilExit() } }
        // Its state made: it listens once it has (0.7 s of sleep, before #37).
        try Wait.until("the daemon to make its socket", within: 15) { fm.fileExists(atPath: base + "/control.sock") }
        kill(daemon.processIdentifier, SIGTERM)
        daemon.waitUntilExit()
        #expect(daemon.terminationStatus == 0)
        let db = base + "/state/screentime.sqlite"
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        try fm.setAttributes([.posixPermissions: 0o444], ofItemAtPath: db)
        try fm.setAttributes([.posixPermissions: 0o555], ofItemAtPath: base + "/state")
        let r = try ReplayBinaryTests.runBinary("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups",
            ReplayBinaryTests.binary, "--policy", policy, "--state-dir", base + "/state", "--socket", base + "/control.sock"])
        #expect(r.status == 1)
        #expect(r.stderr == "screentimed: \(db): cannot open the state database: the database is read-only (check the folder's permissions and free space)\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        let c = try CrashTests.check(base + "/state")
        #expect(c.status == 0, "\(c.stderr)")
    }

    @Test("a damaged database is refused at start, left byte for byte as it was, and check names the damage")
    func damaged() throws {
        let fm = FileManager.default
        let base = fm.temporaryDirectory.appendingPathComponent("screentime-damaged-\(UUID().uuidString)").path
        try fm.createDirectory(atPath: base, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
        let policy = base + "/policy.toml"
        try "version = 1\ntimezone = \"UTC\"\n".write(toFile: policy, atomically: true, encoding: .utf8)
        let args = [ReplayBinaryTests.binary, "--policy", policy, "--state-dir", base + "/state", "--socket", base + "/control.sock", "--no-logind"]
        let daemon = try CrashTests.asNobody(args + ["--sample-every", "100ms"])
        defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL); daemon.waitUntilExit() } }
        // Its state made: it listens once it has (0.7 s of sleep, before #37).
        try Wait.until("the daemon to make its socket", within: 15) { fm.fileExists(atPath: base + "/control.sock") }
        kill(daemon.processIdentifier, SIGTERM)
        daemon.waitUntilExit()
        #expect(daemon.terminationStatus == 0)
        let db = base + "/state/screentime.sqlite"
        // Scribble over the start of every page after the first (the tables' b-tree headers).
        var bytes = try Data(contentsOf: URL(fileURLWithPath: db))
        #expect(bytes.count >= 4 * 4096)
        for page in stride(from: 4096, to: bytes.count, by: 4096) {
            bytes.replaceSubrange((page + 8)..<(page + 24), with: [UInt8](repeating: 0xFF, count: 16))
        }
        try bytes.write(to: URL(fileURLWithPath: db))
        let r = try ReplayBinaryTests.runBinary("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups"] + args)
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("screentimed: \(db): cannot open the state database: "), "\(r.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == bytes)
        let c = try CrashTests.check(base + "/state")
        #expect(c.status == 1)
        #expect(c.stderr.hasPrefix("\(db): "), "\(c.stderr)")
    }
}
