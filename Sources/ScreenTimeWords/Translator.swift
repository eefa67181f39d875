import FoundationEssentials

/// screentime's words in one person's language: the messages of the `screentime` gettext domain
/// (po/*.po, compiled into `<locales>/<language>/LC_MESSAGES/screentime.mo`), with English, the
/// messages themselves, where a catalog has no translation.
///
/// A message names what it fills in with braces (`{minutes} minutes left`), never printf's `%d`:
/// a translator may put them in any order, and `tools/messages check` checks every translation
/// keeps each one.
public struct Translator: Sendable {
    /// Where the catalogs are installed (`make install`, the .deb).
    public static let systemFolder = "/usr/share/locale"
    public static let domain = "screentime"

    /// The language whose catalog is used (`de`, `es_MX`); nil: English.
    public let language: String?
    private let catalog: MessageCatalog?

    /// English: every message as it is.
    public static let english = Translator(language: nil, catalog: nil)

    private init(language: String?, catalog: MessageCatalog?) {
        self.language = language
        self.catalog = catalog
    }

    /// The first of `preferred` (locale names or language tags, best first: `de_DE.UTF-8`,
    /// `es-MX`, `fr`) with a catalog in `folder`; for each, the whole name, then the language
    /// alone (`de_AT` falls back to `de`). English when none has one, or `C`/`POSIX`/`en` comes
    /// first.
    public static func forLanguages(_ preferred: [String], folder: String = systemFolder) -> Translator {
        for name in preferred {
            guard let tag = normalized(name) else { continue }
            if tag == "en" || tag.hasPrefix("en_") || tag == "C" || tag == "POSIX" { return .english }
            var candidates = [tag]
            if let underscore = tag.firstIndex(of: "_") { candidates.append(String(tag[..<underscore])) }
            for candidate in candidates {
                if let catalog = MessageCatalog(path: "\(folder)/\(candidate)/LC_MESSAGES/\(domain).mo") {
                    return Translator(language: candidate, catalog: catalog)
                }
            }
        }
        return .english
    }

    /// The languages a process's environment asks for, best first, as gettext reads them:
    /// `LANGUAGE` (a colon-separated list) unless the locale is C, then `LC_ALL`,
    /// `LC_MESSAGES`, `LANG`.
    public static func languages(environment: [String: String]) -> [String] {
        let locale = [environment["LC_ALL"], environment["LC_MESSAGES"], environment["LANG"]].compactMap { $0 }.first { !$0.isEmpty }
        guard let locale, locale != "C", locale != "POSIX" else { return ["C"] }
        let list = (environment["LANGUAGE"] ?? "").split(separator: ":").map(String.init).filter { !$0.isEmpty }
        return list + [locale]
    }

    /// `de_DE.UTF-8@euro` → `de_DE`, `es-MX` → `es_MX`, `FR` → `fr`; nil for nothing.
    static func normalized(_ name: String) -> String? {
        let base = String(name.prefix { $0 != "." && $0 != "@" }).replacing("-", with: "_")
        // A name, never a path: it becomes a folder's name under the catalogs' folder.
        guard !base.isEmpty, base.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else { return nil }
        if base == "C" || base == "POSIX" { return base }
        let parts = base.split(separator: "_", maxSplits: 1)
        return parts[0].lowercased() + (parts.count > 1 ? "_" + parts[1].uppercased() : "")
    }

    /// `message` in this language, with each `{name}` filled in from `values`.
    public func callAsFunction(_ message: String, context: String? = nil, _ values: [String: String] = [:]) -> String {
        Self.fill(catalog?.translation(of: message, context: context) ?? message, values)
    }

    /// The form of a message for the number `n` (`{n}` is filled in with it, besides `values`):
    /// English's `one` for 1, `other` for every other number; a catalog's forms by its rule.
    public func plural(_ one: String, _ other: String, _ n: Int, context: String? = nil, _ values: [String: String] = [:]) -> String {
        let text = catalog?.translation(of: one, context: context, count: n) ?? (n == 1 ? one : other)
        return Self.fill(text, values.merging(["n": String(n)]) { given, _ in given })
    }

    /// Each `{name}` of `values` in `text` replaced by its value, in one pass (a value that holds
    /// braces, such as a child's typed reason, is not looked into); others stay as they are.
    static func fill(_ text: String, _ values: [String: String]) -> String {
        guard !values.isEmpty, text.contains("{") else { return text }
        var out = ""
        var rest = text[...]
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}"), let value = values[String(rest[rest.index(after: open)..<close])] else {
                out.append("{")
                rest = rest[rest.index(after: open)...]
                continue
            }
            out += value
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }
}
