import TOMLKit

/// A parsed TOML document as plain Swift values, with the line each key was written on.
/// TOMLKit parses; it does not say where a value came from, so `KeyLines` finds the lines.
indirect enum TOMLNode {
    case table([(key: String, value: TOMLNode)])
    case array([TOMLNode])
    case string(String)
    case integer(Int)
    case float(Double)
    case boolean(Bool)
    case other(String)

    var typeName: String {
        switch self {
        case .table: return "a table"
        case .array: return "an array"
        case .string: return "a string"
        case .integer: return "a whole number"
        case .float: return "a decimal number"
        case .boolean: return "true or false"
        case .other(let name): return "a \(name)"
        }
    }
}

struct TOMLSyntaxError: Error {
    var line: Int
    var message: String
}

enum TOMLDocument {
    static func parse(_ text: String) throws(TOMLSyntaxError) -> TOMLNode {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let e as TOMLParseError {
            throw TOMLSyntaxError(line: e.source.begin.line, message: "not valid TOML: \(e.description)")
        } catch {
            throw TOMLSyntaxError(line: 1, message: "not valid TOML")
        }
        return node(table)
    }

    private static func node(_ v: TOMLValueConvertible) -> TOMLNode {
        switch v.type {
        case .table:
            let t = v.table!
            return .table(t.keys.map { k in (k, node(t[k]!)) })
        case .array:
            return .array(v.array!.map { node($0) })
        case .string: return .string(v.string!)
        case .int: return .integer(v.int!)
        case .double: return .float(v.double!)
        case .bool: return .boolean(v.bool!)
        case .date: return .other("date")
        case .time: return .other("time")
        case .dateTime: return .other("date-time")
        }
    }
}

/// Finds the line of each key in TOML text: `points.learning_per_hour`, `apps[2].name`, and the
/// header lines `points`, `apps[2]`. Good for the policy's shapes (tables, arrays of tables, dotted
/// keys, multi-line arrays and strings); anything it cannot place falls back to its table's line.
struct KeyLines {
    private var lines: [String: Int] = [:]

    init(_ text: String) {
        var table: [String] = []
        var arrayCounts: [String: Int] = [:]
        var depth = 0                    // open [ or { of a value spanning lines
        var inMultiline: String? = nil   // the closing quotes of a multi-line string
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNo = n + 1
            var line = Substring(raw)
            if let close = inMultiline {
                guard let r = line.range(of: close) else { continue }
                inMultiline = nil
                line = line[r.upperBound...]
                depth += KeyLines.bracketBalance(line, multiline: &inMultiline)
                continue
            }
            if depth > 0 {
                depth += KeyLines.bracketBalance(line, multiline: &inMultiline)
                continue
            }
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.hasPrefix("[[") {
                let name = KeyLines.headerName(trimmed.dropFirst(2), closing: "]]")
                let index = arrayCounts[name, default: 0]
                arrayCounts[name] = index + 1
                table = [name + "[\(index)]"]
                lines[table[0], default: lineNo] = lineNo
            } else if trimmed.hasPrefix("[") {
                let name = KeyLines.headerName(trimmed.dropFirst(), closing: "]")
                table = [name]
                lines[name, default: lineNo] = lineNo
            } else if let eq = KeyLines.assignment(trimmed) {
                let key = trimmed[..<eq].split(separator: ".").map { KeyLines.unquote($0) }.joined(separator: ".")
                let path = (table + [key]).joined(separator: ".")
                lines[path, default: lineNo] = lineNo
                depth += KeyLines.bracketBalance(trimmed[trimmed.index(after: eq)...], multiline: &inMultiline)
            }
        }
    }

    /// The line of `path`, else of the nearest enclosing table that has one.
    func line(of path: String) -> Int? {
        var p = path
        while true {
            if let l = lines[p] { return l }
            guard let cut = p.lastIndex(where: { $0 == "." || $0 == "[" }) else { return nil }
            p = String(p[..<cut])
        }
    }

    private static func headerName(_ s: Substring, closing: String) -> String {
        let inner = s.prefix { $0 != "]" }
        return inner.split(separator: ".").map { unquote($0) }.joined(separator: ".")
    }

    private static func unquote(_ s: Substring) -> String {
        let t = s.trimmingCharacters(in: " \t")
        if t.count >= 2, let f = t.first, f == "\"" || f == "'", t.last == f { return String(t.dropFirst().dropLast()) }
        return t
    }

    /// The index of the `=` of a `key = value` line, outside quotes.
    private static func assignment(_ s: Substring) -> Substring.Index? {
        guard let first = s.first, first != "#" else { return nil }
        var quote: Character? = nil
        for i in s.indices {
            let c = s[i]
            if let q = quote { if c == q { quote = nil }; continue }
            if c == "\"" || c == "'" { quote = c; continue }
            if c == "=" { return i }
            if c == "#" { return nil }
        }
        return nil
    }

    /// Net opening brackets in a value, skipping strings and comments; notes an open multi-line string.
    private static func bracketBalance(_ s: Substring, multiline: inout String?) -> Int {
        var balance = 0
        var i = s.startIndex
        while i < s.endIndex {
            let rest = s[i...]
            for q in ["\"\"\"", "'''"] where rest.hasPrefix(q) {
                let after = s.index(i, offsetBy: 3)
                if let r = s[after...].range(of: q) { i = r.upperBound } else { multiline = q; return balance }
            }
            guard i < s.endIndex else { break }
            let c = s[i]
            if c == "#" { break }
            if c == "\"" || c == "'" {
                var j = s.index(after: i)
                while j < s.endIndex, s[j] != c { if c == "\"" && s[j] == "\\" { j = s.index(after: j) }; if j < s.endIndex { j = s.index(after: j) } }
                i = j < s.endIndex ? s.index(after: j) : j
                continue
            }
            if c == "[" || c == "{" { balance += 1 }
            if c == "]" || c == "}" { balance -= 1 }
            i = s.index(after: i)
        }
        return balance
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> String {
        var s = self
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}
