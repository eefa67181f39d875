import Foundation
import GRDB
import ScreenTimeCore

/// The parents' changes of the policy file made through the daemon (the page, `stctl policy
/// set`): who, when, each key's value before and after, and the whole text before and after, so
/// that a change can be undone exactly while the file is as it left it.
extension Store {
    public struct PolicyChangeRecord: Sendable, Equatable {
        public var id: Int64
        public var at: Microseconds
        public var by: String
        /// Each key and its value before and after (TOML text; nil: not written).
        public var lines: [Line]
        public var textBefore: String
        public var textAfter: String
        /// The change this one undid; the change that undid this one.
        public var undoes: Int64?
        public var undoneBy: Int64?

        public struct Line: Codable, Sendable, Equatable {
            public var key: String
            public var before: String?
            public var after: String?
            public init(key: String, before: String?, after: String?) { self.key = key; self.before = before; self.after = after }
        }
    }

    static let policyChangeSchema = """
        CREATE TABLE policy_change (
            seq INTEGER PRIMARY KEY,
            at_micros INTEGER NOT NULL,
            by TEXT NOT NULL,
            lines TEXT NOT NULL,
            text_before TEXT NOT NULL,
            text_after TEXT NOT NULL,
            undoes INTEGER REFERENCES policy_change(seq)
        );
        """

    /// Saves a change made; its number.
    public func savePolicyChange(at: Microseconds, by: String, lines: [PolicyChangeRecord.Line], before: String, after: String,
                                 undoes: Int64? = nil) throws(StoreError) -> Int64 {
        do {
            let json = String(decoding: try JSONEncoder().encode(lines), as: UTF8.self)
            return try pool.write { db in
                try db.execute(sql: "INSERT INTO policy_change (at_micros, by, lines, text_before, text_after, undoes) VALUES (?, ?, ?, ?, ?, ?)",
                               arguments: [at, by, json, before, after, undoes])
                return db.lastInsertedRowID
            }
        } catch {
            throw StoreError(description: "\(path): could not save the change of the policy: \(Store.explain(error))")
        }
    }

    /// The last `limit` changes, newest first (or the one numbered `id`).
    public func policyChanges(limit: Int = 50, id: Int64? = nil) throws(StoreError) -> [PolicyChangeRecord] {
        do {
            return try pool.read { db in
                let rows = try Row.fetchAll(db, sql: """
                    SELECT c.*, (SELECT min(u.seq) FROM policy_change u WHERE u.undoes = c.seq) AS undone_by
                    FROM policy_change c \(id == nil ? "" : "WHERE c.seq = ?") ORDER BY c.seq DESC LIMIT ?
                    """, arguments: StatementArguments(id.map { [$0, Int64(limit)] } ?? [Int64(limit)]))
                return try rows.map { row in
                    let text: String = row["lines"]
                    return PolicyChangeRecord(id: row["seq"], at: row["at_micros"], by: row["by"],
                                              lines: try JSONDecoder().decode([PolicyChangeRecord.Line].self, from: Data(text.utf8)),
                                              textBefore: row["text_before"], textAfter: row["text_after"], undoes: row["undoes"], undoneBy: row["undone_by"])
                }
            }
        } catch {
            throw StoreError(description: "\(path): could not read the changes of the policy: \(Store.explain(error))")
        }
    }
}
