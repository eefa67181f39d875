import Foundation
import ScreenTimeLinux
import ScreenTimeSystemd
import Testing

/// A real dbus-daemon of the test's own (a system or a session bus, open to every uid), and
/// python3-dbusmock templates started on it (docs/dev/recipes.md).
public final class PrivateBus {
    public let kind: Bus.Kind
    public let dir: String
    public let address: String
    private let daemon: Process

    public init(_ kind: Bus.Kind) throws {
        self.kind = kind
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("screentime-bus-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let socket = dir + "/bus"
        address = "unix:path=\(socket)"
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig><type>\(kind == .system ? "system" : "session")</type><listen>\(address)</listen><auth>EXTERNAL</auth>
            <policy context="default"><allow own="*"/><allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/><allow user="*"/></policy></busconfig>
            """.write(toFile: dir + "/bus.conf", atomically: true, encoding: .utf8)
        daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--config-file=\(dir)/bus.conf", "--nofork"]
        daemon.standardError = FileHandle.nullDevice   // "Failed to set fd limit": harmless here
        try daemon.run()
        // Ready when it answers. Its socket's file appears when it binds, a moment before it
        // listens; and on a loaded machine (make test runs the GNOME Shell, KWin and sway suites
        // at once, and the sanitizer's build beside them) dbus-daemon once took over the 15 s this
        // waited for the file: dbusmock found no socket, and the test's own call was refused.
        // (Thrown with every property set: deinit ends the daemon and removes the folder.)
        try Wait.until("the test's dbus-daemon to answer on \(socket)", within: 60, every: 0.01) {
            guard daemon.isRunning else { throw FixtureFailure("the test's dbus-daemon ended at once (\(daemon.ending))") }
            return (try? Bus(kind, address: address)) != nil
        }
    }

    deinit {
        kill(daemon.processIdentifier, SIGKILL)
        reap(daemon)
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// Starts dbusmock's `template` (with `arguments`, e.g. `-l LOG`) and waits until it owns `name`.
    public func startMock(_ template: String, owning name: String, arguments: [String] = []) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = ["-m", "dbusmock", kind == .system ? "--system" : "--session", "-t", template] + arguments
        p.environment = [kind == .system ? "DBUS_SYSTEM_BUS_ADDRESS" : "DBUS_SESSION_BUS_ADDRESS": address, "PATH": "/usr/bin:/bin"]
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let bus = try Bus(kind, address: address)
        let owned = Wait.whether(within: 10) {
            (try? bus.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner", [.string(name)])) != nil
        }
        if owned { return p }
        Issue.record("dbusmock's \(template) did not appear on the bus as \(name)")
        return p
    }
}
