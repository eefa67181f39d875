import ControlProtocol
import ScreenTimeCore

/// How much a child's own requests may add to the state in one day (issue #36). Every request
/// that is carried out or refused is kept (its event in the log, its answer for a retry), so a
/// child who asks in a loop would fill the disk; past the day's allowance a request of theirs is
/// refused before anything is kept. The allowances are far above what a child asks by hand.
public struct ChildQuota: Sendable {
    public enum Kind: Sendable { case request, claim }
    /// Requests (ask, chore done, their own redemption) kept per day.
    public static let requestsPerDay = 200
    /// Claims of their own side's (idle, a lock) kept per day: a desktop says each when it
    /// happens, a few dozen times a day.
    public static let claimsPerDay = 2_000

    private var day: Microseconds = .min
    private var requests = 0, claims = 0

    /// Whether one more of `kind` may be kept on the day that starts at `day`; counts it if so.
    public init() {}

    public mutating func take(_ kind: Kind, onDay day: Microseconds) -> Bool {
        if day != self.day { self.day = day; requests = 0; claims = 0 }
        switch kind {
        case .request:
            guard requests < Self.requestsPerDay else { return false }
            requests += 1
        case .claim:
            guard claims < Self.claimsPerDay else { return false }
            claims += 1
        }
        return true
    }

    /// What the child is told when today's allowance is used up.
    public static func refusal(_ kind: Kind) -> Why {
        switch kind {
        case .request: Why(.askedEnoughToday, ["most": "\(requestsPerDay)"])
        case .claim: Why(.claimedEnoughToday, ["most": "\(claimsPerDay)"])
        }
    }
}
