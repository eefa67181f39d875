import ControlProtocol
import Foundation
import ParentsPage
import ScreenTimeCore
import ScreenTimeWords
import Testing

/// The parents' page in the family's language (issue #41), rendered with the catalogs of po/ as
/// `tools/messages compile` makes them: its words, weekdays, dates and numbers, `<html lang>`,
/// and the links that choose another language.
@Suite("The parents' page in German and Spanish")
struct PageLanguageTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// po/ compiled into a folder of this test's own and read (a catalog is read whole), the
    /// folder then removed; fails (never passes silently) when it cannot be.
    static let catalogs: Result<[String: Translator], PageTestFailure> = {
        let folder = NSTemporaryDirectory() + "screentime-page-locale-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: root + "/tools/messages")
        p.arguments = ["compile", folder]
        do { try p.run() } catch { return .failure(PageTestFailure(description: "tools/messages compile did not start: \(error)")) }
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { return .failure(PageTestFailure(description: "tools/messages compile \(folder) failed")) }
        var read: [String: Translator] = [:]
        for language in ["de", "es", "fr"] { read[language] = Translator.forLanguages([language], folder: folder) }
        return .success(read)
    }()

    static func words(_ language: String) throws -> Translator {
        let tr = try catalogs.get()[language] ?? .english
        try #require(tr.language == language, "no \(language) catalog compiled from po/")
        return tr
    }

    static func member(balance: Int64 = 1234) -> ControlReply.FamilyMember {
        let request = ControlReply.RequestLine(child: nil, id: "7", at: "2026-11-23T10:00:00Z", minutes: 20, reason: "noch ein Level",
                                               state: "pending", expiresAt: nil, pay: nil, minutesGranted: nil, decidedAt: nil, by: nil, answer: nil)
        return .init(child: "emma", status: PageTests.status(balance: balance, requests: [request]))
    }

    static let week = [("2026-11-17", 0), ("2026-11-23", 4500)].map { d in
        ControlReply.ReportDay(day: d.0, learningCreditedSeconds: Int64(d.1), learningRefusedSeconds: 600, refused: [],
                               pointsEarned: 1500, pointsSpent: 20, pointsAdjusted: 0, rewardUsedSeconds: 1800,
                               rewardDailyLimitSeconds: 3600, topApps: [])
    }

    static let sessions = [ControlReply.SessionLine(app: "GCompris", category: "learning", start: "2026-11-23T14:05:00Z", end: "2026-11-23T14:35:00Z",
                                                    seconds: 1800, creditedSeconds: 1200, points: 20, verdict: "partial",
                                                    refused: [.init(reason: "idle", seconds: 600)], flags: [])]

    @Test("German: the login, the family and a child's day with its charts; <html lang=\"de\">; weekdays, dates, 1.234 points and 24-hour times as German writes them")
    func german() throws {
        let tr = try Self.words("de")
        let login = LoginPage.page(csrf: "n", error: nil, tr: tr)
        #expect(login.contains("<html lang=\"de\""))
        #expect(login.contains("Welcher Elternteil bist du?") && login.contains("Passwort der Eltern") && login.contains(">Anmelden</button>"), "\(login)")
        #expect(!login.contains("Log in") && !login.contains("passphrase <"))

        let family = FamilyPage.page([Self.member()], csrf: "t0k", flash: nil, tr: tr)
        #expect(family.contains("<html lang=\"de\""))
        for words in ["<title>Familie · screentime</title>", "Spielzeit heute noch übrig", "Heute gelernt", ">1.234</dd>", "Bittet um <strong>20 Min.</strong>",
                      "Erlauben (40 Punkte)", "Schenken", "1 wartet", ">Abmelden</button>", "Tag und Woche von emma", " von 45 Min. Ziel"] {
            #expect(family.contains(words), "\(words) is not on the German family page")
        }
        for english in ["Game time left", "Learning today", "Approve", "Log out", " goal", "Reason"] {
            #expect(!family.contains(english), "\(english) is still English on the German family page")
        }

        let child = ChildPage.page(child: "emma", day: "2026-11-23", today: "2026-11-24", sessions: Self.sessions, week: Self.week, csrf: "t0k", tr: tr)
        #expect(child.contains("<html lang=\"de\""))
        for words in ["<h2>Montag, 23. November 2026</h2>", "14:05–14:35", "20 Min. von 30 Min. gezählt, 20 Punkte", "; nicht gezählt: untätig (10 Min.)", "Die Woche bis 23. November 2026", "am Tag danach →", "Lernen: gezählt und nicht gezählt",
                      ">Di 17.</text>", ">Mo 23.</text>", "<th scope=\"row\">Dienstag, 17. November 2026</th>", "1 Std. 15 Min.", ">1:15 h</text>",
                      "Spielzeit und das Tageslimit von 1 Std. 00 Min.", ">1.500</text>", "1.500 Punkte verdient oder geschenkt"] {
            #expect(child.contains(words), "\(words) is not on the German day page")
        }
        #expect(!child.contains("Monday") && !child.contains(">Mon ") && !child.contains("not counted") && !child.contains(" of game time"))
    }

    @Test("Spanish: the login, the family and a child's day with its charts; <html lang=\"es\">; weekdays and dates as Spanish writes them, no grouping under five digits")
    func spanish() throws {
        let tr = try Self.words("es")
        let login = LoginPage.page(csrf: "n", error: nil, tr: tr)
        #expect(login.contains("<html lang=\"es\"") && login.contains("Contraseña de los padres") && login.contains(">Entrar</button>"), "\(login)")

        let family = FamilyPage.page([Self.member()], csrf: "t0k", flash: nil, tr: tr)
        for words in ["<html lang=\"es\"", "Tiempo de juego que queda hoy", "Aprendizaje de hoy", ">1234</dd>", "Pide <strong>20 min</strong>",
                      "Aprobar (40 puntos)", "Regalar", "1 pendiente", "Cerrar sesión", "El día y la semana de emma"] {
            #expect(family.contains(words), "\(words) is not on the Spanish family page")
        }
        #expect(FamilyPage.page([Self.member(balance: 12345)], csrf: "t0k", flash: nil, tr: tr).contains(">12.345</dd>"))

        let child = ChildPage.page(child: "emma", day: "2026-11-23", today: "2026-11-24", sessions: Self.sessions, week: Self.week, csrf: "t0k", tr: tr)
        for words in ["<html lang=\"es\"", "<h2>Lunes, 23 de noviembre de 2026</h2>", "14:05–14:35", "contaron 20 min de 30 min, 20 puntos; no contó: sin actividad (10 min)",
                      "La semana hasta el 23 de noviembre de 2026", "el día siguiente →", "Aprendizaje: lo que contó y lo que no",
                      ">mar 17</text>", ">lun 23</text>", "Martes, 17 de noviembre de 2026", "Tiempo de juego frente al límite diario de 1 h 00 min"] {
            #expect(child.contains(words), "\(words) is not on the Spanish day page")
        }
    }

    @Test("French: <html lang=\"fr\">, its weekdays and a narrow no-break space between thousands")
    func french() throws {
        let tr = try Self.words("fr")
        let child = ChildPage.page(child: "emma", day: "2026-11-23", sessions: [], week: Self.week, csrf: "t0k", tr: tr)
        #expect(child.contains("<html lang=\"fr\"") && child.contains("<h2>Lundi 23 novembre 2026</h2>") && child.contains(">lun. 23</text>"))
        #expect(child.contains(">1\u{202F}500</text>") && child.contains("Aucune session ce jour-là."))
    }

    @Test("English stays as it was: <html lang=\"en\">, ISO dates in the headings, weekdays in English")
    func english() {
        let child = ChildPage.page(child: "emma", day: "2026-11-23", sessions: Self.sessions, week: Self.week, csrf: "t0k")
        #expect(child.contains("<html lang=\"en\"") && child.contains("<h2>Monday 2026-11-23</h2>") && child.contains(">Mon 23</text>"))
        #expect(child.contains("20 min of 30 min counted, 20 points; not counted: idle 10 min"))
        // Every reason code has words of its own in English (the daemon's list) and in German.
        let german = try? Self.words("de")
        for (code, words) in ControlReply.SessionLine.Refusal.words {
            #expect(ChildPage.reason(code, .english) == words)
            if let german { #expect(ChildPage.reason(code, german) != words, "\(code) is not in German") }
        }
        #expect(FamilyPage.page([Self.member()], csrf: "t0k", flash: nil).contains(">1,234</dd>"))
    }

    @Test("each page offers the other languages, each in its own words, as links that come back to the page; the one shown is not a link")
    func chooser() throws {
        let tr = try Self.words("de")
        let child = ChildPage.page(child: "emma", day: "2026-11-23", sessions: [], week: [], csrf: "t0k", tr: tr)
        #expect(child.contains("<strong lang=\"de\">Deutsch</strong>"))
        #expect(child.contains("<a href=\"/language?to=es&amp;back=%2Fchild%2Femma%3Fday%3D2026-11-23\" lang=\"es\" hreflang=\"es\">Español</a>"), "\(child)")
        #expect(child.contains("href=\"/language?to=en&amp;back=") && child.contains(">Français</a>") && child.contains("aria-label=\"Sprache\""))
        #expect(LoginPage.page(csrf: "n", error: nil).contains("<a href=\"/language?to=de&amp;back=%2Flogin\""))
    }

    @Test("a daemon's refusal on a German page: the page's words around the daemon's (English until it sends codes)")
    func refusal() throws {
        let tr = try Self.words("de")
        let flash = FamilyPage.page([Self.member()], csrf: "t0k", flash: .answer(ok: false, done: "", error: "wrong minutes (stctl status says)", tr: tr), tr: tr)
        #expect(flash.contains("<p class=\"error\" role=\"alert\">Nicht erledigt: wrong minutes.</p>"), "\(flash)")
    }
}

struct PageTestFailure: Error, CustomStringConvertible { var description: String }

@Suite("Which language the page speaks")
struct LanguageChoiceTests {
    static let here: Set<String> = ["de", "es", "fr"]

    @Test("the cookie's choice over the browser's Accept-Language, English included; a cookie naming no catalog counts for nothing; else the browser's; else English")
    func chosen() {
        #expect(LanguageChoice.language(cookie: "es", acceptLanguage: "de", available: Self.here) == "es")
        #expect(LanguageChoice.language(cookie: "en", acceptLanguage: "de", available: Self.here) == nil)
        #expect(LanguageChoice.language(cookie: "it", acceptLanguage: "de-AT, de;q=0.9", available: Self.here) == "de")
        #expect(LanguageChoice.language(cookie: "../../etc", acceptLanguage: nil, available: Self.here) == nil)
        #expect(LanguageChoice.language(cookie: nil, acceptLanguage: "fr-CA", available: Self.here) == "fr")
        #expect(LanguageChoice.language(cookie: nil, acceptLanguage: nil, available: Self.here) == nil)
        #expect(LanguageChoice.language(cookie: "de", acceptLanguage: "de", available: []) == nil)
    }

    @Test("a language link comes back to the page's own path, never to another site")
    func back() {
        #expect(LanguageChoice.back("/child/emma?day=2026-11-23") == "/child/emma?day=2026-11-23")
        #expect(LanguageChoice.back("/login") == "/login")
        for elsewhere in ["//evil.example/", "https://evil.example/", "/\\evil.example", "evil", "", "/a b", "/\u{0}x", "/\r\nSet-Cookie: x=1", nil,
                          "/" + String(repeating: "a", count: 600)] {
            #expect(LanguageChoice.back(elsewhere) == "/", "\(elsewhere ?? "nil")")
        }
    }
}

extension PageLanguageTests {
    @Test("the pages in English only (the policy, the first-run setup, a refusal) offer no other language; a running figure's words are the page's language for page.js")
    func englishOnly() throws {
        #expect(!PolicyPage.page(policy: "version = 1\n", child: "emma", children: ["emma"], csrf: "t").contains("/language?"))
        #expect(!HTML.page(title: "Not done", body: "", signedIn: false).contains("<footer>"))
        let family = FamilyPage.page([Self.member()], csrf: "t0k", flash: nil, tr: try Self.words("de"))
        #expect(family.contains("data-clock-m=\"{m} Min. {ss} s\"") && family.contains("data-clock-h=\"{h} Std. {mm} Min. {ss} s\""))
    }
}
