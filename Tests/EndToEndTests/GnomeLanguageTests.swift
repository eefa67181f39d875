import Foundation
import TestSupport
import Testing

/// The GNOME Shell extension in the family's language (issue #41): its catalogs (po/gnome-shell,
/// its own gettext domain) are complete and sound, and the check fails on what would leave a word
/// in English; in a real headless GNOME Shell (Debian's 43) started with LANG=de_DE.UTF-8 its top
/// bar, its menu and its notifications speak German, from the real system daemon's figures.
///
/// GJS translates with glibc's gettext, which translates only in a locale the machine has; a
/// Debian without the locale (its default has only C.UTF-8) would show English and say nothing.
/// `make test-deps` adds German, Spanish and French to the machine's locales (from Debian's
/// `locales` package), as a family's computer has its own language; without them these tests
/// fail, saying so. (Not a locale of the test's own through LOCPATH: the system daemon rightly does
/// not believe a GNOME Shell started with LOCPATH, which a session does not need.)
///
/// The child is uid 65090, which no other test uses.
@Suite("GNOME Shell: the extension in German, Spanish and French", .ownThread, .serialized)
struct GnomeLanguageTests {
    static let child: UInt32 = TestUser.ensure(uid: 65090, name: "stgnomede65090")
    static let name = "stgnomede65090"
    static let tool = ReplayBinaryTests.root.appendingPathComponent("tools/messages").path

    /// Fails the test unless the machine has each of `locales` (e.g. "de_DE") in UTF-8, as
    /// LANG=de_DE.UTF-8 names it.
    static func requireLocales(_ locales: [String]) throws {
        let r = try ReplayBinaryTests.runBinary("/usr/bin/locale", ["-a"])
        let have = Set(r.stdout.split(separator: "\n").map(String.init))
        for locale in locales {
            try #require(have.contains("\(locale).utf8"), "the locale \(locale).UTF-8 is not on this machine (locale -a: \(have.sorted())): make test-deps adds it")
        }
    }

    /// `tools/messages ARGS` with `po` (a folder) in place of the repository's po/.
    static func messages(_ args: [String], po: String? = nil) throws -> ReplayBinaryTests.Run {
        try ReplayBinaryTests.runBinary("/usr/bin/env", (po.map { ["SCREENTIME_PO=\($0)"] } ?? []) + [tool] + args)
    }

    @Test("every word of the extension is a message in its template, each translated in de, es and fr keeping its braces (msgfmt --check at 100 %); a broken catalog, a stale template and a string left out are each named")
    func catalogsComplete() throws {
        let ok = try Self.messages(["check"])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout.contains("messages of the GNOME Shell extension: ") && ok.stdout.contains(" in its template, all translated in de, es, fr\n"), "\(ok.stdout)")

        /// The check on a copy of po/ whose `file` (under po/gnome-shell) is changed by `change`: it fails, saying `says`.
        func broken(_ file: String, says: String, _ change: (String) -> String) throws {
            let po = NSTemporaryDirectory() + "screentime-po-\(UUID().uuidString)"
            defer { try? FileManager.default.removeItem(atPath: po) }
            try FileManager.default.copyItem(atPath: ReplayBinaryTests.root.appendingPathComponent("po").path, toPath: po)
            let path = po + "/gnome-shell/" + file
            let before = try String(contentsOfFile: path, encoding: .utf8)
            let after = change(before)
            try #require(after != before, "\(file): the change found nothing to change")
            try after.write(toFile: path, atomically: true, encoding: .utf8)
            let r = try Self.messages(["check"], po: po)
            #expect(r.status != 0 && r.stderr.contains(says), "\(file): \(r.stdout)\(r.stderr)")
        }
        try broken("de.po", says: "po/gnome-shell/de.po") { $0.replacingOccurrences(of: "msgstr \"Punkte einlösen\"", with: "msgstr \"\"") }
        try broken("fr.po", says: "fuzzy") { $0.replacingOccurrences(of: "msgid \"Redeem points\"", with: "#, fuzzy\nmsgid \"Redeem points\"") }
        try broken("es.po", says: "does not keep the braces of “Games are stopped until {time}”") {
            $0.replacingOccurrences(of: "Los juegos están parados hasta las {time}", with: "Los juegos están parados un rato")
        }
        try broken("de.po", says: "does not keep the braces") { $0.replacingOccurrences(of: "{chore}: wartet auf deine Eltern", with: "{aufgabe}: wartet auf deine Eltern") }
        try broken("screentime-gnome-shell.pot", says: "po/gnome-shell/screentime-gnome-shell.pot is not what the extension says") {
            $0.replacingOccurrences(of: "msgid \"Redeem points\"\nmsgstr \"\"\n", with: "")
        }

        // A string a person would see, left out of the messages (a plain one, and a template
        // literal, which xgettext does not read): named with its place. One marked "not shown" is not.
        let source = NSTemporaryDirectory() + "screentime-gnome-source-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: source) }
        for folder in ["tools", "po", "desktop"] {
            try FileManager.default.copyItem(atPath: ReplayBinaryTests.root.appendingPathComponent(folder).path, toPath: source + "/" + folder)
        }
        let core = source + "/desktop/gnome-shell/core.js"
        let text = try String(contentsOfFile: core, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
        try (text + """
            const HELLO = 'Hello there';
            const LEFT = seconds => `${seconds} seconds left`;
            // not shown: a name for the journal
            const QUIET = 'the quiet one';

            """).write(toFile: core, atomically: true, encoding: .utf8)
        let r = try ReplayBinaryTests.runBinary(source + "/tools/messages", ["check"])
        #expect(r.status != 0 && r.stderr.contains("desktop/gnome-shell/core.js:\(lines): Hello there: words a person may see that are not a message"), "\(r.stderr)")
        #expect(r.stderr.contains("desktop/gnome-shell/core.js:\(lines + 1): `${seconds} seconds left`: words a person may see"), "\(r.stderr)")
        #expect(!r.stderr.contains("the quiet one"), "\(r.stderr)")
    }

    @Test("the packed extension, for 43 and for 45+, names its gettext domain and carries each language's compiled catalog in its locale/ folder")
    func packed() throws {
        for major in ["43", "45"] {
            let folder = try GnomeExtensionPackTests.pack(major)
            #expect(try GnomeExtensionPackTests.metadata(folder)["gettext-domain"] as? String == "screentime-gnome-shell")
            for language in ["de", "es", "fr"] {
                let mo = "\(folder)/locale/\(language)/LC_MESSAGES/screentime-gnome-shell.mo"
                let r = try ReplayBinaryTests.runBinary("/usr/bin/msgunfmt", [mo])
                #expect(r.status == 0 && r.stdout.contains("msgid \"Redeem points\""), "\(major) \(language): \(r.stderr)")
            }
        }
    }

    @Test("plural forms and what varies, by the real GJS in each language: one point and two, German's \"eine Minute\", French's singular for 0, and English where no locale is asked for")
    func pluralsByGJS() throws {
        let folder = try GnomeExtensionPackTests.pack("43")
        try Self.requireLocales(["de_DE", "es_ES", "fr_FR"])
        // core.js given the domain's functions as the extension's entry point gives them.
        let script = """
            imports.searchPath.unshift('\(folder)');
            const Gettext = imports.gettext;
            Gettext.bindtextdomain('screentime-gnome-shell', '\(folder)/locale');
            const {gettext, ngettext} = Gettext.domain('screentime-gnome-shell');
            const core = imports.core;
            core.createScreenTime({gettext, ngettext});
            const chores = core.choreItems([{chore: 'A', points: 0, state: 'open'}, {chore: 'B', points: 1, state: 'open'}, {chore: 'C', points: 2, state: 'approved'}]);
            print(chores.map(c => c.label).join('|'));
            print(core.answerWords('ask', {ok: true, request: {minutes: 1}}).title);
            print(core.answerWords('ask', {ok: true, request: {minutes: 5, screen: true}}).title);
            print(core.indicatorView({reward_available_seconds: 3900, reward_today_remaining_seconds: 7200, learning_today_seconds: 45, balance: 1, points_today: 1}, 0).text);
            // Refusals by their code and figures; one of a code not known here: a plain sentence in the
            // child's language, never the daemon's English.
            print(core.answerWords('redeem', {ok: false, code: 'not_redeemed', error: 'x', figures: {because: 'insufficient_points', cost: '40', balance: '10'}}).body);
            print(core.answerWords('chore_done', {ok: false, code: 'not_claimed', error: 'x', figures: {because: 'chore_waits', chore: 'Abwasch', period: 'day'}}).body);
            print(core.answerWords('ask', {ok: false, code: 'from_a_newer_daemon', error: 'something new'}).body);
            """
        func run(_ language: [String]) throws -> [String] {
            let r = try ReplayBinaryTests.runBinary("/usr/bin/env", ["-u", "LANGUAGE", "-u", "LC_ALL", "-u", "LC_MESSAGES", "-u", "LANG", "-u", "LC_CTYPE"]
                                                    + language + ["/usr/bin/gjs", "-c", script])
            #expect(r.status == 0, "\(r.stderr)")
            return r.stdout.split(separator: "\n").map(String.init)
        }
        #expect(try run(["LANG=de_DE.UTF-8"]) == ["A (0 Punkte)|B (1 Punkt)|C: geschafft, 2 Punkte", "Du hast um eine Minute mehr gebeten",
                                                 "Du hast um 5 Minuten mehr Bildschirmzeit gebeten", "1 Std. 5 Min. · 1 Pkt.",
                                                 "Das kostet 40 Punkte, und du hast 10.", "Du hast Abwasch schon gemeldet: es wartet auf deine Eltern.", "Das hat diesmal nicht geklappt. Frag deine Eltern."])
        #expect(try run(["LANG=es_ES.UTF-8"]) == ["A (0 puntos)|B (1 punto)|C: hecho, 2 puntos", "Has pedido 1 minuto más",
                                                 "Has pedido 5 minutos más de pantalla", "1 h 5 min · 1 punto",
                                                 "Cuesta 40 puntos, y tienes 10.", "Ya avisaste de Abwasch: espera a tus padres.", "Esta vez no ha funcionado. Pregunta a tus padres."])
        #expect(try run(["LANG=fr_FR.UTF-8"]) == ["A (0 point)|B (1 point)|C : fait, 2 points", "Tu as demandé 1 minute de plus",
                                                 "Tu as demandé 5 minutes d’écran en plus", "1 h 5 min · 1 pt",
                                                 "Ça coûte 40 points, et tu en as 10.", "Tu as déjà annoncé Abwasch : ça attend tes parents.", "Ça n'a pas marché cette fois. Demande à tes parents."])
        // LANGUAGE first, as gettext has it; C, and a language without a catalog, in English.
        #expect(try run(["LANG=de_DE.UTF-8", "LANGUAGE=fr"])[1] == "Tu as demandé 1 minute de plus")
        let english = ["A (0 points)|B (1 point)|C: done, 2 points", "You asked for 1 more minute", "You asked for 5 more minutes of screen time", "1 h 5 min · 1 pt",
                       "It costs 40 points, and you have 10.", "You already said Abwasch is done: it waits for your parents.", "That did not work this time. Ask your parents."]
        #expect(try run(["LANG=C.UTF-8"]) == english)
        // (Without LANG, gjs prints in ASCII: LC_CTYPE alone keeps UTF-8 for the "·", and the messages C.)
        #expect(try run(["LC_CTYPE=C.UTF-8"]) == english)
    }

    /// A parent's passphrase, requests, a chore of 20 points and one of 1, redeeming by the child,
    /// and a screen time limit of 2 hours with bedtime at 23:00 (about noon in its zone now).
    static func policy(hash: String) -> String {
        """
        version = 1
        timezone = "\(NoonZone.name)"
        [points]
        per_reward_minute = 1
        [rewards]
        child_may_redeem = true
        [parents]
        users = ["mum"]
        passphrase_hash = "\(hash)"
        [requests]
        max_per_day = 3
        [[chores]]
        name = "Abwasch"
        points = 20
        every = "day"
        [[chores]]
        name = "Bett machen"
        points = 1
        every = "day"
        [screen]
        daily_limit = "2h"
        allowed_hours = ["00:00-23:00"]
        """
    }

    @Test("GNOME Shell started with LANG=de_DE.UTF-8: the top bar, the menu's lines and items, its fields' hints, and the notifications of a refused ask, an ask, a chore and a redemption, in German")
    func menuAndIndicatorInGerman() throws {
        _ = Self.child
        try Self.requireLocales(["de_DE"])
        let hash = try PassphraseEndToEndTests.mkpasswd(WebPageTests.passphrase)
        let logind = try MockLogind()
        let d = try SystemModeTests.SystemDaemon(policies: [Self.name: Self.policy(hash: hash)], logind: logind.address)
        defer { try? d.stop() }
        _ = try d.waitFor("watching uid 65090")
        let given = try d.stctl(0, ["adjust", "16", "--reason", "for the test", "--user", Self.name])
        try #require(given.status == 0, "\(given.stderr)")
        let shell = try GnomeShellSession(uid: Self.child, packed: try GnomeShellTests.packed(), systemWide: true, socket: d.socket,
                                          environment: ["LANG": "de_DE.UTF-8"], logind: logind)
        defer { shell.stop() }

        // The top bar: no game time now, 16 points; screen time left of the 2 hours.
        GnomeMenuTests.until("the top bar in German") { shell.indicator("Text") == "(<'keine Spielzeit · 16 Pkt.'>,)\n" }
        #expect(shell.indicator("Text") == "(<'keine Spielzeit · 16 Pkt.'>,)\n")
        let screen = shell.indicator("ScreenText")
        #expect(screen.wholeMatch(of: #/\(<'(2 Std\.|1 Std\. 5[0-9] Min\.)'>,\)\n/#) != nil, "\(screen)")
        // The menu's lines (gdbus prints each line break as \n, and the whole in double quotes when
        // it holds an apostrophe: the daemon's blind spots, which follow, in the daemon's own words,
        // still English; here it has no seat's keyboard, nor a desktop bus to reach).
        let details = shell.indicator("Details")
        #expect(details.hasPrefix(#"(<'Heute noch Bildschirmzeit: "#) || details.hasPrefix(#"(<"Heute noch Bildschirmzeit: "#), "\(details)")
        for line in [#" von 2 Std.\nSchlafenszeit heute Abend: 23:00\nSpielzeit jetzt: keine Spielzeit\n"#,
                     #"\nHeute noch Spielzeit: keine Spielzeit\nPunkte: 16 (heute "#, #")\nHeute gelernt: 0 s"#] {
            #expect(details.contains(line), "\(line) not in \(details)")
        }
        #expect(details.contains(#"\nHeute am Bildschirm: "#), "\(details)")

        // The menu: its items, the redemptions priced (those 16 points cannot pay for greyed), today's chores.
        #expect(shell.openMenu())
        GnomeMenuTests.until("the chores in the menu") { shell.menuItems().contains("'Abwasch (20 Punkte)'") }
        let items = shell.menuItems()
        for item in ["'Um mehr Zeit bitten'", "'Um Spielzeit bitten'", "'Um Bildschirmzeit bitten'", "'Ich habe eine Aufgabe erledigt'",
                     "'Abwasch (20 Punkte)'", "'Bett machen (1 Punkt)'", "'Punkte einlösen'", "'15 Min. Spielzeit für 15 Punkte'",
                     "'30 Min. Spielzeit für 30 Punkte [off]'", "'60 Min. Spielzeit für 60 Punkte [off]'"] {
            #expect(items.contains(item), "\(item) not in \(items)")
        }

        // Asking: a number the menu does not take is refused by the extension, in German; then
        // 20 minutes with a reason, through the German hints of the fields.
        #expect(shell.click("Um mehr Zeit bitten"))
        #expect(shell.type(into: "Minuten", "0"))
        #expect(shell.click("Um Spielzeit bitten"))
        GnomeMenuTests.until("the refusal of 0 minutes") {
            shell.notificationsShown().contains("Noch nicht gefragt: Schreib, wie viele Minuten du möchtest: eine Zahl von 1 bis 1440.")
        }
        #expect(shell.type(into: "Minuten", "20"))
        #expect(shell.type(into: "Warum? Deine Eltern lesen es", "Hausaufgaben fertig"))
        #expect(shell.click("Um Spielzeit bitten"))
        GnomeMenuTests.until("the notification of the ask") {
            shell.notificationsShown().contains("Du hast um 20 Minuten mehr gebeten: Deine Eltern sehen es und antworten; die Antwort kommt hier an.")
        }
        let asked = try d.json(0, ["requests", "--user", Self.name])["requests"] as? [[String: Any]] ?? []
        #expect(asked.count == 1 && asked.first?["minutes"] as? Int == 20 && asked.first?["reason"] as? String == "Hausaufgaben fertig", "\(asked)")

        // A chore of one point: claimed, then waiting.
        #expect(shell.openMenu())
        #expect(shell.click("Ich habe eine Aufgabe erledigt"))
        #expect(shell.click("Bett machen (1 Punkt)"))
        GnomeMenuTests.until("the notification of the chore") {
            shell.notificationsShown().contains("Du hast gesagt: „Bett machen“ ist erledigt: Deine Eltern schauen nach; dann gehören die Punkte dir.")
        }
        #expect(shell.openMenu())
        GnomeMenuTests.until("the chore waiting in the menu") { shell.menuItems().contains("'Bett machen: wartet auf deine Eltern [off]'") }

        // 15 minutes redeemed for 15 of the 16 points: one point left, and 15 minutes of game time in the top bar.
        #expect(shell.click("Punkte einlösen"))
        #expect(shell.click("15 Min. Spielzeit für 15 Punkte"))
        GnomeMenuTests.until("the notification of the redemption") {
            shell.notificationsShown().contains("Spielzeit eingelöst: Das hat 15 Punkte gekostet; du hast noch 1.")
        }
        GnomeMenuTests.until("the top bar after the redemption") { shell.indicator("Text") == "(<'15 Min. · 1 Pkt.'>,)\n" }
        #expect(shell.indicator("Details").contains(#"\nSpielzeit jetzt: 15 Min.\n"#), "\(shell.indicator("Details"))")
        #expect(shell.menuItems().contains("'15 Min. Spielzeit für 15 Punkte [off]'"), "\(shell.menuItems())")
    }
}
