/// A child's request for more game time, and what became of it.
public struct TimeRequest: Sendable, Equatable, Codable {
    public enum State: String, Sendable, Codable {
        /// Waiting for a parent.
        case pending
        case approved, denied
        /// Nobody decided within `[requests] expire_after`.
        case expired
        /// Over `[requests] max_per_day`: never pending.
        case refused
    }

    public var id: String
    /// When it was asked (trusted wall time, µs).
    public var at: Microseconds
    public var minutes: Int64
    /// The child's words.
    public var reason: String?
    public var state: State
    /// Approved: how it was paid, and the minutes granted (the parent may grant fewer).
    public var pay: RequestDecision.Pay?
    public var minutesGranted: Int64?
    /// When it was decided, expired or refused (trusted wall time, µs), and by whom.
    public var decidedAt: Microseconds?
    public var by: String?
    /// The parent's words (a denial's reason).
    public var answer: String?
    /// The minutes are screen time, not game time (nil in older checkpoints: game time).
    public var screen: Bool? = nil
    /// The policy day it was asked on (days since 1970-01-01, local): `max_per_day` counts them.
    var day: Int64
    /// Engine time at which a pending request expires.
    var expiresAt: Microseconds
}

/// One claim of a chore: the child says it is done; a parent approves or rejects it.
public struct ChoreClaim: Sendable, Equatable, Codable {
    public enum State: String, Sendable, Codable { case pending, approved, rejected }

    public var chore: String
    /// When the child claimed it (trusted wall time, µs).
    public var at: Microseconds
    public var state: State
    /// Approved: the points paid.
    public var points: Int64?
    public var decidedAt: Microseconds?
    public var by: String?
    /// The parent's words when rejecting.
    public var answer: String?
    /// The period it was claimed for (a day key, a week key, or 0 for a chore done once).
    var period: Int64
    /// The policy day it was claimed on.
    var day: Int64
}

/// Why the engine refused a request (`refused[].reason`, `docs/spec/family.md`).
public enum RefusalCode: String, Sendable, Codable, CaseIterable {
    /// A redemption or an approval paid in points that the balance cannot pay.
    case insufficientPoints = "insufficient_points"
    /// The child's own redemptions today would pass `child_redeem_daily_max`.
    case childRedeemLimit = "child_redeem_limit"
    /// The chore is unknown, not due today, or already claimed this period.
    case choreNotDue = "chore_not_due"
    /// More requests than `max_per_day`.
    case requestsPerDay = "requests_per_day"
    /// Added by screentime: the policy does not let the child redeem (`child_may_redeem`).
    case childMayNotRedeem = "child_may_not_redeem"
    /// Added by screentime: the request is not pending (unknown, decided or expired already).
    case requestNotPending = "request_not_pending"
    /// Added by screentime: a request with that id exists already.
    case requestExists = "request_exists"
    /// Added by screentime: no claim of that chore waits for a parent.
    case choreNotClaimed = "chore_not_claimed"
    /// Added by screentime: bonus time for today would be more than a day holds.
    case bonusTooLong = "bonus_too_long"
    /// Added by screentime: a revoke found no unused redeemed, given or bonus minutes.
    case nothingToRevoke = "nothing_to_revoke"
}
