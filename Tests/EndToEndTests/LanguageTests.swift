import ControlProtocol
import Foundation
import ScreenTimeWords
import TestSupport
import Testing

/// The family's language (issue #41): the catalogs in po/ are complete and sound, and stctl
/// speaks the caller's language with them, from the real daemon's figures.
@Suite("In the family's language", .ownThread, .serialized)
struct LanguageTests {
    static let tool = ReplayBinaryTests.root.appendingPathComponent("tools/messages").path

    /// `tools/messages ARGS` with `po` (a folder) in place of the repository's po/.
    static func messages(_ args: [String], po: String? = nil) throws -> ReplayBinaryTests.Run {
        try ReplayBinaryTests.runBinary("/usr/bin/env", (po.map { ["SCREENTIME_PO=\($0)"] } ?? []) + [tool] + args)
    }

    /// The catalogs compiled from po/ into a folder of their own (`SCREENTIME_LOCALEDIR`); the
    /// caller removes it.
    static func compiledLocales() throws -> String {
        let locales = NSTemporaryDirectory() + "screentime-locale-\(UUID().uuidString)"
        let compiled = try messages(["compile", locales])
        try #require(compiled.status == 0, "\(compiled.stderr)")
        return locales
    }

    /// A copy of po/ to break.
    static func copyOfPo() throws -> String {
        let folder = NSTemporaryDirectory() + "screentime-po-\(UUID().uuidString)"
        try FileManager.default.copyItem(atPath: ReplayBinaryTests.root.appendingPathComponent("po").path, toPath: folder)
        return folder
    }

    @Test("every message in the sources is in the template, and every language translates each, keeping its braces (msgfmt --check at 100 %); a broken catalog is named")
    func catalogsComplete() throws {
        let ok = try Self.messages(["check"])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout.hasSuffix("all translated in de, es, fr\n"), "\(ok.stdout)")

        /// The check on a copy of po/ changed by `change` (the file's text in, out): it fails, saying `says`.
        func broken(_ file: String, says: String, _ change: (String) -> String) throws {
            let po = try Self.copyOfPo()
            defer { try? FileManager.default.removeItem(atPath: po) }
            let path = po + "/" + file
            try change(try String(contentsOfFile: path, encoding: .utf8)).write(toFile: path, atomically: true, encoding: .utf8)
            let r = try Self.messages(["check"], po: po)
            #expect(r.status != 0 && r.stderr.contains(says), "\(file): \(r.stdout)\(r.stderr)")
        }
        try broken("de.po", says: "po/de.po") { $0.replacingOccurrences(of: "msgstr \"Schlafenszeit\"", with: "msgstr \"\"") }
        try broken("de.po", says: "fuzzy") { $0.replacingOccurrences(of: "msgid \"Bedtime\"", with: "#, fuzzy\nmsgid \"Bedtime\"") }
        try broken("es.po", says: "does not keep the braces of “{left} left until bedtime”") {
            $0.replacingOccurrences(of: "quedan {left} hasta la hora de dormir", with: "queda poco hasta la hora de dormir")
        }
        try broken("fr.po", says: "does not keep the braces") { $0.replacingOccurrences(of: "il reste {left} cette semaine", with: "il reste {gauche} cette semaine") }
        try broken("screentime.pot", says: "po/screentime.pot is not what the sources say") { $0.replacingOccurrences(of: "msgid \"Bedtime\"\nmsgstr \"\"\n\n", with: "") }
        // A message with an interpolation could never be found in a catalog: refused.
        let source = NSTemporaryDirectory() + "screentime-po-source-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: source) }
        try FileManager.default.createDirectory(atPath: source + "/Sources/x", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: ReplayBinaryTests.root.appendingPathComponent("tools").path, toPath: source + "/tools")
        try "let a = tr(\"\\(n) minutes left\")\n".write(toFile: source + "/Sources/x/A.swift", atomically: true, encoding: .utf8)
        let refused = try ReplayBinaryTests.runBinary(source + "/tools/messages", ["extract"])
        #expect(refused.status != 0 && refused.stderr.contains("Sources/x/A.swift:1: a message with \\( … ) is never found in a catalog"), "\(refused.stderr)")

        // Words a person reads that are no message, in the Swift sources people read: each named
        // with its place; a mark says why one is not shown; a message, a command and a key pass.
        try FileManager.default.createDirectory(atPath: source + "/Sources/stctl", withIntermediateDirectories: true)
        try """
            let ok = tr("Game time now")
            let command = "stctl approve \\(id)"
            let key = ["balance": 1]
            print("Your game time is up")
            let label = "Points"
            let html = "<button aria-label=\\"Remove it\\">x</button>"
            let fields = "the journal's words"   // not shown: a line for the journal
            """.write(toFile: source + "/Sources/stctl/B.swift", atomically: true, encoding: .utf8)
        let unmarked = try ReplayBinaryTests.runBinary(source + "/tools/messages", ["unmarked"])
        #expect(unmarked.status != 0, "\(unmarked.stdout)")
        #expect(unmarked.stdout.split(separator: "\n").map(String.init)
                == ["Sources/stctl/B.swift:4: Your game time is up", "Sources/stctl/B.swift:5: Points", "Sources/stctl/B.swift:6: <button aria-label=\"Remove it\">x</button>"],
                "\(unmarked.stdout)")
    }

    @Test("stctl status, sessions and ask in German and in Spanish from the real daemon's figures, a session's reasons in the child's words; LANGUAGE before LANG; C and an unknown language in English")
    func statusInGermanAndSpanish() throws {
        let locales = try LanguageTests.compiledLocales()
        defer { try? FileManager.default.removeItem(atPath: locales) }
        let apps = try AppCopies.folder()
        defer { try? FileManager.default.removeItem(atPath: apps) }
        let d = try ControlSocketTests.RunningDaemon(policy: """
            version = 1
            timezone = "UTC"
            [points]
            per_reward_minute = 3
            daily_goal = "30m"
            [[apps]]
            name = "GCompris"
            category = "learning"
            exe = ["\(apps)/gcompris-qt"]
            """)
        /// `stctl COMMAND` as the child, with these variables (and no others of the language's).
        func stctl(_ command: String, _ variables: [String], _ more: [String] = []) throws -> [String] {
            let r = try ReplayBinaryTests.runBinary("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/env",
                "-u", "LANGUAGE", "-u", "LC_ALL", "-u", "LC_MESSAGES", "-u", "LANG", "SCREENTIME_LOCALEDIR=\(locales)"] + variables
                + [ControlSocketTests.stctl, command] + more + ["--socket", d.socket])
            #expect(r.status == 0, "\(r.stderr)")
            return r.stdout.split(separator: "\n").map { String($0).replacing(#/ {2,}/#, with: " ") }
        }
        func status(_ variables: [String]) throws -> [String] { try stctl("status", variables) }
        #expect(try stctl("sessions", ["LANG=de_DE.UTF-8"]) == ["Heute noch nichts."])
        #expect(try stctl("sessions", ["LANG=es_ES.UTF-8"]) == ["Todavía nada hoy."])
        let asked = try stctl("ask", ["LANG=de_DE.UTF-8"], ["10", "--reason", "Hausaufgaben fertig"])
        #expect(asked.count == 1 && asked[0].hasPrefix("Um 10 Min. Spielzeit gebeten (Anfrage 1); deine Eltern können bis ") && asked[0].hasSuffix(" antworten."),
                "\(asked)")
        let pedido = try stctl("ask", ["LANG=es_ES.UTF-8"], ["5"])
        #expect(pedido.count == 1 && pedido[0].hasPrefix("Has pedido 5 min de tiempo de juego (petición 2); tus padres pueden responder hasta las "), "\(pedido)")
        // The requests as a table, its headers, states and the child's words in each language.
        let anfragen = try stctl("requests", ["LANG=de_DE.UTF-8"])
        #expect(anfragen.first == "ID GEFRAGT MINUTEN STATUS NACHRICHT", "\(anfragen)")
        #expect(anfragen.contains { $0.hasPrefix("1 ") && $0.contains(" 10 wartet bis ") && $0.hasSuffix(" „Hausaufgaben fertig“") }, "\(anfragen)")
        let peticiones = try stctl("requests", ["LANG=es_ES.UTF-8"])
        #expect(peticiones.first == "ID CUÁNDO MINUTOS ESTADO MENSAJE", "\(peticiones)")
        #expect(peticiones.contains { $0.hasPrefix("2 ") && $0.contains(" 5 esperando hasta las ") }, "\(peticiones)")
        // A day's report: its heading with the weekday and the date as each language writes them.
        let bericht = try stctl("report", ["LANG=de_DE.UTF-8"], ["--day", "2026-11-22"])
        #expect(bericht.first == "Bericht für So 22.11.2026", "\(bericht)")
        #expect(bericht.contains("Lernen: █ gezählt, ░ nicht gezählt") && bericht.contains("Am meisten benutzt"), "\(bericht)")
        let informe = try stctl("report", ["LANG=es_ES.UTF-8"], ["--day", "2026-11-22"])
        #expect(informe.first == "Informe del dom 22/11/2026", "\(informe)")
        let german = try status(["LANG=de_DE.UTF-8"])
        #expect(german.contains("Punkte 0 (+0 heute; eine Spielminute kostet 3)"), "\(german)")
        #expect(german.contains("Spielzeit jetzt 0 s"), "\(german)")
        #expect(german.contains("Spielzeit heute 0 s (gespielt: 0 s)"), "\(german)")
        #expect(german.contains("Ziel heute 0 s von 30 Min. (0 Tage hintereinander)"), "\(german)")
        #expect(german.contains { $0.hasPrefix("Anfrage 1 10 Min.: wartet bis ") }, "\(german)")
        // What the daemon cannot see (no desktop hook here), from its code in the German catalog:
        // no English note.
        let de = Translator.forLanguages(["de"], folder: locales)
        let noHook = [BlindSpot.Code.noHookNoLearning, .noHookCPU].map { de("Note: {note}", ["note": BlindSpot($0).words(de)]) }
        let englishNotes = Set(BlindSpot.Code.allCases.map { BlindSpot($0).words() }.filter { !$0.isEmpty })
        #expect(german.contains { noHook.contains($0) } && !german.contains { line in englishNotes.contains { line.contains($0) } }, "\(german)")
        let spanish = try status(["LANG=es_ES.UTF-8"])
        #expect(spanish.contains("Puntos 0 (+0 hoy; un minuto de juego cuesta 3)"), "\(spanish)")
        #expect(spanish.contains("Tiempo de juego ahora 0 s"), "\(spanish)")
        #expect(spanish.contains("Meta de hoy 0 s de 30 min (0 días seguidos)"), "\(spanish)")
        #expect(spanish.contains { $0.hasPrefix("Petición 2 5 min: esperando hasta las ") }, "\(spanish)")
        #expect(try status(["LANG=de_DE.UTF-8", "LANGUAGE=es"]) == spanish)
        let english = try status(["LANG=C.UTF-8"])
        #expect(english.contains("Game time now 0 s") && english.contains("Goal today 0 s of 30 min (0 days in a row)"), "\(english)")
        #expect(try status(["LANG=sv_SE.UTF-8"]) == english)
        #expect(try status(["LC_ALL=C", "LANGUAGE=de"]) == english)

        // A learning app's session with no desktop hook: nothing counted, and why, in the child's words.
        let learning = try CrashTests.asNobody([apps + "/gcompris-qt", "60"])
        try Wait.until("the daemon to log the learning app's start", within: 30) {
            try ReplayBinaryTests.runBinary("/usr/bin/sqlite3", [d.state + "/screentime.sqlite",
                "SELECT count(*) FROM event WHERE line LIKE '%\"process_started\",\"pid\":\(learning.processIdentifier),%'"]).stdout.hasPrefix("1")
        }
        var sessions: [[String: Any]] = []
        func look() throws {
            let r = try ReplayBinaryTests.runBinary("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", ControlSocketTests.stctl,
                                                                          "sessions", "--json", "--socket", d.socket])
            sessions = (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?["sessions"] as? [[String: Any]] ?? []
        }
        // Running until the daemon's own clock (its status's `as_of`) is 3 s on from when it saw the
        // start: a session of a few seconds, none of them counted. Then ended, and saved.
        func asOf() throws -> Date? {
            let r = try ReplayBinaryTests.runBinary("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", ControlSocketTests.stctl,
                                                                          "status", "--json", "--socket", d.socket])
            return ((try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?["as_of"] as? String)
                .flatMap { try? Date($0, strategy: .iso8601) }
        }
        let seen = try #require(try asOf())
        try Wait.until("the daemon's clock 3 s on", within: 30) { try asOf().map { $0.timeIntervalSince(seen) >= 3 } ?? false }
        kill(learning.processIdentifier, SIGKILL)
        learning.waitUntilExit()
        try Wait.until("the session saved with its refused seconds", within: 30) {
            try look()
            return (sessions.first?["refused"] as? [[String: Any]] ?? []).contains { ($0["seconds"] as? Int ?? 0) >= 2 }
        }
        let refused = (sessions.first?["refused"] as? [[String: Any]] ?? []).filter { ($0["seconds"] as? Int ?? 0) > 0 }.compactMap { $0["reason"] as? String }
        // What each reason a session without a focus hook may have says, in German and Spanish.
        let reasons = ["no_focus_hook": ("screentime konnte nicht sehen, welches Fenster vorne war", "screentime no podía ver qué ventana estaba delante"),
                       "too_short": ("es war zu kurz", "fue demasiado corto"),
                       "unfocused": ("das Programm war nicht das Fenster vorne", "el programa no era la ventana de delante")]
        try #require(!refused.isEmpty && refused.allSatisfy { reasons[$0] != nil }, "reasons \(refused) in \(sessions)")
        let germanSessions = try stctl("sessions", ["LANG=de_DE.UTF-8"])
        #expect(germanSessions.first?.contains(" GCompris ") == true && germanSessions.first?.hasSuffix(", nichts gezählt") == true, "\(germanSessions)")
        for code in refused {
            #expect(germanSessions.contains { $0.hasSuffix(" nicht gezählt: " + reasons[code]!.0) }, "\(code): \(germanSessions)")
        }
        let spanishSessions = try stctl("sessions", ["LANG=es_ES.UTF-8"])
        #expect(spanishSessions.first?.hasSuffix(", nada contado") == true, "\(spanishSessions)")
        for code in refused {
            #expect(spanishSessions.contains { $0.hasSuffix(" sin contar: " + reasons[code]!.1) }, "\(code): \(spanishSessions)")
        }
        #expect(try d.stop().status == 0)
    }

    @Test("a refused command in German and in Spanish: the daemon sends a code and its figures, stctl says it in the caller's language (a refusal inside a refusal too); English for C")
    func refusalsInGermanAndSpanish() throws {
        let locales = try LanguageTests.compiledLocales()
        defer { try? FileManager.default.removeItem(atPath: locales) }
        let d = try ControlSocketTests.RunningDaemon(policy: """
            version = 1
            timezone = "UTC"
            """)
        /// `stctl ARGS` as uid 65534 (neither root nor a parent), refused: what it says on stderr.
        func refused(_ variables: [String], _ arguments: [String]) throws -> String {
            let r = try ReplayBinaryTests.runBinary("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/env",
                "-u", "LANGUAGE", "-u", "LC_ALL", "-u", "LC_MESSAGES", "-u", "LANG", "SCREENTIME_LOCALEDIR=\(locales)"] + variables
                + [ControlSocketTests.stctl] + arguments + ["--socket", d.socket], stdin: "")
            #expect(r.status == 1, "\(r.stdout) \(r.stderr)")
            return r.stderr
        }
        // Screen time is not limited here: nothing to ask for, and the minutes are in the answer.
        #expect(try refused(["LANG=de_DE.UTF-8"], ["ask", "--screen", "25"])
                == "stctl: nicht gefragt: die Bildschirmzeit an diesem Computer ist nicht begrenzt, du musst also nicht darum bitten (um Spielzeit bittest du mit stctl ask 25)\n")
        #expect(try refused(["LANG=es_ES.UTF-8"], ["ask", "--screen", "25"])
                == "stctl: no se ha pedido: el tiempo de pantalla de este ordenador no tiene límite, así que no hace falta pedirlo (para pedir tiempo de juego: stctl ask 25)\n")
        // Redeeming is for parents: the refusal says so, and the one around it how a child asks instead.
        let german = try refused(["LANG=de_DE.UTF-8"], ["redeem", "10"])
        #expect(german.hasPrefix("stctl: redeem ist nur für Eltern: führ es als root aus (sudo stctl …) oder als Benutzer aus [parents] users oder groups der Regeln, oder gib das Elternpasswort ein; du bist ")
                && german.hasSuffix("; du kannst stattdessen um die Zeit bitten: stctl ask 10\n"), "\(german)")
        let spanish = try refused(["LANG=es_ES.UTF-8"], ["redeem", "10"])
        #expect(spanish.hasPrefix("stctl: redeem es solo para padres: ejecútalo como root (sudo stctl …) o como usuario de [parents] users o groups de las reglas, o da la contraseña de padres; tú eres ")
                && spanish.hasSuffix("; en su lugar puedes pedir ese tiempo: stctl ask 10\n"), "\(spanish)")
        let english = try refused(["LANG=C.UTF-8"], ["redeem", "10"])
        #expect(english.hasPrefix("stctl: redeem is for parents: run it as root (sudo stctl …) or as a user in the policy's [parents] users or groups, or give the parent passphrase; you are ")
                && english.hasSuffix("; a child can ask for the time instead: stctl ask 10\n"), "\(english)")
        // The wire carries the code and figures, and the English for a reader that knows no code.
        let json = try ReplayBinaryTests.runBinary("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/env", "LANG=de_DE.UTF-8",
                                                                        "SCREENTIME_LOCALEDIR=\(locales)", ControlSocketTests.stctl, "redeem", "10", "--json", "--socket", d.socket], stdin: "")
        let reply = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stdout)")
        #expect(reply["code"] as? String == "for_parents_child_may_ask")
        #expect((reply["figures"] as? [String: String])?["because"] == "for_parents")
        #expect((reply["figures"] as? [String: String])?["minutes"] == "10")
        #expect((reply["error"] as? String)?.hasPrefix("redeem is for parents") == true, "\(reply)")
        #expect(try d.stop().status == 0)
    }

    @Test("a policy change the daemon refuses: the policy file's problem in the caller's language, which the request names; English for C")
    func policyProblemInCallersLanguage() throws {
        let locales = try LanguageTests.compiledLocales()
        defer { try? FileManager.default.removeItem(atPath: locales) }
        let d = try ControlSocketTests.RunningDaemon(policy: """
            version = 1
            timezone = "UTC"
            [points]
            daily_goal = "30m"
            """, environment: ["SCREENTIME_LOCALEDIR": locales])   // the daemon's catalogs: the test's
        /// `stctl policy set points.daily_goal=soon` as root (a parent), refused: what it says.
        func set(_ variables: [String]) throws -> String {
            let r = try ReplayBinaryTests.runBinary("/usr/bin/env", ["-u", "LANGUAGE", "-u", "LC_ALL", "-u", "LC_MESSAGES", "-u", "LANG",
                "SCREENTIME_LOCALEDIR=\(locales)"] + variables + [ControlSocketTests.stctl, "policy", "set", "points.daily_goal=soon", "--socket", d.socket], stdin: "")
            #expect(r.status == 1, "\(r.stdout) \(r.stderr)")
            return r.stderr
        }
        let english = try set(["LANG=C.UTF-8"])
        #expect(english.contains("nothing was changed: with this change the policy would have a problem: ")
                && english.contains(":4: 'daily_goal' is not a duration: \"soon\""), "\(english)")
        // In German: the refusal and the problem inside it, the file's line kept.
        let de = Translator.forLanguages(["de"], folder: locales)
        let problem = de("'{key}' is not a duration: \"{value}\" (write it like \"90s\", \"10m\", \"2h\" or \"7d\")", ["key": "daily_goal", "value": "soon"])
        let german = try set(["LANG=de_DE.UTF-8"])
        #expect(de.language == "de" && !problem.contains("is not a duration"))
        #expect(german.contains(":4: " + problem) && !german.contains("is not a duration") && !german.contains("nothing was changed"), "\(german)")
        // A language's name is a name, never a path: anything else is English.
        let script = """
            import json, socket, sys
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
            s.sendall(json.dumps({"v": 1, "command": "policy_change", "changes": [{"key": "points.daily_goal", "value": "soon"}],
                                  "language": "de/../de"}).encode() + b"\\n")
            print(json.loads(s.makefile().readline())["figures"]["detail"])
            """
        let raw = try ReplayBinaryTests.runBinary("/usr/bin/python3", ["-c", script, d.socket])
        #expect(raw.stdout.contains("'daily_goal' is not a duration"), "\(raw.stdout) \(raw.stderr)")
        #expect(try d.stop().status == 0)
    }
}
