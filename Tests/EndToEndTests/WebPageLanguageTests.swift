import Foundation
import TestSupport
import Testing

/// The parents' page in the family's language (issue #41), end to end: the real system daemon
/// with an imported afternoon, screentime-web with the catalogs of po/ compiled for this test,
/// and a real headless Chromium whose language is German, then Spanish (Scripts/web-language.py).
///
/// Test users: 65082 (the child), which no other test uses; 65071 (the page's own user, as
/// WebPageTests').
@Suite("The parents' page in German and Spanish, end to end", .ownThread, .serialized)
struct WebPageLanguageTests {
    static let child: UInt32 = TestUser.ensure(uid: 65082, name: "stkid65082")

    @Test("Chromium asking for German, then for Spanish (Accept-Language): login, family (and a form's answer), a child's day and the week's charts in that language with <html lang>; a language chosen on the page (its cookie) wins over the browser's, English included")
    func germanAndSpanish() throws {
        // The catalogs as `make build` compiles them, here into a folder of this test's own (the
        // page's user must read it): no catalog, no German, and the test fails.
        let locales = try LanguageTests.compiledLocales()
        defer { try? FileManager.default.removeItem(atPath: locales) }
        for language in ["de", "es"] {
            try #require(FileManager.default.fileExists(atPath: "\(locales)/\(language)/LC_MESSAGES/screentime.mo"), "no \(language) catalog compiled")
        }
        _ = (Self.child, WebPageTests.webUser)
        let hash = try PassphraseEndToEndTests.mkpasswd(WebPageTests.passphrase)
        let d = try SystemModeTests.SystemDaemon(policies: ["stkid65082": try WebPageTests.policy(hash: hash)], arguments: ["--web-user", "stweb65071"],
                                                 importing: ["stkid65082": Readable.path("policies/demo-day.jsonl")])
        defer { try? d.stop() }
        _ = try d.waitFor("screentimed: watching uid 65082")
        let page = try WebPageTests.Page(socket: d.socket, lifetime: "30m", environment: ["SCREENTIME_LOCALEDIR": locales])
        defer { page.stop() }
        for language in ["de", "es"] {
            let shots = ReplayBinaryTests.root.appendingPathComponent(".build/web-screenshots-\(language)").path
            try? FileManager.default.removeItem(atPath: shots)
            try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: shots + "/profile") }
            let r = try WebPageTests.script("web-language.py", ["URL": page.url, "PASSPHRASE": WebPageTests.passphrase, "CHILD": "stkid65082",
                                                               "SHOTS": shots, "DAY": WebPageTests.demoDay, "BROWSER_LANG": language])
            #expect(r.status == 0 && r.stdout.hasSuffix("ok\n"), "\(language): \(r.stdout)\(r.stderr)")
            for name in ["family-\(language)", "child-week-\(language)"] {
                #expect(FileManager.default.fileExists(atPath: "\(shots)/\(name)-390x844.png"), "no screenshot \(name) at 390 px")
            }
        }
    }
}
