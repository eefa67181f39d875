import FoundationEssentials
import ScreenTimeCore
import ScreenTimeWords
import TOMLKit

/// Where a parent's change goes in a policy file: a key of a table (`rewards.daily_limit`), of the
/// top (`timezone`), or of one entry of an array of tables picked by its `name`
/// (`chores[Feed the cat].points`, `schedules[School days].daily_limit`); or a whole entry
/// (`apps[Mystery]`), which may only be removed or made by setting its keys.
public struct PolicyKey: Equatable, Sendable, CustomStringConvertible {
    /// The arrays of tables whose entries are picked by name.
    public static let arrays: Set<String> = ["apps", "sites", "chores", "schedules", "groups"]

    public var table: String?
    public var entry: String?
    public var key: String?

    public init(table: String?, entry: String? = nil, key: String?) {
        self.table = table; self.entry = entry; self.key = key
    }

    /// Reads `rewards.daily_limit`, `chores[Feed the cat].points`, `apps[Mystery]`, `version`;
    /// `tr`: the language of the error's message.
    public init(parsing text: String, tr: Translator = .english) throws(PolicyEditError) {
        let bad = PolicyEditError(tr("'{key}' is not a policy key: write it as table.key (rewards.daily_limit), list[name].key (chores[Feed the cat].points) or list[name]", ["key": String(text.prefix(80))]))
        if let open = text.firstIndex(of: "[") {
            guard let close = text.lastIndex(of: "]"), close > open else { throw bad }
            let table = String(text[..<open]), entry = String(text[text.index(after: open)..<close])
            let rest = text[text.index(after: close)...]
            guard Self.arrays.contains(table), !entry.isEmpty, !entry.utf8.contains(10), !entry.utf8.contains(13) else {
                throw PolicyEditError(tr("'{key}': only {lists} are lists of entries picked by [name]", ["key": String(text.prefix(80)), "lists": Self.arrays.sorted().joined(separator: ", ")]))
            }
            if rest.isEmpty { self.init(table: table, entry: entry, key: nil); return }
            guard rest.first == ".", Self.isBareKey(rest.dropFirst()) else { throw bad }
            self.init(table: table, entry: entry, key: String(rest.dropFirst()))
            return
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ Self.isBareKey($0) }) else { throw bad }
        if parts.count == 1 { self.init(table: nil, key: String(parts[0])) } else {
            guard !Self.arrays.contains(String(parts[0])) else {
                throw PolicyEditError(tr("'{key}': {list} is a list; pick its entry by name: {list}[name].{field}", ["key": String(text.prefix(80)), "list": String(parts[0]), "field": String(parts[1])]))
            }
            self.init(table: String(parts[0]), key: String(parts[1]))
        }
    }

    static func isBareKey(_ s: Substring) -> Bool {
        !s.isEmpty && s.unicodeScalars.allSatisfy { ($0.isASCII && $0.properties.isAlphabetic) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" }
    }

    public var description: String {
        let place = entry.map { "\(table ?? "")[\($0)]" } ?? table
        switch (place, key) {
        case (let p?, let k?): return "\(p).\(k)"
        case (let p?, nil): return p
        case (nil, let k?): return k
        case (nil, nil): return ""
        }
    }
}

/// One change: the key set to a value (TOML text: `"2h"`, `25`, `["07:00-20:30"]`), or removed (nil).
public struct PolicyEdit: Equatable, Sendable {
    public var key: PolicyKey
    public var value: String?
    public init(key: PolicyKey, value: String?) { self.key = key; self.value = value }

    /// A value as a parent types it, as TOML: a number, true/false, an array, an inline table or a
    /// quoted string stay as typed; anything else is a string (`2h` is `"2h"`, `07:00-20:30` is
    /// `"07:00-20:30"`; a date or time TOML would read, like `07:00:00`, is a string too: the
    /// policy has none).
    public static func value(typed text: String) -> String {
        let trimmed = text.blankTrimmed
        let oneLine = !trimmed.utf8.contains(10) && !trimmed.utf8.contains(13)
        if oneLine, let table = try? TOMLTable(string: "v = \(trimmed)"), let v = table["v"] {
            switch v.type {
            case .int, .double, .bool, .array, .table, .string: return trimmed
            default: break
            }
        }
        return quoted(text)
    }

    /// A TOML basic string of `text`.
    public static func quoted(_ text: String) -> String { TOMLString.quoted(text) }
}

public struct PolicyEditError: Error, CustomStringConvertible, Sendable, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A policy file's text changed by a parent's edits, every other line as it was: comments, blank
/// lines, the order of keys and tables. A key already written gets its new value where it stands
/// (its comment after it kept); a new key goes after the last key of its table; a new table or
/// entry after the last of its kind (else at the end). TOMLKit reads TOML but cannot write it back
/// with its comments, hence these few line rules, which know only what policies are made of: key
/// lines, table headers, comments, and values over several lines (arrays).
public struct PolicyEditor {
    /// A table or array entry header and the lines up to the next one.
    struct Section {
        var table: String?      // nil: the keys before the first header
        var array: Bool
        var header: Int?        // its line
        var end: Int            // one past its last line
    }

    public private(set) var lines: [String]
    /// The language of `apply`'s errors.
    let tr: Translator

    /// `tr`: the language of `apply`'s errors.
    public init(text: String, tr: Translator = .english) {
        self.tr = tr
        // Lines end in "\n" here, as the loader reads them ("\r\n" is one Character to Swift).
        let unix = String(decoding: Array(text.utf8).split(separator: 13, omittingEmptySubsequences: false)
            .enumerated().flatMap { i, part in i == 0 ? Array(part) : (part.first == 10 ? Array(part) : [10] + Array(part)) }, as: UTF8.self)
        var split = unix.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if split.last == "" { split.removeLast() }
        lines = split
    }

    public var text: String { lines.joined(separator: "\n") + "\n" }

    /// The value written for `key` now (TOML text, trailing comment left out), nil when it is not.
    public func value(of key: PolicyKey) -> String? {
        guard let k = key.key, let s = section(of: key), let at = keyLine(k, in: s) else { return nil }
        return valueText(at)
    }

    /// The lines of a whole entry (`apps[Mystery]`) as written, nil when there is none.
    public func entryText(of key: PolicyKey) -> String? {
        guard key.entry != nil, let s = section(of: key), let header = s.header else { return nil }
        return lines[header...lastContent(of: s)].joined(separator: "\n")
    }

    /// Makes one change; throws when it cannot be made as asked.
    public mutating func apply(_ edit: PolicyEdit) throws(PolicyEditError) {
        let key = edit.key
        guard let name = key.key else {
            guard edit.value == nil else { throw PolicyEditError(tr("{key}: a whole entry cannot be set; set its keys ({key}.name …)", ["key": "\(key)"])) }
            guard let s = section(of: key) else { throw PolicyEditError(tr("{key}: there is no such entry", ["key": "\(key)"])) }
            removeSection(s)
            return
        }
        if key.entry != nil, name == "name", edit.value == nil {
            throw PolicyEditError(tr("{key}: an entry needs its name; remove the whole entry instead ({list}[{entry}])", ["key": "\(key)", "list": key.table ?? "", "entry": key.entry ?? ""]))
        }
        if let s = section(of: key) {
            if let at = keyLine(name, in: s) {
                if let value = edit.value { replaceValue(at: at, with: value) } else { removeKey(at: at) }
            } else if let value = edit.value {
                lines.insert("\(name) = \(value)", at: lastContent(of: s) + 1)
            }
            return
        }
        guard let value = edit.value else { return }        // removing what is not written: nothing to do
        var block: [String]
        if let entry = key.entry, let table = key.table {
            block = ["[[\(table)]]", "name = \(PolicyEdit.quoted(entry))"]
            if name != "name" { block.append("\(name) = \(value)") }
        } else if let table = key.table {
            block = ["[\(table)]", "\(name) = \(value)"]
        } else {
            // A top key: before the first header.
            let first = sections().first { $0.header != nil }?.header ?? lines.count
            var at = first
            while at > 0, lines[at - 1].blankTrimmed.isEmpty || lines[at - 1].blankTrimmed.hasPrefix("#") { at -= 1 }
            lines.insert("\(name) = \(value)", at: at)
            return
        }
        // After the last entry of the same list (or table of that name), else at the end.
        let same = sections().last { $0.table == key.table && $0.header != nil }
        var at = same.map { lastContent(of: $0) + 1 } ?? lines.count
        if at == lines.count { while at > 0, lines[at - 1].blankTrimmed.isEmpty { at -= 1 } }
        block.insert("", at: 0)
        lines.insert(contentsOf: block, at: at)
    }

    // MARK: - Finding

    func sections() -> [Section] {
        var out: [Section] = [Section(table: nil, array: false, header: nil, end: lines.count)]
        var i = 0
        while i < lines.count {
            if let (name, array) = Self.header(lines[i]) {
                out[out.count - 1].end = i
                out.append(Section(table: name, array: array, header: i, end: lines.count))
                i += 1
                continue
            }
            // A value over several lines: its lines are not headers or keys.
            if let span = keyValueSpan(i) { i = span.upperBound + 1 } else { i += 1 }
        }
        return out
    }

    func section(of key: PolicyKey) -> Section? {
        let all = sections()
        guard let table = key.table else { return all.first }
        if let entry = key.entry {
            return all.first { s in
                s.table == table && s.array && keyLine("name", in: s).flatMap { valueText($0) }.flatMap(Self.string) == entry
            }
        }
        return all.first { $0.table == table && !$0.array }
    }

    /// `[name]` or `[[name]]` (with blanks and a comment after it).
    static func header(_ line: String) -> (String, Bool)? {
        var t = Substring(line.blankTrimmed)
        guard t.hasPrefix("[") else { return nil }
        if let hash = t.firstIndex(of: "#") { t = Substring(t[..<hash].blankTrimmed) }
        let array = t.hasPrefix("[[") && t.hasSuffix("]]")
        let inner = array ? t.dropFirst(2).dropLast(2) : t.dropFirst().dropLast()
        guard t.hasSuffix("]") else { return nil }
        let name = inner.blankTrimmed
        guard PolicyKey.isBareKey(Substring(name)) else { return nil }
        return (name, array)
    }

    /// The line of `key = …` in the section, not in a comment.
    func keyLine(_ key: String, in s: Section) -> Int? {
        var i = (s.header ?? -1) + 1
        while i < s.end {
            if Self.keyName(lines[i]) == key { return i }
            if let span = keyValueSpan(i) { i = span.upperBound + 1 } else { i += 1 }
        }
        return nil
    }

    static func keyName(_ line: String) -> String? {
        let t = line.blankTrimmed
        guard let eq = t.firstIndex(of: "=") else { return nil }
        let name = t[..<eq].blankTrimmed
        return PolicyKey.isBareKey(Substring(name)) ? name : nil
    }

    /// The lines a key's value spans (from its key line), and where the value ends on the last one
    /// (its comment after). Nil for a line that is not `key = value`.
    func keyValueSpan(_ at: Int) -> ClosedRange<Int>? { valueExtent(at).map { at...$0.line } }

    /// Where the value of the key line `at` starts (its line's index of the text after `=`) and
    /// ends (a line, and the offset in it where its comment or the line ends).
    func valueExtent(_ at: Int) -> (line: Int, end: String.Index)? {
        guard Self.keyName(lines[at]) != nil, let eq = lines[at].firstIndex(of: "=") else { return nil }
        // A string over several lines ('''…''' or """…"""): to the line that closes it.
        let value = lines[at][lines[at].index(after: eq)...].drop { $0 == " " || $0 == "\t" }
        for quote in ["\"\"\"", "'''"] where value.hasPrefix(quote) {
            var rest = value.dropFirst(3)
            var line = at
            while true {
                if rest.firstRange(of: quote) != nil { return (line, lines[line].endIndex) }
                guard line + 1 < lines.count else { return (line, lines[line].endIndex) }
                line += 1
                rest = lines[line][...]
            }
        }
        var depth = 0
        var line = at
        var i = lines[at].index(after: eq)
        var inString: Character? = nil, escaped = false
        while true {
            let text = lines[line]
            while i < text.endIndex {
                let c = text[i]
                if let q = inString {
                    if escaped { escaped = false } else if c == "\\" && q == "\"" { escaped = true } else if c == q { inString = nil }
                } else if c == "\"" || c == "'" {
                    inString = c
                } else if c == "[" || c == "{" {
                    depth += 1
                } else if c == "]" || c == "}" {
                    depth -= 1
                } else if c == "#" {
                    if depth <= 0 { return (line, i) }
                    break       // a comment inside an array: the rest of the line
                }
                i = text.index(after: i)
            }
            inString = nil
            if depth <= 0 || line + 1 >= lines.count { return (line, text.endIndex) }
            line += 1
            i = lines[line].startIndex
        }
    }

    func valueText(_ at: Int) -> String? {
        guard let (last, end) = valueExtent(at), let eq = lines[at].firstIndex(of: "=") else { return nil }
        if last == at { return lines[at][lines[at].index(after: eq)..<end].blankTrimmed }
        var parts = [String(lines[at][lines[at].index(after: eq)...])]
        for l in (at + 1)..<last { parts.append(lines[l]) }
        parts.append(String(lines[last][..<end]))
        return parts.joined(separator: "\n").blankTrimmed
    }

    /// A TOML string value's text, nil for any other value.
    static func string(_ value: String) -> String? {
        guard let table = try? TOMLTable(string: "v = \(value)") else { return nil }
        return table["v"]?.string
    }

    /// The last line of the section that is a key or its value (its header when it has none):
    /// comments and blank lines after it belong to what follows.
    func lastContent(of s: Section) -> Int {
        var last = s.header ?? -1
        var i = (s.header ?? -1) + 1
        while i < s.end {
            if let span = keyValueSpan(i) { last = span.upperBound; i = span.upperBound + 1 } else { i += 1 }
        }
        return max(last, 0)
    }

    // MARK: - Changing

    mutating func replaceValue(at: Int, with value: String) {
        guard let (last, end) = valueExtent(at), let eq = lines[at].firstIndex(of: "=") else { return }
        let comment = lines[last][end...]
        let head = lines[at][...eq]
        let spacing = comment.isEmpty ? "" : String(lines[last][..<end].reversed().prefix { $0 == " " }.reversed())
        lines.replaceSubrange(at...last, with: [head + " " + value + (comment.isEmpty ? "" : (spacing.isEmpty ? " " : spacing) + comment)])
    }

    mutating func removeKey(at: Int) {
        guard let span = keyValueSpan(at) else { return }
        lines.removeSubrange(span)
    }

    mutating func removeSection(_ s: Section) {
        guard let header = s.header else { return }
        var end = lastContent(of: s) + 1
        // A blank line before it goes with it, so that no two blank lines are left.
        var start = header
        if start > 0, lines[start - 1].blankTrimmed.isEmpty { start -= 1 } else if end < lines.count, lines[end].blankTrimmed.isEmpty { end += 1 }
        lines.removeSubrange(start..<end)
    }
}

extension StringProtocol {
    /// Without the blanks (spaces, tabs, line ends) at either end.
    var blankTrimmed: String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else { return "" }
        return String(self[first...last])
    }
}
