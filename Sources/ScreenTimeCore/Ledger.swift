/// One entry of the points ledger: append-only; every entry carries the balance after it, and the
/// balance is always the sum of the entries.
public struct LedgerEntry: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable {
        case earned, redeemed, adjusted, expired
        /// The points of an approved chore (`note`: its name).
        case chore
        /// Minutes a parent gave without points (an approved request paid as a gift).
        case gifted
        /// A streak bonus (`note`: the streak's days).
        case bonus
        /// Bonus time for today a parent gave, free (`note`: who, and why).
        case bonusTime = "bonus_time"
        /// Unused minutes a parent took back (`points`: the points given back, 0 without a refund;
        /// `note`: who, and whether the points were refunded).
        case revoked
    }

    /// Trusted wall time (µs since the epoch).
    public var at: Microseconds
    public var kind: Kind
    public var points: Int64
    public var balanceAfter: Int64
    /// earned: the app; adjusted: the parent's reason; redeemed, gifted: who; chore: the chore.
    public var note: String?
    /// redeemed, gifted, bonus_time: reward seconds granted; expired: reward seconds that expired
    /// unused; revoked: reward seconds taken back.
    public var rewardSeconds: Microseconds?
    /// A family ledger's entry mirrored here (docs/household.md): the machine that wrote it (nil:
    /// this machine wrote it).
    public var machine: String?
    /// Its number in the family ledger, when known as it was made: a mirrored entry, or a
    /// redemption the family ledger paid first. (This machine's other entries are sent after.)
    public var familySeq: Int64?

    public init(at: Microseconds, kind: Kind, points: Int64, balanceAfter: Int64, note: String? = nil, rewardSeconds: Microseconds? = nil,
                machine: String? = nil, familySeq: Int64? = nil) {
        self.at = at
        self.kind = kind
        self.points = points
        self.balanceAfter = balanceAfter
        self.note = note
        self.rewardSeconds = rewardSeconds
        self.machine = machine
        self.familySeq = familySeq
    }
}

/// The engine's side of the ledger: the balance, and the entries it makes. The entries leave as
/// effects (the store keeps them); the engine keeps only what the next entry needs.
public struct Ledger: Sendable, Codable {
    public private(set) var balance: Int64 = 0

    public init(balance: Int64 = 0) { self.balance = balance }

    mutating func append(_ kind: LedgerEntry.Kind, points: Int64, at: Microseconds, note: String? = nil,
                         rewardSeconds: Microseconds? = nil, machine: String? = nil, familySeq: Int64? = nil) -> LedgerEntry {
        balance += points
        return LedgerEntry(at: at, kind: kind, points: points, balanceAfter: balance, note: note, rewardSeconds: rewardSeconds,
                           machine: machine, familySeq: familySeq)
    }
}
