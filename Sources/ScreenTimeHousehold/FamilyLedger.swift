import Crypto
import Logging
import NIOCore
import PostgresNIO

/// One entry of a child's family-wide ledger, as a machine sends it: `origin` names the event it
/// came from on that machine, so that sending it again (after a lost answer, a restart, a time
/// offline) writes it once.
public struct FamilyEntry: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case earned, redeemed, adjusted, chore, bonus, gifted, expired
        case bonusTime = "bonus_time", revoked
    }
    public var child: String
    public var machine: String
    public var origin: String
    public var kind: Kind
    public var points: Int64
    public var atMicros: Int64
    public var note: String

    public init(child: String, machine: String, origin: String, kind: Kind, points: Int64, atMicros: Int64, note: String = "") {
        self.child = child; self.machine = machine; self.origin = origin; self.kind = kind; self.points = points
        self.atMicros = atMicros; self.note = note
    }
}

/// A child's ledger in the family database, through a machine's role: entries appended (each
/// decided against the family balance in one transaction of the database's), and read back.
public struct FamilyLedger: Sendable {
    public let client: PostgresClient
    public let logger: Logger

    public init(client: PostgresClient, logger: Logger) { self.client = client; self.logger = logger }

    public enum Outcome: Sendable, Equatable {
        /// Written now, as entry `seq`.
        case appended(seq: Int64, balanceAfter: Int64)
        /// Written before (same machine and origin): as it was then.
        case duplicate(seq: Int64, balanceAfter: Int64)
        /// A spending the balance cannot pay: nothing written; the balance now.
        case refused(balance: Int64)
    }

    /// Appends `entry`, in the name of the role this client logged in as (the database records
    /// that role as the entry's machine, whatever `entry.machine` says). `floor`: for a spending that must be paid (a redemption), the lowest the
    /// balance may go (0); nil for one that may take it lower (a parent's penalty).
    public func append(_ entry: FamilyEntry, floor: Int64?) async throws -> Outcome {
        let rows = try await client.query("""
            SELECT outcome, seq, balance_after FROM screentime.append_entry(\(entry.child), \(entry.origin),
                \(entry.kind.rawValue), \(entry.points), \(entry.atMicros), \(entry.note), \(floor))
            """, logger: logger)
        for try await (outcome, seq, balance) in rows.decode((String, Int64, Int64).self) {
            switch outcome {
            case "appended": return .appended(seq: seq, balanceAfter: balance)
            case "duplicate": return .duplicate(seq: seq, balanceAfter: balance)
            default: return .refused(balance: balance)
            }
        }
        throw Unanswered()
    }

    struct Unanswered: Error {}

    /// The child's family balance (0 before their first entry).
    public func balance(of child: String) async throws -> Int64 {
        for try await b in try await client.query("SELECT balance FROM screentime.children WHERE child = \(child)", logger: logger).decode(Int64.self) {
            return b
        }
        return 0
    }

    /// The child's entries after entry `after` (at most `limit`), in order.
    public func entries(of child: String, after: Int64 = 0, limit: Int = Int(Int32.max)) async throws -> [StoredEntry] {
        var out: [StoredEntry] = []
        let rows = try await client.query("""
            SELECT seq, machine, origin, kind, points, balance_after, at_micros, note, previous_hash, hash
            FROM screentime.ledger WHERE child = \(child) AND seq > \(after) ORDER BY seq LIMIT \(limit)
            """, logger: logger)
        for try await (seq, machine, origin, kind, points, after, at, note, previous, hash)
            in rows.decode((Int64, String, String, String, Int64, Int64, Int64, String, ByteBuffer, ByteBuffer).self) {
            out.append(StoredEntry(child: child, seq: seq, machine: machine, origin: origin, kind: kind, points: points, balanceAfter: after,
                                   atMicros: at, note: note, previousHash: Array(buffer: previous), hash: Array(buffer: hash)))
        }
        return out
    }
}

/// An entry as the family database keeps it.
public struct StoredEntry: Sendable, Equatable {
    public var child: String
    public var seq: Int64
    public var machine: String
    public var origin: String
    public var kind: String
    public var points: Int64
    public var balanceAfter: Int64
    public var atMicros: Int64
    public var note: String
    public var previousHash: [UInt8]
    public var hash: [UInt8]

    /// The hash `append_entry` gives it: SHA-256 of the previous entry's hash and the entry's fields
    /// joined by `|`, computed here again (swift-crypto) to check the database's chain.
    public var expectedHash: [UInt8] {
        var data = previousHash
        data += Array([child, String(seq), machine, origin, kind, String(points), String(balanceAfter), String(atMicros), note]
            .joined(separator: "|").utf8)
        return Array(SHA256.hash(data: data))
    }
}

/// What `screentimed check --household` will say of a child's family ledger: the chain links
/// and hashes, the running balance, numbering without gaps.
public enum FamilyLedgerCheck {
    /// Nil when whole; else the first problem, in words.
    public static func problem(in entries: [StoredEntry]) -> String? {
        var head: [UInt8] = []
        var balance: Int64 = 0
        for (i, e) in entries.enumerated() {
            guard e.seq == Int64(i + 1) else { return "entry \(i + 1) is numbered \(e.seq): an entry is missing" }
            guard e.previousHash == head else { return "entry \(e.seq) does not follow entry \(e.seq - 1) (its previous hash differs)" }
            guard e.hash == e.expectedHash else { return "entry \(e.seq) was changed after it was written (its hash differs)" }
            balance += e.points
            guard e.balanceAfter == balance else { return "entry \(e.seq) says the balance was \(e.balanceAfter), the entries before sum to \(balance)" }
            head = e.hash
        }
        return nil
    }
}
