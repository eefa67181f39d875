import ScreenTimeCore

/// The user database as `Authority` needs it: names to uids, a user's groups. The daemon gives
/// it the system's (getpwnam and friends); a test gives it a table.
public protocol UserDirectory {
    func uid(named name: String) -> UInt32?
    func groupID(named name: String) -> UInt32?
    /// The groups of `uid`, primary and supplementary; nil when there is no such user.
    func groups(of uid: UInt32) -> Set<UInt32>?
}

/// Who may do what for one child (docs/architecture.md §1): decided from the peer's uid (the
/// kernel's `SO_PEERCRED`), never from what a request claims. Root, the users named in
/// `[parents] users` and the members of `[parents] groups` are parents; the child's own uid is the
/// child; anyone else — another child too — is a stranger.
public struct Authority: Sendable {
    public enum Role: Sendable { case parent, child, stranger }

    public let childUID: UInt32
    public let parentUIDs: Set<UInt32>
    public let parentGroups: Set<UInt32>
    /// The groups of a uid, asked of the user database each time (a parent added to the group counts at once).
    private let groupsOf: @Sendable (UInt32) -> Set<UInt32>?

    /// Names that the user database does not know are left out: they name nobody.
    public init(childUID: UInt32, policy: Policy, users: some UserDirectory & Sendable) {
        self.childUID = childUID
        parentUIDs = Set(policy.parents.users.compactMap { users.uid(named: $0) })
        parentGroups = Set(policy.parents.groups.compactMap { users.groupID(named: $0) })
        groupsOf = { users.groups(of: $0) }
    }

    /// Of `users` (those with a desktop session), the child's parents by name or by group.
    public func parentsWithSessions(_ users: [UInt32]) -> [UInt32] {
        users.filter { uid in uid != 0 && uid != childUID && role(of: uid) == .parent }
    }

    public func role(of uid: UInt32) -> Role {
        if uid == 0 || parentUIDs.contains(uid) { return .parent }
        if uid == childUID { return .child }
        // A parent by group: the groups the user database gives the uid (the child is never a
        // parent of their own, whatever their groups).
        if !parentGroups.isEmpty, let groups = groupsOf(uid), !groups.isDisjoint(with: parentGroups) { return .parent }
        return .stranger
    }
}
