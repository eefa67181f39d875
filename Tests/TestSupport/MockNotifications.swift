import Foundation
import ScreenTimeLinux
import Testing

/// A private session bus (a real dbus-daemon that the child's uid may use too) with
/// python3-dbusmock's notification_daemon template on it, which logs every call. The mock stands
/// in for a desktop's notification daemon, which needs a desktop.
public final class MockNotifications {
    public let dir: String
    public let address: String
    public let callLog: String
    private var daemon: Process
    private var mock: Process?

    public init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("screentime-session-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        address = "unix:path=\(dir)/bus"
        callLog = dir + "/calls.log"
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig><type>session</type><listen>\(address)</listen><auth>EXTERNAL</auth>
            <policy context="default"><allow own="*"/><allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/><allow user="*"/></policy></busconfig>
            """.write(toFile: dir + "/session-bus.conf", atomically: true, encoding: .utf8)
        daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--config-file=\(dir)/session-bus.conf", "--nofork"]
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        for _ in 0..<200 where !FileManager.default.fileExists(atPath: dir + "/bus") { usleep(10_000) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = ["-m", "dbusmock", "--session", "-t", "notification_daemon", "-l", callLog]
        p.environment = ["DBUS_SESSION_BUS_ADDRESS": address, "PATH": "/usr/bin:/bin"]
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        mock = p
        let bus = try Bus(.user, address: address)
        for _ in 0..<500 {
            if (try? bus.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
                              [.string("org.freedesktop.Notifications")])) != nil { return }
            usleep(20_000)
        }
        Issue.record("the notification daemon mock did not appear on the bus")
    }

    deinit {
        if let mock { kill(mock.processIdentifier, SIGKILL); reap(mock) }
        kill(daemon.processIdentifier, SIGKILL)
        reap(daemon)
        try? FileManager.default.removeItem(atPath: dir)
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
