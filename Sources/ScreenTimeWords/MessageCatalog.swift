import FoundationEssentials

/// One language's compiled gettext catalog (a `.mo` file, as `msgfmt` writes it): each message's
/// translation, its plural forms, and the language's rule for choosing among them.
///
/// Read here rather than through glibc's `dngettext`: the system daemon speaks to each child in
/// that child's language at once, and glibc translates only for a locale that is generated on the
/// machine (Debian's default has none but C and POSIX: `newlocale("de_DE.UTF-8")` fails, and
/// gettext gives the English back) and only per thread (`uselocale`), which Swift's tasks move
/// between. The file format is small and fixed (GNU gettext manual, "The Format of GNU MO Files").
public struct MessageCatalog: Sendable {
    /// Translations by message (`msgid`, or `context \u{4} msgid`); plural forms in order.
    private var messages: [String: [String]] = [:]
    /// Which plural form a number takes (the header's `Plural-Forms`; English's without one).
    public let plural: PluralRule

    /// The catalog in `bytes`; nil when they are not a `.mo` file.
    public init?(bytes: [UInt8]) {
        func word(_ at: Int, _ bigEndian: Bool) -> Int? {
            guard at >= 0, at + 4 <= bytes.count else { return nil }
            let b = bytes[at..<at + 4].map(UInt32.init)
            return Int(bigEndian ? b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3] : b[3] << 24 | b[2] << 16 | b[1] << 8 | b[0])
        }
        guard let magic = word(0, false), magic == 0x9504_12de || magic == 0xde12_0495 else { return nil }
        let big = magic == 0xde12_0495
        guard let count = word(8, big), let originals = word(12, big), let translations = word(16, big), count < 1 << 20 else { return nil }
        /// The `n`th string of the table at `table` (a length and an offset each).
        func string(_ table: Int, _ n: Int) -> String? {
            guard let length = word(table + 8 * n, big), let offset = word(table + 8 * n + 4, big),
                  offset >= 0, length >= 0, offset + length <= bytes.count else { return nil }
            return String(decoding: bytes[offset..<offset + length], as: UTF8.self)
        }
        var header = ""
        for i in 0..<count {
            guard let original = string(originals, i), let translated = string(translations, i) else { return nil }
            // A plural message is `singular \0 plural`; its translation the forms, `\0` between.
            let id = String(original.split(separator: "\u{0}", maxSplits: 1, omittingEmptySubsequences: false)[0])
            if id.isEmpty { header = translated; continue }
            messages[id] = translated.split(separator: "\u{0}", omittingEmptySubsequences: false).map(String.init)
        }
        plural = PluralRule(header: header) ?? .english
    }

    /// The catalog in a file; nil when it cannot be read or is no catalog.
    public init?(path: String) {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        self.init(bytes: [UInt8](data))
    }

    /// The translation of `message` (nil: none, or an empty one, as msgfmt leaves untranslated).
    public func translation(of message: String, context: String? = nil) -> String? {
        guard let forms = messages[context.map { $0 + "\u{4}" + message } ?? message], let first = forms.first, !first.isEmpty else { return nil }
        return first
    }

    /// The translation of a plural message for `n` (nil: none).
    public func translation(of singular: String, context: String? = nil, count n: Int) -> String? {
        guard let forms = messages[context.map { $0 + "\u{4}" + singular } ?? singular] else { return nil }
        let i = plural.form(for: n)
        guard i < forms.count, !forms[i].isEmpty else { return nil }
        return forms[i]
    }

    /// How many messages the catalog holds (the header not counted).
    public var count: Int { messages.count }
}
