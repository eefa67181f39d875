import Glibc

/// Standard error, written whole with write(2): what FileHandle.standardError did, without
/// Foundation (stctl imports only FoundationEssentials, docs/benchmarks.md).
public enum StandardError {
    public static func write(_ text: String) {
        let bytes = Array(text.utf8)
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(2, $0.baseAddress! + off, bytes.count - off) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return }
            off += n
        }
    }
}
