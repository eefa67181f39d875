import Foundation
import ScreenTimeLinux
import ScreenTimeSystemd
import Testing

/// A private session bus (a real dbus-daemon that the child's uid may use too) with
/// python3-dbusmock's notification_daemon template on it, which logs every call. The mock stands
/// in for a desktop's notification daemon, which needs a desktop.
public final class MockNotifications {
    private let bus: PrivateBus
    public var address: String { bus.address }
    public let callLog: String
    private var mock: Process?

    public init() throws {
        bus = try PrivateBus(.user)
        callLog = bus.dir + "/calls.log"
        mock = try bus.startMock("notification_daemon", owning: "org.freedesktop.Notifications", arguments: ["-l", callLog])
    }

    deinit {
        if let mock { kill(mock.processIdentifier, SIGKILL); reap(mock) }
    }

    /// The `Notify` calls so far, as the mock logged them: `"app" 0 "icon" "summary" "body" [] {"urgency": 2} -1`.
    public var notifications: [String] {
        let text = (try? String(contentsOfFile: callLog, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let r = line.range(of: " Notify ") else { return nil }
            return String(line[r.upperBound...])
        }
    }
}
