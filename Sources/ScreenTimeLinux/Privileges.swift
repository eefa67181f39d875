import CShims
import Glibc

/// Changing who the process is; the one place that calls setgroups, setresgid and setresuid.
public enum Privileges {
    public struct Failure: Error, CustomStringConvertible { public var description: String }

    /// From now on the process opens files and connects to sockets as `uid` (and only `gid`), but
    /// root stays its real and saved user: the user it acts for can neither signal nor trace it
    /// (the kernel also marks it not dumpable when its effective user changes). For system mode's
    /// notification relay, which talks to a user's session bus as that user.
    public static func actAs(uid: UInt32, gid: UInt32) throws(Failure) {
        var groups = [gid]
        guard setgroups(1, &groups) == 0 else { throw Failure(description: "setgroups: \(String(cString: strerror(errno)))") }
        guard screentime_setresgid(0, gid, 0) == 0 else { throw Failure(description: "setresgid(0, \(gid), 0): \(String(cString: strerror(errno)))") }
        guard screentime_setresuid(0, uid, 0) == 0 else { throw Failure(description: "setresuid(0, \(uid), 0): \(String(cString: strerror(errno)))") }
    }

    /// The user's primary group (getpwuid_r); nil when the uid is not in the user database.
    public static func primaryGroup(of uid: UInt32) -> UInt32? {
        var pwd = passwd()
        var result: UnsafeMutablePointer<passwd>? = nil
        var buf = [CChar](repeating: 0, count: 16_384)
        guard getpwuid_r(uid, &pwd, &buf, buf.count, &result) == 0, result != nil else { return nil }
        return pwd.pw_gid
    }

    /// A user's session bus socket, `/run/user/UID/bus`, when it is a socket the user owns.
    /// (A path the user controls: the relay connects to it as the user, never as root.)
    public static func sessionBus(of uid: UInt32) -> String? {
        let path = "/run/user/\(uid)/bus"
        var st = stat()
        guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFSOCK, st.st_uid == uid else { return nil }
        return path
    }
}
