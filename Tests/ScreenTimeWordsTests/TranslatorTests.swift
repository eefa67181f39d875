import Foundation
import ScreenTimeWords
import TestSupport
import Testing

/// Catalogs as `msgfmt` (GNU gettext, Debian's) compiles them, read by `MessageCatalog`; the
/// languages a person's environment asks for; plural rules as languages write them.
@Suite("Words in the family's language")
struct TranslatorTests {
    static func po(plural: String, _ entries: String) -> String {
        """
        msgid ""
        msgstr ""
        "Content-Type: text/plain; charset=UTF-8\\n"
        "Plural-Forms: \(plural)\\n"

        \(entries)
        """
    }

    static let german = po(plural: "nplurals=2; plural=(n != 1);", """
        msgid "Game time left"
        msgstr "Spielzeit übrig"

        msgid "{minutes} minutes left of {limit}"
        msgstr "Noch {minutes} von {limit} Minuten"

        msgid "one minute"
        msgid_plural "{n} minutes"
        msgstr[0] "eine Minute"
        msgstr[1] "{n} Minuten"

        msgctxt "a chore's state"
        msgid "done"
        msgstr "erledigt"

        msgid "not yet translated"
        msgstr ""
        """)

    static let polish = po(plural: "nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);", """
        msgid "one minute"
        msgid_plural "{n} minutes"
        msgstr[0] "{n} minuta"
        msgstr[1] "{n} minuty"
        msgstr[2] "{n} minut"
        """)

    @Test("a catalog msgfmt compiled: messages, filled-in names in the translator's order, plural forms, contexts; English where there is no translation")
    func german() throws {
        let folder = try compiledCatalogs(["de": Self.german])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let de = Translator.forLanguages(["de_DE.UTF-8"], folder: folder)
        #expect(de.language == "de")
        #expect(de("Game time left") == "Spielzeit übrig")
        #expect(de("{minutes} minutes left of {limit}", ["minutes": "5", "limit": "60"]) == "Noch 5 von 60 Minuten")
        #expect(de.plural("one minute", "{n} minutes", 1) == "eine Minute")
        #expect(de.plural("one minute", "{n} minutes", 2) == "2 Minuten")
        #expect(de.plural("one minute", "{n} minutes", 0) == "0 Minuten")
        #expect(de("done", context: "a chore's state") == "erledigt")
        #expect(de("done") == "done")   // the same words without the context are another message
        #expect(de("not yet translated") == "not yet translated")
        #expect(de("never in the catalog") == "never in the catalog")
        // A value that holds braces is not looked into.
        #expect(de("{minutes} minutes left of {limit}", ["minutes": "{limit}", "limit": "60"]) == "Noch {limit} von 60 Minuten")
        let en = Translator.forLanguages(["C"], folder: folder)
        #expect(en.language == nil && en.plural("one minute", "{n} minutes", 1) == "one minute" && en.plural("one minute", "{n} minutes", 3) == "3 minutes")
    }

    @Test("plural rules as languages write them: Polish's three forms, French's 0 and 1 alike, a rule that does not parse")
    func pluralRules() throws {
        let folder = try compiledCatalogs(["pl": Self.polish])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let pl = Translator.forLanguages(["pl_PL.UTF-8"], folder: folder)
        #expect([1, 2, 4, 5, 12, 22, 25, 101].map { pl.plural("one minute", "{n} minutes", $0) }
                == ["1 minuta", "2 minuty", "4 minuty", "5 minut", "12 minut", "22 minuty", "25 minut", "101 minut"])
        let french = try #require(PluralRule(header: "Plural-Forms: nplurals=2; plural=(n > 1);"))
        #expect([0, 1, 2].map(french.form(for:)) == [0, 0, 1])
        #expect(PluralRule(header: "Plural-Forms: nplurals=2; plural=(n > );") == nil)
        #expect(PluralRule(header: "Plural-Forms: nplurals=2; plural=system(n);") == nil)
        #expect(PluralRule(header: "Content-Type: text/plain") == nil)
        // Numbers that would trap a division, and rules nested too deep or too long: no crash.
        #expect(try #require(PluralRule(header: "Plural-Forms: nplurals=2; plural=((0-9223372036854775807-1)/(0-1)) % (0-1) == 0;")).form(for: 1) == 1)
        #expect(PluralRule(header: "Plural-Forms: nplurals=2; plural=" + String(repeating: "(", count: 10_000) + "n" + String(repeating: ")", count: 10_000) + ";") == nil)
        #expect(PluralRule(header: "Plural-Forms: nplurals=2; plural=" + String(repeating: "!", count: 10_000) + "n;") == nil)
        #expect(PluralRule(header: "Plural-Forms: nplurals=2; plural=n" + String(repeating: "+n", count: 5_000) + ";") == nil)
        // A form beyond nplurals is the last one.
        #expect(try #require(PluralRule(header: "Plural-Forms: nplurals=2; plural=n;")).form(for: 7) == 1)
    }

    @Test("each catalog in po/ has a plural rule this reader takes, with as many forms as it says (else its plurals would follow English's rule, silently)")
    func repositoryPluralRules() throws {
        let po = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("po")
        let languages = try String(contentsOf: po.appendingPathComponent("LINGUAS"), encoding: .utf8)
            .split(separator: "\n").flatMap { $0.prefix { $0 != "#" }.split(separator: " ") }.map(String.init)
        #expect(languages == ["de", "es", "fr"])
        for language in languages {
            let text = try String(contentsOf: po.appendingPathComponent(language + ".po"), encoding: .utf8)
            let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("\"Plural-Forms:") }, "\(language): no Plural-Forms")
            let header = String(line.dropFirst().prefix { $0 != "\\" })   // "Plural-Forms: …;\n" → its text
            let rule = try #require(PluralRule(header: header), "\(language): \(header)")
            let said = try #require(Int(header.split(separator: "nplurals=")[1].prefix { $0.isNumber }))
            #expect(rule.forms == said, "\(language)")
        }
    }

    @Test("whose language: LANGUAGE's list first, then LC_ALL, LC_MESSAGES, LANG; C means English; a region falls back to its language; a file that is no catalog is none")
    func languages() throws {
        let folder = try compiledCatalogs(["de": Self.german])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(Translator.languages(environment: ["LANG": "de_DE.UTF-8"]) == ["de_DE.UTF-8"])
        #expect(Translator.languages(environment: ["LANG": "de_DE.UTF-8", "LC_MESSAGES": "fr_FR.UTF-8"]) == ["fr_FR.UTF-8"])
        #expect(Translator.languages(environment: ["LANG": "fr_FR.UTF-8", "LC_ALL": "es_ES.UTF-8", "LANGUAGE": "de:fr"]) == ["de", "fr", "es_ES.UTF-8"])
        #expect(Translator.languages(environment: ["LANGUAGE": "de", "LC_ALL": "C"]) == ["C"])
        #expect(Translator.languages(environment: [:]) == ["C"])
        #expect(Translator.forLanguages(["de_AT.UTF-8@euro"], folder: folder).language == "de")
        #expect(Translator.forLanguages(["de-CH"], folder: folder).language == "de")
        #expect(Translator.forLanguages(["sv_SE", "de"], folder: folder).language == "de")
        #expect(Translator.forLanguages(["en_GB.UTF-8", "de"], folder: folder).language == nil)
        // A name, never a path (a child's account may say any language it likes): "de/" would
        // have found the catalog of de.
        for name in ["de/", "de/../de", "/de", "de\u{0}"] { #expect(Translator.forLanguages([name], folder: folder).language == nil, "\(name)") }
        try "not a catalog".write(toFile: folder + "/de/LC_MESSAGES/screentime.mo", atomically: true, encoding: .utf8)
        #expect(Translator.forLanguages(["de"], folder: folder).language == nil)
    }
}
