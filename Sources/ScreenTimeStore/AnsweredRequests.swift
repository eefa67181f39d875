import Foundation
import GRDB
import ScreenTimeCore

/// What the state keeps about callers besides the child's events: the parent requests already
/// answered, by the id their client gave (a retry is answered again, not carried out again), and
/// the wrong parent passphrases of each caller (the lock outlasts a restart).
extension Store {
    /// A parent request carried out: who asked (uid), the client's id for it, what it asked (in
    /// words, to tell a reused id from a retry), the reply line sent, and when.
    public struct AnsweredRequest: Sendable, Equatable {
        public var caller: UInt32
        public var id: String
        public var request: String
        public var reply: String
        public var at: Microseconds
        public init(caller: UInt32, id: String, request: String, reply: String, at: Microseconds) {
            self.caller = caller; self.id = id; self.request = request; self.reply = reply; self.at = at
        }
    }

    /// Answered requests are kept this long: a retry comes within seconds.
    public static let keepAnswered: Microseconds = 30 * 86_400 * 1_000_000

    static let answeredSchema = """
        CREATE TABLE answered_request (
            caller_uid INTEGER NOT NULL,
            id TEXT NOT NULL,
            request TEXT NOT NULL,
            reply TEXT NOT NULL,
            at_micros INTEGER NOT NULL,
            PRIMARY KEY (caller_uid, id)
        );
        CREATE TABLE passphrase_failures (
            caller_uid INTEGER PRIMARY KEY,
            failures INTEGER NOT NULL,
            locked_until_micros INTEGER
        );
        """

    /// In the commit's transaction: the requests answered by its events (and those too old forgotten).
    static func record(_ answered: [AnsweredRequest], in db: Database) throws {
        for a in answered {
            try db.execute(sql: "INSERT INTO answered_request (caller_uid, id, request, reply, at_micros) VALUES (?, ?, ?, ?, ?)",
                           arguments: [Int64(a.caller), a.id, a.request, a.reply, a.at])
            try db.execute(sql: "DELETE FROM answered_request WHERE at_micros < ?", arguments: [a.at - keepAnswered])
        }
    }

    /// The request `caller` sent before with this id, if it was carried out.
    public func answered(id: String, caller: UInt32) throws(StoreError) -> AnsweredRequest? {
        try readAnswered("read the requests answered") { db in
            try Row.fetchOne(db, sql: "SELECT * FROM answered_request WHERE caller_uid = ? AND id = ?", arguments: [Int64(caller), id]).map {
                AnsweredRequest(caller: caller, id: id, request: $0["request"], reply: $0["reply"], at: $0["at_micros"])
            }
        }
    }

    /// Wrong parent passphrases in a row from `caller`, and until when (wall time) they are locked out.
    public func passphraseFailures(caller: UInt32) throws(StoreError) -> (failures: Int, lockedUntil: Microseconds?) {
        try readAnswered("read the wrong passphrases") { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT failures, locked_until_micros FROM passphrase_failures WHERE caller_uid = ?",
                                             arguments: [Int64(caller)]) else { return (0, nil) }
            return (row["failures"], row["locked_until_micros"])
        }
    }

    public func savePassphraseFailures(caller: UInt32, failures: Int, lockedUntil: Microseconds?) throws(StoreError) {
        do {
            try pool.write { db in
                if failures == 0 && lockedUntil == nil {
                    try db.execute(sql: "DELETE FROM passphrase_failures WHERE caller_uid = ?", arguments: [Int64(caller)])
                } else {
                    try db.execute(sql: "INSERT OR REPLACE INTO passphrase_failures (caller_uid, failures, locked_until_micros) VALUES (?, ?, ?)",
                                   arguments: [Int64(caller), failures, lockedUntil])
                }
            }
        } catch {
            throw StoreError(description: "\(path): could not save the wrong passphrases: \(Store.explain(error))")
        }
    }

    private func readAnswered<T>(_ what: String, _ body: @Sendable (Database) throws -> T) throws(StoreError) -> T {
        do { return try pool.read(body) } catch {
            throw StoreError(description: "\(path): could not \(what): \(Store.explain(error))")
        }
    }
}
