import Foundation
import TestSupport
import Testing

/// The systemd unit files, checked by systemd itself (`systemd-analyze verify --user`, which works
/// without systemd as PID 1 when XDG_RUNTIME_DIR is set); any warning fails.
@Suite("systemd units", .ownThread)
struct UnitFileTests {
    @Test("systemd-analyze verify --user passes on every unit, with nothing to say")
    func verify() throws {
        let fm = FileManager.default
        let dir = fm.temporaryDirectory.appendingPathComponent("screentime-units-\(UUID().uuidString)").path
        try fm.createDirectory(atPath: dir + "/runtime", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? fm.removeItem(atPath: dir) }
        let units = try ["screentimed", "screentime-hook-x11", "screentime-hook-sway", "screentime-hook-kde"].map { try Self.install($0, in: dir) }
        // Man pages are checked once installed (`make install`); here they are not.
        let verify = try Self.analyze(["verify", "--user", "--man=no"] + units, runtime: dir + "/runtime")
        #expect(verify.status == 0, "\(verify.said)")
        #expect(verify.said.isEmpty, "\(verify.said)")
    }

    /// A unit as `make install` writes it, with the binaries of this build, in `dir`.
    static func install(_ unit: String, in dir: String) throws -> String {
        let root = ReplayBinaryTests.root
        let text = try String(contentsOf: root.appendingPathComponent("systemd/\(unit).service.in"), encoding: .utf8)
        #expect(text.contains("@BINDIR@"))
        let path = "\(dir)/\(unit).service"
        try text.replacingOccurrences(of: "@BINDIR@", with: root.appendingPathComponent(".build/debug").path)
            .write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// systemd-analyze, with what it says on stdout and stderr; `runtime`: XDG_RUNTIME_DIR (for --user).
    static func analyze(_ args: [String], runtime: String? = nil) throws -> (status: Int32, said: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-analyze")
        p.arguments = args
        p.environment = ["PATH": "/usr/bin:/bin"].merging(runtime.map { ["XDG_RUNTIME_DIR": $0] } ?? [:]) { $1 }
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let said = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return (p.terminationStatus, said)
    }

    @Test("the system unit: systemd-analyze verify has nothing to say, and security scores it no worse than MEDIUM (docs/system-mode.md)")
    func systemUnit() throws {
        let fm = FileManager.default
        let dir = fm.temporaryDirectory.appendingPathComponent("screentime-units-\(UUID().uuidString)").path
        try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? fm.removeItem(atPath: dir) }
        let unit = try Self.install("screentimed-system", in: dir)
        let verify = try Self.analyze(["verify", "--man=no", unit])
        // It loads what the unit is wanted by (multi-user.target) and so other packages' units
        // too, whose warnings are theirs: only what it says of ours counts.
        let ours = verify.said.split(separator: "\n").filter { $0.contains("screentimed-system") }
        #expect(verify.status == 0 && ours.isEmpty, "\(verify.said)")
        let security = try Self.analyze(["security", "--offline=yes", "--no-pager", unit])
        // "→ Overall exposure level for screentimed-system.service: 2.4 OK 🙂"
        let line = try #require(security.said.split(separator: "\n").first { $0.contains("Overall exposure level") }, "\(security.said)")
        let words = line.split(separator: " ")
        let score = try #require(words.firstIndex { $0.hasSuffix(".service:") }.flatMap { Double(words[$0 + 1]) }, "\(line)")
        let level = words.last { $0.allSatisfy(\.isUppercase) }.map(String.init)
        #expect(["OK", "MEDIUM"].contains(level ?? ""), "\(line)")
        #expect(score <= 6.9, "\(line)")   // MEDIUM ends below 7.0 (systemd-analyze(1))
        let text = try String(contentsOfFile: unit, encoding: .utf8)
        for line in ["Type=notify", "WatchdogSec=30s", "Restart=always", "ProtectSystem=strict", "ProtectHome=read-only",
                     "StateDirectory=screentime", "StateDirectoryMode=0700", "RuntimeDirectory=screentime",
                     "CapabilityBoundingSet=CAP_KILL CAP_SYS_PTRACE CAP_DAC_OVERRIDE CAP_DAC_READ_SEARCH CAP_SETUID CAP_SETGID",
                     "SystemCallFilter=@system-service", "SystemCallFilter=@setuid"] {
            #expect(text.split(separator: "\n").contains { $0 == line }, "\(line)")
        }
        #expect(text.contains("ExecStart=\(ReplayBinaryTests.root.appendingPathComponent(".build/debug").path)/screentimed --system"))
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
