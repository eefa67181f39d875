/// A time zone as the system's zoneinfo describes it (the TZif format of RFC 8536): the offset from
/// UTC in force from each transition on, and after the last transition the rule of the file's
/// POSIX TZ string (daylight saving time every year). The policy loader reads the file
/// (`ZoneInfo` in ScreenTimePolicy); the engine only asks a zone for offsets.
///
/// Our own rather than Foundation's `TimeZone`, whose named zones are ICU's: ICU would come into
/// every program that reads a policy, `stctl` among them, with its code and 30 MiB of data, for
/// what the system's zoneinfo already says (docs/benchmarks.md, issue #19).
public struct Zone: Sendable, Equatable, CustomStringConvertible {
    /// The zone's name in the zoneinfo database: "Europe/Berlin", "UTC".
    public let identifier: String
    /// UTC seconds at which `offsets[i]` begins, ascending.
    let transitions: [Int64]
    /// Seconds east of UTC.
    let offsets: [Int32]
    /// The offset before the first transition (the file's first local time type).
    let initial: Int32
    /// The offsets after the last transition; nil: the last one holds on.
    let rule: Rule?

    public static let utc = Zone(identifier: "UTC", transitions: [], offsets: [], initial: 0, rule: nil)

    public var description: String { identifier }

    /// The same zone under another name ("GMT" for UTC).
    public func renamed(_ name: String) -> Zone {
        Zone(identifier: name, transitions: transitions, offsets: offsets, initial: initial, rule: rule)
    }

    init(identifier: String, transitions: [Int64], offsets: [Int32], initial: Int32, rule: Rule?) {
        self.identifier = identifier
        self.transitions = transitions
        self.offsets = offsets
        self.initial = initial
        self.rule = rule
    }

    /// The zone a TZif file describes; `ZoneError` says what is wrong with one that cannot be read.
    public init(identifier: String, tzif bytes: [UInt8]) throws(ZoneError) {
        var file = TZifReader(bytes: bytes)
        let parsed = try file.read()
        self.init(identifier: identifier, transitions: parsed.transitions, offsets: parsed.offsets, initial: parsed.initial, rule: parsed.rule)
    }

    /// Seconds east of UTC at a moment (seconds since the epoch).
    public func offset(at utc: Int64) -> Int32 {
        guard let first = transitions.first, utc >= first else {
            // Before any transition: the first type; a file of only a TZ string: its rule.
            return transitions.isEmpty ? (rule?.offset(at: utc) ?? initial) : initial
        }
        if utc >= transitions[transitions.count - 1], let rule { return rule.offset(at: utc) }
        // The last transition at or before `utc`.
        var low = 0, high = transitions.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if transitions[mid] <= utc { low = mid } else { high = mid - 1 }
        }
        return offsets[low]
    }

    /// The moments (UTC seconds) at which the local clock reads `local` (seconds since the epoch
    /// as if the local clock were UTC): none in a gap the clock skips forward, two where it is set
    /// back and reads the same time twice; earliest first.
    public func moments(atLocal local: Int64) -> [Int64] {
        // Every offset in force within 30 hours of it (a change of clock moves it by less than a
        // day), looked at every 6 hours: two changes of clock are never that close.
        var candidates: [Int32] = []
        for probe in stride(from: local - 108_000, through: local + 108_000, by: 21_600) {
            let o = offset(at: probe)
            if !candidates.contains(o) { candidates.append(o) }
        }
        var out: [Int64] = []
        for o in candidates {
            let t = local - Int64(o)
            if offset(at: t) == o, !out.contains(t) { out.append(t) }
        }
        return out.sorted()
    }

    /// A TZ string's rule (POSIX, with RFC 8536's extensions): a standard offset, and perhaps a
    /// daylight saving one between a start and an end each year.
    struct Rule: Sendable, Equatable {
        var standard: Int32
        var daylight: Int32?
        var start = Change(day: .monthWeekDay(month: 3, week: 2, weekday: 0), time: 7_200)
        var end = Change(day: .monthWeekDay(month: 11, week: 1, weekday: 0), time: 7_200)

        struct Change: Sendable, Equatable {
            enum Day: Sendable, Equatable {
                /// Jn: day 1–365 of the year, February 29 never counted.
                case julian(Int64)
                /// n: day 0–365 of the year, February 29 counted.
                case zeroBased(Int64)
                /// Mm.w.d: weekday d (0 Sunday) of week w (5: the last) of month m.
                case monthWeekDay(month: Int64, week: Int64, weekday: Int64)
            }
            var day: Day
            /// Local time of day, seconds (−167 to 167 hours).
            var time: Int64

            /// The moment of this change in a year, the local clock showing `offset` before it.
            func moment(year: Int64, offset: Int32) -> Int64 {
                let january1 = RFC3339.daysFromCivil(year: year, month: 1, day: 1)
                let key: Int64
                switch day {
                case .julian(let n):
                    key = january1 + n - 1 + (Zone.isLeap(year) && n >= 60 ? 1 : 0)
                case .zeroBased(let n):
                    key = january1 + n
                case .monthWeekDay(let month, let week, let weekday):
                    let first = RFC3339.daysFromCivil(year: year, month: month, day: 1)
                    let nextMonth = month == 12 ? RFC3339.daysFromCivil(year: year + 1, month: 1, day: 1)
                                                : RFC3339.daysFromCivil(year: year, month: month + 1, day: 1)
                    // 1970-01-01 was a Thursday (4, counting from Sunday).
                    let firstWeekday = ((first + 4) % 7 + 7) % 7
                    var k = first + (weekday - firstWeekday + 7) % 7 + 7 * (week - 1)
                    while k >= nextMonth { k -= 7 }
                    key = k
                }
                return key * 86_400 + time - Int64(offset)
            }
        }

        func offset(at utc: Int64) -> Int32 {
            guard let daylight else { return standard }
            // The changes of the year `utc` falls in (a year of UTC, as the rule's changes are
            // never near its turn by more than a day).
            let year = RFC3339.civilFromDays(RFC3339.floorDiv(utc, 86_400)).0
            let on = start.moment(year: year, offset: standard)
            let off = end.moment(year: year, offset: daylight)
            if on < off { return utc >= on && utc < off ? daylight : standard }
            return utc >= off && utc < on ? standard : daylight    // southern: daylight over the new year
        }
    }

    static func isLeap(_ y: Int64) -> Bool { y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) }
}

/// Why a zoneinfo file could not be read.
public struct ZoneError: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String
}

/// Reads a TZif file (RFC 8536): version 1's 32-bit data, or version 2 and later's 64-bit data and
/// TZ string. Leap second records (the "right/" zones) are skipped: their offsets are the same.
struct TZifReader {
    let bytes: [UInt8]
    var at = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    struct Counts { var isut = 0, isstd = 0, leap = 0, time = 0, type = 0, char = 0 }

    mutating func read() throws(ZoneError) -> (transitions: [Int64], offsets: [Int32], initial: Int32, rule: Zone.Rule?) {
        let first = try header()
        guard bytes[4] >= UInt8(ascii: "2") else { return try block(first, timeSize: 4, footer: false) }
        try skip(first.time * 5 + first.type * 6 + first.char + first.leap * 8 + first.isstd + first.isut)
        let second = try header()
        return try block(second, timeSize: 8, footer: true)
    }

    private mutating func header() throws(ZoneError) -> Counts {
        guard bytes.count >= at + 44, bytes[at] == 0x54, bytes[at + 1] == 0x5A, bytes[at + 2] == 0x69, bytes[at + 3] == 0x66 else {
            throw ZoneError(description: "not a zoneinfo (TZif) file")
        }
        at += 20
        var c = Counts()
        c.isut = Int(try uint32()); c.isstd = Int(try uint32()); c.leap = Int(try uint32())
        c.time = Int(try uint32()); c.type = Int(try uint32()); c.char = Int(try uint32())
        guard c.type >= 1, c.type <= 256, c.time <= 1 << 20, c.char <= 1 << 16, c.leap <= 1 << 16,
              c.isut == 0 || c.isut == c.type, c.isstd == 0 || c.isstd == c.type else {
            throw ZoneError(description: "a zoneinfo file with impossible counts")
        }
        return c
    }

    private mutating func block(_ c: Counts, timeSize: Int, footer: Bool) throws(ZoneError) -> (transitions: [Int64], offsets: [Int32], initial: Int32, rule: Zone.Rule?) {
        var times: [Int64] = []
        times.reserveCapacity(c.time)
        for _ in 0..<c.time { times.append(timeSize == 8 ? Int64(bitPattern: try uint64()) : Int64(Int32(bitPattern: try uint32()))) }
        var typeIndex: [Int] = []
        for _ in 0..<c.time { typeIndex.append(Int(try byte())) }
        var utoff: [Int32] = []
        for _ in 0..<c.type {
            let o = Int32(bitPattern: try uint32())
            _ = try byte(); _ = try byte()      // isdst, abbreviation index
            guard o > -89_999, o < 93_600 else { throw ZoneError(description: "a zoneinfo file with an impossible offset (\(o) s)") }
            utoff.append(o)
        }
        try skip(c.char + c.leap * (timeSize + 4) + c.isstd + c.isut)
        guard typeIndex.allSatisfy({ $0 < c.type }) else { throw ZoneError(description: "a zoneinfo file names a local time type it has not") }
        for i in times.indices.dropFirst() where times[i] <= times[i - 1] {
            throw ZoneError(description: "a zoneinfo file's transitions are out of order")
        }
        var rule: Zone.Rule? = nil
        if footer {
            guard at < bytes.count, bytes[at] == 10, let end = bytes[(at + 1)...].firstIndex(of: 10) else {
                throw ZoneError(description: "a zoneinfo file without its closing TZ string")
            }
            let text = String(decoding: bytes[(at + 1)..<end], as: UTF8.self)
            if !text.isEmpty {
                guard let r = PosixTZ.parse(text) else { throw ZoneError(description: "a zoneinfo file's TZ string cannot be read: \"\(text)\"") }
                rule = r
            }
        }
        return (times, typeIndex.map { utoff[$0] }, utoff[0], rule)
    }

    private mutating func skip(_ n: Int) throws(ZoneError) {
        guard n >= 0, bytes.count - at >= n else { throw ZoneError(description: "a zoneinfo file cut short") }
        at += n
    }

    private mutating func byte() throws(ZoneError) -> UInt8 {
        guard at < bytes.count else { throw ZoneError(description: "a zoneinfo file cut short") }
        at += 1
        return bytes[at - 1]
    }

    private mutating func uint32() throws(ZoneError) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 { v = v << 8 | UInt32(try byte()) }
        return v
    }

    private mutating func uint64() throws(ZoneError) -> UInt64 {
        UInt64(try uint32()) << 32 | UInt64(try uint32())
    }
}

/// A POSIX TZ string, as a TZif file ends with ("CET-1CEST,M3.5.0,M10.5.0/3", "<+0330>-3:30").
enum PosixTZ {
    static func parse(_ text: String) -> Zone.Rule? {
        var s = Substring(text).utf8[...]
        guard name(&s), let std = offset(&s, hoursUpTo: 24) else { return nil }
        var rule = Zone.Rule(standard: Int32(-std))      // POSIX counts west of UTC
        if s.isEmpty { return rule }
        guard name(&s) else { return nil }
        var dst = -std + 3_600
        if let c = s.first, c != UInt8(ascii: ",") {
            guard let o = offset(&s, hoursUpTo: 24) else { return nil }
            dst = -o
        }
        rule.daylight = Int32(dst)
        if s.isEmpty { return rule }     // no rule given: POSIX's default (the USA's), kept above
        guard s.popFirst() == UInt8(ascii: ","), let start = change(&s), s.popFirst() == UInt8(ascii: ","), let end = change(&s), s.isEmpty else { return nil }
        rule.start = start
        rule.end = end
        return rule
    }

    /// "CET", or quoted: "<+0330>".
    private static func name(_ s: inout Substring.UTF8View.SubSequence) -> Bool {
        if s.first == UInt8(ascii: "<") {
            guard let close = s.firstIndex(of: UInt8(ascii: ">")), s.distance(from: s.startIndex, to: close) >= 4 else { return false }
            s = s[s.index(after: close)...]
            return true
        }
        var n = 0
        while let c = s.first, (c >= 65 && c <= 90) || (c >= 97 && c <= 122) { s.removeFirst(); n += 1 }
        return n >= 3
    }

    /// [+-]hh[:mm[:ss]], in seconds.
    private static func offset(_ s: inout Substring.UTF8View.SubSequence, hoursUpTo limit: Int64) -> Int64? {
        var sign: Int64 = 1
        if s.first == UInt8(ascii: "+") { s.removeFirst() } else if s.first == UInt8(ascii: "-") { s.removeFirst(); sign = -1 }
        guard let h = number(&s), h <= limit else { return nil }
        var total = h * 3_600
        for unit: Int64 in [60, 1] {
            guard s.first == UInt8(ascii: ":") else { break }
            s.removeFirst()
            guard let v = number(&s), v < 60 else { return nil }
            total += v * unit
        }
        return sign * total
    }

    private static func number(_ s: inout Substring.UTF8View.SubSequence) -> Int64? {
        var v: Int64 = 0, n = 0
        while let c = s.first, c >= 48, c <= 57, n < 4 { v = v * 10 + Int64(c - 48); s.removeFirst(); n += 1 }
        return n > 0 ? v : nil
    }

    /// Jn, n or Mm.w.d, then perhaps /time (RFC 8536: −167 to 167 hours).
    private static func change(_ s: inout Substring.UTF8View.SubSequence) -> Zone.Rule.Change? {
        let day: Zone.Rule.Change.Day
        if s.first == UInt8(ascii: "J") {
            s.removeFirst()
            guard let n = number(&s), (1...365).contains(n) else { return nil }
            day = .julian(n)
        } else if s.first == UInt8(ascii: "M") {
            s.removeFirst()
            guard let m = number(&s), (1...12).contains(m), s.popFirst() == UInt8(ascii: "."),
                  let w = number(&s), (1...5).contains(w), s.popFirst() == UInt8(ascii: "."),
                  let d = number(&s), (0...6).contains(d) else { return nil }
            day = .monthWeekDay(month: m, week: w, weekday: d)
        } else {
            guard let n = number(&s), (0...365).contains(n) else { return nil }
            day = .zeroBased(n)
        }
        var time: Int64 = 7_200
        if s.first == UInt8(ascii: "/") {
            s.removeFirst()
            guard let t = offset(&s, hoursUpTo: 167) else { return nil }
            time = t
        }
        return Zone.Rule.Change(day: day, time: time)
    }
}
