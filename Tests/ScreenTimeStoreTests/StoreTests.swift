import Foundation
import ScreenTimeCore
@testable import ScreenTimeStore
import Testing

@Suite("The state database")
struct StoreTests {
    static func freshPath() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("screentime-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent("screentime.sqlite").path
    }

    /// Runs one statement with the sqlite3 tool, behind the store's back.
    static func sqlite(_ path: String, _ sql: String) throws {
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        sqlite.arguments = [path, sql]
        try sqlite.run()
        sqlite.waitUntilExit()
        #expect(sqlite.terminationStatus == 0, "sqlite3 \(sql)")
    }

    @Test("the ledger chain hash is SHA-256 (the standard test vectors)")
    func sha256() {
        #expect(LedgerHash.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(LedgerHash.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(LedgerHash.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test("batches survive closing and opening the file; the ledger is chained")
    func roundTrip() throws {
        let path = try Self.freshPath()
        do {
            let store = try Store(path: path)
            var a = Store.Batch()
            a.policy = "version = 1\n"
            a.events = ["{\"e\":1}", "{\"e\":2}"]
            a.ledger = [LedgerEntry(at: 10, kind: .adjusted, points: 60, balanceAfter: 60, note: "chores")]
            try store.commit(a)
            var b = Store.Batch()
            b.policy = "version = 1\n# changed\n"
            b.events = ["{\"e\":3}"]
            b.ledger = [LedgerEntry(at: 20, kind: .redeemed, points: -40, balanceAfter: 20, note: "mom", rewardSeconds: 1_200_000_000)]
            try store.commit(b)
        }
        let store = try Store(path: path)
        #expect(try store.events().map(\.line) == ["{\"e\":1}", "{\"e\":2}", "{\"e\":3}"])
        #expect(try store.policies().map(\.fromEvent) == [1, 3])
        let ledger = try store.ledger()
        #expect(ledger.map(\.entry.points) == [60, -40])
        #expect(ledger[0].previousHash == Store.genesisHash)
        #expect(ledger[1].previousHash == ledger[0].hash)
        #expect(ledger[1].entry.rewardSeconds == 1_200_000_000)
        #expect(try store.firstBrokenLink() == nil)
        #expect(try store.integrityCheck() == "ok")
    }

    @Test("a balance that is not the sum of the entries is found")
    func wrongBalance() throws {
        let store = try Store(path: try Self.freshPath())
        var a = Store.Batch()
        a.ledger = [LedgerEntry(at: 1, kind: .adjusted, points: 5, balanceAfter: 5),
                    LedgerEntry(at: 2, kind: .adjusted, points: 5, balanceAfter: 11)]
        try store.commit(a)
        let broken = try store.firstBrokenLink()
        #expect(broken?.seq == 2)
        #expect(broken?.problem == "its balance 11 is not the sum of the entries up to it (10)")
    }

    @Test("a database from a newer screentime is refused, not emptied")
    func newerSchema() throws {
        let path = try Self.freshPath()
        _ = try Store(path: path)
        try Self.sqlite(path, "INSERT INTO grdb_migrations VALUES ('v9-from-the-future')")
        #expect {
            try Store(path: path)
        } throws: { error in
            (error as? StoreError)?.description == "\(path): this database was written by a newer screentime (it has schema change 'v9-from-the-future'); install that version again, or move the file away to start anew"
        }
    }

    @Test("a database from before the family loop is brought up to date: its ledger and hashes kept, chores and gifts stored after")
    func familyLedgerKinds() throws {
        let path = try Self.freshPath()
        do {
            let store = try Store(path: path)
            var a = Store.Batch()
            a.ledger = [LedgerEntry(at: 10, kind: .adjusted, points: 60, balanceAfter: 60, note: "chores"),
                        LedgerEntry(at: 20, kind: .redeemed, points: -40, balanceAfter: 20, note: "mom", rewardSeconds: 1_200_000_000)]
            try store.commit(a)
        }
        // The ledger table as schema v6 made it, which refuses the new kinds.
        try Self.sqlite(path, """
            CREATE TABLE old (seq INTEGER PRIMARY KEY, at_micros INTEGER NOT NULL,
              kind TEXT NOT NULL CHECK (kind IN ('earned', 'redeemed', 'adjusted', 'expired')), points INTEGER NOT NULL,
              balance_after INTEGER NOT NULL, note TEXT, reward_micros INTEGER, previous_hash TEXT NOT NULL, hash TEXT NOT NULL UNIQUE);
            INSERT INTO old SELECT seq, at_micros, kind, points, balance_after, note, reward_micros, previous_hash, hash FROM ledger;
            DROP TABLE ledger; ALTER TABLE old RENAME TO ledger; DROP TABLE household;
            DELETE FROM grdb_migrations WHERE identifier IN ('v7-family-ledger-kinds', 'v8-household', 'v9-bonus-time-revoked');
            """)
        #expect { try Store(path: path, readOnly: true) } throws: { error in
            (error as? StoreError)?.description.contains("lacks schema change 'v7-family-ledger-kinds'") == true
        }
        let store = try Store(path: path)
        #expect(try store.ledger().map(\.entry.points) == [60, -40])
        #expect(try store.firstBrokenLink() == nil)
        var b = Store.Batch()
        b.ledger = [LedgerEntry(at: 30, kind: .chore, points: 25, balanceAfter: 45, note: "Feed the cat"),
                    LedgerEntry(at: 40, kind: .gifted, points: 0, balanceAfter: 45, note: "mum", rewardSeconds: 600_000_000)]
        try store.commit(b)
        #expect(try store.ledger().map(\.entry.kind) == [.adjusted, .redeemed, .chore, .gifted])
        #expect(try store.firstBrokenLink() == nil)
        #expect(try store.integrityCheck() == "ok")
        // And the household's columns (v8): a mirrored entry hashes its machine and number; the
        // entries before keep their hashes.
        var c = Store.Batch()
        c.ledger = [LedgerEntry(at: 50, kind: .earned, points: 5, balanceAfter: 50, note: "GCompris", machine: "laptop", familySeq: 9)]
        c.household = Store.HouseholdMarks(sentThrough: 4, readThrough: 9)
        try store.commit(c)
        #expect(try store.firstBrokenLink() == nil)
        #expect(try store.ledger().last?.entry.machine == "laptop")
        #expect(try store.householdMarks() == Store.HouseholdMarks(sentThrough: 4, readThrough: 9))
        #expect(try store.entriesToSend(after: 0, limit: 10).map(\.seq) == [1, 2, 3, 4])
        #expect(try store.countEntriesToSend(after: 2) == 2)
        #expect(try store.hasLedgerEntry(familySeq: 9) && !store.hasLedgerEntry(familySeq: 8))
        #expect(try store.hasLedgerEntry(hash: store.ledger()[0].hash))
        // And a parent's bonus time and minutes taken back (v9).
        var d = Store.Batch()
        d.ledger = [LedgerEntry(at: 60, kind: .bonusTime, points: 0, balanceAfter: 50, note: "mum", rewardSeconds: 1_200_000_000),
                    LedgerEntry(at: 70, kind: .revoked, points: 20, balanceAfter: 70, note: "mum", rewardSeconds: 600_000_000)]
        try store.commit(d)
        #expect(try store.ledger().suffix(2).map(\.entry.kind) == [.bonusTime, .revoked])
        #expect(try store.firstBrokenLink() == nil)
        #expect(try store.integrityCheck() == "ok")
        try Self.sqlite(path, "UPDATE ledger SET machine = 'tablet' WHERE seq = 5")
        #expect(try store.firstBrokenLink()?.seq == 5)           // who wrote an entry is part of its hash
    }

    @Test("a database from before screen time keeps its days; days saved after it keep their screen time")
    func screenDays() throws {
        let path = try Self.freshPath()
        let day = 86_400 * Seconds.micro, minute = 60 * Seconds.micro
        do {
            let store = try Store(path: path)
            var a = Store.Batch()
            a.days = [DayTotals(start: day, rewardUsed: 5 * minute)]
            try store.commit(a)
        }
        // The day table as schema v9 left it.
        try Self.sqlite(path, """
            ALTER TABLE day DROP COLUMN screen_used_micros; ALTER TABLE day DROP COLUMN screen_limit_micros;
            ALTER TABLE day DROP COLUMN screen_bonus_micros;
            DELETE FROM grdb_migrations WHERE identifier = 'v10-screen-days';
            """)
        let store = try Store(path: path)
        var b = Store.Batch()
        b.days = [DayTotals(start: 2 * day, rewardUsed: 0, screen: ScreenDayTotals(used: 90 * minute, limit: 120 * minute, bonus: 15 * minute)),
                  DayTotals(start: 3 * day, rewardUsed: minute, screen: ScreenDayTotals(used: 30 * minute, limit: nil, bonus: 0))]
        try store.commit(b)
        #expect(try store.rewardUsed(from: 0, to: 4 * day) == [day: 5 * minute, 2 * day: 0, 3 * day: minute])
        // The day saved before has no screen time (not zero: it was not counted).
        #expect(try store.screenUsed(from: 0, to: 4 * day) == [
            2 * day: ScreenDayTotals(used: 90 * minute, limit: 120 * minute, bonus: 15 * minute),
            3 * day: ScreenDayTotals(used: 30 * minute, limit: nil, bonus: 0)])
        #expect(try store.screenUsed(from: 3 * day, to: 4 * day).keys.sorted() == [3 * day])
        #expect(try store.integrityCheck() == "ok")
    }

    @Test("a file that is not a database is refused with a clear message")
    func notADatabase() throws {
        let path = try Self.freshPath()
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: path))
        #expect {
            try Store(path: path)
        } throws: { error in
            (error as? StoreError)?.description.hasSuffix("the file is damaged or not a screentime database") == true
        }
    }
}
