import Testing
@testable import ScreenTimeWords

/// Whose language: what an account's AccountsService file and a computer's locale file say.
@Suite struct LanguagesTests {
    @Test("AccountsService: Languages (a list) before Language, only in [User]; nothing when it names none")
    func accountsService() {
        #expect(Translator.languages(accountsService: "[User]\nLanguage=de_DE.UTF-8\nXSession=gnome\n") == ["de_DE.UTF-8"])
        #expect(Translator.languages(accountsService: "[User]\nLanguages=es_ES.UTF-8;fr_FR.UTF-8;\nLanguage=de_DE.UTF-8\n") == ["es_ES.UTF-8", "fr_FR.UTF-8"])
        #expect(Translator.languages(accountsService: "[InputSource0]\nLanguage=de_DE.UTF-8\n[User]\nSystemAccount=false\n") == [])
        #expect(Translator.languages(accountsService: "[User]\nLanguage=\n") == [])
        #expect(Translator.languages(accountsService: "  [User]  \r\n  Language = fr_FR.UTF-8  \r\n") == ["fr_FR.UTF-8"])
        #expect(Translator.languages(accountsService: "") == [])
    }

    @Test("a locale file: quoted or not, comments left out, LANGUAGE before LANG as gettext reads them; C is C; nothing when it sets none")
    func localeFile() {
        #expect(Translator.languages(localeFile: "# set by the installer\nLANG=\"de_DE.UTF-8\"\n") == ["de_DE.UTF-8"])
        #expect(Translator.languages(localeFile: "LANG=fr_FR.UTF-8\nLANGUAGE=fr:en\n") == ["fr", "en", "fr_FR.UTF-8"])
        #expect(Translator.languages(localeFile: "LANG='es_ES.UTF-8'\nLC_MESSAGES=de_DE.UTF-8\n") == ["de_DE.UTF-8"])
        #expect(Translator.languages(localeFile: "LANG=C.UTF-8\n") == ["C.UTF-8"])
        #expect(Translator.languages(localeFile: "# LANG=de_DE.UTF-8\nLC_TIME=de_DE.UTF-8\n") == [])
    }

    @Test("the catalogs' folder: SCREENTIME_LOCALEDIR, else none beside a program that has none: the system's")
    func catalogFolder() {
        #expect(Translator.catalogFolder(environment: ["SCREENTIME_LOCALEDIR": "/tmp/x"], executable: "/usr/bin/stctl") == "/tmp/x")
        #expect(Translator.catalogFolder(environment: [:], executable: "/nonexistent-screentime/bin/stctl") == Translator.systemFolder)
        #expect(Translator.catalogFolder(environment: ["SCREENTIME_LOCALEDIR": ""], executable: "") == Translator.systemFolder)
    }
}
