import Foundation
import TestSupport
import Testing

/// What the GNOME Shell extension's indicator shows of screen time (issue #38): core.js's
/// `indicatorView`, run by the real GJS (the engine inside GNOME Shell) on the real daemon's
/// `status` replies, as the child's session and a parent change them. The daemon follows
/// python3-dbusmock's logind (logind needs systemd as PID 1), where the test adds the child's
/// session and locks it. GnomeShellTests checks that the running shell's top bar shows this view.
@Suite("GNOME: the indicator's screen time, from the daemon's status", .ownThread, .serialized)
struct GnomeIndicatorViewTests {
    /// The indicator's view of `status` (the daemon's status object, as JSON) after 0 and after
    /// `passed` seconds, by core.js packed for GNOME 43 (as GnomeExtensionPackTests loads it).
    static func views(_ status: [String: Any], passed: Int, folder: String) throws -> (now: [String: Any], later: [String: Any]) {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: status), as: UTF8.self)
        let script = """
            imports.searchPath.unshift('\(folder)');
            const core = imports.core;
            const status = \(json);
            print(JSON.stringify(core.indicatorView(status, 0)));
            print(JSON.stringify(core.indicatorView(status, \(passed))));
            """
        let r = try ReplayBinaryTests.runBinary("/usr/bin/gjs", ["-c", script])
        let lines = r.stdout.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        try #require(lines.count == 2, "\(r.stdout)\(r.stderr)")
        return (try #require(lines[0]), try #require(lines[1]))
    }

    static func lines(_ view: [String: Any]) -> [String] { view["lines"] as? [String] ?? [] }

    /// The indicator's words for a time ("0 s", "40 s", "20 min", "1 h", "1 h 5 min").
    static func words(_ seconds: Int) -> String {
        seconds <= 0 ? "0 s" : seconds < 60 ? "\(seconds) s" : seconds < 3600 ? "\(seconds / 60) min"
            : seconds % 3600 < 60 ? "\(seconds / 3600) h" : "\(seconds / 3600) h \(seconds / 60 % 60) min"
    }

    @Test("screen time left, used of the limit, a parent's bonus and bedtime in the menu; counted down only while the daemon says screen time counts; bedtime moved, a free day, no [screen]")
    func screenTime() throws {
        let folder = try GnomeExtensionPackTests.pack("43")
        let zone = LogindEndToEndTests.noonZone()   // about noon there now: bedtimes at 14:00 and 23:00 are both ahead
        let logind = try MockLogind()
        let limit = 2 * 3600
        let d = try LiveDaemon(policy: """
            version = 1
            timezone = "\(zone)"
            [screen]
            daily_limit = "2h"
            allowed_hours = ["00:00-23:00"]
            grace = "1h"
            """, environment: ["DBUS_SYSTEM_BUS_ADDRESS": logind.address])
        defer { if d.process.isRunning { kill(d.process.processIdentifier, SIGKILL) } }
        _ = try d.waitFor("watching uid")
        let parent = { (args: [String]) in
            let r = try ReplayBinaryTests.runBinary(ControlSocketTests.stctl, args + ["--socket", d.socket])
            #expect(r.status == 0, "\(args): \(r.stderr)")
        }

        // No session of the child's: nothing counts; the whole day's limit is left.
        var (now, later) = try Self.views(try d.status(), passed: 7, folder: folder)
        #expect(now["screenText"] as? String == Self.words(limit) && now["screenSecondsLeft"] as? Int == limit, "\(now)")
        #expect(Array(Self.lines(now).prefix(4)) == ["Screen time left today: \(Self.words(limit))", "Screen time used today: 0 s of \(Self.words(limit))",
                                                     "Bedtime tonight: 23:00", "Game time now: no game time"], "\(now)")
        #expect(later["screenSecondsLeft"] as? Int == limit && Self.lines(later) == Self.lines(now), "not counting: nothing moves: \(later)")
        #expect(now["text"] as? String == "no game time · 0 pts")

        // A parent gives 20 screen minutes for today.
        let bonus = 20 * 60
        try parent(["bonus", "20", "--screen"])
        (now, later) = try Self.views(try d.status(), passed: 7, folder: folder)
        #expect(now["screenText"] as? String == Self.words(limit + bonus), "\(now)")
        #expect(Self.lines(now).prefix(2) == ["Screen time left today: \(Self.words(limit + bonus))",
                                              "Screen time used today: 0 s of \(Self.words(limit)), and \(Self.words(bonus)) more from a parent"], "\(now)")

        // The child logs in: screen time counts, and the indicator counts it down by the second.
        try logind.addSession("c4", uid: 65534, name: "nobody")
        var status: [String: Any] = [:]
        try Wait.until("screen time counting once the child's session began", within: 20) {
            status = try d.status()
            return (status["screen"] as? [String: Any])?["counting"] as? Bool == true
        }
        let screen = try #require(status["screen"] as? [String: Any])
        let left = try #require(screen["left_seconds"] as? Int), used = try #require(screen["used_today_seconds"] as? Int)
        #expect((limit + bonus - 1...limit + bonus).contains(left + used), "each of them rounded down to the second: \(screen)")
        (now, later) = try Self.views(status, passed: 7, folder: folder)
        #expect(now["screenSecondsLeft"] as? Int == left && later["screenSecondsLeft"] as? Int == left - 7, "\(now) \(later)")
        #expect(later["screenText"] as? String == Self.words(left - 7))
        #expect(Self.lines(later).prefix(2) == ["Screen time left today: \(Self.words(left - 7))",
                                                "Screen time used today: \(Self.words(used + 7)) of \(Self.words(limit)), and \(Self.words(bonus)) more from a parent"],
                "\(later)")

        // Locked: screen time does not count, and the indicator does not count it down.
        try logind.lockedHint("c4", true)
        try Wait.until("screen time not counting once the session is locked", within: 20) {
            status = try d.status()
            return (status["screen"] as? [String: Any])?["counting"] as? Bool == false
        }
        (now, later) = try Self.views(status, passed: 7, folder: folder)
        #expect(later["screenSecondsLeft"] as? Int == now["screenSecondsLeft"] as? Int && Self.lines(later) == Self.lines(now), "\(now) \(later)")

        // A parent moves bedtime to 14:00 tonight, one to two hours away: the nearer end, said in the top bar.
        try parent(["bedtime", "14:00", "--tonight"])
        status = try d.status()
        let toBedtime = try #require((status["screen"] as? [String: Any])?["left_seconds"] as? Int)
        #expect(toBedtime <= StatusBarTests.secondsUntil(hour: 14, in: zone) + 1 && toBedtime > 3600 - 60, "\(status)")
        (now, later) = try Self.views(status, passed: 7, folder: folder)
        #expect(now["screenText"] as? String == "\(Self.words(toBedtime)) (bedtime 14:00)", "\(now)")
        // Time to bedtime runs by the clock, whether screen time counts or not.
        #expect(later["screenSecondsLeft"] as? Int == toBedtime - 7, "\(later)")
        #expect(Self.lines(now).first == "Screen time left until bedtime: \(Self.words(toBedtime))" && Self.lines(now).contains("Bedtime tonight: 14:00"), "\(now)")

        // A free day: no limit today, and no bedtime said.
        try parent(["free-day"])
        (now, _) = try Self.views(try d.status(), passed: 7, folder: folder)
        #expect(now["screenText"] as? String == "free day" && now["screenSecondsLeft"] as? Int == -1, "\(now)")
        #expect(Self.lines(now).first == "Screen time: no limit today (a free day)" && !Self.lines(now).contains { $0.hasPrefix("Bedtime") }, "\(now)")

        // A policy without [screen]: the status has no `screen`, and the indicator shows game time only, as before.
        var noScreen = try d.status()
        noScreen["screen"] = nil
        (now, _) = try Self.views(noScreen, passed: 7, folder: folder)
        #expect(now["screenText"] as? String == "" && now["screenSecondsLeft"] as? Int == -1, "\(now)")
        #expect(Array(Self.lines(now).prefix(4)) == ["Game time now: no game time", "Game time left today: no game time", "Points: 0 (0 today)",
                                                     "Learning today: 0 s"], "\(now)")

        // A browser in front (issue #39): the site, and the host its tab shows; an app has no host.
        var site = noScreen
        (site["current_app"], site["current_category"], site["current_counts"]) = ("Khan Academy", "learning", "learning: earns points while you use it")
        site["current_site"] = "www.khanacademy.org"
        (now, _) = try Self.views(site, passed: 7, folder: folder)
        #expect(Self.lines(now).contains("Khan Academy (www.khanacademy.org): learning: earns points while you use it"), "\(now)")
        site["current_site"] = nil
        (now, _) = try Self.views(site, passed: 7, folder: folder)
        #expect(Self.lines(now).contains("Khan Academy: learning: earns points while you use it"), "\(now)")
        try d.stop()
    }

    /// `core.<call>` for each call (a JavaScript expression), by the real GJS; each answer as JSON.
    static func calls(_ expressions: [String], folder: String) throws -> [Any] {
        let script = "imports.searchPath.unshift('\(folder)');\nconst core = imports.core;\n"
            + expressions.map { "print(JSON.stringify(core.\($0)));" }.joined(separator: "\n")
        let r = try ReplayBinaryTests.runBinary("/usr/bin/gjs", ["-c", script])
        let answers = r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8), options: .fragmentsAllowed) }
        try #require(answers.count == expressions.count, "\(r.stdout)\(r.stderr)")
        return answers
    }

    @Test("the menu (issue #40): what an ask from the typed fields sends, which chores may be claimed, what redeeming costs, and the answers' words")
    func menuWords() throws {
        let folder = try GnomeExtensionPackTests.pack("43")
        let a = try Self.calls([
            "askRequest(' 20 ', '  I read a whole book ', false)", "askRequest('15', '', true)",
            "askRequest('0', 'x', false)", "askRequest('1441', 'x', false)", "askRequest('ten', 'x', false)", "askRequest('-5', '', false)",
            "askRequest('15', 'é'.repeat(300), false)", "askRequest('15', 'é'.repeat(301), false)",
        ], folder: folder)
        #expect(a[0] as? NSDictionary == ["request": ["v": 1, "command": "ask", "minutes": 20, "reason": "I read a whole book"]])
        #expect(a[1] as? NSDictionary == ["request": ["v": 1, "command": "ask", "minutes": 15, "screen": true]])
        for bad in a[2...5] {
            #expect((bad as? [String: Any])?["problem"] as? String == "Type how many minutes you want: a number from 1 to 1440.", "\(bad)")
        }
        // 300 letters (not bytes: "é" is two) may go; 301 may not.
        #expect(((a[6] as? [String: Any])?["request"] as? [String: Any])?["reason"] as? String == String(repeating: "é", count: 300))
        #expect((a[7] as? [String: Any])?["problem"] as? String == "Say why in fewer words: 300 letters at most.")

        let chores = """
            [{"chore": "Dishes", "points": 20, "state": "open"}, {"chore": "Bed", "points": 1, "state": "rejected"},
             {"chore": "Bins", "points": 5, "state": "pending"}, {"chore": "Dog", "points": 10, "state": "approved"},
             {"chore": "Car", "points": 50, "state": "not_due"}]
            """
        let c = try Self.calls(["choreItems(\(chores))", "choreItems([])", "choreItems([{chore: 'Car', points: 50, state: 'not_due'}])"], folder: folder)
        #expect(c[0] as? NSArray == [["label": "Dishes (20 points)", "chore": "Dishes"], ["label": "Bed (1 point): try again", "chore": "Bed"],
                                     ["label": "Bins: waiting for a parent", "chore": NSNull()], ["label": "Dog: done, 10 points", "chore": NSNull()]])
        #expect(c[1] as? NSArray == [["label": "No chores to do today", "chore": NSNull()]])
        #expect(c[2] as? NSArray == [["label": "No chores to do today", "chore": NSNull()]])

        let r = try Self.calls([
            "redeemItems({child_may_redeem: true, points_per_reward_minute: 2, balance: 60})",
            "redeemItems({points_per_reward_minute: 2, balance: 600})",
        ], folder: folder)
        #expect(r[0] as? NSArray == [["label": "15 min of game time for 30 points", "minutes": 15, "enough": true],
                                     ["label": "30 min of game time for 60 points", "minutes": 30, "enough": true],
                                     ["label": "60 min of game time for 120 points", "minutes": 60, "enough": false]])
        #expect(r[1] as? NSArray == [])

        let w = try Self.calls([
            "answerWords('ask', {ok: true, request: {minutes: 15, screen: true}})",
            "answerWords('ask', {ok: false, error: 'you have asked 3 times today, the most a day'})",
            "answerWords('chore_done', {ok: true, chores: [{chore: 'Dishes'}]})",
            "answerWords('chore_done', {ok: false, error: 'Dishes is already claimed today.'})",
            "answerWords('redeem', {ok: true, cost: 15, balance: 5})",
            "answerWords('redeem', null)",
            "answerWords('redeem', {ok: false, code: 'not_redeemed', figures: {because: 'beyond_today', room: '10'}, error: 'not redeemed: today\\'s limits…'})",
            "answerWords('ask', {ok: false, code: 'request_id_reused', error: 'this request id was used for another request'})",
        ], folder: folder)
        #expect(w[0] as? NSDictionary == ["title": "You asked for 15 more minutes of screen time", "body": "A parent will see it and answer; the answer comes here."])
        #expect(w[1] as? NSDictionary == ["title": "Not asked", "body": "You have asked 3 times today, the most a day."])
        #expect(w[2] as? NSDictionary == ["title": "You said you did Dishes", "body": "A parent will check it; then the points are yours."])
        #expect(w[3] as? NSDictionary == ["title": "Chore not sent", "body": "Dishes is already claimed today."])
        #expect(w[4] as? NSDictionary == ["title": "Game time redeemed", "body": "It cost 15 points; you have 5 left."])
        #expect(w[5] as? NSDictionary == ["title": "screentime is not running", "body": "Nothing was sent. Try again in a moment, or tell a parent."])
        // A refusal with a code: the child's words for it; a code the menu has no words for: a
        // plain sentence, never the daemon's English for programs.
        #expect(w[6] as? NSDictionary == ["title": "Not redeemed", "body": "Today leaves room for 10 more minutes of games: redeem fewer, or ask your parents."])
        #expect(w[7] as? NSDictionary == ["title": "Not asked", "body": "That did not work this time. Ask your parents."])
    }
}
