/// Time in screentime is counted in whole microseconds, so that sums of durations never lose a
/// fraction of a second to floating point ("six 5-minute sessions earn six 5-minute credits").
public typealias Microseconds = Int64

public enum Seconds {
    public static let micro: Microseconds = 1_000_000
    public static func of(_ seconds: Int64) -> Microseconds { seconds * micro }
    public static func of(minutes: Int64) -> Microseconds { minutes * 60 * micro }
}

/// A wall-clock reading as a machine showed it: microseconds since the Unix epoch, plus the UTC
/// offset it was written with (kept only to print it back the way it came).
public struct WallTime: Hashable, Sendable, Comparable {
    public var micros: Microseconds
    public var utcOffsetSeconds: Int32

    public init(micros: Microseconds, utcOffsetSeconds: Int32 = 0) {
        self.micros = micros
        self.utcOffsetSeconds = utcOffsetSeconds
    }

    public static func < (a: WallTime, b: WallTime) -> Bool { a.micros < b.micros }
}

/// RFC 3339 reading and writing, by hand: the replay reads millions of these.
public enum RFC3339 {
    /// Parses `2026-11-23T15:00:00.25+01:00` (also `Z`, `t`, a space for `T`). Nil if malformed.
    public static func parse(_ s: String) -> WallTime? {
        var s = s
        return s.withUTF8 { parse(bytes: $0) }
    }

    static func parse(bytes b: UnsafeBufferPointer<UInt8>) -> WallTime? {
        var i = 0
        func digits(_ n: Int) -> Int64? {
            guard i + n <= b.count else { return nil }
            var v: Int64 = 0
            for k in 0..<n {
                let c = b[i + k]
                guard c >= 48, c <= 57 else { return nil }
                v = v * 10 + Int64(c - 48)
            }
            i += n
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect(UInt8(ascii: "-")), let month = digits(2),
              expect(UInt8(ascii: "-")), let day = digits(2) else { return nil }
        guard i < b.count, b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: "t") || b[i] == UInt8(ascii: " ")
        else { return nil }
        i += 1
        guard let hour = digits(2), expect(UInt8(ascii: ":")), let minute = digits(2),
              expect(UInt8(ascii: ":")), var second = digits(2) else { return nil }
        var fraction: Int64 = 0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            var scale: Int64 = 100_000
            let start = i
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                fraction += Int64(b[i] - 48) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return nil }
        }
        guard i < b.count else { return nil }
        var offset: Int64 = 0
        switch b[i] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            i += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign: Int64 = b[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
            guard let oh = digits(2), expect(UInt8(ascii: ":")), let om = digits(2), oh < 24, om < 60 else { return nil }
            offset = sign * (oh * 3600 + om * 60)
        default:
            return nil
        }
        guard i == b.count else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour < 24, minute < 60, second <= 60 else { return nil }
        if second == 60 { second = 59; fraction = 999_999 }   // a leap second stays inside its minute
        let days = daysFromCivil(year: year, month: month, day: day)
        let local = ((days * 24 + hour) * 60 + minute) * 60 + second
        return WallTime(micros: (local - offset) * Seconds.micro + fraction, utcOffsetSeconds: Int32(offset))
    }

    /// Formats a wall time with the given UTC offset; fractions only when there are any.
    public static func format(micros: Microseconds, utcOffsetSeconds: Int32) -> String {
        let localMicros = micros + Int64(utcOffsetSeconds) * Seconds.micro
        let secs = floorDiv(localMicros, Seconds.micro)
        let frac = localMicros - secs * Seconds.micro
        let days = floorDiv(secs, 86_400)
        let sod = secs - days * 86_400
        let (y, m, d) = civilFromDays(days)
        var out = "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(sod / 3600, 2)):\(pad(sod / 60 % 60, 2)):\(pad(sod % 60, 2))"
        if frac != 0 {
            var f = pad(frac, 6)
            while f.hasSuffix("0") { f.removeLast() }
            out += "." + f
        }
        if utcOffsetSeconds == 0 { return out + "Z" }
        let o = abs(Int64(utcOffsetSeconds))
        return out + (utcOffsetSeconds < 0 ? "-" : "+") + pad(o / 3600, 2) + ":" + pad(o / 60 % 60, 2)
    }

    static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    static func isLeap(_ y: Int64) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}

/// Parses durations: `"90s"`, `"10m"`, `"2h"`, `"7d"`, `"250ms"`, and sums like `"1h30m"`.
public enum DurationText {
    public static func parse(_ text: String) -> Microseconds? {
        var total: Microseconds = 0
        var number: Int64? = nil
        var sawUnit = false
        let chars = Array(text)
        var i = 0
        while i < chars.count {
            let ch = chars[i]
            if let d = ch.wholeNumberValue, ch.isASCII {
                let (v, o) = (number ?? 0).multipliedReportingOverflow(by: 10)
                guard !o, v <= 1_000_000_000 else { return nil }
                number = v + Int64(d)
                i += 1
                continue
            }
            guard let n = number else { return nil }
            let micros: Int64
            switch ch {
            case "m" where i + 1 < chars.count && chars[i + 1] == "s":
                micros = 1000
                i += 1
            case "s": micros = Seconds.micro
            case "m": micros = 60 * Seconds.micro
            case "h": micros = 3600 * Seconds.micro
            case "d": micros = 86_400 * Seconds.micro
            default: return nil
            }
            total += n * micros
            number = nil
            sawUnit = true
            i += 1
        }
        guard number == nil, sawUnit else { return nil }
        return total
    }

    /// `1 h 05 min`, `12 min`, `40 s`: how people read durations.
    public static func words(_ micros: Microseconds) -> String {
        let s = micros / Seconds.micro
        if s < 60 { return "\(s) s" }
        let m = s / 60
        if m < 60 { return "\(m) min" }
        return "\(m / 60) h \(RFC3339.pad(m % 60, 2)) min"
    }

    /// `words`, in whole days from two days on: "20779 days".
    public static func long(_ micros: Microseconds) -> String {
        micros >= 2 * 86_400 * Seconds.micro ? "\(micros / 86_400 / Seconds.micro) days" : words(micros)
    }

    /// "3 days ahead", "20 min behind": how far one clock stands from another.
    public static func signedWords(_ micros: Microseconds) -> String {
        long(abs(micros)) + (micros < 0 ? " behind" : " ahead")
    }
}
