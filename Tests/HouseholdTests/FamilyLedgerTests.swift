import Logging
import PostgresNIO
import ScreenTimeHousehold
import TestSupport
import Testing

/// The family ledger in a real PostgreSQL (issue #20's first part): the schema by migrations, the
/// machines' append-only role, entries written once, and a redemption decided against the family
/// balance in one transaction.
@Suite("The family ledger in PostgreSQL", .ownThread)
struct FamilyLedgerTests {
    static let logger = Logger(label: "household-tests")

    /// A cluster with the family database migrated, and a login role for each named machine.
    static func family(machines: [String]) throws -> PostgresCluster {
        let pg = try PostgresCluster()
        try pg.sql("CREATE DATABASE family")
        for m in machines {
            try pg.sql("CREATE ROLE \(m) LOGIN PASSWORD '\(m)-secret'")
        }
        return pg
    }

    static func client(_ pg: PostgresCluster, user: String, password: String, connections: Int = 20) -> PostgresClient {
        var c = PostgresClient.Configuration(host: "127.0.0.1", port: pg.port, username: user, password: password, database: "family", tls: .disable)
        c.options.maximumConnections = connections
        return PostgresClient(configuration: c)
    }

    /// Runs `body` with a running client (its `run()` in a task of its own, cancelled after).
    static func with<T: Sendable>(_ client: PostgresClient, _ body: @Sendable (PostgresClient) async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }

    static func migrate(_ pg: PostgresCluster, machines: [String]) async throws {
        let done = try await with(client(pg, user: pg.admin, password: pg.adminPassword)) { admin in
            try await HouseholdSchema.migrate(admin, logger: logger)
        }
        #expect(done == [1, 2, 3, 4])
        for m in machines { try pg.sql("GRANT \(HouseholdSchema.machineRole) TO \(m)", database: "family") }
    }

    @Test("migrations run once; a machine may append through the function and read, but not write, change or remove a row itself")
    func appendOnly() async throws {
        let pg = try Self.family(machines: ["family_pc"])
        defer { pg.stop() }
        try await Self.migrate(pg, machines: ["family_pc"])
        let again = try await Self.with(Self.client(pg, user: pg.admin, password: pg.adminPassword)) { admin in
            try await HouseholdSchema.migrate(admin, logger: Self.logger)
        }
        #expect(again == [])
        try await Self.with(Self.client(pg, user: "family_pc", password: "family_pc-secret")) { db in
            let ledger = FamilyLedger(client: db, logger: Self.logger)
            let first = try await ledger.append(FamilyEntry(child: "emma", machine: "family_pc", origin: "ev-1", kind: .earned, points: 12, atMicros: 1), floor: nil)
            #expect(first == .appended(seq: 1, balanceAfter: 12))
            for forbidden in ["UPDATE screentime.ledger SET points = 1000", "DELETE FROM screentime.ledger",
                              "INSERT INTO screentime.ledger VALUES ('emma', 2, 'family_pc', 'forged', 'earned', 1000, 1012, 2, '', ''::bytea, ''::bytea)",
                              "UPDATE screentime.children SET balance = 1000", "TRUNCATE screentime.ledger CASCADE"] {
                do {
                    try await db.query(PostgresQuery(unsafeSQL: forbidden), logger: Self.logger)
                    Issue.record("a machine could run: \(forbidden)")
                } catch let e as PSQLError {
                    // 42501: insufficient_privilege, not some other failure.
                    #expect(e.serverInfo?[.sqlState] == "42501", "\(forbidden): \(String(reflecting: e))")
                }
            }
            #expect(try await ledger.balance(of: "emma") == 12)
            // The kinds of migration 4: a parent's bonus time, and minutes taken back with a refund.
            #expect(try await ledger.append(FamilyEntry(child: "emma", machine: "family_pc", origin: "ev-2", kind: .bonusTime, points: 0, atMicros: 2),
                                            floor: nil) == .appended(seq: 2, balanceAfter: 12))
            #expect(try await ledger.append(FamilyEntry(child: "emma", machine: "family_pc", origin: "ev-3", kind: .revoked, points: 8, atMicros: 3),
                                            floor: nil) == .appended(seq: 3, balanceAfter: 20))
        }
    }

    @Test("an entry sent again (same machine and origin) is written once; the chain and the balance check, and a changed entry is found")
    func exactlyOnce() async throws {
        let pg = try Self.family(machines: ["family_pc", "laptop"])
        defer { pg.stop() }
        try await Self.migrate(pg, machines: ["family_pc", "laptop"])
        try await Self.with(Self.client(pg, user: "laptop", password: "laptop-secret")) { db in
            let ledger = FamilyLedger(client: db, logger: Self.logger)
            let e = FamilyEntry(child: "emma", machine: "laptop", origin: "ev-7", kind: .earned, points: 30, atMicros: 1_000, note: "GCompris")
            #expect(try await ledger.append(e, floor: nil) == .appended(seq: 1, balanceAfter: 30))
            #expect(try await ledger.append(e, floor: nil) == .duplicate(seq: 1, balanceAfter: 30))
            // The same origin from another machine is another entry.
            var other = e
            other.machine = "family_pc"
            #expect(try await ledger.append(other, floor: nil) == .appended(seq: 2, balanceAfter: 60))
            let entries = try await ledger.entries(of: "emma")
            #expect(entries.count == 2)
            #expect(FamilyLedgerCheck.problem(in: entries) == nil)
            var forged = entries
            forged[0].points = 300
            #expect(FamilyLedgerCheck.problem(in: forged) == "entry 1 was changed after it was written (its hash differs)")
        }
    }

    @Test("200 machines redeem the last 100 points at the same moment: exactly one wins; the balance is the sum of the entries")
    func redemptionRace() async throws {
        let pg = try Self.family(machines: ["family_pc"])
        defer { pg.stop() }
        try await Self.migrate(pg, machines: ["family_pc"])
        try await Self.with(Self.client(pg, user: "family_pc", password: "family_pc-secret", connections: 50)) { db in
            let ledger = FamilyLedger(client: db, logger: Self.logger)
            _ = try await ledger.append(FamilyEntry(child: "emma", machine: "family_pc", origin: "start", kind: .adjusted, points: 100, atMicros: 0), floor: nil)
            let outcomes = try await withThrowingTaskGroup(of: FamilyLedger.Outcome.self) { group in
                for i in 0..<200 {
                    group.addTask {
                        try await ledger.append(FamilyEntry(child: "emma", machine: "family_pc", origin: "redeem-\(i)", kind: .redeemed, points: -100,
                                                            atMicros: Int64(i)), floor: 0)
                    }
                }
                var all: [FamilyLedger.Outcome] = []
                for try await o in group { all.append(o) }
                return all
            }
            #expect(outcomes.filter { if case .appended = $0 { true } else { false } }.count == 1)
            #expect(outcomes.filter { $0 == .refused(balance: 0) }.count == 199)
            let entries = try await ledger.entries(of: "emma")
            #expect(entries.count == 2)
            #expect(try await ledger.balance(of: "emma") == 0)
            #expect(entries.map(\.points).reduce(0, +) == 0)
            #expect(FamilyLedgerCheck.problem(in: entries) == nil)
        }
    }
}
