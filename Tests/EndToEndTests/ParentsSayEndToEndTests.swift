import Foundation
import ScreenTimeCore
import TestSupport
import Testing

/// A parent's say over today (issue 35), through stctl and the real daemon: the question before
/// paying for minutes today has no room for, bonus time, stopping the games until a time with a
/// notice, taking minutes back, and figures that move between events.
@Suite("A parent's say over today, end to end", .ownThread, .serialized)
struct ParentsSayEndToEndTests {
    /// 2 minutes of games a day; a game minute costs 2 points. `games`: AppCopies' folder.
    static func policy(_ games: String) -> String {
        """
        version = 1
        timezone = "UTC"
        [points]
        per_reward_minute = 2
        [rewards]
        daily_limit = "2m"
        [enforcement]
        grace = "2s"
        [[apps]]
        name = "SuperTuxKart"
        category = "reward"
        exe = ["\(games)/supertuxkart"]
        """
    }

    static func parent(_ d: LiveDaemon, _ args: [String]) throws -> ReplayBinaryTests.Run {
        try ReplayBinaryTests.runBinary(ControlSocketTests.stctl, args + ["--socket", d.socket])
    }

    @Test("redeeming beyond today's room is asked first and pays nothing; bonus time goes beyond the limit; stop-games stops and tells; revoke takes back; the figures move")
    func parentsSay() throws {
        let games = try AppCopies.folder()
        let d = try LiveDaemon(policy: Self.policy(games), arguments: ["--sample-every", "200ms", "--no-logind"])
        defer { if d.process.isRunning { kill(d.process.processIdentifier, SIGKILL) } }
        _ = try d.waitFor("watching uid")
        #expect(try Self.parent(d, ["adjust", "100", "--reason", "chores"]).status == 0)

        // 5 minutes when the day has room for 2: nothing is paid; stctl says how to go on.
        let beyond = try Self.parent(d, ["redeem", "5"])
        #expect(beyond.status == 1)
        #expect(beyond.stderr.hasPrefix("stctl: today's limits leave room for 2 more minutes of games, so 3 of these 5 minutes cannot be played today "),
                "\(beyond.stderr)")
        #expect(beyond.stderr.hasSuffix("Nothing was redeemed. To let the child play longer today, give bonus time instead; or go ahead anyway: "
                                        + "add --anyway, or give bonus time instead: stctl bonus 5\n"), "\(beyond.stderr)")
        #expect(try d.status()["balance"] as? Int == 100)
        // On a terminal: asked, and "n" pays nothing.
        let no = try PenaltyConfirmationTests.onTerminal(["redeem", "5", "--socket", d.socket], answer: "n")
        #expect(no.status == 1)
        #expect(no.screen.contains("Go ahead anyway? [y/N] n\nstctl: nothing was paid. Bonus time for today: stctl bonus 5\n"), "\(no.screen)")
        #expect(try d.status()["balance"] as? Int == 100)
        // Within the room: no question.
        let one = try Self.parent(d, ["redeem", "1"])
        #expect(one.status == 0, "\(one.stderr)")
        #expect(one.stdout == "Redeemed 1 min for 2 points; the balance is now 98.\n")

        // Bonus time: 3 minutes for today, beyond the 2-minute limit.
        let bonus = try Self.parent(d, ["bonus", "3", "--reason", "good report"])
        #expect(bonus.status == 0, "\(bonus.stderr)")
        #expect(bonus.stdout == "3 min of bonus time for the child today; game time left today: 4 min.\n")
        var status = try d.status()
        #expect(status["bonus_left_seconds"] as? Int == 180)
        #expect(status["reward_today_remaining_seconds"] as? Int == 240)
        #expect(status["reward_counting"] as? Bool == false)

        // A game: the figures move between the daemon's events.
        let game = try CrashTests.asNobody(["\(games)/supertuxkart", "600"])
        defer { if game.isRunning { kill(game.processIdentifier, SIGKILL); game.waitUntilExit() } }
        try Wait.whether(within: 30) {   // each look runs stctl
            if status["reward_counting"] as? Bool == true { return true }
            status = try d.status()
            return false
        }
        #expect(status["reward_counting"] as? Bool == true, "\(status)")
        let first = try d.status(), firstAt = Date()
        // A sleep, not a wait: 2.5 s of play, in which the time used is measured against the clock.
        usleep(2_500_000)
        let second = try d.status(), elapsed = Date().timeIntervalSince(firstAt)
        let went = (first["reward_available_seconds"] as? Int ?? 0) - (second["reward_available_seconds"] as? Int ?? 0)
        #expect(Double(went) >= elapsed - 1.5 && Double(went) <= elapsed + 1.5, "\(went) s used in \(elapsed) s: \(first) \(second)")
        #expect((second["bonus_left_seconds"] as? Int ?? 180) < 180, "bonus time is played first: \(second)")
        #expect(second["reward_used_today_seconds"] as? Int == 0, "bonus time does not count against the limit: \(second)")

        // Stop the games for 10 minutes: the game is stopped now, with a notice.
        let until = RFC3339.format(micros: Int64(Date().timeIntervalSince1970 * 1e6) + 600_000_000, utcOffsetSeconds: 0)
        let stop = try Self.parent(d, ["stop-games", "--until", until])
        #expect(stop.status == 0, "\(stop.stderr)")
        #expect(stop.stdout.hasPrefix("Games are stopped until "), "\(stop.stdout)")
        _ = try d.waitFor("stop SuperTuxKart (pid \(game.processIdentifier), \(games)/supertuxkart): stopped_by_parent")
        #expect(EnforcementTests.ends(game, within: 10))
        status = try d.status()
        #expect(status["games_stopped_until"] as? String != nil, "\(status)")
        #expect(status["reward_available_seconds"] as? Int == 0)
        let notices = try #require(status["notices"] as? [[String: Any]])
        #expect(notices.contains { $0["summary"] as? String == "Games are stopped" && ($0["body"] as? String)?.hasPrefix("A parent stopped games until ") == true },
                "\(notices)")
        #expect(notices.contains { $0["summary"] as? String == "SuperTuxKart was closed" && $0["body"] as? String == "A parent stopped games for now." },
                "\(notices)")
        // A game started while they are stopped is stopped at once.
        let again = try CrashTests.asNobody(["\(games)/supertuxkart", "600"])
        defer { if again.isRunning { kill(again.processIdentifier, SIGKILL); again.waitUntilExit() } }
        #expect(EnforcementTests.ends(again, within: 10))
        // Let them play again.
        let lift = try Self.parent(d, ["stop-games", "--until", "now"])
        #expect(lift.stdout == "Games may be played again.\n", "\(lift.stderr)")
        #expect(try d.status()["games_stopped_until"] == nil)

        // Take back what is left: the redeemed minute (its 2 points back), then the bonus time.
        let revoke = try Self.parent(d, ["revoke", "10", "--refund"])
        #expect(revoke.status == 0, "\(revoke.stderr)")
        #expect(revoke.stdout.hasPrefix("Took back "), "\(revoke.stdout)")
        status = try d.status()
        #expect(status["reward_today_remaining_seconds"] as? Int == 0, "\(status)")
        #expect(status["balance"] as? Int == 100, "\(status)")
        let nothing = try Self.parent(d, ["revoke", "1"])
        #expect(nothing.status == 1)
        #expect(nothing.stderr == "stctl: nothing was taken back: there are no unused redeemed or given minutes to take back\n")
        let kinds = try #require(try d.json(["history", "--days", "1"])["history"] as? [[String: Any]]).map { $0["kind"] as? String }
        #expect(kinds == ["adjusted", "redeemed", "bonus_time", "revoked"], "\(kinds)")
        try d.stop()
    }

    @Test("stop-games takes a time of day, a date and time, or now; anything else is refused and stops nothing")
    func untilWords() throws {
        let games = try AppCopies.folder()
        let d = try LiveDaemon(policy: Self.policy(games))
        defer { if d.process.isRunning { kill(d.process.processIdentifier, SIGKILL) } }
        _ = try d.waitFor("watching uid")
        let bad = try Self.parent(d, ["stop-games", "--until", "teatime"])
        #expect(bad.status == 1)
        #expect(bad.stderr == "stctl: until must be a time of day such as 19:00, a date and time such as 2026-11-28T07:00:00+01:00, or now; not \"teatime\"\n")
        let far = try Self.parent(d, ["stop-games", "--until", "2099-01-01T00:00:00Z"])
        #expect(far.stderr == "stctl: games may be stopped for a week at most; 2099-01-01T00:00:00Z is further off\n")
        #expect(try d.status()["games_stopped_until"] == nil)
        // Without --until: until the end of today (midnight UTC).
        let tonight = try Self.parent(d, ["stop-games"])
        #expect(tonight.status == 0, "\(tonight.stderr)")
        let until = try #require(try d.status()["games_stopped_until"] as? String)
        #expect(until.hasSuffix("T00:00:00Z"), "\(until)")
        // A time of day: today at that time, or tomorrow when it has passed.
        let clock = try Self.parent(d, ["stop-games", "--until", "00:00"])
        #expect(clock.status == 0)
        #expect(try d.status()["games_stopped_until"] as? String == until)
        try d.stop()
    }

    @Test("just tonight (issue #38): bedtime moved with --tonight only, screen bonus minutes, a free day; each logged with who; status shows them")
    func justTonight() throws {
        // A zone where it is about noon now: 23:59 is always tonight, and 00:01 always past.
        let d = try LiveDaemon(policy: """
            version = 1
            timezone = "\(LogindEndToEndTests.noonZone())"
            [screen]
            daily_limit = "1h"
            allowed_hours = ["00:00-24:00"]
            """, arguments: ["--no-logind"])
        defer { if d.process.isRunning { kill(d.process.processIdentifier, SIGKILL) } }
        _ = try d.waitFor("watching uid")
        let forGood = try Self.parent(d, ["bedtime", "21:30"])
        #expect(forGood.status == 2 && forGood.stderr.contains("add --tonight"), "\(forGood.stderr)")
        let bedtime = try Self.parent(d, ["bedtime", "23:59", "--tonight"])
        #expect(bedtime.status == 0 && bedtime.stdout.hasPrefix("Bedtime tonight is 23:59"), "\(bedtime.stdout)\(bedtime.stderr)")
        let bad = try Self.parent(d, ["bedtime", "25:00", "--tonight"])
        #expect(bad.status == 1 && bad.stderr.contains("bedtime needs a time tonight such as 21:30"), "\(bad.stderr)")
        let past = try Self.parent(d, ["bedtime", "00:01", "--tonight"])
        #expect(past.status == 1 && past.stderr.contains("it is already past 00:01 today: bedtime tonight can be from now up to 24:00"), "\(past.stderr)")
        let bonus = try Self.parent(d, ["bonus", "10", "--screen", "--reason", "homework"])
        #expect(bonus.status == 0 && bonus.stdout.hasPrefix("10 min of screen time for the child today, beyond the limits"), "\(bonus.stdout)\(bonus.stderr)")
        var screen = try #require(try d.status()["screen"] as? [String: Any])
        #expect(screen["bonus_seconds"] as? Int == 600 && screen["daily_limit_seconds"] as? Int == 3600 && screen["used_today_seconds"] as? Int == 0,
                "\(screen)")
        #expect((screen["bedtime"] as? String)?.contains("T23:59:00") == true, "\(screen)")
        #expect(screen["free_day"] as? Bool == false)
        let text = try Self.parent(d, ["status"])
        #expect(text.stdout.contains("Bedtime") && text.stdout.contains("Screen time") && text.stdout.contains("10 min bonus from a parent"), "\(text.stdout)")
        let free = try Self.parent(d, ["free-day", "--reason", "birthday"])
        #expect(free.status == 0 && free.stdout.hasPrefix("A free day: no screen or game limit until midnight"), "\(free.stdout)\(free.stderr)")
        screen = try #require(try d.status()["screen"] as? [String: Any])
        #expect(screen["free_day"] as? Bool == true && screen["left_seconds"] == nil, "\(screen)")
        #expect(try Self.parent(d, ["status"]).stdout.contains("no limit today (a free day)"))
        // The child asks for screen minutes; the parent's approval is screen time for today, free.
        let ask = try ReplayBinaryTests.runBinary("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", ControlSocketTests.stctl,
                                                                       "ask", "15", "--screen", "--reason", "project", "--socket", d.socket])
        #expect(ask.status == 0 && ask.stdout.hasPrefix("Asked for 15 min of screen time (request 1)"), "\(ask.stdout)\(ask.stderr)")
        let yes = try Self.parent(d, ["approve", "1"])
        #expect(yes.status == 0 && yes.stdout == "Approved 15 min for the child (request 1) of screen time for today.\n", "\(yes.stdout)\(yes.stderr)")
        #expect((try d.status()["screen"] as? [String: Any])?["bonus_seconds"] as? Int == 600 + 900)
        #expect(try d.status()["balance"] as? Int == 0, "no points")
        // Each is an event in the log, with the parent who said it.
        for (event, field) in [("screen_bonus", "homework"), ("bedtime_moved", "23:59"), ("free_day", "birthday")] {
            let line = try d.sql("SELECT line FROM event WHERE line LIKE '%\"event\":\"\(event)\"%'")
            #expect(line.contains(field) && line.contains("\"by\":\"root\""), "\(event): \(line)")
        }
        try d.stop()
    }
}

