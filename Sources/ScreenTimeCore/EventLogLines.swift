/// Splits an event log into its lines without copying; blank lines are skipped.
public enum EventLogLines {
    /// Calls `body` with each non-blank line and its 1-based number; stops when it returns false.
    public static func forEach(in bytes: UnsafeBufferPointer<UInt8>,
                               _ body: (Int, UnsafeBufferPointer<UInt8>) -> Bool) {
        var start = 0
        var number = 0
        while start < bytes.count {
            number += 1
            var end = start
            while end < bytes.count, bytes[end] != 10 { end += 1 }
            var last = end
            if last > start, bytes[last - 1] == 13 { last -= 1 }
            var blank = true
            for k in start..<last where bytes[k] != 32 && bytes[k] != 9 { blank = false; break }
            if !blank, !body(number, UnsafeBufferPointer(rebasing: bytes[start..<last])) { return }
            start = end + 1
        }
    }
}
