import Glibc

/// What can be found out of a process of the child's that reports the focused window as the
/// session's compositor (GNOME Shell with the screentime extension): read from /proc as root, so
/// that system mode can decide whether to believe it (`CompositorTrust` in screentimed).
/// Only facts; no judgement here.
public struct CompositorFacts: Sendable {
    public var pid: Int32
    /// The realpath of /proc/PID/exe (nil: the process is gone, or its exe cannot be read).
    public var exe: String?
    /// The child can change the exe: write it, or replace it or a folder on its path.
    public var exeAlterable: Bool
    /// The process's real and effective uid (from /proc/PID/status).
    public var uids: (real: UInt32, effective: UInt32)?
    /// The pid of a process tracing it (ptrace: a debugger can make it say anything); 0: none.
    public var tracer: Int32
    /// Its environment as it started.
    public var environment: [String: String]
    /// GNOME Shell: the folder it loads the extension from (the first of its data folders that
    /// holds one: `$XDG_DATA_HOME`, then `$XDG_DATA_DIRS`), resolved; nil when none holds it.
    public var extensionFolder: String?
    /// The child can change that folder, a file in it, or a folder on its path.
    public var extensionAlterable: Bool

    public init(pid: Int32, exe: String?, exeAlterable: Bool, uids: (real: UInt32, effective: UInt32)?, tracer: Int32,
                environment: [String: String], extensionFolder: String?, extensionAlterable: Bool) {
        self.pid = pid
        self.exe = exe
        self.exeAlterable = exeAlterable
        self.uids = uids
        self.tracer = tracer
        self.environment = environment
        self.extensionFolder = extensionFolder
        self.extensionAlterable = extensionAlterable
    }

    /// Reads the facts of `pid` for `child`, looking for the GNOME Shell extension `extensionUUID`.
    public static func read(pid: Int32, child: UserAccount, extensionUUID: String) -> CompositorFacts {
        let exe = realpath("/proc/\(pid)/exe")
        let status = ProcFS.contents(of: "/proc/\(pid)/status").map { String(decoding: $0, as: UTF8.self) } ?? ""
        var tracer: Int32 = 0
        var uids: (UInt32, UInt32)? = nil
        for line in status.split(separator: "\n") {
            let parts = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
            if parts.first == "TracerPid:", parts.count > 1 { tracer = Int32(parts[1]) ?? -1 }
            if parts.first == "Uid:", parts.count > 2, let r = UInt32(parts[1]), let e = UInt32(parts[2]) { uids = (r, e) }
        }
        let environment = ProcFS.environment(of: pid)
        var folder: String? = nil
        for data in dataFolders(environment, child: child) {
            let candidate = data + "/gnome-shell/extensions/" + extensionUUID
            if let real = realpath(candidate), isFolder(real) { folder = real; break }
        }
        let extensionAlterable = folder.map { f in
            child.canAlter(f) || ["extension.js", "core.js", "metadata.json"].contains { child.canAlter(f + "/" + $0) }
        } ?? false
        return CompositorFacts(pid: pid, exe: exe, exeAlterable: exe.map(child.canAlter) ?? true, uids: uids, tracer: tracer,
                               environment: environment, extensionFolder: folder, extensionAlterable: extensionAlterable)
    }

    /// Where GLib looks for data, in order (the XDG base directory rules).
    static func dataFolders(_ environment: [String: String], child: UserAccount) -> [String] {
        let home = environment["HOME"] ?? child.home
        let user = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home.map { $0 + "/.local/share" }
        let system = (environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share")
            .split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        return (user.map { [$0] } ?? []) + system
    }

    private static func realpath(_ path: String) -> String? {
        guard let resolved = Glibc.realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func isFolder(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }
}

extension UserAccount {
    /// The user can change what `path` (resolved, absolute) names: write it, or replace it or any
    /// folder on its path through a folder they can write (a sticky folder, as /tmp, lets them
    /// replace only what they own).
    public func canAlter(_ path: String) -> Bool {
        if uid == 0 { return true }
        if canWrite(path) { return true }
        var prefix = ""
        var parent = "/"
        for part in path.split(separator: "/") {
            prefix += "/" + part
            guard let entry = ProcFS.mode(of: prefix), let folder = ProcFS.mode(of: parent) else { return true }
            if canWrite(parent), folder.mode & UInt32(S_ISVTX) == 0 || entry.uid == uid { return true }
            if entry.uid == uid { return true }
            parent = prefix
        }
        return false
    }

    /// The user's home folder from the user database.
    public var home: String? {
        var pwd = passwd()
        var result: UnsafeMutablePointer<passwd>? = nil
        var buf = [CChar](repeating: 0, count: 16_384)
        guard getpwuid_r(uid, &pwd, &buf, buf.count, &result) == 0, result != nil, let dir = pwd.pw_dir else { return nil }
        return String(cString: dir)
    }
}
