import Foundation
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
        #expect(done == HouseholdSchema.migrations.map(\.version))
        #expect(done.last == 7)
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
        let e = FamilyEntry(child: "emma", machine: "laptop", origin: "ev-7", kind: .earned, points: 30, atMicros: 1_000, note: "GCompris")
        try await Self.with(Self.client(pg, user: "laptop", password: "laptop-secret")) { db async throws -> Void in
            let ledger = FamilyLedger(client: db, logger: Self.logger)
            #expect(try await ledger.append(e, floor: nil) == .appended(seq: 1, balanceAfter: 30))
            #expect(try await ledger.append(e, floor: nil) == .duplicate(seq: 1, balanceAfter: 30))
        }
        // The same origin from another machine (logged in as itself) is another entry.
        try await Self.with(Self.client(pg, user: "family_pc", password: "family_pc-secret")) { db async throws -> Void in
            var other = e
            other.machine = "family_pc"
            #expect(try await FamilyLedger(client: db, logger: Self.logger).append(other, floor: nil) == .appended(seq: 2, balanceAfter: 60))
        }
        try await Self.with(Self.client(pg, user: "laptop", password: "laptop-secret")) { db in
            let ledger = FamilyLedger(client: db, logger: Self.logger)
            let entries = try await ledger.entries(of: "emma")
            #expect(entries.count == 2)
            #expect(FamilyLedgerCheck.problem(in: entries) == nil)
            var forged = entries
            forged[0].points = 300
            #expect(FamilyLedgerCheck.problem(in: forged) == "entry 1 was changed after it was written (its hash differs)")
        }
    }

    @Test("two children's entries with one origin on one computer are both kept (issue 42: the key was the computer and the origin); a database made before keeps its entries and takes the new key")
    func originPerChild() async throws {
        let pg = try Self.family(machines: ["laptop"])
        defer { pg.stop() }
        // The schema as it was before migration 7, with an entry of emma's.
        let before = try await Self.with(Self.client(pg, user: pg.admin, password: pg.adminPassword)) { admin in
            try await HouseholdSchema.migrate(admin, through: 6, logger: Self.logger)
        }
        #expect(before == [1, 2, 3, 4, 5, 6])
        try pg.sql("GRANT \(HouseholdSchema.machineRole) TO laptop", database: "family")
        let emma = FamilyEntry(child: "emma", machine: "laptop", origin: "start", kind: .adjusted, points: 40, atMicros: 1_000)
        let tom = FamilyEntry(child: "tom", machine: "laptop", origin: "start", kind: .adjusted, points: 25, atMicros: 1_000)
        try await Self.with(Self.client(pg, user: "laptop", password: "laptop-secret")) { db async throws -> Void in
            let ledger = FamilyLedger(client: db, logger: Self.logger)
            #expect(try await ledger.append(emma, floor: nil) == .appended(seq: 1, balanceAfter: 40))
            // What the old key did: tom's entry taken for emma's, and never written.
            #expect(try await ledger.append(tom, floor: nil) == .duplicate(seq: 1, balanceAfter: 40))
            #expect(try await ledger.entries(of: "tom").isEmpty)
        }
        let after = try await Self.with(Self.client(pg, user: pg.admin, password: pg.adminPassword)) { admin in
            try await HouseholdSchema.migrate(admin, logger: Self.logger)
        }
        #expect(after == [7])
        try await Self.with(Self.client(pg, user: "laptop", password: "laptop-secret")) { db async throws -> Void in
            let ledger = FamilyLedger(client: db, logger: Self.logger)
            #expect(try await ledger.append(tom, floor: nil) == .appended(seq: 1, balanceAfter: 25))
            // Each sent again is still the one written.
            #expect(try await ledger.append(tom, floor: nil) == .duplicate(seq: 1, balanceAfter: 25))
            #expect(try await ledger.append(emma, floor: nil) == .duplicate(seq: 1, balanceAfter: 40))
            #expect(try await ledger.balance(of: "emma") == 40)
            #expect(try await ledger.balance(of: "tom") == 25)
            for child in ["emma", "tom"] { #expect(FamilyLedgerCheck.problem(in: try await ledger.entries(of: child)) == nil) }
        }
    }

    @Test("a machine writes only in its own name: entries, leases and app time are the login role's, whatever it says; the functions that took a machine are not its to call")
    func ownNameOnly() async throws {
        let pg = try Self.family(machines: ["family_pc", "laptop"])
        defer { pg.stop() }
        try await Self.migrate(pg, machines: ["family_pc", "laptop"])
        try await Self.with(Self.client(pg, user: "laptop", password: "laptop-secret")) { db in
            // An entry that says it is family_pc's is the laptop's.
            let ledger = FamilyLedger(client: db, logger: Self.logger)
            let forged = FamilyEntry(child: "emma", machine: "family_pc", origin: "ev-1", kind: .earned, points: 50, atMicros: 1)
            #expect(try await ledger.append(forged, floor: nil) == .appended(seq: 1, balanceAfter: 50))
            #expect(try await ledger.entries(of: "emma").map(\.machine) == ["laptop"])
            let time = FamilyGameTime(client: db, logger: Self.logger)
            _ = try await time.lease(child: "emma", day: 20_000, weekStart: 20_000, want: 60_000_000, dailyLimit: nil, weeklyLimit: nil)
            _ = try await time.shareAppTime(child: "emma", day: 20_000, weekStart: 20_000, used: [("app:Kart", 5_000_000)])
            // The functions of the first schema, which took the machine, are refused (42501).
            for call in ["SELECT * FROM screentime.append_entry('emma', 'family_pc', 'ev-2', 'earned', 500, 2, '', NULL)",
                         "SELECT * FROM screentime.take_lease('emma', 'family_pc', 20000, 20000, 60000000, NULL, NULL)",
                         "SELECT * FROM screentime.share_app_time('emma', 'family_pc', 20000, 20000, ARRAY['app:Kart'], ARRAY[1]::bigint[])"] {
                do {
                    try await db.query(PostgresQuery(unsafeSQL: call), logger: Self.logger)
                    Issue.record("a machine could call: \(call)")
                } catch let e as PSQLError {
                    #expect(e.serverInfo?[.sqlState] == "42501", "\(call): \(String(reflecting: e))")
                }
            }
        }
        // As the family's administrator reads them: every row is the laptop's.
        #expect(try pg.sql("SELECT string_agg(DISTINCT machine, ',') FROM screentime.ledger", database: "family") == "laptop")
        #expect(try pg.sql("SELECT string_agg(DISTINCT machine, ',') FROM screentime.game_time", database: "family") == "laptop")
        #expect(try pg.sql("SELECT string_agg(DISTINCT machine, ',') FROM screentime.app_time", database: "family") == "laptop")
        #expect(try pg.sql("SELECT balance FROM screentime.children WHERE child = 'emma'", database: "family") == "50")
    }

    @Test("screen time is leased apart from game time: two computers take a 20-minute day a minute at a time, exactly the limit between them, each in its own name")
    func screenLeases() async throws {
        let pg = try Self.family(machines: ["family_pc", "laptop"])
        defer { pg.stop() }
        try await Self.migrate(pg, machines: ["family_pc", "laptop"])
        let minute: Int64 = 60_000_000, limit = 20 * minute
        try await Self.with(Self.client(pg, user: "family_pc", password: "family_pc-secret")) { pcDB in
            try await Self.with(Self.client(pg, user: "laptop", password: "laptop-secret")) { laptopDB in
                let pc = FamilyGameTime(client: pcDB, logger: Self.logger), laptop = FamilyGameTime(client: laptopDB, logger: Self.logger)
                // A game lease first: it takes nothing from the screen's day.
                _ = try await pc.lease(child: "emma", day: 20_000, weekStart: 20_000, want: 5 * minute, dailyLimit: 90 * minute, weeklyLimit: nil)
                var granted: [Int64] = [], reached: String? = nil
                // The two ask in turn until the family's limit is reached: 20 grants of a minute.
                var turn = 0
                while reached == nil, turn < 40 {
                    let g = try await (turn % 2 == 0 ? pc : laptop).lease(child: "emma", day: 20_000, weekStart: 20_000, want: minute,
                                                                         dailyLimit: limit, weeklyLimit: nil, screen: true)
                    granted.append(g.granted)
                    #expect(g.dayTotal == granted.reduce(0, +) && g.weekTotal == g.dayTotal)
                    reached = g.reached
                    turn += 1
                }
                #expect(granted.count == 20 && granted.allSatisfy { $0 == minute } && reached == "daily_limit")
                // Nothing more today; the next day starts afresh, and the week counts both days.
                let more = try await laptop.lease(child: "emma", day: 20_000, weekStart: 20_000, want: minute, dailyLimit: limit, weeklyLimit: nil, screen: true)
                #expect(more.granted == 0 && more.reached == "daily_limit" && more.dayTotal == limit)
                let next = try await laptop.lease(child: "emma", day: 20_001, weekStart: 20_000, want: minute, dailyLimit: limit,
                                                  weeklyLimit: limit + 30_000_000, screen: true)
                #expect(next.granted == 30_000_000 && next.reached == "weekly_limit" && next.weekTotal == limit + 30_000_000)
            }
        }
        #expect(try pg.sql("SELECT machine || '=' || (sum(leased_micros) / 60000000)::bigint FROM screentime.screen_time WHERE day = 20000 GROUP BY machine ORDER BY machine",
                           database: "family") == "family_pc=10\nlaptop=10")
        #expect(try pg.sql("SELECT (sum(leased_micros) / 60000000)::bigint FROM screentime.game_time", database: "family") == "5", "game time apart")
    }

    @Test("the setup as docs/household.md writes it: an administrator made with createuser --createrole (not a superuser) makes the schema and grants the computers' roles")
    func setupAsDocumented() throws {
        let pg = try PostgresCluster()
        defer { pg.stop() }
        let password = pg.folder + "/parent-pw"
        // Made without --createrole (what the docs said before): setup says what to do.
        _ = try pg.sql("CREATE ROLE plain_admin LOGIN PASSWORD 'plain-secret'")
        _ = try pg.sql("CREATE DATABASE family2 OWNER plain_admin")
        try "plain-secret\n".write(toFile: password, atomically: true, encoding: .utf8)
        let plain = try Self.household(["setup", "--database", "postgresql://plain_admin@127.0.0.1:\(pg.port)/family2", "--password-file", password])
        #expect(plain.status != 0 && plain.output.contains("createuser --createrole"), "\(plain.output)")
        // sudo -u postgres createuser --createrole --pwprompt parent_admin; createdb --owner parent_admin family
        _ = try pg.sql("CREATE ROLE parent_admin LOGIN CREATEROLE PASSWORD 'parent-secret'")
        _ = try pg.sql("CREATE DATABASE family OWNER parent_admin")
        _ = try pg.sql("CREATE ROLE family_pc LOGIN PASSWORD 'family_pc-secret'")
        try "parent-secret\n".write(toFile: password, atomically: true, encoding: .utf8)
        let setup = try Self.household(["setup", "--database", "postgresql://parent_admin@127.0.0.1:\(pg.port)/family",
                                         "--password-file", password, "--grant", "family_pc"])
        #expect(setup.status == 0, "\(setup.output)")
        #expect(try pg.sql("SELECT pg_has_role('family_pc', 'screentime_machine', 'MEMBER')", database: "family") == "t")
    }

    /// `screentime-household` as built, with its output (stdout and stderr).
    static func household(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try PostgresCluster.run(FileManager.default.currentDirectoryPath + "/.build/debug/screentime-household", arguments)
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
