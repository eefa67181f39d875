import Glibc

/// An exclusive `flock` on a file, held until this value goes away: one daemon per state folder.
public final class FileLock: @unchecked Sendable {
    public let path: String
    private let fd: Int32

    public struct Held: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Takes the lock at once, or says who cannot have it.
    public init(path: String) throws(Held) {
        self.path = path
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw Held(description: "\(path): cannot open the lock file: \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            let why = String(cString: strerror(errno))
            close(fd)
            throw Held(description: busy
                ? "\(path): another screentimed already keeps this state; stop it first (two would count everything twice)"
                : "\(path): cannot lock: \(why)")
        }
    }

    deinit { close(fd) }
}
