/// A small, strict JSON reader for one line of the event log. The log is read at millions of lines a
/// second, and its errors must say exactly what is wrong, so it is done by hand.
public enum JSONValue: Sendable, Equatable {
    case string(String)
    case number(JSONNumber)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case let (.string(x), .string(y)): return x == y
        case let (.number(x), .number(y)): return x == y
        case let (.bool(x), .bool(y)): return x == y
        case (.null, .null): return true
        case let (.array(x), .array(y)): return x == y
        case let (.object(x), .object(y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    public var typeName: String {
        switch self {
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "true or false"
        case .null: return "null"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A JSON number kept as decimal digits (mantissa × 10^exponent), so `1732370400.123456`
/// becomes microseconds exactly. Numbers with more than 18 significant digits keep only a Double.
public struct JSONNumber: Sendable, Equatable {
    public var mantissa: Int64
    public var exponent: Int
    /// False when the digits did not fit the mantissa; then only `double` is exact enough.
    public var exact: Bool
    public var double: Double

    public var int64: Int64? {
        guard exact else { return nil }
        if exponent == 0 { return mantissa }
        if exponent < 0 {
            var v = mantissa, e = exponent
            while e < 0 { guard v % 10 == 0 else { return nil }; v /= 10; e += 1 }
            return v
        }
        var v = mantissa
        for _ in 0..<exponent { let (r, o) = v.multipliedReportingOverflow(by: 10); if o { return nil }; v = r }
        return v
    }

    /// The value times 10^6, rounded toward zero; nil when out of range.
    public var micros: Int64? {
        guard exact else { return double.isFinite && abs(double) < 9e12 ? Int64(double * 1e6) : nil }
        var v = mantissa
        var e = exponent + 6
        while e < 0 { v /= 10; e += 1 }
        while e > 0 { let (r, o) = v.multipliedReportingOverflow(by: 10); if o { return nil }; v = r; e -= 1 }
        return v
    }
}

public struct JSONLineError: Error, Equatable, Sendable {
    public var message: String
}

public struct JSONLineReader {
    private let b: UnsafeBufferPointer<UInt8>
    private var i = 0
    private var depth = 0

    /// Parses exactly one JSON value spanning the whole buffer (whitespace around it allowed).
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONLineError) -> JSONValue {
        var r = JSONLineReader(b: bytes)
        r.skipSpace()
        let v = try r.value()
        r.skipSpace()
        guard r.i == bytes.count else { throw r.fail("unexpected text after the JSON value") }
        return v
    }

    public static func parse(_ text: String) throws(JSONLineError) -> JSONValue {
        var s = text
        var result: Result<JSONValue, JSONLineError> = .failure(JSONLineError(message: ""))
        s.withUTF8 { buf in
            do throws(JSONLineError) { result = .success(try parse(buf)) } catch { result = .failure(error) }
        }
        return try result.get()
    }

    private init(b: UnsafeBufferPointer<UInt8>) { self.b = b }

    private func fail(_ what: String) -> JSONLineError {
        JSONLineError(message: "not valid JSON at column \(i + 1): \(what)")
    }

    private mutating func skipSpace() {
        while i < b.count, b[i] == 32 || b[i] == 9 || b[i] == 13 || b[i] == 10 { i += 1 }
    }

    private mutating func value() throws(JSONLineError) -> JSONValue {
        guard i < b.count else { throw fail("unexpected end of line") }
        switch b[i] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), 48...57: return .number(try number())
        default: throw fail("unexpected character '\(Character(Unicode.Scalar(b[i])))'")
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONLineError) {
        let n = word.utf8CodeUnitCount
        guard i + n <= b.count else { throw fail("unexpected end of line") }
        for k in 0..<n where b[i + k] != word.utf8Start[k] { throw fail("unknown word") }
        i += n
    }

    private mutating func object() throws(JSONLineError) -> JSONValue {
        depth += 1
        guard depth <= 32 else { throw fail("nested too deeply") }
        i += 1
        var fields: [(String, JSONValue)] = []
        skipSpace()
        if i < b.count, b[i] == UInt8(ascii: "}") { i += 1; depth -= 1; return .object(fields) }
        while true {
            skipSpace()
            guard i < b.count, b[i] == UInt8(ascii: "\"") else { throw fail("expected a field name in quotes") }
            let key = try string()
            skipSpace()
            guard i < b.count, b[i] == UInt8(ascii: ":") else { throw fail("expected ':' after \"\(key)\"") }
            i += 1
            skipSpace()
            let v = try value()
            if fields.contains(where: { $0.0 == key }) { throw fail("field \"\(key)\" appears twice") }
            fields.append((key, v))
            skipSpace()
            guard i < b.count else { throw fail("unexpected end of line, expected '}'") }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            if b[i] == UInt8(ascii: "}") { i += 1; depth -= 1; return .object(fields) }
            throw fail("expected ',' or '}'")
        }
    }

    private mutating func array() throws(JSONLineError) -> JSONValue {
        depth += 1
        guard depth <= 32 else { throw fail("nested too deeply") }
        i += 1
        var items: [JSONValue] = []
        skipSpace()
        if i < b.count, b[i] == UInt8(ascii: "]") { i += 1; depth -= 1; return .array(items) }
        while true {
            skipSpace()
            items.append(try value())
            skipSpace()
            guard i < b.count else { throw fail("unexpected end of line, expected ']'") }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            if b[i] == UInt8(ascii: "]") { i += 1; depth -= 1; return .array(items) }
            throw fail("expected ',' or ']'")
        }
    }

    private mutating func string() throws(JSONLineError) -> String {
        i += 1
        let start = i
        // Fast path: no escapes.
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "\"") {
                let s = String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self)
                i += 1
                return s
            }
            if c == UInt8(ascii: "\\") { break }
            if c < 0x20 { throw fail("control character in a string") }
            i += 1
        }
        var out = Array(b[start..<i])
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "\"") {
                i += 1
                return String(decoding: out, as: UTF8.self)
            }
            if c < 0x20 { throw fail("control character in a string") }
            if c != UInt8(ascii: "\\") { out.append(c); i += 1; continue }
            i += 1
            guard i < b.count else { break }
            switch b[i] {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar), i + 2 < b.count, b[i + 1] == UInt8(ascii: "\\"), b[i + 2] == UInt8(ascii: "u") {
                    i += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw fail("bad surrogate pair") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let u = Unicode.Scalar(scalar) else { throw fail("bad \\u escape") }
                out.append(contentsOf: Array(String(Character(u)).utf8))
            default: throw fail("unknown escape")
            }
            i += 1
        }
        throw fail("unterminated string")
    }

    private mutating func hex4() throws(JSONLineError) -> UInt32 {
        guard i + 4 < b.count else { throw fail("short \\u escape") }
        var v: UInt32 = 0
        for k in 1...4 {
            let c = b[i + k]
            let d: UInt32
            switch c {
            case 48...57: d = UInt32(c - 48)
            case 65...70: d = UInt32(c - 55)
            case 97...102: d = UInt32(c - 87)
            default: throw fail("bad \\u escape")
            }
            v = v * 16 + d
        }
        i += 4
        return v
    }

    private mutating func number() throws(JSONLineError) -> JSONNumber {
        let start = i
        var negative = false
        if b[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        var mantissa: Int64 = 0
        var exponent = 0
        var exact = true
        var significant = 0
        let intStart = i
        while i < b.count, b[i] >= 48, b[i] <= 57 {
            if significant < 18 { mantissa = mantissa * 10 + Int64(b[i] - 48); if mantissa > 0 { significant += 1 } } else { exponent += 1; exact = exact && b[i] == 48 }
            i += 1
        }
        guard i > intStart else { throw fail("a number needs digits") }
        if i - intStart > 1, b[intStart] == 48 { throw fail("a number may not start with 0") }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            let f = i
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                if significant < 18 { mantissa = mantissa * 10 + Int64(b[i] - 48); exponent -= 1; if mantissa > 0 { significant += 1 } } else if b[i] != 48 { exact = false }
                i += 1
            }
            guard i > f else { throw fail("a number needs digits after '.'") }
        }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            var sign = 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
                if b[i] == UInt8(ascii: "-") { sign = -1 }
                i += 1
            }
            let e = i
            var ev = 0
            while i < b.count, b[i] >= 48, b[i] <= 57 { ev = min(ev * 10 + Int(b[i] - 48), 10_000); i += 1 }
            guard i > e else { throw fail("a number needs digits after 'e'") }
            exponent += sign * ev
        }
        let double: Double
        if exact {
            var d = Double(negative ? -mantissa : mantissa)
            if exponent > 0 { for _ in 0..<min(exponent, 400) { d *= 10 } } else if exponent < 0 { for _ in 0..<min(-exponent, 400) { d /= 10 } }
            double = d
        } else {
            double = Double(String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self)) ?? .nan
        }
        return JSONNumber(mantissa: negative ? -mantissa : mantissa, exponent: exponent, exact: exact, double: double)
    }
}
