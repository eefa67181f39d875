/// The commonest lines of the event log read without building a JSON tree.
///
/// Nine lines in ten of a child's log are `input` (a hook's report of activity) or `process_cpu`
/// (the minute's CPU figure of a process), written by `EventLog.encode` always in the same shape:
///
///     {"at":"2026-11-23T14:00:10.5+01:00","mono":1000.5,"event":"input","count":3}
///     {"at":"…","mono":…,"event":"process_cpu","pid":1234,"cpu_ms":300}
///
/// `EventLog.decode` tries this first, and the general reader (`JSONLineReader`) reads anything
/// else: another event, another field order, spaces, escapes, a missing `mono`, a number written
/// differently, anything wrong. So this reader only ever accepts a line the general one reads to
/// the same event; `EventLogTests` checks both agree, line by line, over generated and damaged logs.
///
/// Written by hand for a measured reason: replaying an input-heavy week, building the tree of
/// every line was two thirds of the time (docs/benchmarks.md, issue #37).
enum EventLogFastLines {
    /// The event `line` holds when it is one of the shapes above; nil: read it the general way.
    static func decode(_ b: UnsafeBufferPointer<UInt8>) -> Event? {
        var r = Cursor(b: b)
        guard r.literal(#"{"at":""#) else { return nil }
        let atStart = r.i
        guard r.skipPlainString() else { return nil }
        guard let at = RFC3339.parse(bytes: UnsafeBufferPointer(rebasing: b[atStart..<r.i - 1])) else { return nil }
        guard r.literal(#","mono":"#), let mono = r.seconds(), r.literal(#","event":""#) else { return nil }
        if r.literal(#"input","count":"#) {
            guard let count = r.natural(), r.literal("}"), r.atEnd else { return nil }
            return Event(at: at, mono: mono, .input(count: count))
        }
        if r.literal(#"process_cpu","pid":"#) {
            guard let pid = r.natural(), pid > 0, pid <= Int64(Int32.max), r.literal(#","cpu_ms":"#),
                  let ms = r.natural(), r.literal("}"), r.atEnd else { return nil }
            return Event(at: at, mono: mono, .processCPU(pid: Int32(pid), cpuMillis: ms))
        }
        return nil
    }

    private struct Cursor {
        let b: UnsafeBufferPointer<UInt8>
        var i = 0

        var atEnd: Bool { i == b.count }

        /// Steps over `text` when the line goes on with exactly it.
        mutating func literal(_ text: StaticString) -> Bool {
            let n = text.utf8CodeUnitCount
            guard i + n <= b.count else { return false }
            let p = text.utf8Start
            for k in 0..<n where b[i + k] != p[k] { return false }
            i += n
            return true
        }

        /// Steps past the closing quote of a string with no escape and no control character.
        mutating func skipPlainString() -> Bool {
            while i < b.count {
                let c = b[i]
                i += 1
                if c == UInt8(ascii: "\"") { return true }
                if c == UInt8(ascii: "\\") || c < 0x20 { return false }
            }
            return false
        }

        /// Digits without a leading zero (a lone 0 is fine), at most 18 of them.
        mutating func natural() -> Int64? {
            let start = i
            var v: Int64 = 0
            while i < b.count, b[i] >= 48, b[i] <= 57, i - start < 18 {
                v = v * 10 + Int64(b[i] - 48)
                i += 1
            }
            guard i > start, !(i - start > 1 && b[start] == 48), i == b.count || !(b[i] >= 48 && b[i] <= 57) else { return nil }
            return v
        }

        /// Seconds as `JSONWriter.micros` writes them: digits, then up to six after a point.
        mutating func seconds() -> Microseconds? {
            guard let whole = natural(), whole < 9_000_000_000_000 else { return nil }
            var micros = whole * 1_000_000
            if i < b.count, b[i] == UInt8(ascii: ".") {
                i += 1
                var scale: Int64 = 100_000
                let start = i
                while i < b.count, b[i] >= 48, b[i] <= 57 {
                    guard i - start < 6 else { return nil }
                    micros += Int64(b[i] - 48) * scale
                    scale /= 10
                    i += 1
                }
                guard i > start else { return nil }
            }
            return micros
        }
    }
}
