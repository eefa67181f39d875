import Foundation
import CShims
import GRDB
import ScreenTimeCore

/// A problem with the state database, said the way a person can act on it.
public struct StoreError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(description: String) { self.description = description }
}

/// A ledger entry as stored: its place in the chain and the hashes that tie it to the one before.
public struct StoredLedgerEntry: Sendable, Equatable {
    public var seq: Int64
    public var entry: LedgerEntry
    public var previousHash: String
    public var hash: String
}

/// The state of one child in SQLite (WAL): the event log, the policies in force, the ledger and the
/// judged sessions. Written in batches, one transaction each; the ledger is append-only and every
/// entry carries the SHA-256 of the one before, so an edit, a deletion or an insertion shows.
public final class Store: Sendable {
    public let path: String
    let pool: any DatabaseWriter
    /// The connection that looked at the schema before the pool opened, closed, never freed: GRDB
    /// gives each connection a dispatch queue with queue-specific data, and freeing one hands its
    /// destructors to a libdispatch worker thread, after which libdispatch wakes once a second for
    /// the rest of the process's life to watch its workers (a sixth of the system daemon's CPU,
    /// docs/benchmarks.md). For the same reason the pool keeps its readers (`persistentReadOnlyConnections`).
    private let schemaLook: DatabaseQueue?

    public static let genesisHash = String(repeating: "0", count: 64)

    /// Sets SQLite up for a long-running process with a few connections (the daemon): no page
    /// cache allocated in bulk, which letting go of SQLite's memory never frees (CShims). Call it
    /// before SQLite is first used, on one thread (SQLite's rule for its configuration); later,
    /// it changes nothing. Whether it was taken.
    @discardableResult
    public static func configureSQLiteForDaemon() -> Bool {
        screentime_sqlite_page_cache_without_bulk() == 0
    }

    /// Opens (and creates, or brings up to date) a state database; `readOnly` opens it only to
    /// read, as `check` does, so that a read-only copy can be audited.
    public init(path: String, readOnly: Bool = false) throws(StoreError) {
        self.path = path
        var config = Configuration()
        config.busyMode = .timeout(5)
        config.readonly = readOnly
        config.persistentReadOnlyConnections = true
        // Refusals come before any write: opening a pool writes to the file (GRDB makes sure a WAL
        // exists), and a damaged or newer database must be left exactly as it was.
        var schemaLook: DatabaseQueue? = nil
        if !readOnly, FileManager.default.fileExists(atPath: path) {
            var look = Configuration()
            look.readonly = true
            do {
                let queue = try DatabaseQueue(path: path, configuration: look)
                schemaLook = queue
                try queue.read { db in try Store.refuseUnknownSchema(db, path: path, readOnly: false) }
                try queue.close()
            } catch let e as StoreError {
                throw e
            } catch let e as DatabaseError {
                throw StoreError(description: "\(path): cannot open the state database: \(Store.explain(e))")
            } catch {
                throw StoreError(description: "\(path): cannot open the state database: the file is damaged (\(error)); nothing was changed: restore a backup, or move the file away to start anew")
            }
        }
        self.schemaLook = schemaLook
        do {
            if readOnly {
                // A WAL database in a folder we may not write (a backup, another user's state) can
                // still be read when SQLite is told nothing will change it.
                let queue = try? DatabaseQueue(path: path, configuration: config)
                if let queue, (try? queue.read { try $0.tableExists("event") }) != nil {
                    pool = queue
                } else {
                    pool = try DatabaseQueue(path: "file:\(path)?immutable=1", configuration: config)
                }
            } else {
                let writer = try DatabasePool(path: path, configuration: config)
                // Every commit waits until the disk has it (the write-ahead log is synced), so that
                // a power cut takes nothing saved: neither an answered parent action nor more than
                // the last second of observed time. The daemon commits at most once a second, and
                // only what is new: at most one sync a second (docs/state.md). (Set after opening:
                // GRDB sets NORMAL on the writer when it turns WAL mode on.)
                try writer.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
                pool = writer
            }
        } catch {
            throw StoreError(description: "\(path): cannot open the state database: \(Store.explain(error))")
        }
        try migrate(readOnly: readOnly)
    }

    // MARK: Schema

    private static let migrations = ["v1-event-log-ledger-sessions", "v2-checkpoints", "v3-log-base", "v4-session-refusals", "v5-days", "v6-answered-requests",
                                     "v7-family-ledger-kinds", "v8-household", "v9-bonus-time-revoked",
                                     "v10-screen-days", "v11-policy-changes"]

    private func migrate(readOnly: Bool) throws(StoreError) {
        var migrator = DatabaseMigrator()
        migrator.registerMigration(Store.migrations[0]) { db in
            try db.execute(sql: """
                CREATE TABLE event (
                    seq INTEGER PRIMARY KEY,
                    line TEXT NOT NULL
                );
                CREATE TABLE policy (
                    seq INTEGER PRIMARY KEY,
                    from_event INTEGER NOT NULL,
                    text TEXT NOT NULL
                );
                CREATE TABLE ledger (
                    seq INTEGER PRIMARY KEY,
                    at_micros INTEGER NOT NULL,
                    kind TEXT NOT NULL CHECK (kind IN ('earned', 'redeemed', 'adjusted', 'expired')),
                    points INTEGER NOT NULL,
                    balance_after INTEGER NOT NULL,
                    note TEXT,
                    reward_micros INTEGER,
                    previous_hash TEXT NOT NULL,
                    hash TEXT NOT NULL UNIQUE
                );
                CREATE TABLE session (
                    seq INTEGER PRIMARY KEY,
                    app TEXT NOT NULL,
                    category TEXT NOT NULL,
                    pid INTEGER NOT NULL,
                    start_micros INTEGER NOT NULL,
                    end_micros INTEGER NOT NULL,
                    micros INTEGER NOT NULL,
                    credited_micros INTEGER NOT NULL,
                    points INTEGER NOT NULL,
                    verdict TEXT NOT NULL,
                    reasons TEXT NOT NULL
                );
                CREATE INDEX session_by_start ON session(start_micros);
                """)
        }
        migrator.registerMigration(Store.migrations[1]) { db in
            try db.execute(sql: """
                CREATE TABLE checkpoint (
                    event_seq INTEGER PRIMARY KEY,
                    policy_seq INTEGER NOT NULL REFERENCES policy(seq),
                    state BLOB NOT NULL
                );
                """)
        }
        migrator.registerMigration(Store.migrations[2]) { db in
            // The state that stands for the part of the event log removed by retention.
            try db.execute(sql: """
                CREATE TABLE log_base (
                    event_seq INTEGER PRIMARY KEY,
                    policy_seq INTEGER NOT NULL REFERENCES policy(seq),
                    ledger_seq INTEGER NOT NULL,
                    at_micros INTEGER NOT NULL,
                    events_removed INTEGER NOT NULL,
                    state BLOB NOT NULL
                );
                """)
        }
        migrator.registerMigration(Store.migrations[3]) { db in
            // How much time each reason refused ("idle=720000000,unfocused=3000000"), for `stctl sessions`.
            try db.execute(sql: "ALTER TABLE session ADD COLUMN refused TEXT NOT NULL DEFAULT ''")
        }
        migrator.registerMigration(Store.migrations[4]) { db in
            // What a day that is over used of reward time (the engine knows it only while the day lasts).
            try db.execute(sql: """
                CREATE TABLE day (
                    start_micros INTEGER PRIMARY KEY,
                    reward_used_micros INTEGER NOT NULL
                );
                """)
        }
        migrator.registerMigration(Store.migrations[5]) { db in
            // Parent requests answered, by their client's id; wrong passphrases by caller (AnsweredRequests.swift).
            try db.execute(sql: Store.answeredSchema)
        }
        migrator.registerMigration(Store.migrations[6]) { db in
            // The family loop's entries: chores, gifts, streak bonuses. SQLite cannot change a CHECK
            // constraint: the table is made again, every row and hash as it was.
            try db.execute(sql: """
                CREATE TABLE ledger_v7 (
                    seq INTEGER PRIMARY KEY,
                    at_micros INTEGER NOT NULL,
                    kind TEXT NOT NULL CHECK (kind IN ('earned', 'redeemed', 'adjusted', 'expired', 'chore', 'gifted', 'bonus')),
                    points INTEGER NOT NULL,
                    balance_after INTEGER NOT NULL,
                    note TEXT,
                    reward_micros INTEGER,
                    previous_hash TEXT NOT NULL,
                    hash TEXT NOT NULL UNIQUE
                );
                INSERT INTO ledger_v7 SELECT seq, at_micros, kind, points, balance_after, note, reward_micros, previous_hash, hash FROM ledger;
                DROP TABLE ledger;
                ALTER TABLE ledger_v7 RENAME TO ledger;
                """)
        }
        migrator.registerMigration(Store.migrations[7]) { db in
            // The family ledger (docs/household.md): which machine wrote a mirrored entry, and the
            // family's number of an entry when known as it was made; how far this state has sent
            // its own entries and read the family's.
            try db.execute(sql: """
                ALTER TABLE ledger ADD COLUMN machine TEXT;
                ALTER TABLE ledger ADD COLUMN family_seq INTEGER;
                CREATE INDEX ledger_by_family_seq ON ledger(family_seq) WHERE family_seq IS NOT NULL;
                CREATE TABLE household (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    sent_through INTEGER NOT NULL,
                    read_through INTEGER NOT NULL
                );
                """)
        }
        migrator.registerMigration(Store.migrations[8]) { db in
            // A parent's bonus time for today, and minutes taken back (issue 35). The table is made
            // again, as in v7, every row and hash as it was.
            try db.execute(sql: """
                CREATE TABLE ledger_v9 (
                    seq INTEGER PRIMARY KEY,
                    at_micros INTEGER NOT NULL,
                    kind TEXT NOT NULL CHECK (kind IN ('earned', 'redeemed', 'adjusted', 'expired', 'chore', 'gifted', 'bonus',
                                                       'bonus_time', 'revoked')),
                    points INTEGER NOT NULL,
                    balance_after INTEGER NOT NULL,
                    note TEXT,
                    reward_micros INTEGER,
                    previous_hash TEXT NOT NULL,
                    hash TEXT NOT NULL UNIQUE,
                    machine TEXT,
                    family_seq INTEGER
                );
                INSERT INTO ledger_v9 SELECT seq, at_micros, kind, points, balance_after, note, reward_micros, previous_hash, hash,
                                             machine, family_seq FROM ledger;
                DROP TABLE ledger;
                ALTER TABLE ledger_v9 RENAME TO ledger;
                CREATE INDEX ledger_by_family_seq ON ledger(family_seq) WHERE family_seq IS NOT NULL;
                """)
        }
        migrator.registerMigration(Store.migrations[9]) { db in
            // Screen time per day (issue 38): used, the day's own limit and the parents' extra
            // minutes; NULL for a day saved before, or under a policy without [screen].
            try db.execute(sql: """
                ALTER TABLE day ADD COLUMN screen_used_micros INTEGER;
                ALTER TABLE day ADD COLUMN screen_limit_micros INTEGER;
                ALTER TABLE day ADD COLUMN screen_bonus_micros INTEGER;
                """)
        }
        migrator.registerMigration(Store.migrations[10]) { db in
            // The parents' changes of the policy file from the page and `stctl policy set`
            // (issue 40), for their history and undo.
            try db.execute(sql: Store.policyChangeSchema)
        }
        do {
            try pool.read { db in try Store.refuseUnknownSchema(db, path: path, readOnly: readOnly) }
            if !readOnly { try migrator.migrate(pool) }
        } catch let e as StoreError {
            throw e
        } catch {
            throw StoreError(description: "\(path): cannot prepare the state database: \(Store.explain(error))")
        }
    }

    /// A database from a newer screentime is refused; `check` (read-only) also needs every change.
    private static func refuseUnknownSchema(_ db: Database, path: String, readOnly: Bool) throws {
        // Read as the migrator records them, without a migrator: nothing may be written here.
        var applied: [String] = []
        if try db.tableExists("grdb_migrations") {
            applied = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
        } else if try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'table'") ?? 0 > 0 {
            throw StoreError(description: "\(path): this is not a screentime database (it has tables, but no screentime schema history); pass another --state-dir")
        }
        if let unknown = applied.first(where: { !Store.migrations.contains($0) }) {
            throw StoreError(description: "\(path): this database was written by a newer screentime (it has schema change '\(unknown)'); install that version again, or move the file away to start anew")
        }
        if readOnly, let missing = Store.migrations.first(where: { !applied.contains($0) }) {
            throw StoreError(description: "\(path): this database was written by an older screentime (it lacks schema change '\(missing)'); let the daemon open it once to bring it up to date")
        }
    }

    // MARK: Writing

    /// What one commit writes: a policy adopted before the events (its text), the events as log
    /// lines, and the ledger entries and sessions they caused.
    public struct Batch: Sendable {
        public var policy: String?
        public var events: [String] = []
        public var ledger: [LedgerEntry] = []
        public var sessions: [SessionRecord] = []
        public var days: [DayTotals] = []
        /// The engine's state after the last event of the batch (`Engine.Checkpoint`, encoded).
        public var checkpoint: Data?
        /// The parent requests these events carry out, by their client's id (a retry is answered, not carried out again).
        public var answered: [AnsweredRequest] = []
        /// How far the family ledger has this state's entries, and this state the family's: saved
        /// with the events that mirrored them, so that a crash neither loses nor repeats one.
        public var household: HouseholdMarks?

        public init() {}
        public var isEmpty: Bool {
            policy == nil && events.isEmpty && ledger.isEmpty && sessions.isEmpty && days.isEmpty && answered.isEmpty && household == nil
        }
    }

    /// Saves a batch in one transaction, on disk for good when this returns (a power cut
    /// included); returns the ledger's new chain head (its last entry's number and hash) when the
    /// batch added entries.
    @discardableResult
    public func commit(_ batch: Batch) throws(StoreError) -> (seq: Int64, hash: String)? {
        guard !batch.isEmpty || batch.checkpoint != nil else { return nil }
        do {
            return try pool.write { db in try Store.write(batch, in: db) }
        } catch {
            throw StoreError(description: "\(path): could not save \(batch.events.count) events: \(Store.explain(error))")
        }
    }

    /// The writes of one commit, inside its transaction; the ledger's new chain head when it grew.
    private static func write(_ batch: Batch, in db: Database) throws -> (seq: Int64, hash: String)? {
        if let text = batch.policy {
            let next = (try Int64.fetchOne(db, sql: "SELECT max(seq) FROM event") ?? 0) + 1
            try db.execute(sql: "INSERT INTO policy (from_event, text) VALUES (?, ?)", arguments: [next, text])
        }
        let insertEvent = try db.cachedStatement(sql: "INSERT INTO event (line) VALUES (?)")
        for line in batch.events { try insertEvent.execute(arguments: [line]) }
        var previous = try String.fetchOne(db, sql: "SELECT hash FROM ledger ORDER BY seq DESC LIMIT 1") ?? Store.genesisHash
        var seq = (try Int64.fetchOne(db, sql: "SELECT max(seq) FROM ledger") ?? 0) + 1
        for e in batch.ledger {
            let hash = Store.hash(seq: seq, e, previous: previous)
            try db.execute(sql: """
                INSERT INTO ledger (seq, at_micros, kind, points, balance_after, note, reward_micros, previous_hash, hash, machine, family_seq)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [seq, e.at, e.kind.rawValue, e.points, e.balanceAfter, e.note, e.rewardSeconds, previous, hash, e.machine, e.familySeq])
            previous = hash
            seq += 1
        }
        for s in batch.sessions {
            try db.execute(sql: """
                INSERT INTO session (app, category, pid, start_micros, end_micros, micros, credited_micros, points, verdict, reasons, refused)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [s.app, s.category.rawValue, Int64(s.pid), s.start, s.end, s.seconds, s.creditedSeconds,
                                 s.points, s.verdict.rawValue, s.reasons.map(\.rawValue).joined(separator: ","),
                                 (s.refused.map { "\($0.reason.rawValue)=\($0.seconds)" } + s.flags.map { "\($0.rawValue)=flag" }).joined(separator: ",")])
        }
        try Store.record(batch.answered, in: db)
        if let marks = batch.household {
            try db.execute(sql: "INSERT OR REPLACE INTO household (id, sent_through, read_through) VALUES (1, ?, ?)",
                           arguments: [marks.sentThrough, marks.readThrough])
        }
        for d in batch.days {
            try db.execute(sql: """
                INSERT OR REPLACE INTO day (start_micros, reward_used_micros, screen_used_micros, screen_limit_micros, screen_bonus_micros)
                VALUES (?, ?, ?, ?, ?)
                """, arguments: [d.start, d.rewardUsed, d.screen?.used, d.screen?.limit, d.screen?.bonus])
        }
        if let state = batch.checkpoint, let last = try Int64.fetchOne(db, sql: "SELECT max(seq) FROM event"),
           let policy = try Int64.fetchOne(db, sql: "SELECT max(seq) FROM policy") {
            try db.execute(sql: "INSERT OR REPLACE INTO checkpoint (event_seq, policy_seq, state) VALUES (?, ?, ?)",
                           arguments: [last, policy, state])
            // Only the newest few are kept: each one replaces the whole log before it.
            try db.execute(sql: "DELETE FROM checkpoint WHERE event_seq NOT IN (SELECT event_seq FROM checkpoint ORDER BY event_seq DESC LIMIT 3)")
        }
        return batch.ledger.isEmpty ? nil : (seq - 1, previous)
    }

    /// The hash of a ledger entry: SHA-256 over its fields and the hash before it.
    /// The family ledger's fields are hashed only when an entry has them: entries from before
    /// households keep the hashes they were written with.
    static func hash(seq: Int64, _ e: LedgerEntry, previous: String) -> String {
        let family = e.machine == nil && e.familySeq == nil ? "" : "|\(e.machine ?? "")|\(e.familySeq.map(String.init) ?? "")"
        return LedgerHash.hex("\(seq)|\(e.at)|\(e.kind.rawValue)|\(e.points)|\(e.balanceAfter)|\(e.note ?? "")|\(e.rewardSeconds.map(String.init) ?? "")\(family)|\(previous)")
    }

    // MARK: Retention

    /// Where the stored event log begins once its oldest part was removed: the engine's state after
    /// event `eventSeq` under policy row `policySeq`, with the ledger then `ledgerSeq` entries long.
    /// Replays start here instead of at the first event.
    public struct LogBase: Sendable, Equatable {
        public var eventSeq: Int64
        public var policySeq: Int64
        public var ledgerSeq: Int64
        /// The wall time of event `eventSeq`.
        public var at: Microseconds
        /// How many events were removed, in all.
        public var eventsRemoved: Int64
        public var state: Data
        public init(eventSeq: Int64, policySeq: Int64, ledgerSeq: Int64, at: Microseconds, eventsRemoved: Int64, state: Data) {
            self.eventSeq = eventSeq; self.policySeq = policySeq; self.ledgerSeq = ledgerSeq
            self.at = at; self.eventsRemoved = eventsRemoved; self.state = state
        }
    }

    public func logBase() throws(StoreError) -> LogBase? {
        try read("read where the event log begins") { db in
            try Row.fetchOne(db, sql: "SELECT * FROM log_base ORDER BY event_seq DESC LIMIT 1").map {
                LogBase(eventSeq: $0["event_seq"], policySeq: $0["policy_seq"], ledgerSeq: $0["ledger_seq"],
                        at: $0["at_micros"], eventsRemoved: $0["events_removed"], state: $0["state"])
            }
        }
    }

    /// Moves the start of the event log up to `base`, in one transaction: the events before it
    /// and the checkpoints it makes useless are deleted. Event `base.eventSeq` itself is kept, so
    /// the numbering goes on. Ledger, sessions and policies are untouched.
    public func moveLogBase(to base: LogBase) throws(StoreError) {
        do {
            try pool.write { db in
                try db.execute(sql: "DELETE FROM log_base")
                try db.execute(sql: """
                    INSERT INTO log_base (event_seq, policy_seq, ledger_seq, at_micros, events_removed, state)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """, arguments: [base.eventSeq, base.policySeq, base.ledgerSeq, base.at, base.eventsRemoved, base.state])
                try db.execute(sql: "DELETE FROM event WHERE seq < ?", arguments: [base.eventSeq])
                try db.execute(sql: "DELETE FROM checkpoint WHERE event_seq < ?", arguments: [base.eventSeq])
            }
        } catch {
            throw StoreError(description: "\(path): could not remove old events: \(Store.explain(error))")
        }
    }

    /// `stctl forget`: removes the sessions that started before `wall`, and the days that began
    /// before it; returns how many sessions. (The ledger is never touched.)
    public func forgetSessions(before wall: Microseconds) throws(StoreError) -> Int {
        do {
            return try pool.write { db in
                try db.execute(sql: "DELETE FROM session WHERE start_micros < ?", arguments: [wall])
                let sessions = db.changesCount
                try db.execute(sql: "DELETE FROM day WHERE start_micros < ?", arguments: [wall])
                return sessions
            }
        } catch {
            throw StoreError(description: "\(path): could not remove old sessions: \(Store.explain(error))")
        }
    }

    // MARK: Reading

    /// The event log, or its part after `seq` (at most `limit` events).
    public func events(after seq: Int64 = 0, limit: Int = -1) throws(StoreError) -> [(seq: Int64, line: String)] {
        try read("read the event log") { db in
            try Row.fetchAll(db, sql: "SELECT seq, line FROM event WHERE seq > ? ORDER BY seq LIMIT ?", arguments: [seq, limit]).map { ($0["seq"], $0["line"]) }
        }
    }

    /// The stored event lines of one kind (`"process_started"`) dated from `wall` on. The start
    /// is found by bisection on the log's order, which is the daemon's clock order.
    public func eventLines(of kind: String, from wall: Microseconds) throws(StoreError) -> [String] {
        try read("read the event log") { db in
            var lo = try Int64.fetchOne(db, sql: "SELECT min(seq) FROM event") ?? 0
            var hi = (try Int64.fetchOne(db, sql: "SELECT max(seq) FROM event") ?? 0) + 1
            while lo < hi {
                let mid = lo + (hi - lo) / 2
                let row = try Row.fetchOne(db, sql: "SELECT seq, line FROM event WHERE seq >= ? ORDER BY seq LIMIT 1", arguments: [mid])
                guard let row else { hi = mid; continue }
                let line: String = row["line"]
                let at = (try? EventLog.decode(line: line))?.at.micros ?? .min
                if at < wall { lo = (row["seq"] as Int64) + 1 } else { hi = mid }
            }
            return try String.fetchAll(db, sql: "SELECT line FROM event WHERE seq >= ? AND line LIKE ? ORDER BY seq",
                                       arguments: [lo, "%\"event\":\"\(kind)\"%"])
        }
    }

    /// How many event rows the log holds.
    public func eventCount() throws(StoreError) -> Int {
        try read("count the events") { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM event") ?? 0 }
    }

    /// The newest checkpoint: the engine's state after event `eventSeq`, under policy row `policySeq`.
    public func latestCheckpoint() throws(StoreError) -> (eventSeq: Int64, policySeq: Int64, state: Data)? {
        try read("read the checkpoint") { db in
            try Row.fetchOne(db, sql: "SELECT event_seq, policy_seq, state FROM checkpoint ORDER BY event_seq DESC LIMIT 1")
                .map { ($0["event_seq"], $0["policy_seq"], $0["state"]) }
        }
    }

    /// Policies in force, each from the event it applies to.
    public func policies() throws(StoreError) -> [(seq: Int64, fromEvent: Int64, text: String)] {
        try read("read the policy history") { db in
            try Row.fetchAll(db, sql: "SELECT seq, from_event, text FROM policy ORDER BY seq").map { ($0["seq"], $0["from_event"], $0["text"]) }
        }
    }

    public func ledger() throws(StoreError) -> [StoredLedgerEntry] {
        try read("read the ledger") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM ledger ORDER BY seq").map(Store.storedEntry)
        }
    }

    static func storedEntry(_ row: Row) -> StoredLedgerEntry {
        let kindText: String = row["kind"]
        return StoredLedgerEntry(
            seq: row["seq"],
            entry: LedgerEntry(at: row["at_micros"], kind: LedgerEntry.Kind(rawValue: kindText) ?? .adjusted,
                               points: row["points"], balanceAfter: row["balance_after"], note: row["note"],
                               rewardSeconds: row["reward_micros"], machine: row["machine"], familySeq: row["family_seq"]),
            previousHash: row["previous_hash"], hash: row["hash"])
    }

    /// The judged sessions that started between two wall times, in order.
    public func sessions(from start: Microseconds, to end: Microseconds) throws(StoreError) -> [SessionRecord] {
        try read("read the sessions") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM session WHERE start_micros >= ? AND start_micros < ? ORDER BY start_micros, seq",
                             arguments: [start, end]).map { row in
                let category: String = row["category"], verdict: String = row["verdict"], refused: String = row["refused"]
                return SessionRecord(
                    app: row["app"], category: AppCategory(rawValue: category) ?? .neutral, pid: Int32(truncatingIfNeeded: row["pid"] as Int64),
                    start: row["start_micros"], end: row["end_micros"], seconds: row["micros"], creditedSeconds: row["credited_micros"],
                    points: row["points"], verdict: SessionRecord.Verdict(rawValue: verdict) ?? .rejected,
                    refused: refused.split(separator: ",").compactMap { part in
                        let kv = part.split(separator: "=")
                        guard kv.count == 2, let r = Reason(rawValue: String(kv[0])), let t = Microseconds(kv[1]) else { return nil }
                        return (r, t)
                    },
                    flags: refused.split(separator: ",").compactMap { part in
                        part.hasSuffix("=flag") ? Reason(rawValue: String(part.dropLast(5))) : nil
                    })
            }
        }
    }

    /// Points earned by learning between two wall times (start included).
    public func pointsEarned(from start: Microseconds, to end: Microseconds) throws(StoreError) -> Int64 {
        try read("sum the points earned") { db in
            try Int64.fetchOne(db, sql: "SELECT coalesce(sum(points), 0) FROM ledger WHERE kind = 'earned' AND at_micros >= ? AND at_micros < ?",
                               arguments: [start, end]) ?? 0
        }
    }

    /// Reward time used on the days that began between two wall times and are over, by their start.
    public func rewardUsed(from start: Microseconds, to end: Microseconds) throws(StoreError) -> [Microseconds: Microseconds] {
        try read("read the days") { db in
            var used: [Microseconds: Microseconds] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT start_micros, reward_used_micros FROM day WHERE start_micros >= ? AND start_micros < ?",
                                        arguments: [start, end]) {
                used[row["start_micros"]] = row["reward_used_micros"]
            }
            return used
        }
    }

    /// Screen time on the days that began between two wall times and are over, by their start
    /// (only days saved with it: under a policy with [screen]).
    public func screenUsed(from start: Microseconds, to end: Microseconds) throws(StoreError) -> [Microseconds: ScreenDayTotals] {
        try read("read the days' screen time") { db in
            var used: [Microseconds: ScreenDayTotals] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT start_micros, screen_used_micros, screen_limit_micros, screen_bonus_micros FROM day
                WHERE start_micros >= ? AND start_micros < ? AND screen_used_micros IS NOT NULL
                """, arguments: [start, end]) {
                used[row["start_micros"]] = ScreenDayTotals(used: row["screen_used_micros"], limit: row["screen_limit_micros"],
                                                            bonus: row["screen_bonus_micros"] ?? 0)
            }
            return used
        }
    }

    /// Gives back what SQLite holds and does not need now (its page caches; the pool's reading
    /// connections, opened again when next needed): the daemon calls it when it lets go of
    /// start-up pages (ResidentMemory).
    public func releaseMemory() {
        if let p = pool as? DatabasePool { p.releaseMemory() } else if let q = pool as? DatabaseQueue { q.releaseMemory() }
    }

    // MARK: The family ledger (docs/household.md)

    /// How far the family ledger has this state's own entries (its ledger's number) and this
    /// state has read the family's (the family ledger's number).
    public struct HouseholdMarks: Sendable, Equatable {
        public var sentThrough: Int64
        public var readThrough: Int64
        public init(sentThrough: Int64 = 0, readThrough: Int64 = 0) { self.sentThrough = sentThrough; self.readThrough = readThrough }
    }

    public func householdMarks() throws(StoreError) -> HouseholdMarks {
        try read("read how far the family ledger is") { db in
            try Row.fetchOne(db, sql: "SELECT sent_through, read_through FROM household WHERE id = 1")
                .map { HouseholdMarks(sentThrough: $0["sent_through"], readThrough: $0["read_through"]) } ?? HouseholdMarks()
        }
    }

    /// This state's own entries after ledger entry `seq` that the family ledger has not got: not
    /// mirrored from it, not paid by it first (at most `limit`, in order).
    public func entriesToSend(after seq: Int64, limit: Int) throws(StoreError) -> [StoredLedgerEntry] {
        try read("read the entries for the family ledger") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM ledger WHERE seq > ? AND machine IS NULL AND family_seq IS NULL ORDER BY seq LIMIT ?",
                             arguments: [seq, limit]).map(Store.storedEntry)
        }
    }

    /// How many of this state's own entries after ledger entry `seq` the family ledger has not got.
    public func countEntriesToSend(after seq: Int64) throws(StoreError) -> Int64 {
        try read("count the entries for the family ledger") { db in
            try Int64.fetchOne(db, sql: "SELECT count(*) FROM ledger WHERE seq > ? AND machine IS NULL AND family_seq IS NULL", arguments: [seq]) ?? 0
        }
    }

    /// Whether this state's ledger holds an entry with this hash, or that the family ledger numbers `familySeq`.
    public func hasLedgerEntry(hash: String? = nil, familySeq: Int64? = nil) throws(StoreError) -> Bool {
        try read("look for a ledger entry") { db in
            if let hash, try Bool.fetchOne(db, sql: "SELECT 1 FROM ledger WHERE hash = ?", arguments: [hash]) == true { return true }
            if let familySeq, try Bool.fetchOne(db, sql: "SELECT 1 FROM ledger WHERE family_seq = ?", arguments: [familySeq]) == true { return true }
            return false
        }
    }

    /// `PRAGMA integrity_check`: "ok", or what SQLite found.
    public func integrityCheck() throws(StoreError) -> String {
        try read("check the database") { db in
            try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ")
        }
    }

    /// The first ledger entry whose chain is broken, with what is wrong; nil when the chain is whole.
    public func firstBrokenLink() throws(StoreError) -> (seq: Int64, problem: String)? {
        var previous = Store.genesisHash
        var balance: Int64 = 0
        var expectedSeq: Int64 = 1
        for row in try ledger() {
            if row.seq != expectedSeq {
                return (row.seq, "entry \(expectedSeq) is missing (deleted?)")
            }
            if row.previousHash != previous {
                return (row.seq, "it does not follow the entry before it (an entry was deleted or inserted)")
            }
            if Store.hash(seq: row.seq, row.entry, previous: previous) != row.hash {
                return (row.seq, "its contents do not match its hash (edited?)")
            }
            balance += row.entry.points
            if row.entry.balanceAfter != balance {
                return (row.seq, "its balance \(row.entry.balanceAfter) is not the sum of the entries up to it (\(balance))")
            }
            previous = row.hash
            expectedSeq += 1
        }
        return nil
    }

    private func read<T>(_ what: String, _ body: @Sendable (Database) throws -> T) throws(StoreError) -> T {
        do { return try pool.read(body) } catch {
            throw StoreError(description: "\(path): could not \(what): \(Store.explain(error))")
        }
    }

    static func explain(_ error: any Error) -> String {
        guard let e = error as? DatabaseError else { return "\(error)" }
        switch e.resultCode {
        case .SQLITE_FULL: return "the disk is full"
        case .SQLITE_READONLY: return "the database is read-only (check the folder's permissions and free space)"
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: return "the file is damaged or not a screentime database"
        case .SQLITE_BUSY, .SQLITE_LOCKED: return "another program holds the database locked"
        case .SQLITE_CANTOPEN: return "the file cannot be opened (does the folder exist, and may it be written?)"
        default: return e.message ?? "\(e.resultCode)"
        }
    }
}
