/// The points ledger: append-only; every entry carries the balance after it, and the balance is
/// always the sum of the entries.
public struct LedgerEntry: Sendable, Equatable {
    public enum Kind: String, Sendable { case earned, redeemed, adjusted, expired }

    /// Trusted wall time (µs since the epoch).
    public var at: Microseconds
    public var kind: Kind
    public var points: Int64
    public var balanceAfter: Int64
    /// earned: the app; adjusted: the parent's reason; redeemed: who redeemed.
    public var note: String?
    /// redeemed: reward seconds granted; expired: reward seconds that expired unused.
    public var rewardSeconds: Microseconds?

    public init(at: Microseconds, kind: Kind, points: Int64, balanceAfter: Int64, note: String? = nil, rewardSeconds: Microseconds? = nil) {
        self.at = at
        self.kind = kind
        self.points = points
        self.balanceAfter = balanceAfter
        self.note = note
        self.rewardSeconds = rewardSeconds
    }
}

public struct Ledger: Sendable {
    public private(set) var entries: [LedgerEntry] = []
    public private(set) var balance: Int64 = 0

    public init() {}

    @discardableResult
    mutating func append(_ kind: LedgerEntry.Kind, points: Int64, at: Microseconds, note: String? = nil,
                         rewardSeconds: Microseconds? = nil) -> LedgerEntry {
        balance += points
        let e = LedgerEntry(at: at, kind: kind, points: points, balanceAfter: balance, note: note, rewardSeconds: rewardSeconds)
        entries.append(e)
        return e
    }
}
