import ScreenTimeCore
import ScreenTimeLinux

/// Who may do what for one child (docs/architecture.md §1): decided from the peer's credentials
/// (`SO_PEERCRED`), never from what a request claims. Root, the users named in `[parents] users`
/// and the members of `[parents] groups` are parents; the child's own uid is the child; anyone
/// else — another child too — is a stranger.
struct Authority {
    enum Role { case parent, child, stranger }

    let childUID: UInt32
    let parentUIDs: Set<UInt32>
    let parentGroups: Set<UInt32>

    init(childUID: UInt32, policy: Policy) {
        self.childUID = childUID
        parentUIDs = Set(policy.parents.users.compactMap { UserAccount.lookup(name: $0)?.uid })
        parentGroups = Set(policy.parents.groups.compactMap { UserAccount.groupID(named: $0) })
    }

    /// Of `users` (those with a desktop session), the child's parents by name or by group.
    func parentsWithSessions(_ users: [UInt32]) -> [UInt32] {
        users.filter { uid in
            uid != 0 && uid != childUID && (parentUIDs.contains(uid)
                || (!parentGroups.isEmpty && UserAccount.lookup(uid: uid).map { !$0.groups.isDisjoint(with: parentGroups) } == true))
        }
    }

    func role(of peer: PeerCredentials) -> Role {
        if peer.uid == 0 || parentUIDs.contains(peer.uid) { return .parent }
        if peer.uid == childUID { return .child }
        // A parent by group: the groups the user database gives the peer's uid (the child is never
        // a parent of their own, whatever their groups).
        if !parentGroups.isEmpty, let account = UserAccount.lookup(uid: peer.uid), !account.groups.isDisjoint(with: parentGroups) {
            return .parent
        }
        return .stranger
    }
}
