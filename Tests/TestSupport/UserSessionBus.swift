import Foundation
import Testing

/// A user's own session bus where a desktop session has it, `/run/user/UID/bus`: a real
/// dbus-daemon running as the user, with python3-dbusmock's notification_daemon on it (as the
/// user too), which logs every call. The mock stands in for the desktop's notification daemon,
/// which needs a desktop. `/run/user/UID` is made for the test (logind makes it at login) and
/// removed after, with everything the test started.
public final class UserSessionBus {
    public let uid: UInt32
    public let dir: String
    public let callLog: String
    private var runtimeMade = false
    private var daemon: Process?
    private var mock: Process?
    public var socket: String { "/run/user/\(uid)/bus" }

    /// `environment`: what the bus and the notification service run with besides (a session in
    /// German: `["LANG": "de_DE.UTF-8"]`); the daemon reads a user's language from their processes.
    public init(uid: UInt32, environment: [String: String] = [:]) throws {
        self.uid = uid
        let fm = FileManager.default
        let runtime = "/run/user/\(uid)"
        if !fm.fileExists(atPath: runtime) {
            try fm.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try fm.setAttributes([.ownerAccountID: uid], ofItemAtPath: runtime)
            runtimeMade = true
        }
        // The configuration and the mock's log, in a folder of the test's the user can read and write.
        dir = fm.temporaryDirectory.appendingPathComponent("screentime-userbus-\(uid)-\(UUID().uuidString)").path
        try fm.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try fm.setAttributes([.ownerAccountID: uid], ofItemAtPath: dir)
        callLog = dir + "/calls.log"
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig><type>session</type><listen>unix:path=\(socket)</listen><auth>EXTERNAL</auth>
            <policy context="default"><allow own="*"/><allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/></policy></busconfig>
            """.write(toFile: dir + "/bus.conf", atomically: true, encoding: .utf8)
        try? fm.removeItem(atPath: socket)
        let asUser = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"]
        let d = Process()
        d.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        d.arguments = asUser + ["/usr/bin/dbus-daemon", "--config-file=\(dir)/bus.conf", "--nofork"]
        if !environment.isEmpty { d.environment = ["PATH": "/usr/bin:/bin"].merging(environment) { $1 } }
        d.standardError = FileHandle.nullDevice
        try d.run()
        daemon = d
        try Wait.until("dbus-daemon to make \(socket)", within: 15) { fm.fileExists(atPath: socket) }
        let m = Process()
        m.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        m.arguments = asUser + ["/usr/bin/python3", "-m", "dbusmock", "--session", "-t", "notification_daemon", "-l", callLog]
        m.environment = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(socket)", "PATH": "/usr/bin:/bin", "HOME": dir].merging(environment) { $1 }
        m.standardOutput = FileHandle.nullDevice
        try m.run()
        mock = m
        try Wait.until("dbusmock to start its call log \(callLog)", within: 10) { fm.fileExists(atPath: callLog) }
        // The mock owns its name once it answers; a notification before that would be lost.
        // (Each look runs busctl, which takes a while on a loaded machine: a bound of 60 s, not 200 × 50 ms.)
        try Wait.until("dbusmock's notification daemon to appear on \(socket)", within: 60, every: 0.05) {
            let probe = Process()
            probe.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            probe.arguments = asUser + ["/usr/bin/busctl", "--user", "--timeout=1", "status", "org.freedesktop.Notifications"]
            probe.environment = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(socket)", "PATH": "/usr/bin:/bin"]
            probe.standardOutput = FileHandle.nullDevice
            probe.standardError = FileHandle.nullDevice
            try probe.run()
            probe.waitUntilExit()
            return probe.terminationStatus == 0
        }
    }

    deinit {
        for p in [mock, daemon].compactMap({ $0 }) where p.isRunning {
            kill(p.processIdentifier, SIGKILL)
            reap(p)
        }
        try? FileManager.default.removeItem(atPath: dir)
        if runtimeMade { try? FileManager.default.removeItem(atPath: "/run/user/\(uid)") } else { try? FileManager.default.removeItem(atPath: socket) }
    }

    /// The `Notify` calls so far, as the mock logged them: `"app" 0 "icon" "summary" "body" [] {"urgency": 2} -1`.
    public var notifications: [String] {
        let text = (try? String(contentsOfFile: callLog, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let r = line.range(of: " Notify ") else { return nil }
            return String(line[r.upperBound...])
        }
    }

    /// Waits (20 s at most) until a notification holds `text`; returns them all.
    public func waitFor(_ text: String) -> [String] {
        if Wait.whether(within: 20, { notifications.contains { $0.contains(text) } }) { return notifications }
        Issue.record("no notification on uid \(uid)'s bus says \"\(text)\"; there are: \(notifications)")
        return notifications
    }
}
