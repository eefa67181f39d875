import Foundation
import TestSupport
import Testing

/// The real daemon, as the child (uid 65534), against a real dbus-daemon with dbusmock's logind.
@Suite("screentimed follows logind", .ownThread, .serialized)
struct LogindEndToEndTests {
    @Test("lock and idle from logind are logged events; sleep saves everything at once; status says logind is watched")
    func lockIdleSleep() throws {
        let logind = try MockLogind()
        try logind.addSession("c5", uid: 65534, name: "nobody")
        let d = try LiveDaemon(environment: ["DBUS_SYSTEM_BUS_ADDRESS": logind.address])
        _ = try d.waitFor("following logind session /org/freedesktop/login1/session/c5")
        let status = try ReplayBinaryTests.runBinary(ControlSocketTests.stctl, ["status", "--socket", d.socket])
        #expect(status.status == 0)
        #expect(!status.stdout.contains("logind"), "\(status.stdout)")

        try logind.call("/org/freedesktop/login1/session/c5", "org.freedesktop.login1.Session", "SetLockedHint", [.bool(true)])
        try logind.setSession("c5", ["IdleHint": .bool(true), "IdleSinceHint": .uint64(1_795_000_000_000_000)])
        try logind.emit(on: "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "PrepareForSleep", "b", [.bool(true)])
        _ = try d.waitFor("the machine is going to sleep: everything is saved")
        // Saved at once, with a checkpoint at the last event: nothing waits for the next second.
        let events = try d.sql("SELECT group_concat(json_extract(line, '$.event'), ' ') FROM event WHERE json_extract(line, '$.event') NOT LIKE 'process%'")
        #expect(events == "daemon_started lock_changed idle_changed")
        #expect(try d.sql("SELECT json_extract(line, '$.since') FROM event WHERE line LIKE '%idle_changed%'") == "2026-11-18T11:06:40Z")
        #expect(try d.sql("SELECT max(event_seq) = (SELECT max(seq) FROM event) FROM checkpoint") == "1")
        try d.stop()
    }

    @Test("no system bus: the daemon runs without logind and status says so")
    func noBus() throws {
        let d = try LiveDaemon(environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/screentime-bus"])
        _ = try d.waitFor("logind: no system bus")
        let status = try ReplayBinaryTests.runBinary(ControlSocketTests.stctl, ["status", "--socket", d.socket])
        #expect(status.status == 0)
        #expect(status.stdout.contains("Note: no system bus (cannot connect to the system bus at unix:path=/nonexistent/screentime-bus: "), "\(status.stdout)")
        try d.stop()
    }

    /// Issue #38 (docs/spec/screen.md): the child's sessions from logind, locked and ended through it.
    @Test("screen time: a session warned, locked through logind, locked again after an unlock, ended past relocks; another user's session never touched")
    func screenLimit() throws {
        let logind = try MockLogind()
        try logind.addSession("c7", uid: 65534, name: "nobody")
        try logind.addSession("p1", uid: 0, name: "root")          // someone else's (a parent's) session
        let d = try LiveDaemon(policy: """
            version = 1
            timezone = "UTC"
            [screen]
            daily_limit = "6s"
            warn_before = ["3s"]
            grace = "5s"
            relocks = 1
            """, environment: ["DBUS_SYSTEM_BUS_ADDRESS": logind.address])
        defer { if d.process.isRunning { kill(d.process.processIdentifier, SIGKILL) } }
        _ = try d.waitFor("following logind session /org/freedesktop/login1/session/c7")
        // Six seconds of screen time from the session's start, a warning at three, the lock five seconds after zero.
        _ = try d.waitFor("locking session c7 (screen_limit): logind was asked", seconds: 40)
        #expect(try logind.calls("LockSession") == ["c7"])
        let started = try d.sql("SELECT count(*) FROM event WHERE line LIKE '%\"event\":\"session_started\",\"session\":\"c7\"%'")
        #expect(started == "1", "the session is logged once")
        #expect(try d.sql("SELECT count(*) FROM event WHERE line LIKE '%\"event\":\"session_started\"%'") == "1", "only the child's own")
        #expect(try d.sql("SELECT count(*) FROM event WHERE line LIKE '%\"session\":\"p1\"%'") == "0", "another user's session is not the child's")
        // The desktop locks; the child unlocks with no time left: locked again after the grace.
        try logind.lockedHint("c7", true)
        _ = try d.poll("SELECT count(*) FROM event WHERE line LIKE '%\"event\":\"lock_changed\",\"locked\":true%'") { $0 == "1" }
        try logind.lockedHint("c7", false)
        #expect(Wait.whether(within: 20) { (try? logind.calls("LockSession")) == ["c7", "c7"] })
        // Unlocked again, past relocks: a last warning, then logind ends the session.
        try logind.lockedHint("c7", true)
        _ = try d.poll("SELECT count(*) FROM event WHERE line LIKE '%\"event\":\"lock_changed\",\"locked\":true%'") { $0 == "2" }
        try logind.lockedHint("c7", false)
        _ = try d.waitFor("ending session c7 (screen_limit): logind was asked", seconds: 30)
        #expect(try logind.calls("TerminateSession") == ["c7"])
        #expect(try logind.calls("LockSession") == ["c7", "c7"], "the other user's session is never locked")
        // logind removes it: the end is logged.
        try logind.removeSession("c7")
        _ = try d.poll("SELECT count(*) FROM event WHERE line LIKE '%\"event\":\"session_ended\",\"session\":\"c7\"%'") { $0 == "1" }
        // The report has today's screen time against the limit: at least the six seconds of the limit
        // were used (and the grace after it, while unlocked).
        let report = try ReplayBinaryTests.runBinary(ControlSocketTests.stctl, ["report", "--day", Self.today(), "--json", "--socket", d.socket])
        let days = try #require((try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any])?["report"] as? [[String: Any]])
        #expect(days.count == 1 && days[0]["screen_limit_seconds"] as? Int == 6 && (days[0]["screen_used_seconds"] as? Int ?? 0) >= 6
                && days[0]["screen_bonus_seconds"] as? Int == 0, "\(days)")
        let text = try ReplayBinaryTests.runBinary(ControlSocketTests.stctl, ["report", "--day", Self.today(), "--socket", d.socket])
        #expect(text.stdout.contains("Screen time: █ used, · left of the day's limit"), "\(text.stdout)")
        try d.stop()

        // What the live daemon did (its journal lines "TIME warn: …", "TIME locking session …",
        // "TIME ending session …"), and the same log replayed: the same, at the same moments.
        let log = try String(contentsOfFile: d.log, encoding: .utf8)
        let live: [String] = log.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard words.count > 4 else { return nil }
            switch words[2] {
            case "warn:": return "\(words[1]) warn \(words[3]) s"
            case "locking", "ending": return "\(words[1]) \(words[2] == "locking" ? "lock" : "end") \(words[4]) \(words[5].dropFirst().prefix { $0 != ")" })"
            default: return nil
            }
        }
        let (result, _) = try d.replayOwnLog()
        let replayed: [String] = (result["actions"] as? [[String: Any]] ?? []).compactMap { a in
            switch a["action"] as? String {
            case "warn": return "\(a["at"] as? String ?? "") warn \(Int(a["remaining_seconds"] as? Double ?? -1)) s"
            case "lock_session": return "\(a["at"] as? String ?? "") lock \(a["session"] as? String ?? "") \(a["reason"] as? String ?? "")"
            case "end_session": return "\(a["at"] as? String ?? "") end \(a["session"] as? String ?? "") \(a["reason"] as? String ?? "")"
            default: return nil
            }
        }
        // A warning at three seconds, one at zero, two locks, the last warning and the end.
        #expect(replayed.count == 6 && replayed.filter { $0.contains(" lock c7 screen_limit") }.count == 2, "\(replayed)")
        #expect(live == replayed, "live: \(live)\nreplay: \(replayed)")
    }

    /// Today in UTC (the policy's zone), as YYYY-MM-DD.
    static func today() -> String { String(ISO8601DateFormatter().string(from: Date()).prefix(10)) }

    /// A zone where it is about noon now (Etc/GMT-N is N hours ahead of UTC), so that the test's
    /// hours never touch midnight, whenever it runs.
    static func noonZone() -> String {
        let hour = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date()).hour!
        let ahead = 12 - hour
        return ahead == 0 ? "UTC" : ahead > 0 ? "Etc/GMT-\(ahead)" : "Etc/GMT+\(-ahead)"
    }

    @Test("bedtime: a session begun after it is ended within the grace; with bedtime moved for tonight a new one goes on, and its first notice says why the last one was ended")
    func lateLogin() throws {
        let logind = try MockLogind()
        let notifications = try MockNotifications()
        let d = try LiveDaemon(policy: """
            version = 1
            timezone = "\(Self.noonZone())"
            [screen]
            allowed_hours = ["00:00-09:00"]
            grace = "5s"
            """, environment: ["DBUS_SYSTEM_BUS_ADDRESS": logind.address, "DBUS_SESSION_BUS_ADDRESS": notifications.address])
        defer { if d.process.isRunning { kill(d.process.processIdentifier, SIGKILL) } }
        _ = try d.waitFor("watching uid")
        try logind.addSession("c8", uid: 65534, name: "nobody")
        _ = try d.waitFor("ending session c8 (bedtime): logind was asked", seconds: 30)
        #expect(try logind.calls("TerminateSession") == ["c8"])
        #expect(try logind.calls("LockSession").isEmpty, "a late login is ended, not locked")
        // Warned when it was seen, and ended the grace (5 s) later.
        let told = try d.waitFor("ending session c8")
        #expect(told.contains("warn: 0 s of screen time left (bedtime)"), "the child was warned first")
        try logind.removeSession("c8")
        _ = try d.poll("SELECT count(*) FROM event WHERE line LIKE '%\"session_ended\",\"session\":\"c8\"%'") { $0 == "1" }
        // A parent moves bedtime to 23:00 tonight: a new session goes on.
        let moved = try ReplayBinaryTests.runBinary(ControlSocketTests.stctl, ["bedtime", "23:00", "--tonight", "--socket", d.socket])
        #expect(moved.status == 0 && moved.stdout.hasPrefix("Bedtime tonight is 23:00"), "\(moved.stdout)\(moved.stderr)")
        try logind.addSession("c9", uid: 65534, name: "nobody")
        _ = try d.poll("SELECT count(*) FROM event WHERE line LIKE '%\"session_started\",\"session\":\"c9\"%'") { $0 == "1" }
        // The decision is made when the session is seen: with time left, nothing was said or ordered.
        let screen = try #require(try d.status()["screen"] as? [String: Any])
        #expect(screen["limit"] as? String == "bedtime" && (screen["left_seconds"] as? Int ?? 0) > 3600 && screen["sessions"] as? [String] == ["c9"], "\(screen)")
        #expect(try logind.calls("TerminateSession") == ["c8"])
        #expect(!(try String(contentsOfFile: d.log, encoding: .utf8)).contains("session c9"), "nothing ordered for c9")
        // The new session's first notice says why the last one was ended (the login screen cannot).
        let said = "\"screentime\" 0 \"screentime\" \"You were logged out at bedtime\" \"It was "
        #expect(Wait.whether(within: 20) { notifications.notifications.contains { $0.hasPrefix(said) } }, "\(notifications.notifications)")
        let atLogin = notifications.notifications.filter { $0.hasPrefix(said) }
        #expect(atLogin.count == 1 && atLogin[0].contains(", after bedtime, so the computer stopped for today.\""), "\(atLogin)")
        _ = try d.waitFor("told at login why the last session was ended: You were logged out at bedtime")
        try d.stop()
    }
}

