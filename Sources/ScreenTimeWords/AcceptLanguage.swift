/// The languages a browser asks for in its `Accept-Language` header (RFC 9110 §12.5.4:
/// `de-AT, de;q=0.9, en;q=0.5`), best first, and which of the catalogs there are to answer in.
/// What the parents' page speaks when no choice of the parent's is kept in its cookie.
public enum AcceptLanguage {
    /// The header's language tags, best first (a higher q first; equal ones in the header's
    /// order), as written (`de-AT`). Left out: those with q=0 (the browser does not want them),
    /// the wildcard `*` (any language: it names none), and whatever is malformed (a tag that is not
    /// letters, digits and hyphens, a q that is not a number from 0 to 1). At most the first 4096
    /// characters and 64 entries are read: a browser sends a few.
    public static func languages(_ header: String?) -> [String] {
        guard let header else { return [] }
        var ranked: [(tag: String, q: Int, at: Int)] = []
        for (at, entry) in header.prefix(4096).split(separator: ",").prefix(64).enumerated() {
            let parts = entry.split(separator: ";").map(trimmed)
            guard let tag = parts.first, isTag(tag) else { continue }
            var q = 1000
            var malformed = false
            for parameter in parts.dropFirst() {
                let kv = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(trimmed)
                guard kv.count == 2, kv[0].lowercased() == "q" else { continue }
                guard let value = quality(kv[1]) else { malformed = true; break }
                q = value
            }
            guard !malformed, q > 0, tag != "*" else { continue }
            ranked.append((tag, q, at))
        }
        return ranked.sorted { $0.q != $1.q ? $0.q > $1.q : $0.at < $1.at }.map(\.tag)
    }

    /// The language to answer in: the first the header asks for that is English (nil) or one of
    /// `available` (catalogs' names: `de`, `es_MX`), by its whole tag, then by its language alone
    /// (`de-AT` is answered in `de`); nil (English) when none is.
    public static func choose(_ header: String?, available: Set<String>) -> String? {
        for tag in languages(header) {
            guard let name = Translator.normalized(tag) else { continue }
            let language = String(name.prefix { $0 != "_" })
            if language == "en" { return nil }
            if available.contains(name) { return name }
            if available.contains(language) { return language }
        }
        return nil
    }

    /// `de`, `de-AT`, `zh-Hant-TW`, `*`: letters, digits and hyphens, a letter first (RFC 4647's
    /// language ranges), at most 35 characters.
    static func isTag(_ s: String) -> Bool {
        if s == "*" { return true }
        guard let first = s.unicodeScalars.first, s.count <= 35, first.isASCIILetter else { return false }
        return s.unicodeScalars.allSatisfy { $0.isASCIILetter || ("0"..."9").contains($0) || $0 == "-" } && !s.hasSuffix("-") && !s.contains("--")
    }

    /// A q value in thousandths: `1`, `0.8`, `0.125`, `1.000`; nil when it is none.
    static func quality(_ s: String) -> Int? {
        let parts = s.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, whole == "0" || whole == "1" else { return nil }
        var fraction = parts.count > 1 ? String(parts[1]) : ""
        guard fraction.count <= 3, fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        if parts.count > 1 && fraction.isEmpty { return nil }
        fraction += String(repeating: "0", count: 3 - fraction.count)
        let value = (whole == "1" ? 1000 : 0) + (Int(fraction) ?? 0)
        return value <= 1000 ? value : nil
    }

    static func trimmed(_ s: Substring) -> String {
        String(s.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
