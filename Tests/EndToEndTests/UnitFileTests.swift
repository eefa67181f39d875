import Foundation
import Testing

/// The systemd unit files, checked by systemd itself (`systemd-analyze verify --user`, which works
/// without systemd as PID 1 when XDG_RUNTIME_DIR is set); any warning fails.
@Suite("systemd units")
struct UnitFileTests {
    @Test("systemd-analyze verify --user passes on every unit, with nothing to say")
    func verify() throws {
        let fm = FileManager.default
        let dir = fm.temporaryDirectory.appendingPathComponent("screentime-units-\(UUID().uuidString)").path
        try fm.createDirectory(atPath: dir + "/runtime", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? fm.removeItem(atPath: dir) }
        let root = ReplayBinaryTests.root
        let units = ["screentimed", "screentime-hook-x11", "screentime-hook-sway"]
        for u in units {
            // As `make install` writes them, with the binaries of this build.
            let text = try String(contentsOf: root.appendingPathComponent("systemd/\(u).service.in"), encoding: .utf8)
            #expect(text.contains("@BINDIR@"))
            try text.replacingOccurrences(of: "@BINDIR@", with: root.appendingPathComponent(".build/debug").path)
                .write(toFile: "\(dir)/\(u).service", atomically: true, encoding: .utf8)
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-analyze")
        // Man pages are checked once installed (`make install`); here they are not.
        p.arguments = ["verify", "--user", "--man=no"] + units.map { "\(dir)/\($0).service" }
        p.environment = ["XDG_RUNTIME_DIR": dir + "/runtime", "PATH": "/usr/bin:/bin"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let said = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "\(said)")
        #expect(said.isEmpty, "\(said)")
    }

    @Test("the daemon's unit: notify, watchdog, restarts except for a bad state or policy, hardened")
    func daemonUnit() throws {
        let text = try String(contentsOf: ReplayBinaryTests.root.appendingPathComponent("systemd/screentimed.service.in"), encoding: .utf8)
        for line in ["Type=notify", "WatchdogSec=30s", "Restart=always", "RestartPreventExitStatus=1 2", "TimeoutStopSec=5s",
                     "NoNewPrivileges=yes", "ProtectSystem=strict", "PrivateTmp=yes", "LockPersonality=yes"] {
            #expect(text.split(separator: "\n").contains { $0 == line }, "\(line)")
        }
    }
}
