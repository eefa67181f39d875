/// Writes JSON with keys in the order given, so results read the same every run.
public struct JSONWriter {
    public private(set) var output = ""
    private var needsComma: [Bool] = [false]

    public init() {}

    private mutating func separate() {
        if needsComma[needsComma.count - 1] { output += "," }
        needsComma[needsComma.count - 1] = true
    }

    public mutating func beginObject() { separate(); output += "{"; needsComma.append(false) }
    public mutating func endObject() { needsComma.removeLast(); output += "}" }
    public mutating func beginArray() { separate(); output += "["; needsComma.append(false) }
    public mutating func endArray() { needsComma.removeLast(); output += "]" }

    /// A key; the value that follows is not separated again.
    public mutating func key(_ k: String) {
        separate()
        appendQuoted(k)
        output += ":"
        needsComma[needsComma.count - 1] = false
    }

    private mutating func afterValue() { needsComma[needsComma.count - 1] = true }

    public mutating func string(_ s: String) { separate(); appendQuoted(s); afterValue() }
    public mutating func int(_ v: Int64) { separate(); output += String(v); afterValue() }
    public mutating func bool(_ v: Bool) { separate(); output += v ? "true" : "false"; afterValue() }
    public mutating func null() { separate(); output += "null"; afterValue() }
    /// A value that is JSON already (a stored event line), as it is.
    public mutating func raw(_ json: String) { separate(); output += json; afterValue() }

    /// Microseconds written as seconds with up to six decimals.
    public mutating func micros(_ v: Microseconds) {
        separate()
        let sign = v < 0 ? "-" : ""
        let a = v.magnitude
        var s = sign + String(a / 1_000_000)
        let frac = a % 1_000_000
        if frac != 0 {
            var f = String(frac)
            f = String(repeating: "0", count: 6 - f.count) + f
            while f.hasSuffix("0") { f.removeLast() }
            s += "." + f
        }
        output += s
        afterValue()
    }

    private mutating func appendQuoted(_ s: String) {
        output += "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            default:
                if u.value < 0x20 {
                    let h = String(u.value, radix: 16)
                    output += "\\u" + String(repeating: "0", count: 4 - h.count) + h
                } else {
                    output.unicodeScalars.append(u)
                }
            }
        }
        output += "\""
    }
}

extension JSONWriter {
    /// Indents compact JSON for people, keeping the order of keys; empty `[]` and `{}` stay on one line.
    public static func indented(_ compact: String, by unit: String = "  ") -> String {
        var out = ""
        var depth = 0
        var inString = false
        var escaped = false
        let chars = Array(compact)
        var i = 0
        func newline() { out += "\n" + String(repeating: unit, count: depth) }
        while i < chars.count {
            let c = chars[i]
            if inString {
                out.append(c)
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inString = false }
                i += 1
                continue
            }
            switch c {
            case "\"":
                inString = true
                out.append(c)
            case "{", "[":
                if i + 1 < chars.count, chars[i + 1] == (c == "{" ? "}" : "]") {
                    out += c == "{" ? "{}" : "[]"
                    i += 1
                } else {
                    out.append(c)
                    depth += 1
                    newline()
                }
            case "}", "]":
                depth -= 1
                newline()
                out.append(c)
            case ",":
                out.append(c)
                newline()
            case ":":
                out += ": "
            default:
                out.append(c)
            }
            i += 1
        }
        return out
    }
}
