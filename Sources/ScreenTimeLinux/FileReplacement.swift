import Glibc

/// A file's whole text replaced at once: written beside it, flushed to the disk, given the old
/// file's owner and mode, and renamed over it, so that a reader (the daemon's next reload, a
/// parent's editor) sees the old text or the new, never half of one, even after a power cut.
public enum FileReplacement {
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Replaces `path`'s text with `text`; the file must exist (its owner and mode are kept). A
    /// link is followed: the file it names is replaced, and the link stays.
    public static func replace(_ given: String, with text: String) throws(Failure) {
        guard let real = realpath(given, nil) else { throw failure(given, "cannot be found") }
        let path = String(cString: real)
        free(real)
        var old = stat()
        guard stat(path, &old) == 0 else { throw failure(path, "cannot be looked at") }
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[..<$0]) } ?? "."
        let temporary = "\(folder)/.\(slash.map { String(path[path.index(after: $0)...]) } ?? path).\(getpid()).new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw failure(temporary, "cannot be made") }
        var done = false
        defer { if !done { close(fd); unlink(temporary) } }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw failure(temporary, "cannot be written") }
            written += n
        }
        guard fchown(fd, old.st_uid, old.st_gid) == 0 else { throw failure(temporary, "cannot be given the old file's owner") }
        guard fchmod(fd, old.st_mode & 0o7777) == 0 else { throw failure(temporary, "cannot be given the old file's mode") }
        guard fsync(fd) == 0 else { throw failure(temporary, "cannot be flushed to the disk") }
        guard close(fd) == 0 else { done = true; unlink(temporary); throw failure(temporary, "cannot be closed") }
        done = true
        guard rename(temporary, path) == 0 else {
            let f = failure(path, "cannot be replaced")
            unlink(temporary)
            throw f
        }
        // The rename itself on the disk: the folder flushed too.
        let dir = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 { _ = fsync(dir); close(dir) }
    }

    private static func failure(_ path: String, _ what: String) -> Failure {
        Failure(description: "\(path) \(what): \(String(cString: strerror(errno)))")
    }
}
