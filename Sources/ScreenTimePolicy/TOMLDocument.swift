import ScreenTimeWords
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
    case date, time, dateTime

    /// What kind of value it is, as a problem says it ("'name' must be a string, not {found}").
    func typeName(_ tr: Translator) -> String {
        switch self {
        case .table: return tr("a table", context: "a policy value's kind")
        case .array: return tr("an array", context: "a policy value's kind")
        case .string: return tr("a string", context: "a policy value's kind")
        case .integer: return tr("a whole number", context: "a policy value's kind")
        case .float: return tr("a decimal number", context: "a policy value's kind")
        case .boolean: return tr("true or false", context: "a policy value's kind")
        case .date: return tr("a date", context: "a policy value's kind")
        case .time: return tr("a time", context: "a policy value's kind")
        case .dateTime: return tr("a date-time", context: "a policy value's kind")
        }
    }
}

struct TOMLSyntaxError: Error {
    var line: Int
    var message: String
}

enum TOMLDocument {
    /// `tr`: the language of the syntax error's message (toml++'s own words stay English).
    static func parse(_ text: String, tr: Translator = .english) throws(TOMLSyntaxError) -> TOMLNode {
        if let bad = abortingMistake(in: text, tr: tr) { throw bad }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let e as TOMLParseError {
            throw TOMLSyntaxError(line: e.source.begin.line, message: tr("not valid TOML: {why}", ["why": e.description]))
        } catch {
            throw TOMLSyntaxError(line: 1, message: tr("not valid TOML"))
        }
        return node(table)
    }

    /// toml++ (TOMLKit's parser) asserts, and so aborts the whole process, on two mistakes found
    /// by fuzzing (docs/fuzzing.md): a table header whose name starts with what cannot start a key
    /// (`[=rewards]`, `[é]`, `[` alone), and a `}` where an array's next value belongs
    /// (`[1, }]`). Both are refused here first, with their line. The scan knows strings, comments
    /// and values over several lines, so a `[` inside them is not a header.
    static func abortingMistake(in text: String, tr: Translator = .english) -> TOMLSyntaxError? {
        enum InString { case none, basic, literal, multiBasic, multiLiteral }
        let c = Array(text.unicodeScalars)
        var line = 1, i = 0
        var open: [Unicode.Scalar] = []    // the values' open brackets, innermost last
        var lineStart = true, comment = false, string = InString.none
        func at(_ k: Int) -> Unicode.Scalar? { k < c.count ? c[k] : nil }
        // What toml++ takes for a line's end, and for blanks (Unicode's, and the byte-order mark).
        func isLineBreak(_ s: Unicode.Scalar) -> Bool { ["\n", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}"].contains(s) }
        func isBlank(_ s: Unicode.Scalar) -> Bool {
            // Not "\r": toml++ takes it only as the start of "\r\n".
            s != "\r" && !isLineBreak(s) && (s.properties.isWhitespace || ["\u{FEFF}", "\u{200B}", "\u{180E}", "\u{2060}"].contains(s))
        }
        func isKeyStart(_ s: Unicode.Scalar) -> Bool {
            s.isASCII && (s.properties.isAlphabetic || ("0"..."9").contains(s) || s == "_" || s == "-" || s == "\"" || s == "'" || s == "]")
        }
        while i < c.count {
            let s = c[i]
            if isLineBreak(s) {
                if s == "\n" { line += 1 }
                lineStart = true
                comment = false
                if string == .basic || string == .literal { string = .none }
                i += 1
                continue
            }
            if comment { i += 1; continue }
            switch string {
            case .basic, .multiBasic:
                if s == "\\" {    // an escape: the next character is text (a line it ends is counted)
                    if at(i + 1) == "\n" { line += 1 }
                    i += 2
                    continue
                }
                if s == "\"" {
                    if string == .basic { string = .none } else if at(i + 1) == "\"", at(i + 2) == "\"" { string = .none; i += 2 }
                }
                i += 1
                continue
            case .literal, .multiLiteral:
                if s == "'" {
                    if string == .literal { string = .none } else if at(i + 1) == "'", at(i + 2) == "'" { string = .none; i += 2 }
                }
                i += 1
                continue
            case .none: break
            }
            switch s {
            case _ where isBlank(s): break
            case "#": comment = true
            case "\"", "'":
                let triple = at(i + 1) == s && at(i + 2) == s
                string = s == "\"" ? (triple ? .multiBasic : .basic) : (triple ? .multiLiteral : .literal)
                if triple { i += 2 }
                lineStart = false
            case "[" where lineStart && open.isEmpty:
                var k = i + 1
                if at(k) == "[" { k += 1 }
                while let b = at(k), isBlank(b) { k += 1 }
                if let next = at(k), isKeyStart(next) {
                    i = k - 1    // the header's name is scanned as any text
                } else {
                    let message: String
                    if let next = at(k), !(isLineBreak(next) || next == "\r") {
                        message = tr("not valid TOML: a table header starts with a name, like [rewards] or [[apps]], not '{found}'", ["found": String(Character(next))])
                    } else if at(k) != nil {
                        message = tr("not valid TOML: a table header starts with a name, like [rewards] or [[apps]], not the end of the line")
                    } else {
                        message = tr("not valid TOML: a table header starts with a name, like [rewards] or [[apps]], not the end of the file")
                    }
                    return TOMLSyntaxError(line: line, message: message)
                }
                lineStart = false
            case "[", "{": open.append(s); lineStart = false
            case "]", "}":
                // A header's own `]` closes nothing open; any other closes the innermost bracket.
                if let innermost = open.popLast(), (innermost == "[") != (s == "]") {
                    return TOMLSyntaxError(line: line, message: innermost == "["
                        ? tr("not valid TOML: '{found}' where ']' closes the array opened before it", ["found": String(s)])
                        : tr("not valid TOML: '{found}' where '}' closes the inline table opened before it", ["found": String(s)]))
                }
                lineStart = false
            default: lineStart = false
            }
            i += 1
        }
        return nil
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
        case .date: return .date
        case .time: return .time
        case .dateTime: return .dateTime
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
                guard let r = line.firstRange(of: close) else { continue }
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
                lines[name, default: lineNo] = lineNo      // the array itself: at its first table
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
                if let r = s[after...].firstRange(of: q) { i = r.upperBound } else { multiline = q; return balance }
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
