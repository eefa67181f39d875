import Foundation
import ScreenTimeLinux
import Testing

/// A private system bus (a real dbus-daemon) with python3-dbusmock's logind template on it
/// (../shared/RECIPES.md). The mock is the one part that is not the real thing: logind itself needs
/// systemd as PID 1, which this machine does not run.
public final class MockLogind {
    public let dir: String
    public let address: String
    private var daemon: Process
    private var mock: Process?

    public init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("screentime-bus-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        address = "unix:path=\(dir)/system_bus_socket"
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig><type>system</type><listen>\(address)</listen><auth>EXTERNAL</auth>
            <policy context="default"><allow own="*"/><allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/><allow user="*"/></policy></busconfig>
            """.write(toFile: dir + "/system-bus.conf", atomically: true, encoding: .utf8)
        daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--config-file=\(dir)/system-bus.conf", "--nofork"]
        daemon.standardError = FileHandle.nullDevice   // "Failed to set fd limit": harmless here
        try daemon.run()
        for _ in 0..<200 where !FileManager.default.fileExists(atPath: dir + "/system_bus_socket") { usleep(10_000) }
        try startMock()
    }

    /// (Re)starts logind's mock: a new owner of org.freedesktop.login1, with no sessions.
    public func startMock() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = ["-m", "dbusmock", "--system", "-t", "logind"]
        p.environment = ["DBUS_SYSTEM_BUS_ADDRESS": address, "PATH": "/usr/bin:/bin"]
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        mock = p
        let bus = try Bus(.system, address: address)
        for _ in 0..<500 {
            if (try? bus.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
                              [.string("org.freedesktop.login1")])) != nil { return }
            usleep(20_000)
        }
        Issue.record("the logind mock did not appear on the bus")
    }

    public func stopMock() {
        guard let mock else { return }
        kill(mock.processIdentifier, SIGKILL)
        reap(mock)
        self.mock = nil
    }

    deinit {
        stopMock()
        kill(daemon.processIdentifier, SIGKILL)
        reap(daemon)
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// Calls a method of the mock (its control interface, or logind's own).
    @discardableResult
    public func call(_ path: String, _ interface: String, _ member: String, _ args: [BusValue] = []) throws -> BusMessage {
        try Bus(.system, address: address).call("org.freedesktop.login1", path, interface, member, args)
    }

    public func addSession(_ id: String, uid: UInt32, name: String, active: Bool = true) throws {
        try call("/org/freedesktop/login1", "org.freedesktop.DBus.Mock", "AddSession",
                 [.string(id), .string("seat0"), .uint32(uid), .string(name), .bool(active)])
    }

    /// logind's GetSessionByPID, which the template lacks, answering `id` for every pid.
    public func answerSessionByPID(_ id: String) throws {
        try call("/org/freedesktop/login1", "org.freedesktop.DBus.Mock", "AddMethod",
                 [.string("org.freedesktop.login1.Manager"), .string("GetSessionByPID"), .string("u"), .string("o"),
                  .string("ret = dbus.ObjectPath('/org/freedesktop/login1/session/\(id)')")])
    }

    public func setSession(_ id: String, _ properties: [String: BusValue]) throws {
        try call("/org/freedesktop/login1/session/\(id)", "org.freedesktop.DBus.Mock", "UpdateProperties",
                 [.string("org.freedesktop.login1.Session"),
                  .array(element: "{sv}", properties.sorted { $0.key < $1.key }.map { .dictEntry(.string($0.key), .variant($0.value)) })])
    }

    public func emit(on path: String, _ interface: String, _ member: String, _ signature: String, _ args: [BusValue]) throws {
        try call(path, "org.freedesktop.DBus.Mock", "EmitSignal",
                 [.string(interface), .string(member), .string(signature), .array(element: "v", args.map { .variant($0) })])
    }

    /// A signal sent by someone who is not logind (as any process on the bus could).
    public func forge(_ path: String, _ member: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-send")
        p.arguments = ["--bus=\(address)", "--type=signal", path, "org.freedesktop.login1.Session.\(member)"]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
    }
}

