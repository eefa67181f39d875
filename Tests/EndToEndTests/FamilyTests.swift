import Foundation
import TestSupport
import Testing

/// The family loop with the real daemon and real stctl processes (issue #17): a child asks, a
/// parent answers; chores claimed and paid; who may do what, and the refusals in words.
///
/// Test users, which no other test uses (these daemons stop their game-like processes): 65047 (a
/// child, user mode); 65048 and 65049 (two children, system mode) and 65053 (their parent). The
/// notification test gives 65048 and 65053 session buses at /run/user/UID/bus, as a desktop
/// login would.
@Suite("The family loop, end to end", .ownThread, .serialized)
struct FamilyTests {
    static let child: UInt32 = TestUser.ensure(uid: 65047, name: "stkid65047")
    static let emma: UInt32 = TestUser.ensure(uid: 65048, name: "stkid65048")
    static let tom: UInt32 = TestUser.ensure(uid: 65049, name: "stkid65049")
    static let parent: UInt32 = TestUser.ensure(uid: 65053, name: "stparent65053")
    static let asker: UInt32 = TestUser.ensure(uid: 65055, name: "stkid65055")
    static let lena: UInt32 = TestUser.ensure(uid: 65056, name: "stkid65056")
    static let padre: UInt32 = TestUser.ensure(uid: 65057, name: "stparent65057")

    /// One game, one chore; a request waits an hour; games are closed at once when their time is gone.
    static func policy(game: String, parents: String = "", rewards: String = "") -> String {
        """
        version = 1
        timezone = "\(NoonZone.name)"
        [points]
        per_reward_minute = 2
        [rewards]
        \(rewards)
        [requests]
        max_per_day = 3
        [enforcement]
        warn_before = []
        action = "terminate"
        grace = "1s"
        [parents]
        \(parents)
        [[apps]]
        name = "SuperTuxKart"
        category = "reward"
        exe = ["\(game)"]
        [[chores]]
        name = "Dishes"
        points = 20
        every = "day"
        """
    }

    /// Plays the game as `uid` until the daemon stops it; returns how long it ran (seconds).
    static func play(_ game: String, as uid: UInt32, within seconds: Double) throws -> Double {
        let started = Date()
        let p = try EnforcementTests.child([game, "600"], uid: uid)
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        #expect(EnforcementTests.ends(p, within: seconds))
        #expect(p.ending == .signal(SIGTERM), "\(p.ending)")
        return Date().timeIntervalSince(started)
    }

    static func object(_ r: ReplayBinaryTests.Run) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)\(r.stderr)")
    }

    @Test("user mode: the child asks, a parent approves a minute as a gift and the game runs that minute; a denial with words; a chore claimed, approved, paid; the log replayed gives what the daemon answered")
    func userMode() throws {
        let dir = try AppCopies.folder()
        let game = "\(dir)/supertuxkart"
        let hash = try PassphraseEndToEndTests.mkpasswd("tea for two")
        let d = try LiveDaemon(policy: Self.policy(game: game, parents: "passphrase_hash = \"\(hash)\""),
                               arguments: ["--sample-every", "200ms", "--no-logind", "--no-notifications"], uid: Self.child)
        _ = try d.waitFor("watching uid")
        let root = { (args: [String]) in try ReplayBinaryTests.runBinary(ControlSocketTests.stctl, args + ["--socket", d.socket]) }

        // The child asks; the request waits, and the child sees it in status.
        let ask = try d.stctl(["ask", "1", "--reason", "one more race"])
        #expect(ask.status == 0, "\(ask.stderr)")
        #expect(ask.stdout.hasPrefix("Asked for 1 min (request 1); a parent can answer until "), "\(ask.stdout)")
        let waiting = try #require(try d.status()["requests"] as? [[String: Any]])
        #expect(waiting.count == 1 && waiting[0]["id"] as? String == "1" && waiting[0]["state"] as? String == "pending", "\(waiting)")
        let shown = try d.stctl(["status"]).stdout
        #expect(shown.contains("Request 1") && shown.contains("1 min: waiting until "), "\(shown)")

        // The child cannot answer their own request; a parent (root) sees it and approves it as a gift.
        let own = try d.stctl(["approve", "1", "--anyway", "--gift"])
        #expect(own.status == 1)
        #expect(own.stderr.contains("stctl: approve is for parents: run it as root (sudo stctl …) or as a user in the policy's [parents] users or groups, or give the parent passphrase; you are stkid65047"), "\(own.stderr)")
        let listed = try Self.object(try root(["requests", "--json"]))["requests"] as? [[String: Any]] ?? []
        #expect(listed.count == 1 && listed[0]["reason"] as? String == "one more race" && listed[0]["minutes"] as? Int == 1, "\(listed)")
        let more = try root(["approve", "1", "--anyway", "--gift", "--minutes", "5"])
        #expect(more.status == 1 && more.stderr.contains("request 1 asked for 1 min: approve from 1 to 1 min (for more minutes, stctl redeem)"), "\(more.stderr)")
        let yes = try root(["approve", "1", "--anyway", "--gift"])
        #expect(yes.status == 0, "\(yes.stderr)")
        #expect(yes.stdout == "Approved 1 min for the child (request 1) as a gift.\n", "\(yes.stdout)")
        let again = try root(["approve", "1", "--anyway"])
        #expect(again.status == 1 && again.stderr.contains("request 1 was approved already (by root)"), "\(again.stderr)")
        let answered = try d.status()
        #expect((answered["requests"] as? [[String: Any]])?.first?["state"] as? String == "approved")
        #expect(answered["reward_available_seconds"] as? Int == 60)
        #expect(answered["balance"] as? Int == 0)

        // The game runs for exactly that minute.
        let played = try Self.play(game, as: Self.child, within: 90)
        #expect(played >= 59.5 && played < 66, "played \(played) s")
        _ = try d.waitFor("stop SuperTuxKart")

        // Asked again and denied, with words the child reads.
        #expect(try d.stctl(["ask", "5"]).status == 0)
        let no = try root(["deny", "2", "--reason", "homework first"])
        #expect(no.status == 0 && no.stdout == "Denied request 2.\n", "\(no.stdout)\(no.stderr)")
        let told = try d.stctl(["status"]).stdout
        #expect(told.contains("5 min: denied (root) “homework first”"), "\(told)")

        // A chore: claimed once, refused a second time while it waits; the child cannot approve it; a parent does, and it pays.
        let done = try d.stctl(["chore", "done", "Dishes"])
        #expect(done.status == 0 && done.stdout == "Dishes: claimed; a parent will approve it (20 points).\n", "\(done.stdout)\(done.stderr)")
        let twice = try d.stctl(["chore", "done", "Dishes"])
        #expect(twice.status == 1 && twice.stderr == "stctl: not claimed: Dishes was claimed today and waits for a parent\n", "\(twice.stderr)")
        let typo = try d.stctl(["chore", "done", "Dishs"])
        #expect(typo.status == 1 && typo.stderr == "stctl: not claimed: there is no chore called Dishs (did you mean 'Dishes'?)\n", "\(typo.stderr)")
        let self_ = try d.stctl(["chore", "approve", "Dishes"])
        #expect(self_.status == 1 && self_.stderr.contains("chore approve is for parents"), "\(self_.stderr)")
        let paid = try root(["chore", "approve", "Dishes"])
        #expect(paid.status == 0 && paid.stdout == "Approved Dishes: +20 points; the balance is now 20.\n", "\(paid.stdout)\(paid.stderr)")
        let chores = try d.stctl(["chores"]).stdout
        #expect(chores.contains("Dishes") && chores.contains("approved (root)"), "\(chores)")

        // The child's own redemption needs child_may_redeem; the refusal says a parent must do it, or how to ask instead.
        let redeem = try d.stctl(["redeem", "5", "--anyway"])
        #expect(redeem.status == 1 && redeem.stderr.hasPrefix("stctl: redeem is for parents: ")
                && redeem.stderr.hasSuffix("; you are stkid65047; a child can ask for the time instead: stctl ask 5\n"), "\(redeem.stderr)")

        // A parent at the child's keyboard answers with the passphrase; the answer says so, not the child's name.
        #expect(try d.stctl(["ask", "2"]).status == 0)
        let typed = try ReplayBinaryTests.runBinary("/usr/bin/setpriv", ["--reuid=\(Self.child)", "--regid=\(Self.child)", "--clear-groups",
                                                                     ControlSocketTests.stctl, "approve", "3", "--gift", "--passphrase-stdin", "--socket", d.socket],
                                                    stdin: "tea for two\n")
        #expect(typed.status == 0, "\(typed.stderr)")
        let byPassphrase = try Self.object(try root(["requests", "--json"]))["requests"] as? [[String: Any]] ?? []
        #expect(byPassphrase.first { $0["id"] as? String == "3" }?["by"] as? String == "the parent passphrase at stkid65047's account", "\(byPassphrase)")

        // What the daemon answered, and the ledger it saved …
        let requests = try Self.object(try root(["requests", "--json"]))["requests"] as? [[String: Any]] ?? []
        let claims = try Self.object(try root(["chores", "--json"]))["chores"] as? [[String: Any]] ?? []
        let ledger = try d.sql("SELECT kind || ' ' || points || ' ' || balance_after FROM ledger ORDER BY seq")
        // The game's end seen and saved, so that the log replayed holds all of it (1.2 s of sleep, before #37).
        try d.poll("""
            SELECT count(*) FROM event WHERE line LIKE '%"process_exited","pid":' ||
              (SELECT json_extract(line, '$.pid') FROM event WHERE line LIKE '%"process_started"%supertuxkart%' LIMIT 1) || '}%'
            """) { $0 == "1" }
        try d.stop()
        // … are what a replay of its event log gives.
        let events = d.base + "/events.jsonl"
        try (try d.sql("SELECT line FROM event ORDER BY seq") + "\n").write(toFile: events, atomically: true, encoding: .utf8)
        let r = try ReplayBinaryTests.runBinary(ReplayBinaryTests.binary, ["replay", "--policy", d.base + "/policy.toml", events])
        let replay = try Self.object(r)
        let replayedLedger = (replay["ledger"] as? [[String: Any]] ?? []).map { "\($0["kind"] ?? "") \($0["points"] ?? "") \($0["balance_after"] ?? "")" }
        #expect(replayedLedger.joined(separator: "\n") == ledger, "replayed \(replayedLedger), saved \(ledger)")
        #expect(ledger == "gifted 0 0\nchore 20 20\ngifted 0 20", "\(ledger)")
        let replayedRequests = (replay["requests"] as? [[String: Any]] ?? []).map { "\($0["id"] ?? "") \($0["state"] ?? "") \($0["minutes_granted"] ?? "-")" }
        let answeredRequests = requests.map { "\($0["id"] ?? "") \($0["state"] ?? "") \($0["minutes_granted"] ?? "-")" }
        #expect(replayedRequests.sorted() == answeredRequests.sorted() && replayedRequests == ["1 approved 1", "2 denied -", "3 approved 2"], "\(replayedRequests) \(answeredRequests)")
        let replayedChores = (replay["chores"] as? [[String: Any]] ?? []).map { "\($0["chore"] ?? "") \($0["state"] ?? "")" }
        let answeredChores = claims.map { "\($0["chore"] ?? "") \($0["state"] ?? "")" }
        #expect(replayedChores == answeredChores && replayedChores == ["Dishes approved"], "\(replayedChores) \(answeredChores)")
        let refused = (replay["refused"] as? [[String: Any]] ?? []).map { $0["reason"] as? String ?? "" }
        // The second claim of Dishes; the claim of "Dishs", a chore the policy does not have, was refused before it was kept.
        #expect(refused == ["chore_not_due"], "\(refused)")
    }

    @Test("system mode: two children and a parent (useradd); each child's requests and chores are their own; the parent sees and answers both; each refusal says why")
    func systemMode() throws {
        _ = (Self.emma, Self.tom, Self.parent)
        let apps = try AppCopies.folder()
        let game = "\(apps)/supertuxkart"
        let parents = #"users = ["stparent65053"]"#
        let d = try SystemModeTests.SystemDaemon(policies: [
            "stkid65048": Self.policy(game: game, parents: parents),
            "stkid65049": Self.policy(game: game, parents: parents, rewards: "child_may_redeem = true\nchild_redeem_daily_max = \"10m\""),
        ], arguments: ["--no-notifications"])
        _ = try d.waitFor("screentimed: watching uid 65048, 65049")

        // Emma asks; her request is named after her.
        let ask = try d.stctl(Self.emma, ["ask", "1", "--reason", "finish the level"])
        #expect(ask.status == 0 && ask.stdout.hasPrefix("Asked for 1 min (request stkid65048-1)"), "\(ask.stdout)\(ask.stderr)")

        // Tom can neither see nor answer it, and Emma cannot answer her own.
        let peek = try d.stctl(Self.tom, ["requests", "--user", "stkid65048"])
        #expect(peek.status == 1 && peek.stderr == "stctl: only stkid65048 and their parents may ask about stkid65048; you are stkid65049\n", "\(peek.stderr)")
        #expect((try d.json(Self.tom, ["requests"])["requests"] as? [[String: Any]])?.isEmpty == true, "Tom sees only his own, and has none")
        let tomAnswers = try d.stctl(Self.tom, ["approve", "stkid65048-1", "--anyway", "--gift"])
        #expect(tomAnswers.status == 1 && tomAnswers.stderr.contains("approve is for parents") && tomAnswers.stderr.contains("you are stkid65049"), "\(tomAnswers.stderr)")
        let emmaAnswers = try d.stctl(Self.emma, ["deny", "stkid65048-1"])
        #expect(emmaAnswers.status == 1 && emmaAnswers.stderr.contains("deny is for parents") && emmaAnswers.stderr.contains("you are stkid65048"), "\(emmaAnswers.stderr)")

        // The parent sees the requests of both children without naming one, and approves Emma's in points.
        let all = try d.json(Self.parent, ["requests"])["requests"] as? [[String: Any]] ?? []
        #expect(all.map { "\($0["child"] ?? "") \($0["id"] ?? "") \($0["state"] ?? "")" } == ["stkid65048 stkid65048-1 pending"], "\(all)")
        let poor = try d.stctl(Self.parent, ["approve", "stkid65048-1", "--anyway"])
        #expect(poor.status == 1 && poor.stderr == "stctl: not approved: it costs 2 points and the balance is 0; approve it as a gift (--gift) or with fewer minutes (--minutes); the request still waits\n", "\(poor.stderr)")
        #expect(try d.stctl(Self.parent, ["adjust", "10", "--reason", "tidy room", "--user", "stkid65048"]).status == 0)
        let yes = try d.stctl(Self.parent, ["approve", "stkid65048-1", "--anyway"])
        #expect(yes.status == 0 && yes.stdout == "Approved 1 min for stkid65048 (request stkid65048-1) for points; the balance is now 8.\n", "\(yes.stdout)\(yes.stderr)")
        let emmaStatus = try d.json(Self.emma, ["status"])
        #expect((emmaStatus["requests"] as? [[String: Any]])?.first?["state"] as? String == "approved")
        #expect(emmaStatus["reward_available_seconds"] as? Int == 60)
        // Her game runs for exactly that minute.
        let played = try Self.play(game, as: Self.emma, within: 90)
        #expect(played >= 59.5 && played < 66, "played \(played) s")

        // Tom asks three times, the most a day, and a fourth is refused; the parent denies one.
        for _ in 0..<3 { #expect(try d.stctl(Self.tom, ["ask", "10"]).status == 0) }
        let fourth = try d.stctl(Self.tom, ["ask", "10"])
        #expect(fourth.status == 1 && fourth.stderr == "stctl: not asked: a child may ask 3 times a day, and asked 3 times today\n", "\(fourth.stderr)")
        let deny = try d.stctl(Self.parent, ["deny", "stkid65049-2", "--reason", "bed time"])
        #expect(deny.status == 0 && deny.stdout == "Denied request stkid65049-2 of stkid65049.\n", "\(deny.stdout)\(deny.stderr)")

        // Tom's chore: claimed, approved by the parent for him by name, paid; Emma cannot claim or answer it for him.
        #expect(try d.stctl(Self.tom, ["chore", "done", "Dishes"]).status == 0)
        let emmaForTom = try d.stctl(Self.emma, ["chore", "approve", "Dishes", "--user", "stkid65049"])
        #expect(emmaForTom.status == 1 && emmaForTom.stderr.contains("chore approve is for parents") && emmaForTom.stderr.contains("you are stkid65048"), "\(emmaForTom.stderr)")
        let unnamed = try d.stctl(Self.parent, ["chore", "approve", "Dishes"])
        #expect(unnamed.status == 1 && unnamed.stderr.contains("several children are watched here: name one with --user NAME"), "\(unnamed.stderr)")
        let paid = try d.stctl(Self.parent, ["chore", "approve", "Dishes", "--user", "stkid65049"])
        #expect(paid.status == 0 && paid.stdout == "Approved Dishes: +20 points; the balance is now 20.\n", "\(paid.stdout)\(paid.stderr)")
        let emmaChore = try d.stctl(Self.parent, ["chore", "approve", "Dishes", "--user", "stkid65048"])
        #expect(emmaChore.status == 1 && emmaChore.stderr == "stctl: nothing to approve: no claim of Dishes waits for a parent\n", "\(emmaChore.stderr)")
        let chores = try d.json(Self.parent, ["chores"])["chores"] as? [[String: Any]] ?? []
        #expect(chores.map { "\($0["child"] ?? "") \($0["state"] ?? "")" } == ["stkid65048 open", "stkid65049 approved"], "\(chores)")

        // Tom may redeem his own points, up to 10 minutes a day; Emma may not.
        let tomRedeems = try d.stctl(Self.tom, ["redeem", "5", "--anyway"])
        #expect(tomRedeems.status == 0 && tomRedeems.stdout == "Redeemed 5 min for 10 points; the balance is now 10.\n", "\(tomRedeems.stdout)\(tomRedeems.stderr)")
        let tomCapped = try d.stctl(Self.tom, ["redeem", "6", "--anyway"])
        #expect(tomCapped.status == 1 && tomCapped.stderr == "stctl: not redeemed: a child may redeem 10 min a day, and 5 min were redeemed today\n", "\(tomCapped.stderr)")
        let emmaRedeems = try d.stctl(Self.emma, ["redeem", "1", "--anyway"])
        #expect(emmaRedeems.status == 1 && emmaRedeems.stderr.contains("redeem is for parents: ")
                && emmaRedeems.stderr.contains("a child can ask for the time instead: stctl ask 1"), "\(emmaRedeems.stderr)")
        #expect(try d.sql("stkid65049", "SELECT kind || ' ' || points || ' ' || ifnull(note, '') FROM ledger ORDER BY seq") == "chore 20 Dishes\nredeemed -10 child")
        try d.stop()
    }

    @Test("system mode: the child's own session bus gets the warning before a stop, the stop and the answer to a request; the parent's gets the new request; the child cannot signal her relay")
    func systemModeNotifications() throws {
        _ = (Self.emma, Self.parent)
        let apps = try AppCopies.folder()
        let game = "\(apps)/supertuxkart"
        let emmaBus = try UserSessionBus(uid: Self.emma)
        let parentBus = try UserSessionBus(uid: Self.parent)
        let policy = Self.policy(game: game, parents: #"users = ["stparent65053"]"#, rewards: #"daily_limit = "20s""#)
            .replacingOccurrences(of: "warn_before = []", with: #"warn_before = ["10s"]"#)
        let d = try SystemModeTests.SystemDaemon(policies: ["stkid65048": policy])
        _ = try d.waitFor("screentimed: watching uid 65048")

        // Emma asks; her parent's desktop is told, with how to answer.
        #expect(try d.stctl(Self.emma, ["ask", "5", "--reason", "boss fight"]).status == 0)
        let toParent = parentBus.waitFor("stkid65048 asks for 5 more minutes of game time")
        let asked = try #require(toParent.last)
        #expect(asked.hasPrefix(#""screentime" 0 "screentime" "stkid65048 asks for 5 more minutes of game time" ""#), "\(asked)")
        #expect(asked.contains("boss fight") && asked.hasSuffix(#"Answer with: stctl approve stkid65048-1 (or --gift), or stctl deny stkid65048-1" [] {"urgency": 1} -1"#), "\(asked)")
        #expect(emmaBus.notifications.isEmpty, "\(emmaBus.notifications)")

        // The parent approves it as a gift; Emma's desktop is told.
        #expect(try d.stctl(Self.parent, ["approve", "stkid65048-1", "--anyway", "--gift"]).status == 0)
        let answer = emmaBus.waitFor("Yes: 5 more minutes of game time")
        #expect(answer.last == #""screentime" 0 "screentime" "Yes: 5 more minutes of game time" "You asked for 5 minutes; 5 were given, a gift from stparent65053." [] {"urgency": 1} -1"#, "\(answer)")

        // The relay that talks to Emma's bus acts as Emma but is root's: she cannot signal it.
        let relays = try ReplayBinaryTests.runBinary("/usr/bin/pgrep", ["-f", "notify-relay --uid 65048 "]).stdout.split(separator: "\n").compactMap { Int32($0) }
        #expect(relays.count == 1, "\(relays)")
        if let relay = relays.first {
            let ids = try String(contentsOfFile: "/proc/\(relay)/status", encoding: .utf8).split(separator: "\n").first { $0.hasPrefix("Uid:") } ?? ""
            #expect(ids.split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst().prefix(3) == ["0", "65048", "0"], "\(ids)")
            let signal = try ReplayBinaryTests.runBinary("/usr/bin/setpriv", ["--reuid=65048", "--regid=65048", "--clear-groups", "/bin/kill", "-TERM", "\(relay)"])
            #expect(signal.status != 0 && signal.stderr.contains("Operation not permitted"), "\(signal.stderr)")
        }

        // Her game: warned 10 s before the day's 20 s are gone, then closed; both on her desktop.
        let played = try Self.play(game, as: Self.emma, within: 60)
        #expect(played >= 19 && played < 26, "played \(played) s")
        let warned = emmaBus.waitFor("SuperTuxKart was closed")
        let warning = try #require(warned.firstIndex { $0.contains("10 s of game time left") }, "\(warned)")
        let stop = try #require(warned.firstIndex { $0.contains("SuperTuxKart was closed") })
        #expect(warning < stop)
        #expect(warned[warning] == #""screentime" 0 "screentime" "10 s of game time left" "Save your game: when the time is used up, games are closed." ["ask-15", "Ask for 15 more minutes"] {"urgency": 2} -1"#, "\(warned[warning])")

        // She presses the warning's button (issue #40) on her desktop: through her relay, her
        // request for 15 minutes; her parent is told of it. (The mock numbers the notices on her
        // bus from 1: the answer was 1, the warning 2.)
        func press(_ id: Int) throws {
            let r = try ReplayBinaryTests.runBinary("/usr/bin/setpriv", ["--reuid=\(Self.emma)", "--regid=\(Self.emma)", "--clear-groups", "/usr/bin/env",
                                                                        "DBUS_SESSION_BUS_ADDRESS=unix:path=\(emmaBus.socket)", "/usr/bin/gdbus", "emit", "--session",
                                                                        "--object-path", "/org/freedesktop/Notifications",
                                                                        "--signal", "org.freedesktop.Notifications.ActionInvoked", "uint32 \(id)", "'ask-15'"])
            #expect(r.status == 0, "\(r.stderr)")
        }
        try press(2)
        parentBus.waitFor("stkid65048 asks for 15 more minutes of game time")
        let pending = try #require(try d.json(Self.parent, ["requests"])["requests"] as? [[String: Any]]).filter { $0["state"] as? String == "pending" }
        #expect(pending.map { "\($0["minutes"] ?? "") \($0["reason"] ?? "")" } == ["15 asked from a warning's button"], "\(pending)")
        emmaBus.waitFor("You asked for 15 more minutes")
        try d.stop()
        // The relays end with the daemon.
        try Wait.whether(within: 15) { try ReplayBinaryTests.runBinary("/usr/bin/pgrep", ["-f", "notify-relay --uid"]).stdout.isEmpty }
        #expect(try ReplayBinaryTests.runBinary("/usr/bin/pgrep", ["-f", "notify-relay --uid"]).stdout.isEmpty)
    }

    @Test("system mode: each user's notifications in their own language while root's is English: the child's session in German (an answered request, a game's warning and stop), her parent's in Spanish (her request)")
    func notificationsInTheirLanguage() throws {
        _ = (Self.lena, Self.padre)
        let locales = try LanguageTests.compiledLocales()
        defer { try? FileManager.default.removeItem(atPath: locales) }
        let apps = try AppCopies.folder()
        let game = "\(apps)/supertuxkart"
        // Her session's processes run in German, his in Spanish; root's daemon in English.
        let lenaBus = try UserSessionBus(uid: Self.lena, environment: ["LANG": "de_DE.UTF-8"])
        let padreBus = try UserSessionBus(uid: Self.padre, environment: ["LANG": "es_ES.UTF-8"])
        let policy = Self.policy(game: game, parents: #"users = ["stparent65057"]"#, rewards: #"daily_limit = "20s""#)
            .replacingOccurrences(of: "warn_before = []", with: #"warn_before = ["10s"]"#)
        let d = try SystemModeTests.SystemDaemon(policies: ["stkid65056": policy],
                                                 environment: ["LANG": "en_US.UTF-8", "SCREENTIME_LOCALEDIR": locales])
        _ = try d.waitFor("screentimed: watching uid 65056")

        #expect(try d.stctl(Self.lena, ["ask", "5", "--reason", "Endgegner"]).status == 0)
        let toParent = padreBus.waitFor("stkid65056 pide 5 minutos más de tiempo de juego")
        #expect(toParent.last == #""screentime" 0 "screentime" "stkid65056 pide 5 minutos más de tiempo de juego" "«Endgegner» Responde con: stctl approve stkid65056-1 (o --gift), o stctl deny stkid65056-1" [] {"urgency": 1} -1"#,
                "\(toParent)")

        #expect(try d.stctl(Self.padre, ["approve", "stkid65056-1", "--anyway", "--gift"]).status == 0)
        let answer = lenaBus.waitFor("Ja: 5 Minuten mehr Spielzeit")
        #expect(answer.last == #""screentime" 0 "screentime" "Ja: 5 Minuten mehr Spielzeit" "Du hast um 5 Minuten gebeten; du bekommst 5, als Geschenk von stparent65057." [] {"urgency": 1} -1"#,
                "\(answer)")

        // Her game: the warning, with its button, and the stop, in German.
        let played = try Self.play(game, as: Self.lena, within: 60)
        #expect(played >= 19 && played < 26, "played \(played) s")
        let told = lenaBus.waitFor("SuperTuxKart wurde geschlossen")
        let warning = try #require(told.first { $0.contains("Noch 10 s Spielzeit") }, "\(told)")
        #expect(warning == #""screentime" 0 "screentime" "Noch 10 s Spielzeit" "Speichere dein Spiel: Wenn die Zeit aufgebraucht ist, werden Spiele geschlossen." ["ask-15", "Um 15 Minuten mehr bitten"] {"urgency": 2} -1"#,
                "\(warning)")
        let stop = try #require(told.last { $0.contains("SuperTuxKart wurde geschlossen") })
        #expect(stop == #""screentime" 0 "screentime" "SuperTuxKart wurde geschlossen" "Die Spielzeit für heute ist aufgebraucht." [] {"urgency": 2} -1"#, "\(stop)")
        try d.stop()
    }

    @Test("a child who asks in a loop: 200 requests kept a day, then refused before anything is kept; a retry of one kept is answered as the first time, not counted again")
    func requestsBounded() throws {
        _ = Self.asker
        let apps = try AppCopies.folder()
        let d = try SystemModeTests.SystemDaemon(policies: ["stkid65055": Self.policy(game: "\(apps)/supertuxkart")], arguments: ["--no-notifications"])
        _ = try d.waitFor("screentimed: watching uid 65055")
        // 201 asks, each with an id of its own, over the child's own connections; then the first again.
        let asks = (1...201).map { #"{"v":1,"command":"ask","minutes":1,"id":"loop-\#($0)"}"# } + [#"{"v":1,"command":"ask","minutes":1,"id":"loop-1"}"#]
        let r = try ReplayBinaryTests.runBinary("/usr/bin/setpriv", ["--reuid=\(Self.asker)", "--regid=\(Self.asker)", "--init-groups", "/usr/bin/python3", "-c", #"""
            import socket, sys
            for line in sys.stdin.read().splitlines():
                s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(10)
                s.sendall(line.encode() + b"\n")
                data = b""
                while not data.endswith(b"\n"):
                    chunk = s.recv(65536)
                    if not chunk: break
                    data += chunk
                print(data.decode(), end="")
                s.close()
            """#, d.socket], stdin: asks.joined(separator: "\n"))
        let replies = r.stdout.split(separator: "\n").map(String.init)
        try #require(replies.count == 202, "\(r.stderr)")
        // The policy lets a child ask 3 times a day: the engine says no to the rest, and each is kept.
        #expect(replies.prefix(3).allSatisfy { $0.contains(#""ok":true"#) }, "\(replies.prefix(3))")
        #expect(replies[3..<200].allSatisfy { $0.contains("a child may ask 3 times a day") }, "\(replies[3])")
        #expect(replies[200].contains("you have asked 200 times today, and that is all for one day; nothing was kept"), "\(replies[200])")
        #expect(replies[201] == replies[0], "the first request again: its first answer, not the day's refusal")
        #expect(try d.sql("stkid65055", "SELECT count(*) FROM answered_request") == "200", "nothing kept of the refused one")
        try d.stop()
    }
}
