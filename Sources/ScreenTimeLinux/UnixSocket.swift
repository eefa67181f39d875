#if canImport(Glibc)
import Glibc
#endif

/// Unix stream sockets, wrapped once: the control socket's listener, its connections, the
/// peer's credentials (SO_PEERCRED), and a `poll` over them. Nobody else sees `errno`.
public struct SocketError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ what: String, _ path: String) {
        description = "\(path): \(what): \(String(cString: strerror(errno)))"
    }
    init(description: String) { self.description = description }
}

/// Who is at the other end, as the kernel says.
public struct PeerCredentials: Sendable, Equatable {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
    public init(pid: Int32, uid: UInt32, gid: UInt32) { self.pid = pid; self.uid = uid; self.gid = gid }
}

public final class UnixConnection: @unchecked Sendable {
    // Owned by one thread at a time: the daemon's loop, or stctl.
    public let fd: Int32

    init(fd: Int32) { self.fd = fd }
    deinit { close(fd) }

    /// This process's standard input, when it is a socket its starter gave it (a relay's: it
    /// answers on it too).
    public static func standardInput() -> UnixConnection { UnixConnection(fd: 0) }

    /// Two connected ends (socketpair, close-on-exec): one for this process, one to give a program
    /// it starts as its standard input. A socket, not a pipe: writing to it when the other end
    /// is gone is an error, not SIGPIPE.
    public static func pair() throws(SocketError) -> (mine: UnixConnection, theirs: UnixConnection) {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw SocketError(description: "cannot make a socket pair: \(String(cString: strerror(errno)))")
        }
        return (UnixConnection(fd: fds[0]), UnixConnection(fd: fds[1]))
    }

    /// Connects to a listening socket (stctl's side).
    public static func connect(path: String) throws(SocketError) -> UnixConnection {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError("cannot make a socket", path) }
        var addr = try UnixConnection.address(path)
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard ok == 0 else {
            let e: SocketError
            switch errno {
            case ENOENT: e = SocketError(description: "\(path): screentimed is not running (there is no socket here); start it, or pass the --socket it listens on")
            case ECONNREFUSED: e = SocketError(description: "\(path): screentimed is not running (this socket file was left by one that stopped); start it again")
            case EACCES, EPERM: e = SocketError(description: "\(path): you may not connect to this socket (permission denied)")
            default: e = SocketError("cannot connect (is screentimed running?)", path)
            }
            close(fd)
            throw e
        }
        return UnixConnection(fd: fd)
    }

    static func address(_ path: String) throws(SocketError) -> sockaddr_un {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else {
            errno = ENAMETOOLONG
            throw SocketError("socket path too long", path)
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        return addr
    }

    public func peer() -> PeerCredentials? {
        // struct ucred is pid_t, uid_t, gid_t: the same layout as PeerCredentials (Glibc's
        // module map hides ucred behind _GNU_SOURCE).
        var cred = PeerCredentials(pid: 0, uid: 0, gid: 0)
        var len = socklen_t(MemoryLayout<PeerCredentials>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0, len == 12 else { return nil }
        return cred
    }

    /// Reads what is there (at most `max` bytes); nil at the end or on an error.
    public func read(max: Int = 65_536) -> [UInt8]? {
        var buf = [UInt8](repeating: 0, count: max)
        let n = buf.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, max) }
        guard n > 0 else { return nil }
        return Array(buf[0..<n])
    }

    /// Writes everything; false when the peer is gone.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + off, bytes.count - off, Int32(MSG_NOSIGNAL)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            off += n
        }
        return true
    }

    /// The daemon's side: reads and writes never wait.
    public func setNonBlocking() { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }

    /// Sends what the socket takes now: the count sent (0 when it would wait); nil when the peer is gone.
    public func trySend(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard !bytes.isEmpty else { return 0 }
        let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        if n >= 0 { return n }
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : nil
    }

    /// A receive timeout, so that a silent peer cannot hold stctl forever.
    public func setTimeout(seconds: Int) {
        var tv = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }
}

public final class UnixListener: @unchecked Sendable {
    public let fd: Int32
    public let path: String

    /// Binds a stream socket at `path` (replacing a stale one) with permission `mode`.
    public init(path: String, mode: mode_t) throws(SocketError) {
        // A socket file someone still listens on is another daemon's, not a stale one. (Checked
        // before anything is stored: a throw after that would run deinit, which unlinks `path`.)
        if (try? UnixConnection.connect(path: path)) != nil {
            throw SocketError(description: "\(path): another program (a second screentimed?) is already listening here; stop it, or pass another --socket")
        }
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw SocketError("cannot make a socket", path) }
        unlink(path)
        var addr = try UnixConnection.address(path)
        let old = umask(0o777 & ~mode)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(old)
        guard bound == 0 else { let e = SocketError("cannot listen here", path); close(fd); throw e }
        guard listen(fd, 64) == 0 else { let e = SocketError("cannot listen", path); close(fd); throw e }
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// A waiting connection, or nil when there is none.
    public func accept() -> UnixConnection? {
        let c = Glibc.accept(fd, nil, nil)
        guard c >= 0 else { return nil }
        _ = fcntl(c, F_SETFD, FD_CLOEXEC)
        return UnixConnection(fd: c)
    }
}

/// Waits until one of the descriptors can be read (or written), or the time is up.
public enum Poll {
    public struct Ready: Sendable {
        /// Readable, closed or failed: reading will not wait.
        public var readable: Set<Int32> = []
        public var writable: Set<Int32> = []
    }

    /// Empty on timeout or a signal.
    public static func wait(read: [Int32], write: [Int32] = [], timeoutMillis: Int32) -> Ready {
        var p = read.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            + write.map { pollfd(fd: $0, events: Int16(POLLOUT), revents: 0) }
        var ready = Ready()
        guard poll(&p, nfds_t(p.count), timeoutMillis) > 0 else { return ready }
        for (k, q) in p.enumerated() where q.revents != 0 {
            if k < read.count { ready.readable.insert(q.fd) } else { ready.writable.insert(q.fd) }
        }
        return ready
    }
}

/// A descriptor that a signal handler pokes to wake `Poll` (a pipe to itself).
public final class Wakeup: @unchecked Sendable {
    private let ends: (read: Int32, write: Int32)
    public var fd: Int32 { ends.read }
    /// The end `poke` writes (a signal handler may write it too).
    public var writeDescriptor: Int32 { ends.write }

    public init() {
        var p: [Int32] = [-1, -1]
        _ = pipe(&p)
        for end in p {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        ends = (p[0], p[1])
    }
    deinit { close(ends.read); close(ends.write) }
    public func poke() { var one: UInt8 = 1; _ = Glibc.write(ends.write, &one, 1) }
    public func drain() { var buf = [UInt8](repeating: 0, count: 64); _ = Glibc.read(ends.read, &buf, 64) }
}
