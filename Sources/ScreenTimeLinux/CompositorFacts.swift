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
    /// Yama's `ptrace_scope` (nil: the kernel has no Yama). Below 1, any process of the child's
    /// may attach to the shell (ptrace, `pidfd_getfd`, /proc/PID/mem) and speak through it.
    public var ptraceScope: Int? = nil
    /// Folders on the search paths the shell reads code and data from (its `XDG_DATA_DIRS`, where
    /// session modes, extensions and schemas are found, and the system's module and typelib
    /// folders) that the child can change.
    public var alterableSearchFolders: [String] = []
    /// Files mapped into it as code that are not root's, or that the child can change (a deleted
    /// one cannot be checked, and counts as such).
    public var alterableCode: [String] = []

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

    /// Where Yama's `ptrace_scope` is (the seam for tests: this machine's kernel has no Yama).
    public static let yamaPtraceScope = "/proc/sys/kernel/yama/ptrace_scope"

    /// Reads the facts of `pid` for `child`, looking for the GNOME Shell extension `extensionUUID`;
    /// Yama's setting from `yamaFile`.
    public static func read(pid: Int32, child: UserAccount, extensionUUID: String, yamaFile: String = yamaPtraceScope) -> CompositorFacts {
        let exe = ProcFS.realPath("/proc/\(pid)/exe")
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
            if let real = ProcFS.realPath(candidate), isFolder(real) { folder = real; break }
        }
        let extensionAlterable = folder.map { f in
            child.canAlter(f) || ["extension.js", "core.js", "metadata.json"].contains { child.canAlter(f + "/" + $0) }
        } ?? false
        var facts = CompositorFacts(pid: pid, exe: exe, exeAlterable: exe.map(child.canAlter) ?? true, uids: uids, tracer: tracer,
                                    environment: environment, extensionFolder: folder, extensionAlterable: extensionAlterable)
        facts.ptraceScope = ProcFS.contents(of: yamaFile).flatMap { Int(String(decoding: $0, as: UTF8.self).filter { !$0.isWhitespace }) }
        let code = mappedCode(pid: pid)
        facts.alterableCode = code.filter { path in
            path.hasSuffix(" (deleted)") || ProcFS.mode(of: path)?.uid != 0 || child.canAlter(path)
        }
        // The user's own data folder is not a search path here: the shell reads only what the
        // parents' locks govern from it (which extensions run), never session modes.
        let system = systemDataFolders(environment)
        let libraries = Set(code.compactMap { path -> String? in
            guard path.contains("/libgjs.so") || path.contains("/libmutter-") || path.contains("/libglib-2.0.so") else { return nil }
            return String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        })
        var folders = system
        for lib in libraries.sorted() {
            for sub in ["gio/modules", "girepository-1.0", "gstreamer-1.0", "gjs", "gnome-shell"] where ProcFS.mode(of: lib + "/" + sub) != nil {
                folders.append(lib + "/" + sub)
            }
        }
        for fixed in ["/usr/share/gnome-shell", "/usr/lib/gnome-shell", "/usr/share/gjs-1.0"] where ProcFS.mode(of: fixed) != nil {
            folders.append(fixed)
        }
        var seen: Set<String> = []
        facts.alterableSearchFolders = folders.filter { seen.insert($0).inserted && child.canAlterOrMake($0) }
        return facts
    }

    /// The files mapped into `pid` as code (executable mappings), each once, in the order found.
    static func mappedCode(pid: Int32) -> [String] {
        let text = String(decoding: ProcFS.contents(of: "/proc/\(pid)/maps") ?? [], as: UTF8.self)
        var seen: Set<Substring> = []
        var out: [String] = []
        for line in text.split(separator: "\n") {
            // address perms offset dev inode path
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6, fields[1].dropFirst(2).first == "x" else { continue }
            let path = fields[5].drop { $0 == " " }
            guard path.hasPrefix("/"), seen.insert(path).inserted else { continue }
            out.append(String(path))
        }
        return out
    }

    /// Where GLib looks for data, in order (the XDG base directory rules).
    static func dataFolders(_ environment: [String: String], child: UserAccount) -> [String] {
        let home = environment["HOME"] ?? child.home
        let user = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home.map { $0 + "/.local/share" }
        return (user.map { [$0] } ?? []) + systemDataFolders(environment)
    }

    /// `$XDG_DATA_DIRS`, or GLib's default without it.
    static func systemDataFolders(_ environment: [String: String]) -> [String] {
        (environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share")
            .split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
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
        // Through a link, what it names counts too: the folders on the way to it may be the child's.
        if let real = ProcFS.realPath(path), real != path, canAlter(real) { return true }
        var prefix = ""
        var parent = "/"
        for part in path.split(separator: "/") {
            prefix += "/" + part
            // The entry as it is (a link the child owns can be replaced); the folder it is in as
            // what it names (a folder reached through a link is the link's target).
            guard let entry = ProcFS.mode(of: prefix), let folder = ProcFS.targetMode(of: parent) else { return true }
            if canWrite(parent), folder.mode & UInt32(S_ISVTX) == 0 || entry.uid == uid { return true }
            if entry.uid == uid { return true }
            parent = prefix
        }
        return false
    }

    /// The user can change `path`, or make it where it is not (a folder named on a search path
    /// need not exist): for a missing path, whether they can change the deepest folder of it that is.
    public func canAlterOrMake(_ path: String) -> Bool {
        var existing = path
        while ProcFS.mode(of: existing) == nil {
            guard let slash = existing.lastIndex(of: "/"), slash != existing.startIndex else { return canAlter("/") }
            existing = String(existing[..<slash])
        }
        return canAlter(existing)
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
