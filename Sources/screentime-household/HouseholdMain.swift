import ArgumentParser
import ControlProtocol
import Foundation
import Logging
import NIOSSL
import PostgresNIO
import ScreenTimeHousehold
import Synchronization

/// The family database's side of screentime (docs/household.md): `link`, which screentimed starts
/// to speak PostgreSQL for it, and `setup`, which the family's administrator runs once (and after
/// each upgrade) to make or bring up to date the schema.
@main
struct ScreentimeHousehold: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "screentime-household",
        abstract: "The family database of screentime: one ledger for a child's several computers (docs/household.md).",
        version: ControlProtocol.release,
        subcommands: [Setup.self, Link.self])
}

/// `setup`: the schema, by migrations, as the database's owner; a machine's role added to it.
struct Setup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create or update the family database's schema (as its owner), and let machines' roles use it.")

    @Option(help: "The family database, as its owner: postgresql://OWNER@HOST[:PORT]/DATABASE (no password in it).")
    var database: String

    @Option(help: "A file holding the owner's password.")
    var passwordFile: String

    @Option(help: "The certificate authority a remote server's certificate must chain to (default: the system's).")
    var caFile: String?

    @Option(help: "A machine's database role to let append to the family ledger (the role must exist; repeat for several).")
    var grant: [String] = []

    func run() async throws {
        guard let password = HouseholdMessage.Hello.password(inFile: passwordFile) else {
            throw ValidationError("\(passwordFile): cannot read the password file (does it exist, and may this user read it?)")
        }
        let client = PostgresClient(configuration: try DatabaseAddress(database).configuration(password: password, caFile: caFile))
        let logger = Logger(label: "screentime-household")
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            let done = try await HouseholdSchema.migrate(client, logger: logger)
            print(done.isEmpty ? "the family database's schema is up to date" : "applied schema changes \(done.map(String.init).joined(separator: ", "))")
            for role in grant {
                try await client.query(PostgresQuery(unsafeSQL: "GRANT \(HouseholdSchema.machineRole) TO \(DatabaseAddress.quoted(role))"), logger: logger)
                print("\(role) may now append to the family ledger")
            }
        }
    }
}

/// `link`: run by screentimed, never by hand. Standard input is a socket to the daemon: a hello
/// line, then requests, each answered in order (HouseholdMessage).
struct Link: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Speak to the family database for screentimed (started by it; standard input is its socket).")

    /// How long one request may take, connecting included, before the daemon is told the database
    /// is out of reach (it then goes on from what it holds).
    static let patience: Duration = .seconds(4)
    static let noAnswer = "the family database did not answer within \(patience.components.seconds) s"

    func run() async throws {
        var lines = StandardInputLines().makeAsyncIterator()
        guard let first = await lines.next(), let hello = try? ControlProtocol.decode(HouseholdMessage.Hello.self, from: first) else {
            throw ValidationError("screentime-household link is started by screentimed, which sends it where the family database is first")
        }
        var logger = Logger(label: "screentime-household")
        logger.logLevel = .error
        let address = try DatabaseAddress(hello.database)
        if let forbidden = NetworkAccess.problem(reaching: address) {
            // No connection could ever be made: each request is answered with why, at once.
            while let line = await lines.next() {
                guard let request = try? ControlProtocol.decode(HouseholdMessage.Request.self, from: line) else { continue }
                guard StandardInputLines.write(ControlProtocol.encode(HouseholdMessage.Reply(id: request.id, error: forbidden))) else { break }
            }
            Foundation.exit(0)
        }
        let client = PostgresClient(configuration: try address.configuration(password: hello.password, caFile: hello.caFile),
                                    eventLoopGroup: PostgresClient.defaultEventLoopGroup, backgroundLogger: logger)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            let ledger = FamilyLedger(client: client, logger: logger)
            while let line = await lines.next() {
                guard let request = try? ControlProtocol.decode(HouseholdMessage.Request.self, from: line) else { continue }
                let reply = await Self.answer(request, ledger: ledger)
                guard StandardInputLines.write(ControlProtocol.encode(reply)) else { Foundation.exit(0) }
                // A request the database did not answer may hold a connection whose network is
                // gone, for as long as TCP takes to give up (minutes): the link ends instead, and
                // the daemon starts a new one, with new connections.
                if reply.error == Self.noAnswer { Foundation.exit(0) }
            }
            // The daemon is gone (its socket closed): nothing to wait for, a query that will not
            // end included.
            Foundation.exit(0)
        }
    }

    /// The database's answer, or after `patience` a reply that says it did not come. The request
    /// is not waited for past that (a query on a connection whose network is gone may not end for
    /// minutes): its late answer is dropped, and the next request is taken.
    static func answer(_ request: HouseholdMessage.Request, ledger: FamilyLedger) async -> HouseholdMessage.Reply {
        let once = Once()
        return await withCheckedContinuation { (reply: CheckedContinuation<HouseholdMessage.Reply, Never>) in
            let give: @Sendable (HouseholdMessage.Reply) -> Void = { r in if once.claim() { reply.resume(returning: r) } }
            let work = Task {
                do { give(try await carryOut(request, ledger: ledger)) } catch {
                    give(HouseholdMessage.Reply(id: request.id, error: DatabaseAddress.explain(error)))
                }
            }
            Task {
                try? await Task.sleep(for: patience)
                give(HouseholdMessage.Reply(id: request.id, error: noAnswer))
                work.cancel()
            }
        }
    }

    /// True the first time only.
    final class Once: Sendable {
        private let taken = Mutex(false)
        func claim() -> Bool { taken.withLock { t in defer { t = true }; return !t } }
    }

    static func carryOut(_ request: HouseholdMessage.Request, ledger: FamilyLedger) async throws -> HouseholdMessage.Reply {
        func entry(_ e: HouseholdMessage.Entry) throws -> FamilyEntry {
            guard let kind = FamilyEntry.Kind(rawValue: e.kind) else { throw Refused(why: "'\(e.kind)' is not a kind of ledger entry") }
            return FamilyEntry(child: request.child, machine: request.machine, origin: e.origin, kind: kind, points: e.points, atMicros: e.atMicros, note: e.note)
        }
        switch request.op {
        case .send:
            for e in request.entries ?? [] {
                if case .refused = try await ledger.append(try entry(e), floor: nil) {
                    throw Refused(why: "the family ledger refused an entry without a floor")
                }
            }
            return HouseholdMessage.Reply(id: request.id)
        case .pay:
            guard let e = request.entries?.first else { throw Refused(why: "pay needs an entry") }
            switch try await ledger.append(try entry(e), floor: 0) {
            case .appended(let seq, let balance): return HouseholdMessage.Reply(id: request.id, outcome: "appended", seq: seq, balance: balance)
            case .duplicate(let seq, let balance): return HouseholdMessage.Reply(id: request.id, outcome: "duplicate", seq: seq, balance: balance)
            case .refused(let balance): return HouseholdMessage.Reply(id: request.id, outcome: "refused", balance: balance)
            }
        case .lease:
            guard let l = request.lease else { throw Refused(why: "lease needs its terms") }
            let g = try await FamilyGameTime(client: ledger.client, logger: ledger.logger)
                .lease(child: request.child, day: l.day, weekStart: l.weekStart, want: l.want,
                       dailyLimit: l.dailyLimit, weeklyLimit: l.weeklyLimit, screen: l.screen == true)
            var reply = HouseholdMessage.Reply(id: request.id)
            (reply.granted, reply.dayTotal, reply.weekTotal, reply.reached) = (g.granted, g.dayTotal, g.weekTotal, g.reached)
            return reply
        case .check:
            let all = try await ledger.entries(of: request.child)
            var reply = HouseholdMessage.Reply(id: request.id, balance: try await ledger.balance(of: request.child), rows: all.map {
                HouseholdMessage.Row(seq: $0.seq, machine: $0.machine, origin: $0.origin, kind: $0.kind, points: $0.points, note: $0.note)
            })
            reply.problem = FamilyLedgerCheck.problem(in: all)
            if reply.problem == nil, let last = all.last, last.balanceAfter != reply.balance {
                reply.problem = "the child's balance says \(reply.balance ?? 0), the entries sum to \(last.balanceAfter)"
            }
            return reply
        case .read:
            let rows = try await ledger.entries(of: request.child, after: request.after ?? 0, limit: request.limit ?? 500)
            var reply = HouseholdMessage.Reply(id: request.id, rows: rows.map {
                HouseholdMessage.Row(seq: $0.seq, machine: $0.machine, origin: $0.origin, kind: $0.kind, points: $0.points, note: $0.note)
            })
            if let a = request.appTime {
                reply.others = try await FamilyGameTime(client: ledger.client, logger: ledger.logger)
                    .shareAppTime(child: request.child, day: a.day, weekStart: a.weekStart,
                                  used: a.used.map { ($0.key, $0.today) })
                    .map { HouseholdMessage.Reply.Others(key: $0.key, today: $0.today, week: $0.week) }
            }
            return reply
        }
    }

    struct Refused: Error, CustomStringConvertible { var why: String; var description: String { why } }
}

/// The lines the daemon sends on standard input (a socket), read by a thread of their own.
struct StandardInputLines: AsyncSequence {
    typealias Element = [UInt8]
    func makeAsyncIterator() -> AsyncStream<[UInt8]>.Iterator {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        Thread.detachNewThread {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { break }
                pending += buffer[0..<n]
                while let end = pending.firstIndex(of: 10) {
                    continuation.yield(Array(pending[..<end]))
                    pending.removeSubrange(...end)
                }
                // A line longer than the daemon ever sends is not kept growing.
                if pending.count > 4 << 20 { pending.removeAll() }
            }
            continuation.finish()
        }
        return stream.makeAsyncIterator()
    }

    /// Writes a reply to the daemon; false when it is gone.
    static func write(_ bytes: [UInt8]) -> Bool {
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { send(0, $0.baseAddress! + off, bytes.count - off, Int32(MSG_NOSIGNAL)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            off += n
        }
        return true
    }
}

/// A `postgresql://ROLE@HOST[:PORT]/DATABASE` URL, and the client's configuration for it: TLS
/// whenever the server is not on loopback.
struct DatabaseAddress {
    var user: String
    var host: String
    var port: Int
    var database: String

    init(_ url: String) throws {
        guard let c = URLComponents(string: url), ["postgresql", "postgres"].contains(c.scheme ?? ""), let host = c.host, !host.isEmpty else {
            throw ValidationError("\(url): not a PostgreSQL URL (postgresql://ROLE@HOST[:PORT]/DATABASE)")
        }
        guard let user = c.user, !user.isEmpty else { throw ValidationError("\(url): the URL names no role (postgresql://ROLE@HOST/DATABASE)") }
        guard c.password == nil else { throw ValidationError("\(url): the password belongs in the credentials file, not in the URL") }
        let database = String(c.path.drop { $0 == "/" })
        guard !database.isEmpty else { throw ValidationError("\(url): the URL names no database (postgresql://ROLE@HOST/DATABASE)") }
        self.user = user.removingPercentEncoding ?? user
        self.host = host
        self.port = c.port ?? 5432
        self.database = database
    }

    var onLoopback: Bool { ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host) || host.hasPrefix("127.") }

    func configuration(password: String, caFile: String?) throws -> PostgresClient.Configuration {
        var tls = PostgresClient.Configuration.TLS.disable
        if !onLoopback {
            var t = TLSConfiguration.makeClientConfiguration()
            if let caFile { t.trustRoots = .file(caFile) }
            tls = .require(t)
        }
        var c = PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
        c.options.connectTimeout = .seconds(3)
        c.options.maximumConnections = 2
        return c
    }

    /// A role's name as an SQL identifier.
    static func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// What went wrong, in a line a parent can act on.
    static func explain(_ error: any Error) -> String {
        if let e = error as? PSQLError {
            if let message = e.serverInfo?[.message] { return "the family database refused: \(message)" }
            switch e.code {
            case .connectionError: return "cannot connect to the family database (is it running, and is the network up?)"
            case .serverClosedConnection, .clientClosedConnection: return "the family database closed the connection"
            default: return "the family database: \(e.code)"
            }
        }
        return "\(error)"
    }
}

/// Whether this process may reach the family database's computer at all. A systemd unit can forbid
/// it (screentimed-system.service does, unless the household's drop-in allows it: docs/household.md),
/// and then every connection fails the same way: said once, plainly, instead of "cannot connect".
enum NetworkAccess {
    static let remedy = "for screentimed-system, add the household drop-in of docs/household.md (systemctl edit screentimed-system)"

    static func problem(reaching address: DatabaseAddress) -> String? {
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard probe >= 0 else {
            return "this service may not open network connections (its unit's RestrictAddressFamilies): \(remedy)"
        }
        close(probe)
        // This network namespace's interfaces (/sys/class/net shows sysfs's, which may be another's).
        let netDev = (try? String(contentsOfFile: "/proc/self/net/dev", encoding: .utf8)) ?? ""
        let interfaces = netDev.split(separator: "\n").dropFirst(2).compactMap { $0.split(separator: ":").first?.trimmingCharacters(in: .whitespaces) }
        if !address.onLoopback, !interfaces.isEmpty, interfaces.allSatisfy({ $0 == "lo" }) {
            return "this service has no network but its own loopback (its unit's PrivateNetwork), so \(address.host) is out of reach: \(remedy)"
        }
        return nil
    }
}
