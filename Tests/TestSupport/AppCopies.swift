import Foundation
import ScreenTimeLinux

/// Copies of `sleep` under the names of apps (gcompris-qt, supertuxkart, mystery), so that real
/// processes show those exe paths. The folder is root's (trusted), or writable by everyone (`open`).
///
/// Each copy is a program of its own: its ELF build-id (by which the daemon knows a program under
/// any name) is made unique, as two different apps' are. Without that, every copy, and `sleep`
/// itself, would be the same program.
public enum AppCopies {
    public static func folder(open: Bool = false) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("screentime-apps-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: open ? 0o777 : 0o755])
        for name in ["gcompris-qt", "supertuxkart", "mystery"] {
            try uniqueCopy(of: "/bin/sleep", to: "\(dir)/\(name)")
        }
        return dir
    }

    /// Copies `source` to `path` (mode 0755) with a new random GNU build-id.
    public static func uniqueCopy(of source: String, to path: String) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
        // The note: namesz 4, descsz 20, type 3 (NT_GNU_BUILD_ID), "GNU\0", then the 20-byte id.
        let header: [UInt8] = [4, 0, 0, 0, 20, 0, 0, 0, 3, 0, 0, 0, 0x47, 0x4e, 0x55, 0]
        guard let at = (0...(bytes.count - header.count - 20)).first(where: { bytes[$0..<$0 + header.count].elementsEqual(header) }) else {
            throw FixtureFailure("\(source) has no GNU build-id note")
        }
        var random = SystemRandomNumberGenerator()
        for k in 0..<20 { bytes[at + header.count + k] = UInt8.random(in: 0...255, using: &random) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o755)
    }
}

/// A test child with a uid no other test uses, in the user database (the D-Bus daemon refuses a
/// uid it cannot name). Created with `useradd` the first time; kept (a system user, no home).
public enum TestUser {
    /// `groups`: supplementary groups the user is in (made with groupadd when missing).
    public static func ensure(uid: UInt32, name: String, groups: [String] = []) -> UInt32 {
        for group in groups { run("/usr/sbin/groupadd", ["-f", group]) }
        if getpwuid(uid) == nil {
            run("/usr/sbin/useradd", ["--uid", "\(uid)", "--no-create-home", "--shell", "/usr/sbin/nologin", "--user-group"]
                + (groups.isEmpty ? [] : ["--groups", groups.joined(separator: ",")]) + [name])
        } else if !groups.isEmpty {
            run("/usr/sbin/usermod", ["-aG", groups.joined(separator: ","), name])
        }
        return uid
    }

    private static func run(_ tool: String, _ args: [String]) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args
        p.standardError = FileHandle.nullDevice
        try? p.run()
        reap(p)
    }
}

/// The cgroup v2 hierarchy, where tests make app scopes of their own (as root).
public enum Cgroup2 {
    /// Where cgroup v2 is mounted (not always /sys/fs/cgroup: a hybrid layout puts it in `unified`).
    public static func mount() -> String? {
        // Read to the end: Foundation stops at its first read of a /proc file (4 KiB).
        guard let info = ProcFS.contents(of: "/proc/self/mountinfo").map({ String(decoding: $0, as: UTF8.self) }) else { return nil }
        for line in info.split(separator: "\n") {
            let halves = line.components(separatedBy: " - ")
            guard halves.count == 2, halves[1].hasPrefix("cgroup2 ") else { continue }
            return halves[0].split(separator: " ")[4].description
        }
        return nil
    }
}
