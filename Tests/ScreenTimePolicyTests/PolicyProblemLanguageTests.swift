import Foundation
import ScreenTimeCore
@testable import ScreenTimePolicy
import ScreenTimeWords
import TestSupport
import Testing

/// A policy's problems in the language of the person who reads them (`stctl policy check` gives
/// the loader its translator): each problem a message of the catalog, filled in, at its file and
/// line as in English; English where the catalog has no translation, and when no translator is given.
@Suite("Policy problems in the reader's language")
struct PolicyProblemLanguageTests {
    /// A tiny German catalog, compiled by the real msgfmt: the po/ catalogs may not translate these
    /// messages yet, and this test is about the loader asking for them, not about their words.
    static let german = """
        msgid ""
        msgstr ""
        "Project-Id-Version: screentime tests\\n"
        "PO-Revision-Date: 2026-11-29 17:00+0000\\n"
        "Last-Translator: tests\\n"
        "Language-Team: German\\n"
        "Language: de\\n"
        "MIME-Version: 1.0\\n"
        "Content-Type: text/plain; charset=UTF-8\\n"
        "Content-Transfer-Encoding: 8bit\\n"
        "Plural-Forms: nplurals=2; plural=(n != 1);\\n"

        msgid "unknown key '{key}' in {table}"
        msgstr "unbekannter Schlüssel '{key}' in {table}"

        msgid "{problem} (did you mean '{word}'?)"
        msgstr "{problem} (meinten Sie '{word}'?)"

        msgid "'{key}' must be a string, not {found}"
        msgstr "'{key}' muss ein Text sein, nicht {found}"

        msgctxt "a policy value's kind"
        msgid "a whole number"
        msgstr "eine ganze Zahl"

        msgid "not valid TOML: a table header starts with a name, like [rewards] or [[apps]], not the end of the line"
        msgstr "kein gültiges TOML: ein Tabellenkopf beginnt mit einem Namen, wie [rewards] oder [[apps]], nicht mit dem Zeilenende"

        msgid "no such file"
        msgstr "keine solche Datei"

        msgid "'{key}' is not a policy key: write it as table.key (rewards.daily_limit), list[name].key (chores[Feed the cat].points) or list[name]"
        msgstr "'{key}' ist kein Schlüssel der Regeln: schreiben Sie tabelle.schlüssel (rewards.daily_limit), liste[name].schlüssel (chores[Feed the cat].points) oder liste[name]"

        msgid "{key}: there is no such entry"
        msgstr "{key}: diesen Eintrag gibt es nicht"
        """

    static let bad = """
        version = 1
        timezone = "UTC"
        [rewards]
        daily_limt = "1h"
        [[apps]]
        name = 5
        [screen]
        relocks = 500

        """

    @Test("a bad policy file's problems in German, each at its file and line; English where the catalog has none, and without a translator")
    func germanProblems() throws {
        let folder = try compiledCatalogs(["de": Self.german])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let de = Translator.forLanguages(["de_DE.UTF-8"], folder: folder)
        try #require(de.language == "de")
        let path = folder + "/policy.toml"
        try Self.bad.write(toFile: path, atomically: true, encoding: .utf8)

        let german = try #require(throws: PolicyError.self) { try PolicyLoader.load(path: path, tr: de) }
        #expect(german.problems == [
            .init(line: 4, message: "unbekannter Schlüssel 'daily_limt' in [rewards] (meinten Sie 'daily_limit'?)"),
            .init(line: 6, message: "'name' muss ein Text sein, nicht eine ganze Zahl"),
            .init(line: 8, message: "'relocks' must be from 0 to 100, not 500"),     // not in the catalog: English
        ])
        #expect(german.description.hasPrefix("\(path):4: unbekannter Schlüssel 'daily_limt'"), "\(german.description)")

        let withText = try #require(throws: PolicyError.self) { try PolicyLoader.loadWithText(path: path, tr: de) }
        #expect(withText.problems == german.problems)
        let parsed = try #require(throws: PolicyError.self) { try PolicyLoader.parse(Self.bad, file: "p.toml", systemZone: .utc, tr: de) }
        #expect(parsed.description.split(separator: "\n").first == "p.toml:4: unbekannter Schlüssel 'daily_limt' in [rewards] (meinten Sie 'daily_limit'?)")

        // The daemon gives no translator: its journal stays English.
        let english = try #require(throws: PolicyError.self) { try PolicyLoader.load(path: path) }
        #expect(english.problems.map(\.message) == [
            "unknown key 'daily_limt' in [rewards] (did you mean 'daily_limit'?)",
            "'name' must be a string, not a whole number",
            "'relocks' must be from 0 to 100, not 500",
        ])

        // A file that is not there, and a mistake of TOML itself.
        let missing = try #require(throws: PolicyError.self) { try PolicyLoader.load(path: folder + "/none.toml", tr: de) }
        #expect(missing.description == "\(folder)/none.toml:0: keine solche Datei")
        let syntax = try #require(throws: PolicyError.self) { try PolicyLoader.parse("version = 1\n[\n", file: "p.toml", systemZone: .utc, tr: de) }
        #expect(syntax.description == "p.toml:2: kein gültiges TOML: ein Tabellenkopf beginnt mit einem Namen, wie [rewards] oder [[apps]], nicht mit dem Zeilenende")
    }

    @Test("a policy key's and an edit's problems in German")
    func germanEdits() throws {
        let folder = try compiledCatalogs(["de": Self.german])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let de = Translator.forLanguages(["de"], folder: folder)
        let key = try #require(throws: PolicyEditError.self) { try PolicyKey(parsing: "rewards..x", tr: de) }
        #expect(key.description.hasPrefix("'rewards..x' ist kein Schlüssel der Regeln: schreiben Sie tabelle.schlüssel"))
        let english = try #require(throws: PolicyEditError.self) { try PolicyKey(parsing: "rewards..x") }
        #expect(english.description.hasPrefix("'rewards..x' is not a policy key: write it as table.key"))

        var editor = PolicyEditor(text: "version = 1\n", tr: de)
        let edit = try #require(throws: PolicyEditError.self) {
            try editor.apply(PolicyEdit(key: PolicyKey(table: "apps", entry: "Mystery", key: nil), value: nil))
        }
        #expect(edit.description == "apps[Mystery]: diesen Eintrag gibt es nicht")
    }
}
