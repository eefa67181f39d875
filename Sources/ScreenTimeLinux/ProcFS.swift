#if canImport(Glibc)
import Glibc
#endif

/// The few system calls the sampler needs, each wrapped once. A process can vanish between any two
/// calls; that is not an error, so these answer nil or false.
///
/// /proc stays open: a process's folder is opened once (`ProcessFolder`) and read through that
/// descriptor, which keeps naming the same process even after its pid is reused.
public final class ProcFS {
    public let root: String
    private let rootFD: Int32
    private let loadavgFD: Int32
    private let statFD: Int32
    private var text = [UInt8](repeating: 0, count: 4096)
    private var name = [CChar](repeating: 0, count: 32)
    /// The highest pid plus one (`/proc/sys/kernel/pid_max`); nil when it cannot be read.
    public let pidMax: Int32?
    /// This /proc shows our own pid namespace, so `lastPid` speaks of the same pids as its folders.
    public let showsOwnPids: Bool

    public init(root: String = "/proc") {
        self.root = root
        rootFD = Glibc.open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        loadavgFD = openat(rootFD, "loadavg", O_RDONLY | O_CLOEXEC)
        statFD = openat(rootFD, "stat", O_RDONLY | O_CLOEXEC)
        var buf = [UInt8](repeating: 0, count: 32)
        let maxFD = openat(rootFD, "sys/kernel/pid_max", O_RDONLY | O_CLOEXEC)
        let n = maxFD >= 0 ? buf.withUnsafeMutableBytes { Glibc.read(maxFD, $0.baseAddress, 31) } : -1
        if maxFD >= 0 { Glibc.close(maxFD) }
        pidMax = n > 0 ? ProcFS.number(buf[0..<n]).map(Int32.init) : nil
        let selfLink = ProcFS.readlink(rootFD, "self")
        showsOwnPids = selfLink.map { ProcFS.number($0[...]) == Int64(getpid()) } ?? false
    }

    deinit {
        for fd in [rootFD, loadavgFD, statFD] where fd >= 0 { Glibc.close(fd) }
    }

    /// The numeric entries of /proc: every process (thread-group leader) on the machine.
    public func pids(into out: inout [Int32]) {
        out.removeAll(keepingCapacity: true)
        let fd = openat(rootFD, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0, let dir = fdopendir(fd) else { if fd >= 0 { Glibc.close(fd) }; return }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            var pid: Int32 = 0
            var numeric = true
            withUnsafeBytes(of: entry.pointee.d_name) { raw in
                var any = false
                for c in raw {
                    if c == 0 { break }
                    guard c >= 48, c <= 57 else { numeric = false; return }
                    pid = pid &* 10 &+ Int32(c - 48)
                    any = true
                }
                numeric = numeric && any
            }
            if numeric { out.append(pid) }
        }
    }

    /// The pid handed out last in this pid namespace (the last field of /proc/loadavg).
    public func lastPid() -> Int32? {
        let n = pread(loadavgFD, 0)
        guard n > 0, let space = text[0..<n].lastIndex(of: 32) else { return nil }
        return ProcFS.number(text[(space + 1)..<n]).map(Int32.init)
    }

    /// Processes and threads created since boot (the `processes` line of /proc/stat).
    public func createdSinceBoot() -> Int64? {
        var n = pread(statFD, 0)
        guard n > 0 else { return nil }
        // The line is near the end, after the per-CPU lines; a big machine needs more than a page.
        while n == text.count {
            text.append(contentsOf: repeatElement(0, count: text.count))
            n = pread(statFD, 0)
        }
        let key = Array("\nprocesses ".utf8)
        var i = 0
        while i + key.count < n {
            if text[i] == 10, text[i..<(i + key.count)].elementsEqual(key) {
                var end = i + key.count
                while end < n, text[end] != 10 { end += 1 }
                return ProcFS.number(text[(i + key.count)..<end])
            }
            i += 1
        }
        return nil
    }

    /// Opens /proc/PID; nil when there is no such process (or thread).
    public func open(_ pid: Int32) -> ProcessFolder? {
        let fd = withName(pid) { openat(rootFD, $0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        if fd >= 0 { return ProcessFolder(pid: pid, fd: fd) }
        // Out of descriptors: still watched, through its path (and its start time, see the sampler).
        if errno == EMFILE || errno == ENFILE, withName(pid, { faccessat(rootFD, $0, F_OK, 0) }) == 0 {
            return ProcessFolder(pid: pid, fd: -1)
        }
        return nil
    }

    /// The owner of the process: its effective uid (nil: gone). /proc shows a process that made
    /// itself non-dumpable as root's; its status says whose it is.
    public func owner(of folder: ProcessFolder) -> UInt32? {
        var st = stat()
        let r = folder.fd >= 0 ? fstat(folder.fd, &st) : withName(folder.pid) { fstatat(rootFD, $0, &st, 0) }
        guard r == 0 else { return nil }
        guard st.st_uid == 0 else { return st.st_uid }
        return effectiveUID(of: folder) ?? 0
    }

    /// The effective uid on the "Uid:" line of /proc/PID/status (real, effective, saved, fs).
    private func effectiveUID(of folder: ProcessFolder) -> UInt32? {
        var bytes: [UInt8] = []
        guard read(folder, "status", into: &bytes) else { return nil }
        let key = Array("\nUid:".utf8)
        guard let at = bytes.indices.first(where: { bytes[$0] == 10 && bytes[$0...].starts(with: key) }) else { return nil }
        let ids = bytes[(at + key.count)...].prefix { $0 != 10 }.split(whereSeparator: { $0 == 9 || $0 == 32 })
        guard ids.count >= 2, let euid = ProcFS.number(ids[1]) else { return nil }
        return UInt32(clamping: euid)
    }

    /// A small file of the process (stat, status, comm, cmdline, cgroup are a page or two).
    public func read(_ folder: ProcessFolder, _ file: String, into buffer: inout [UInt8]) -> Bool {
        buffer.removeAll(keepingCapacity: true)
        let fd = at(folder, file) { openat($0, $1, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { return false }
        defer { Glibc.close(fd) }
        return ProcFS.readAll(fd, into: &buffer)
    }

    /// A process's environment (`/proc/PID/environ`); empty when it cannot be read. `within`:
    /// only so many of its first bytes are read (what a child's process holds may be large).
    public static func environment(of pid: Int32, within: Int = 1 << 20) -> [String: String] {
        var out: [String: String] = [:]
        for entry in (contents(of: "/proc/\(pid)/environ", within: within) ?? []).split(separator: 0) {
            let text = String(decoding: entry, as: UTF8.self)
            guard let eq = text.firstIndex(of: "=") else { continue }
            out[String(text[..<eq])] = String(text[text.index(after: eq)...])
        }
        return out
    }

    /// The files a process holds open, as the kernel names them (`/proc/PID/fd`): each descriptor's
    /// number and the path it was opened by (" (deleted)" after it when it is gone). Reading
    /// `/proc/PID/fd/N` as root opens the very file the process has open, whatever its path now names.
    public static func openFiles(of pid: Int32) -> [(fd: Int32, path: String)] {
        guard let dir = Glibc.opendir("/proc/\(pid)/fd") else { return [] }
        defer { Glibc.closedir(dir) }
        var out: [(fd: Int32, path: String)] = []
        var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        while let entry = Glibc.readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let fd = Int32(name) else { continue }
            let n = Glibc.readlink("/proc/\(pid)/fd/\(name)", &target, target.count - 1)
            guard n > 0 else { continue }
            out.append((fd, String(decoding: target[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)))
        }
        return out
    }

    /// A small file by its path (/proc/PID/stat, a cgroup's cgroup.procs); nil when it cannot be read.
    public static func contents(of path: String, within: Int = 1 << 20) -> [UInt8]? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        var buffer: [UInt8] = []
        return readAll(fd, into: &buffer, within: within) ? buffer : nil
    }

    /// A regular file's bytes by a path that someone else may control (a file in a child's
    /// folder, read as root). Only a regular file is opened at all: the path is looked at first
    /// (without following a link), and opened without following one (`O_NOFOLLOW`), so a link or
    /// anything else in its place — a FIFO, a device whose opening does something (a watchdog, a
    /// tape), a socket — is never opened; nor is a file over 1 MiB read. Nil for anything else.
    public static func regularFileContents(of path: String) -> [UInt8]? {
        var before = stat()
        guard lstat(path, &before) == 0, before.st_mode & S_IFMT == S_IFREG, before.st_size <= 1 << 20 else { return nil }
        let fd = Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        // The same file as looked at (not one put in its place in between).
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_dev == before.st_dev, st.st_ino == before.st_ino else { return nil }
        var buffer: [UInt8] = []
        return readAll(fd, into: &buffer) ? buffer : nil
    }

    /// Reads to the end (at most 1 MiB) straight into `buffer`, which keeps its capacity from call to call.
    private static func readAll(_ fd: Int32, into buffer: inout [UInt8], within: Int = 1 << 20) -> Bool {
        buffer.removeAll(keepingCapacity: true)
        var used = 0
        while used < within {
            if buffer.count < used + 4096 { buffer.append(contentsOf: repeatElement(0, count: used + 4096 - buffer.count)) }
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + used, min(4096, within - used)) }
            if n < 0 { buffer.removeAll(keepingCapacity: true); return false }
            if n == 0 { break }
            used += n
        }
        buffer.removeSubrange(used...)
        return true
    }

    public enum Link {
        case read, gone, hidden
        /// Read through another thread of the process: its first thread has ended while others run.
        case readThroughThread
    }

    /// Where the process's exe link points, into `buffer`: `gone` when the process is (or is a
    /// zombie, or a kernel thread), `hidden` when it may not be looked at (a non-dumpable process).
    /// A process whose first thread ended while others run shows as a zombie, without exe link,
    /// memory or maps, though it runs on: a program can do that on purpose to look ended. Its exe
    /// link is then read through one of its other threads (`readThroughThread`).
    public func exe(of folder: ProcessFolder, into buffer: inout [UInt8]) -> Link {
        let size = Int(PATH_MAX) + 1
        if buffer.count != size {
            buffer.removeAll(keepingCapacity: true)
            buffer.append(contentsOf: repeatElement(0, count: size))
        }
        func readLink(_ file: String) -> Int {
            at(folder, file) { dir, file in
                buffer.withUnsafeMutableBytes { Glibc.readlinkat(dir, file, $0.baseAddress!.assumingMemoryBound(to: CChar.self), size - 1) }
            }
        }
        var n = readLink("exe")
        var link = Link.read
        if n <= 0, errno == ENOENT, let thread = otherThread(of: folder) {
            n = readLink(thread + "exe")
            link = .readThroughThread
        }
        guard n > 0 else { return errno == EACCES || errno == EPERM ? .hidden : .gone }
        buffer.removeLast(size - n)
        return link
    }

    /// Opens the program the process runs (/proc/PID/exe, followed as the kernel does: a renamed,
    /// deleted or memfd program too); -1 when it may not be read. The caller closes it.
    public func openProgram(of folder: ProcessFolder) -> Int32 {
        let fd = at(folder, "exe") { openat($0, $1, O_RDONLY | O_CLOEXEC) }
        guard fd < 0, errno == ENOENT, let thread = otherThread(of: folder) else { return fd }
        return at(folder, thread + "exe") { openat($0, $1, O_RDONLY | O_CLOEXEC) }
    }

    /// Another thread of the process than its first, as "task/TID/" (nil: there is none). Looked
    /// for only when the first thread's files are gone (see `exe(of:into:)`).
    private func otherThread(of folder: ProcessFolder) -> String? {
        let fd = at(folder, "task") { openat($0, $1, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { return nil }
        guard let dir = fdopendir(fd) else { Glibc.close(fd); return nil }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let tid = Int32(name), tid != folder.pid { return "task/\(name)/" }
        }
        return nil
    }

    /// The ids of the process's threads, its first among them (`/proc/PID/task`); empty when it is gone.
    public static func threads(of pid: Int32) -> [Int32] {
        guard let dir = opendir("/proc/\(pid)/task") else { return [] }
        defer { closedir(dir) }
        var out: [Int32] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let tid = Int32(name) { out.append(tid) }
        }
        return out
    }

    public func close(_ fd: Int32) { if fd >= 0 { Glibc.close(fd) } }

    /// The files mapped into the process (device, inode and path of each, from /proc/PID/maps), once each.
    public func mappedFiles(of folder: ProcessFolder) -> [(device: UInt64, inode: UInt64, path: String)] {
        var bytes: [UInt8] = []
        guard read(folder, "maps", into: &bytes) else { return [] }
        // Empty once the first thread has ended; another thread's are the process's.
        if bytes.isEmpty, let thread = otherThread(of: folder) { _ = read(folder, thread + "maps", into: &bytes) }
        var out: [(device: UInt64, inode: UInt64, path: String)] = []
        var seen = Set<[UInt64]>()
        for line in bytes.split(separator: 10) {
            // start-end perms offset major:minor inode   path
            let fields = line.split(separator: 32, maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6, let inode = UInt64(String(decoding: fields[4], as: UTF8.self)), inode != 0 else { continue }
            let numbers = fields[3].split(separator: 58).map { UInt64(String(decoding: $0, as: UTF8.self), radix: 16) }
            guard numbers.count == 2, let major = numbers[0], let minor = numbers[1] else { continue }
            // glibc's makedev, as st_dev carries it.
            let device = (major & 0xfffff000) << 32 | (major & 0xfff) << 8 | (minor & 0xffffff00) << 12 | (minor & 0xff)
            guard seen.insert([device, inode]).inserted else { continue }
            let path = String(decoding: fields[5].drop { $0 == 32 }, as: UTF8.self)
            out.append((device, inode, path))
        }
        return out
    }

    /// Opens the process's memory (/proc/PID/mem, or /proc/PID/maps where Yama's ptrace_scope
    /// forbids that), which stays bound to the program image it has now: once the process execs
    /// another program or exits, reading gives nothing.
    /// Once the process's first thread has ended, its own files show no memory: another thread's do.
    public func image(of folder: ProcessFolder) -> ProcessImage? {
        guard let image = image(of: folder, "") else { return nil }
        guard !stillRuns(image), let thread = otherThread(of: folder), let theirs = self.image(of: folder, thread) else { return image }
        release(image)
        return theirs
    }

    private func image(of folder: ProcessFolder, _ thread: String) -> ProcessImage? {
        var fd = at(folder, thread + "mem") { openat($0, $1, O_RDONLY | O_CLOEXEC) }
        if fd >= 0 { return ProcessImage(fd: fd, isMemory: true) }
        fd = at(folder, thread + "maps") { openat($0, $1, O_RDONLY | O_CLOEXEC) }
        return fd >= 0 ? ProcessImage(fd: fd, isMemory: false) : nil
    }

    /// The process still runs the image `image` was opened on. One byte is read: at address 0 of
    /// its memory, which is not mapped (EIO while the image lives, nothing once it is gone), or the
    /// first byte of its maps. Anything else counts as gone, which only makes the sampler look closer.
    public func stillRuns(_ image: ProcessImage) -> Bool {
        var byte: UInt8 = 0
        let n = Glibc.pread(image.fd, &byte, 1, 0)
        return n == 1 || (image.isMemory && n < 0 && errno == EIO)
    }

    public func release(_ image: ProcessImage) { Glibc.close(image.fd) }

    public func release(_ folder: ProcessFolder) {
        if folder.fd >= 0 { Glibc.close(folder.fd) }
    }

    /// Calls `body` with a directory descriptor and a name relative to it for FILE of the process.
    private func at<T>(_ folder: ProcessFolder, _ file: String, _ body: (Int32, UnsafePointer<CChar>) -> T) -> T {
        if folder.fd >= 0 { return body(folder.fd, file) }
        return body(rootFD, "\(folder.pid)/\(file)")
    }

    /// The pid as a C string, without allocating.
    private func withName<T>(_ pid: Int32, _ body: (UnsafePointer<CChar>) -> T) -> T {
        var digits = 0, v = pid
        repeat { digits += 1; v /= 10 } while v > 0
        v = pid
        name[digits] = 0
        for i in stride(from: digits - 1, through: 0, by: -1) { name[i] = CChar(48 + v % 10); v /= 10 }
        return name.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    private func pread(_ fd: Int32, _ offset: Int) -> Int {
        guard fd >= 0 else { return -1 }
        return text.withUnsafeMutableBytes { Glibc.pread(fd, $0.baseAddress, $0.count, offset) }
    }

    private static func readlink(_ dir: Int32, _ file: String) -> [UInt8]? {
        var buf = [UInt8](repeating: 0, count: 64)
        let n = buf.withUnsafeMutableBytes { Glibc.readlinkat(dir, file, $0.baseAddress!.assumingMemoryBound(to: CChar.self), 63) }
        return n > 0 ? Array(buf[0..<n]) : nil
    }

    /// The leading decimal number of some bytes (spaces and a newline around it are allowed).
    static func number(_ bytes: ArraySlice<UInt8>) -> Int64? {
        var v: Int64 = 0, any = false
        for c in bytes {
            if c >= 48, c <= 57 { v = v * 10 + Int64(c - 48); any = true } else if any { break } else if c != 32 { return nil }
        }
        return any ? v : nil
    }

    /// The sampler holds two descriptors per watched process: the soft limit on open files goes
    /// up to the hard one (often 1,024 → 524,288 under systemd). Answers the limit now in force.
    @discardableResult
    public static func raiseOpenFileLimit() -> UInt64 {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { return UInt64(raised.rlim_cur) }
        }
        return UInt64(limit.rlim_cur)
    }

    /// The path with every link and `..` resolved (realpath); nil when it does not lead to a file.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = Glibc.realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Owner, group and mode of what a path names, following links (stat).
    public static func targetMode(of path: String) -> (uid: UInt32, gid: UInt32, mode: UInt32)? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return (st.st_uid, st.st_gid, st.st_mode)
    }

    /// Owner, group and mode of a path (without following a last symlink: the exe link is resolved already).
    public static func mode(of path: String) -> (uid: UInt32, gid: UInt32, mode: UInt32)? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return (st.st_uid, st.st_gid, st.st_mode)
    }
}

/// An open /proc/PID: it names that one process for as long as it is open, even when the pid is
/// reused (`fd` -1: opened by path, for when descriptors ran out).
public struct ProcessFolder: Sendable {
    public let pid: Int32
    let fd: Int32
    public var byPath: Bool { fd < 0 }
}

/// An open /proc/PID/mem or maps: bound to one program image of one process.
public struct ProcessImage: Sendable {
    let fd: Int32
    let isMemory: Bool
}

/// A user's uid and groups, for deciding what they can write.
public struct UserAccount: Sendable, Equatable {
    public var uid: UInt32
    public var name: String
    public var groups: Set<UInt32>

    /// Looks up a uid in the system's user database (getpwuid_r, getgrouplist).
    public static func lookup(uid: UInt32) -> UserAccount? {
        var pwd = passwd()
        var result: UnsafeMutablePointer<passwd>? = nil
        var buf = [CChar](repeating: 0, count: 16_384)
        guard getpwuid_r(uid, &pwd, &buf, buf.count, &result) == 0, result != nil else { return nil }
        let name = String(cString: pwd.pw_name)
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(pwd.pw_name, pwd.pw_gid, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            _ = getgrouplist(pwd.pw_name, pwd.pw_gid, &groups, &count)
        }
        return UserAccount(uid: uid, name: name, groups: Set(groups.prefix(Int(max(0, count)))).union([pwd.pw_gid]))
    }

    /// A user's name (getpwuid_r), without the group lookups of `lookup`.
    public static func name(of uid: UInt32) -> String? {
        var pwd = passwd()
        var result: UnsafeMutablePointer<passwd>? = nil
        var buf = [CChar](repeating: 0, count: 16_384)
        guard getpwuid_r(uid, &pwd, &buf, buf.count, &result) == 0, result != nil else { return nil }
        return String(cString: pwd.pw_name)
    }

    /// A group's id by its name (getgrnam_r).
    public static func groupID(named name: String) -> UInt32? {
        var group = Glibc.group()
        var result: UnsafeMutablePointer<Glibc.group>? = nil
        var buf = [CChar](repeating: 0, count: 65_536)
        guard getgrnam_r(name, &group, &buf, buf.count, &result) == 0, result != nil else { return nil }
        return group.gr_gid
    }

    /// Looks up a user by name.
    public static func lookup(name: String) -> UserAccount? {
        var pwd = passwd()
        var result: UnsafeMutablePointer<passwd>? = nil
        var buf = [CChar](repeating: 0, count: 16_384)
        guard getpwnam_r(name, &pwd, &buf, buf.count, &result) == 0, result != nil else { return nil }
        return lookup(uid: pwd.pw_uid)
    }

    /// The user may write this file, or replace it through its folder (owner, group and mode; root may write anything).
    public func canReplace(_ path: String) -> Bool {
        if uid == 0 { return true }
        let folder = path.split(separator: "/").dropLast().joined(separator: "/")
        return canWrite("/" + folder) || canWrite(path)
    }

    func canWrite(_ path: String) -> Bool {
        // A link's own mode is always 0777 and says nothing: writing through it writes what it names.
        guard let m = ProcFS.targetMode(of: path) else { return false }
        if m.uid == uid { return m.mode & 0o200 != 0 }
        if groups.contains(m.gid) { return m.mode & 0o020 != 0 }
        return m.mode & 0o002 != 0
    }
}

/// The two clocks every event is stamped with: the wall clock, and CLOCK_BOOTTIME (monotonic,
/// and counting suspend, so a night asleep is not a clock jump). The wall clock is the one the
/// process is given (a jump of it is the engine's to judge); the boot clock is the kernel's.
public enum SystemClock {
    /// The wall clock events are stamped with. When this process is given a boot clock that is not
    /// the kernel's, an LD_PRELOAD interposes its clocks and glibc's wall clock is not believed
    /// either: the kernel's is read through the system call (a child's libfaketime once set the
    /// calendar a day ahead). A wall clock changed for the whole machine is the kernel's, and believed.
    public static func wallMicros() -> Int64 {
        if clocksInterposed { return KernelClock.wallMicros() }
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }

    /// The kernel's CLOCK_BOOTTIME (`KernelClock`): an LD_PRELOAD cannot move it.
    public static func monoMicros() -> Int64 { KernelClock.bootMicros() }

    /// Looked at once, when the wall clock is first read: an LD_PRELOAD is there from the start.
    static let clocksInterposed: Bool = ClockWitness.faked() != nil

    /// CLOCK_MONOTONIC, as systemd's MONOTONIC_USEC wants it (not the boot clock of events).
    public static func monotonicMicros() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }

    /// Clock ticks per second, for /proc/PID/stat times.
    public static let ticksPerSecond: Int64 = Int64(sysconf(Int32(_SC_CLK_TCK)))
}
