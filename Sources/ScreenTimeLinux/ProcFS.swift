#if canImport(Glibc)
import Glibc
#endif

/// The few system calls the sampler needs, each wrapped once. A process can vanish between any two
/// calls; that is not an error, so these answer nil.
public struct ProcFS: Sendable {
    public let root: String

    public init(root: String = "/proc") { self.root = root }

    /// The numeric entries of /proc: every pid on the machine.
    public func pids(into out: inout [Int32]) {
        out.removeAll(keepingCapacity: true)
        guard let dir = opendir(root) else { return }
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

    /// The owner of /proc/PID: the process's effective uid.
    public func owner(of pid: Int32) -> UInt32? {
        var st = stat()
        guard stat("\(root)/\(pid)", &st) == 0 else { return nil }
        return st.st_uid
    }

    /// A small file's bytes (stat, comm, cmdline, cgroup are under a page or two).
    public func read(_ pid: Int32, _ name: String, into buffer: inout [UInt8]) -> Bool {
        buffer.removeAll(keepingCapacity: true)
        let fd = open("\(root)/\(pid)/\(name)", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        // Read straight into the caller's buffer, which keeps its capacity from sample to sample.
        var used = 0
        while used < 1 << 20 {
            if buffer.count < used + 4096 { buffer.append(contentsOf: repeatElement(0, count: used + 4096 - buffer.count)) }
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + used, 4096) }
            if n < 0 { buffer.removeAll(keepingCapacity: true); return false }
            if n == 0 { break }
            used += n
        }
        buffer.removeSubrange(used...)
        return true
    }

    /// Where /proc/PID/exe points; nil when the process is gone or not ours to see.
    public func exe(of pid: Int32) -> String? {
        var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("\(root)/\(pid)/exe", &buf, Int(PATH_MAX))
        guard n > 0 else { return nil }
        return String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Owner, group and mode of a path (without following a last symlink: the exe link is resolved already).
    public static func mode(of path: String) -> (uid: UInt32, gid: UInt32, mode: UInt32)? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return (st.st_uid, st.st_gid, st.st_mode)
    }
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
        guard let m = ProcFS.mode(of: path) else { return false }
        if m.uid == uid { return m.mode & 0o200 != 0 }
        if groups.contains(m.gid) { return m.mode & 0o020 != 0 }
        return m.mode & 0o002 != 0
    }
}

/// The two clocks every event is stamped with: the wall clock, and CLOCK_BOOTTIME (monotonic,
/// and counting suspend, so a night asleep is not a clock jump).
public enum SystemClock {
    public static func wallMicros() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }

    public static func monoMicros() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_BOOTTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }

    /// Clock ticks per second, for /proc/PID/stat times.
    public static let ticksPerSecond: Int64 = Int64(sysconf(Int32(_SC_CLK_TCK)))
}
