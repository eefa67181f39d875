import Foundation
import Logging
import PostgresNIO
import ScreenTimeHousehold
import ScreenTimeLinux

// `make bench`, the household part (issue #20; docs/benchmarks.md): a school lab of MACHINES
// computers (default 200) sharing one PostgreSQL, each as the household link of a daemon would
// be: reading the family ledger every second, sending its entries, leasing game time, redeeming.
// Prints redemptions per second and their p50/p99, lease renewals per second, and the database's
// CPU time over the run; then checks the ledger (issue #42): every entry the database
// acknowledged (appended, or answered as sent before) is in it once, no redemption took a balance
// below zero, every child's chain is whole. A child's computers redeem at the same moment.
// usage: HouseholdBenchmark [MACHINES] [SECONDS] [SCHEMA] (SCHEMA: migrate no further than that
// version, to show the check failing on an older schema: 6 lost a second child's entry).

let arguments = CommandLine.arguments
let machines = arguments.count > 1 ? Int(arguments[1]) ?? 200 : 200
let seconds = arguments.count > 2 ? Int(arguments[2]) ?? 60 : 60
let schema = arguments.count > 3 ? Int(arguments[3]) : nil
/// Four computers a child (a lab: the same pupils at several desks).
let children = max(1, machines / 4)

/// A real PostgreSQL (Debian's) in a scratch folder, run as a user of its own (it refuses root).
final class Cluster: @unchecked Sendable {
    static let bin = PostgreSQLPrograms.folder()
    static let user = "screentime-bench"
    let folder: String
    let port = 54_000 + Int(getpid() % 1000)
    let password = "bench-" + UUID().uuidString
    let server = Process()
    let uid: uid_t

    init() throws {
        if getpwnam(Self.user) == nil { try Self.run("/usr/sbin/useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", Self.user]) }
        uid = getpwnam(Self.user)!.pointee.pw_uid
        folder = NSTemporaryDirectory() + "screentime-bench-pg-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try password.write(toFile: folder + "/pw", atomically: true, encoding: .utf8)
        chown(folder, uid, gid_t(uid)); chown(folder + "/pw", uid, gid_t(uid))
        try Self.run("/usr/bin/setpriv", ["--reuid=\(Self.user)", "--regid=\(Self.user)", "--init-groups", Self.bin + "/initdb", "-D", folder + "/data",
                                          "-U", "family_admin", "--auth=scram-sha-256", "--pwfile=" + folder + "/pw", "--locale=C.UTF-8"])
        server.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        server.arguments = ["--reuid=\(Self.user)", "--regid=\(Self.user)", "--init-groups", Self.bin + "/postgres", "-D", folder + "/data", "-k", folder,
                            "-p", "\(port)", "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=\(machines * 2 + 20)"]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        for _ in 0..<300 {
            if (try? Self.run(Self.bin + "/pg_isready", ["-h", "127.0.0.1", "-p", "\(port)"])) != nil { return }
            usleep(100_000)
        }
        stop()
        throw CocoaError(.fileReadUnknown)
    }

    func stop() {
        if server.isRunning { kill(server.processIdentifier, SIGINT); server.waitUntilExit() }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// CPU seconds of every process of the database's user so far: the scheduler's own count of
    /// the time each ran (`/proc/PID/schedstat`, in ns), not `stat`'s clock ticks, which miss most
    /// of the short turns of a backend answering a query. A backend that ended is not counted:
    /// it is read before the machines let go of their connections.
    func cpuSeconds() -> Double {
        var nanoseconds = 0
        for pid in (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap(Int32.init) ?? [] {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                  status.contains("\nUid:\t\(uid)\t"),
                  let sched = try? String(contentsOfFile: "/proc/\(pid)/schedstat", encoding: .utf8),
                  let ran = sched.split(separator: " ").first.flatMap({ Int($0) }) else { continue }
            nanoseconds += ran
        }
        return Double(nanoseconds) / 1e9
    }

    @discardableResult
    static func run(_ tool: String, _ args: [String]) throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw CocoaError(.executableLoad) }
        return p.terminationStatus
    }
}

func client(_ cluster: Cluster, user: String, password: String, connections: Int) -> PostgresClient {
    var c = PostgresClient.Configuration(host: "127.0.0.1", port: cluster.port, username: user, password: password, database: "postgres", tls: .disable)
    c.options.maximumConnections = connections
    return PostgresClient(configuration: c)
}

/// What one machine measured.
struct Tally: Sendable {
    var redemptions: [Double] = []     // milliseconds, paid or refused
    var leases = 0
    var sends = 0
    var reads = 0
    var failures = 0
    /// The entries the database acknowledged: each child's, by origin.
    var acknowledged: [(child: String, origin: String)] = []
    /// The database's CPU seconds at the end of the run, while every machine is still connected.
    var databaseCPU: Double? = nil

    mutating func note(_ outcome: FamilyLedger.Outcome, _ entry: FamilyEntry) {
        switch outcome {
        case .appended, .duplicate: acknowledged.append((entry.child, entry.origin))
        case .refused: break
        }
    }
}

/// What is wrong with the ledger after the run (nothing: empty): every acknowledged entry in it
/// once, no redemption below zero, each chain whole.
func problems(_ ledger: FamilyLedger, children: Int, acknowledged: [(child: String, origin: String)]) async throws -> [String] {
    var out: [String] = []
    var wanted: [String: [String]] = [:]
    for a in acknowledged { wanted[a.child, default: []].append(a.origin) }
    for c in 0..<children {
        let child = "pupil\(c)"
        let entries = try await ledger.entries(of: child)
        if let broken = FamilyLedgerCheck.problem(in: entries) { out.append("\(child): \(broken)") }
        var seen: [String: Int] = [:]
        for e in entries { seen[e.origin, default: 0] += 1 }
        for (origin, n) in seen where n > 1 { out.append("\(child): \(origin) is in the ledger \(n) times") }
        for origin in Set(wanted[child] ?? []) where seen[origin] == nil { out.append("\(child): \(origin) was acknowledged but is not in the ledger") }
        for e in entries where e.kind == "redeemed" && e.balanceAfter < 0 { out.append("\(child): entry \(e.seq) took the balance to \(e.balanceAfter)") }
    }
    return out
}

let logger = Logger(label: "household-bench")
let cluster = try Cluster()
defer { cluster.stop() }
let admin = client(cluster, user: "family_admin", password: cluster.password, connections: 4)
let (tallies, ledgerRight): ([Tally], Bool) = try await withThrowingTaskGroup(of: Void.self) { runs in
    runs.addTask { await admin.run() }
    defer { runs.cancelAll() }
    _ = try await HouseholdSchema.migrate(admin, through: schema, logger: logger)
    try await admin.query("CREATE ROLE lab LOGIN PASSWORD 'lab'", logger: logger)
    try await admin.query(PostgresQuery(unsafeSQL: "GRANT \(HouseholdSchema.machineRole) TO lab"), logger: logger)
    // Each child starts with enough points for the whole run's redemptions to be paid, mostly.
    let bank = FamilyLedger(client: admin, logger: logger)
    var starts = Tally()
    for c in 0..<children {
        let start = FamilyEntry(child: "pupil\(c)", machine: "bank", origin: "start", kind: .adjusted, points: 2_000, atMicros: 0)
        starts.note(try await bank.append(start, floor: nil), start)
    }
    let cpuBefore = cluster.cpuSeconds()
    let start = Date()
    let tallies = try await withThrowingTaskGroup(of: Tally.self) { group in
        for m in 0..<machines {
            group.addTask {
                let db = client(cluster, user: "lab", password: "lab", connections: 2)
                return try await withThrowingTaskGroup(of: Tally?.self, returning: Tally.self) { inner in
                    inner.addTask { await db.run(); return nil }
                    defer { inner.cancelAll() }
                    var t = Tally()
                    let child = "pupil\(m % children)", machine = "desk\(m)"
                    let ledger = FamilyLedger(client: db, logger: logger), time = FamilyGameTime(client: db, logger: logger)
                    // The children spread over the first second; a child's computers together.
                    try await Task.sleep(for: .milliseconds((m % children) * 1000 / children))
                    var read: Int64 = 0
                    var tick = 0
                    while Date().timeIntervalSince(start) < Double(seconds) {
                        let turn = Date()
                        do {
                            // Every second: the others' entries (as the daemon reads them).
                            read = try await ledger.entries(of: child, after: read, limit: 500).last?.seq ?? read
                            t.reads += 1
                            // Every 10 s: this machine's entries (a session's points).
                            if tick % 10 == m % 10 {
                                let entry = FamilyEntry(child: child, machine: machine, origin: "\(machine):entry:\(tick)", kind: .earned, points: 3,
                                                        atMicros: Int64(tick))
                                t.note(try await ledger.append(entry, floor: nil), entry)
                                t.sends += 1
                            }
                            // Every 30 s: a lease of game time.
                            if tick % 30 == m % 30 {
                                _ = try await time.lease(child: child, day: 20780 + Int64(tick / 30), weekStart: 20780, want: 60_000_000,
                                                         dailyLimit: 5_400_000_000, weeklyLimit: nil)
                                t.leases += 1
                            }
                            // Every 5 s: a redemption, decided against the family's balance; all of a
                            // child's computers in the same second.
                            if tick % 5 == (m % children) % 5 {
                                let asked = Date()
                                let entry = FamilyEntry(child: child, machine: machine, origin: "\(machine):request:\(tick)", kind: .redeemed, points: -2,
                                                        atMicros: Int64(tick))
                                t.note(try await ledger.append(entry, floor: 0), entry)
                                t.redemptions.append(Date().timeIntervalSince(asked) * 1000)
                            }
                        } catch {
                            t.failures += 1
                        }
                        tick += 1
                        let rest = 1.0 - Date().timeIntervalSince(turn)
                        if rest > 0 { try await Task.sleep(for: .milliseconds(Int(rest * 1000))) }
                    }
                    return t
                }
            }
        }
        group.addTask {
            try await Task.sleep(for: .milliseconds(seconds * 1000 - 200))
            return Tally(databaseCPU: cluster.cpuSeconds())
        }
        var all: [Tally] = []
        for try await t in group { all.append(t) }
        return all
    }
    let wall = Date().timeIntervalSince(start)
    let cpu = (tallies.compactMap(\.databaseCPU).first ?? cluster.cpuSeconds()) - cpuBefore
    let times = tallies.flatMap(\.redemptions).sorted()
    func percentile(_ p: Double) -> Double { times.isEmpty ? 0 : times[min(times.count - 1, Int(Double(times.count) * p))] }
    print(String(format: "household: %d machines (%d children), %.0f s: %.1f redemptions/s, p50 %.1f ms, p99 %.1f ms (target p99 <= 50 ms); %.1f lease renewals/s; %.1f entries sent/s; %.0f reads/s; database CPU %.1f s (%.0f%% of one core); %d failures",
                 machines, children, wall, Double(times.count) / wall, percentile(0.5), percentile(0.99), Double(tallies.map(\.leases).reduce(0, +)) / wall,
                 Double(tallies.map(\.sends).reduce(0, +)) / wall, Double(tallies.map(\.reads).reduce(0, +)) / wall, cpu, cpu / wall * 100,
                 tallies.map(\.failures).reduce(0, +)))
    let acknowledged = starts.acknowledged + tallies.flatMap(\.acknowledged)
    let wrong = try await problems(bank, children: children, acknowledged: acknowledged)
    if wrong.isEmpty {
        print("household: the ledger is right: \(acknowledged.count) acknowledged entries each in it once, no redemption below zero, \(children) chains whole")
    } else {
        print("household: the ledger is WRONG (\(wrong.count) problems): " + wrong.prefix(10).joined(separator: "; "))
    }
    return (tallies, wrong.isEmpty)
}
// (exit skips the defer above: the database is stopped first.)
if !ledgerRight || tallies.map(\.failures).reduce(0, +) > 0 { cluster.stop(); exit(1) }
