import ScreenTimeDaemon
import ScreenTimeLinux
import ScreenTimeSystemd

/// The system's user database, as `Authority` asks it.
struct SystemUsers: UserDirectory, Sendable {
    func uid(named name: String) -> UInt32? { UserAccount.lookup(name: name)?.uid }
    func groupID(named name: String) -> UInt32? { UserAccount.groupID(named: name) }
    func groups(of uid: UInt32) -> Set<UInt32>? { UserAccount.lookup(uid: uid)?.groups }
}

extension Notice.Urgency {
    /// The same urgency, as the notification service takes it.
    var desktop: Notifier.Urgency {
        switch self {
        case .low: .low
        case .normal: .normal
        case .critical: .critical
        }
    }
}
