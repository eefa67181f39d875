import Foundation

/// Copies of `sleep` under the names of apps (gcompris-qt, supertuxkart, mystery), so that real
/// processes show those exe paths. The folder is root's (trusted), or writable by everyone (`open`).
public enum AppCopies {
    public static func folder(open: Bool = false) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("screentime-apps-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: open ? 0o777 : 0o755])
        for name in ["gcompris-qt", "supertuxkart", "mystery"] {
            try FileManager.default.copyItem(atPath: "/bin/sleep", toPath: "\(dir)/\(name)")
        }
        return dir
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
