import Foundation
import TestSupport
import Testing

/// The real daemon, as the child, stopping real "games" (copies of programs that a fast policy
/// names as reward apps) when their time is gone.
///
/// The child here is uid 65001, which no other test uses: a daemon stops every process of its
/// child that looks like a game (by name, as a copy of a game is still one), and the other tests'
/// daemons watch uid 65534 — they would stop these games, and these daemons theirs.
@Suite("Enforcement, end to end", .ownThread, .serialized)
struct EnforcementTests {
    static let child: UInt32 = TestUser.ensure(uid: 65001, name: "stchild65001")

    static func policy(games: [String], rewards: String, enforcement: String) -> String {
        """
        version = 1
        timezone = "UTC"
        [points]
        per_reward_minute = 1
        [rewards]
        \(rewards)
        [enforcement]
        \(enforcement)
        [[apps]]
        name = "SuperTuxKart"
        category = "reward"
        exe = [\(games.map { "\"\($0)\"" }.joined(separator: ", "))]
        """
    }

    /// Parent commands, as root.
    static func parent(_ d: LiveDaemon, _ args: [String]) throws {
        let r = try ReplayBinaryTests.runBinary(ControlSocketTests.stctl, args + ["--socket", d.socket])
        #expect(r.status == 0, "\(args): \(r.stderr)")
    }

    /// A parent gives 10 points and redeems one minute of game time with them.
    static func buyAMinute(_ d: LiveDaemon) throws {
        try parent(d, ["adjust", "10", "--reason", "test"])
        try parent(d, ["redeem", "1", "--anyway"])
    }

    /// Starts `args` as the child, with SIGTERM's default action (the test runner's children
    /// inherit it ignored; a game started from a desktop does not).
    static func child(_ args: [String], uid: UInt32 = child) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        p.arguments = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "/usr/bin/env", "--default-signal=TERM"] + args
        try p.run()
        return p
    }

    /// Waits (`seconds` at most) for the process to end; true when it did.
    static func ends(_ p: Process, within seconds: Double) -> Bool {
        Wait.whether(within: seconds) { !p.isRunning }
    }

    static func state(_ pid: Int32) -> String? {
        (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.split(separator: ")").last?.split(separator: " ").first.map(String.init)
    }

    @Test("terminate: warned, then SIGTERM when the day's game time is gone; a relaunch is stopped within a sample")
    func terminate() throws {
        let dir = try AppCopies.folder()
        let game = "\(dir)/supertuxkart"
        let d = try LiveDaemon(policy: Self.policy(games: [game], rewards: #"daily_limit = "4s""#,
                                                   enforcement: #"warn_before = ["2s"]"# + "\naction = \"terminate\"\ngrace = \"1s\""),
                               arguments: ["--sample-every", "200ms", "--no-logind"], uid: Self.child)
        _ = try d.waitFor("watching uid")
        try Self.buyAMinute(d)
        let started = Date()
        let p = try Self.child([game, "60"])
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        #expect(Self.ends(p, within: 15))
        let played = Date().timeIntervalSince(started)
        #expect(p.ending == .signal(SIGTERM), "\(p.ending)")
        #expect(played >= 3.5 && played < 8, "played \(played) s")
        let log = try d.waitFor("SIGTERM to 1 process")
        let warn = try #require(log.range(of: "warn: 2 s of game time left (daily_limit)"), "\(log)")
        let stop = try #require(log.range(of: "stop SuperTuxKart (pid \(p.processIdentifier), \(game)): daily_limit; SIGTERM to 1 process; game time left now 0 s, today 0 s"), "\(log)")
        #expect(warn.upperBound <= stop.lowerBound)

        // Started again with no time left: stopped at the next sample (200 ms), not after a warning.
        let again = try Self.child([game, "60"])
        defer { if again.isRunning { kill(again.processIdentifier, SIGKILL) } }
        let relaunched = Date()
        #expect(Self.ends(again, within: 5))
        #expect(again.ending == .signal(SIGTERM))
        #expect(Date().timeIntervalSince(relaunched) < 1.5, "\(Date().timeIntervalSince(relaunched)) s")
        try d.stop()
    }

    @Test("terminate: a game that ignores SIGTERM is killed after grace, and the processes it started go with it")
    func escalate() throws {
        let python = try #require(try? FileManager.default.destinationOfSymbolicLink(atPath: "/usr/bin/python3"))
        let exe = python.hasPrefix("/") ? python : "/usr/bin/" + python
        let d = try LiveDaemon(policy: Self.policy(games: [exe], rewards: #"daily_limit = "3s""#,
                                                   enforcement: "warn_before = []\naction = \"terminate\"\ngrace = \"1s\""),
                               arguments: ["--sample-every", "200ms", "--no-logind"], uid: Self.child)
        _ = try d.waitFor("watching uid")
        try Self.buyAMinute(d)
        let pidFile = d.base + "/helper.pid"
        let p = try Self.child(["/usr/bin/python3", "-c", """
            import signal, subprocess, sys, time
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            helper = subprocess.Popen(["/bin/sleep", "60"], preexec_fn=lambda: signal.signal(signal.SIGTERM, signal.SIG_DFL))
            open(sys.argv[1], "w").write(str(helper.pid))
            time.sleep(60)
            """, pidFile])
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        #expect(Self.ends(p, within: 15))
        #expect(p.ending == .signal(SIGKILL))
        let log = try d.waitFor("SIGKILL")
        #expect(log.contains("stop SuperTuxKart (pid \(p.processIdentifier), \(exe)): daily_limit; SIGTERM to 2 processes"), "\(log)")
        #expect(log.contains("stop SuperTuxKart (pid \(p.processIdentifier), \(exe)): daily_limit, told again (1); SIGKILL to 1 process"), "\(log)")
        let helper = try #require(Int32(try String(contentsOfFile: pidFile, encoding: .utf8)))
        Wait.whether(within: 15) { kill(helper, 0) != 0 || Self.state(helper) == "Z" }
        #expect(kill(helper, 0) != 0 || Self.state(helper) == "Z", "the game's helper \(helper) is still running")
        try d.stop()
    }

    @Test("pause: SIGSTOP when the redeemed minutes expire, SIGCONT after the next redemption")
    func pause() throws {
        let dir = try AppCopies.folder()
        let game = "\(dir)/supertuxkart"
        let d = try LiveDaemon(policy: Self.policy(games: [game], rewards: #"redemption_expires_after = "3s""#,
                                                   enforcement: "warn_before = []\naction = \"pause\""),
                               arguments: ["--sample-every", "200ms", "--no-logind"], uid: Self.child)
        _ = try d.waitFor("watching uid")
        try Self.buyAMinute(d)
        let p = try Self.child([game, "60"])
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        let pid = p.processIdentifier
        Wait.whether(within: 10) { Self.state(pid) == "T" }
        #expect(Self.state(pid) == "T", "never paused")
        _ = try d.waitFor("stop SuperTuxKart (pid \(pid), \(game)): no_reward_time; SIGSTOP to 1 process")
        // A sleep, not a wait: the test shows that the pause holds (nothing lets it go on by itself).
        usleep(500_000)
        #expect(Self.state(pid) == "T")
        try Self.parent(d, ["redeem", "1", "--anyway"])
        // Resumed: no longer stopped (sleeping again, or for an instant still running after SIGCONT).
        Wait.whether(within: 5) { Self.state(pid) != "T" }
        #expect(["S", "R"].contains(Self.state(pid)), "not resumed: \(Self.state(pid))")
        _ = try d.waitFor("resume pid \(pid): SIGCONT to 1 process")
        #expect(p.isRunning)

        // Paused again; the daemon restarts meanwhile; the next redemption still lets it go on.
        Wait.whether(within: 10) { Self.state(pid) == "T" }
        #expect(Self.state(pid) == "T", "never paused again")
        try d.restart()
        try Self.buyAMinute(d)
        Wait.whether(within: 5) { Self.state(pid) != "T" }
        #expect(["S", "R"].contains(Self.state(pid)), "not resumed after the daemon restarted: \(Self.state(pid))")
        try d.stop()
    }

    @Test("pause undone: a paused game the child sends SIGCONT is paused again within a sample and its time counts; the second time it is terminated")
    func pauseUndone() throws {
        let dir = try AppCopies.folder()
        let game = "\(dir)/supertuxkart"
        let d = try LiveDaemon(policy: Self.policy(games: [game], rewards: #"redemption_expires_after = "3s""#,
                                                   enforcement: "warn_before = []\naction = \"pause\"\ngrace = \"1s\""),
                               arguments: ["--sample-every", "200ms", "--no-logind"], uid: Self.child)
        _ = try d.waitFor("watching uid")
        try Self.buyAMinute(d)
        let p = try Self.child([game, "60"])
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        let pid = p.processIdentifier
        _ = try d.waitFor("stop SuperTuxKart (pid \(pid), \(game)): no_reward_time; SIGSTOP to 1 process")
        Wait.whether(within: 15) { Self.state(pid) == "T" }
        #expect(Self.state(pid) == "T")

        // The child lets it go on, as `kill -CONT` from a terminal of theirs does.
        func continueIt() throws {
            let r = try ReplayBinaryTests.runBinary("/usr/bin/setpriv", ["--reuid=\(Self.child)", "--regid=\(Self.child)", "--clear-groups",
                                                                       "/bin/kill", "-CONT", "\(pid)"])
            #expect(r.status == 0, "\(r.stderr)")
        }
        try continueIt()
        _ = try d.waitFor("(pid \(pid)) was paused but runs again: something sent it SIGCONT; it is paused again")
        _ = try d.waitFor("stop SuperTuxKart (pid \(pid), \(game)): no_reward_time, told again (1); SIGSTOP to 1 process")
        Wait.whether(within: 15) { Self.state(pid) == "T" }
        #expect(Self.state(pid) == "T", "not paused again")
        // In the log (saved within a second), for replay: the time since it was last seen paused was played.
        _ = try d.poll("SELECT count(*) FROM event WHERE line LIKE '%\"game_continued\",\"pid\":\(pid),\"since\"%'") { $0 == "1" }

        // Again: now it is terminated.
        try continueIt()
        #expect(Self.ends(p, within: 5), "still running after its pause was undone twice")
        _ = try d.waitFor("stop SuperTuxKart (pid \(pid), \(game)): no_reward_time; SIGTERM to 1 process")
        try d.stop()
    }

    @Test("a program the child may run but not read (chmod 111) is watched as (hidden), not dropped; named like the game, it is stopped")
    func executeOnlyCopy() throws {
        let dir = try AppCopies.folder()
        let game = "\(dir)/supertuxkart"
        let d = try LiveDaemon(policy: Self.policy(games: [game], rewards: "", enforcement: "warn_before = []\ngrace = \"1s\""),
                               arguments: ["--sample-every", "200ms", "--no-logind"], uid: Self.child)
        _ = try d.waitFor("watching uid")
        // The child's own folder, with an execute-only copy of the game under the game's name.
        let mine = FileManager.default.temporaryDirectory.appendingPathComponent("screentime-mine-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: mine, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(atPath: mine) }
        chown(mine, Self.child, Self.child)
        let asChild = ["/usr/bin/setpriv", "--reuid=\(Self.child)", "--regid=\(Self.child)", "--clear-groups"]
        let copy = try ReplayBinaryTests.runBinary(asChild[0], Array(asChild.dropFirst()) + ["/bin/sh", "-c", "cp \(game) \(mine)/supertuxkart && chmod 111 \(mine)/supertuxkart"])
        #expect(copy.status == 0, "\(copy.stderr)")
        let p = try Self.child(["\(mine)/supertuxkart", "60"])
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        _ = try d.poll("SELECT count(*) FROM event WHERE line LIKE '%\"process_started\",\"pid\":\(p.processIdentifier),\"exe\":\"(hidden)\"%'") { $0 == "1" }
        #expect(Self.ends(p, within: 5), "an execute-only copy of the game runs on")
        _ = try d.waitFor("stop SuperTuxKart (pid \(p.processIdentifier), (hidden)): no_reward_time")
        try d.stop()
    }

    @Test("unknown_apps = reward: a focused program no entry names is stopped when there is no game time; a known neutral one is not")
    func unknownAppsReward() throws {
        let dir = try AppCopies.folder()
        let policy = Self.policy(games: ["\(dir)/supertuxkart"], rewards: #"unknown_apps = "reward""#, enforcement: "warn_before = []\ngrace = \"1s\"")
            + "\n[[apps]]\nname = \"Homework notes\"\ncategory = \"neutral\"\nexe = [\"\(dir)/gcompris-qt\"]\n"
        let d = try LiveDaemon(policy: policy, arguments: ["--sample-every", "200ms", "--no-logind"], uid: Self.child)
        _ = try d.waitFor("watching uid")
        let unknown = try Self.child(["\(dir)/mystery", "60"])
        let neutral = try Self.child(["\(dir)/gcompris-qt", "60"])
        defer { for p in [unknown, neutral] where p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        try d.waitUntilSeen(unknown.processIdentifier, runs: "\(dir)/mystery")
        try d.waitUntilSeen(neutral.processIdentifier, runs: "\(dir)/gcompris-qt")
        // The neutral program in front for a while: nothing happens to it.
        _ = try FakeHook.send(to: d.socket, focusOn: neutral.processIdentifier, inputs: 3, uid: Self.child)
        #expect(neutral.isRunning)
        // The unknown one in front: game time, and there is none.
        _ = try FakeHook.send(to: d.socket, focusOn: unknown.processIdentifier, inputs: 3, uid: Self.child)
        #expect(Self.ends(unknown, within: 5), "an unknown program in front ran on with no game time")
        _ = try d.waitFor("stop an unknown program (pid \(unknown.processIdentifier), \(dir)/mystery): no_reward_time")
        #expect(neutral.isRunning)
        try d.stop()
    }

    @Test("notifications on the child's session bus: each warning, the last one critical, and the stop, word for word")
    func notifications() throws {
        let bus = try MockNotifications()
        let dir = try AppCopies.folder()
        let game = "\(dir)/supertuxkart"
        let d = try LiveDaemon(policy: Self.policy(games: [game], rewards: #"daily_limit = "5s""#,
                                                   enforcement: #"warn_before = ["3s", "1s"]"# + "\naction = \"terminate\"\ngrace = \"1s\""),
                               environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address],
                               arguments: ["--sample-every", "200ms", "--no-logind"], uid: Self.child)
        _ = try d.waitFor("watching uid")
        #expect((try d.status()["observers"] as? [String: Any])?["notifications"] as? Bool == true)
        try Self.buyAMinute(d)
        let p = try Self.child([game, "60"])
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        #expect(Self.ends(p, within: 15))
        _ = try d.waitFor("SIGTERM to 1 process")
        // Each warning with its button (issue #40), the stop without.
        let button = #"["ask-15", "Ask for 15 more minutes"]"#
        let expected = [
            #""screentime" 0 "screentime" "3 s of game time left" "Save your game: when the time is used up, games are closed." "# + button + #" {"urgency": 1} -1"#,
            #""screentime" 0 "screentime" "1 s of game time left" "Save your game: when the time is used up, games are closed." "# + button + #" {"urgency": 2} -1"#,
            #""screentime" 0 "screentime" "SuperTuxKart was closed" "Today's game time is used up." [] {"urgency": 2} -1"#,
        ]
        Wait.whether(within: 15) { bus.notifications.count >= expected.count }
        #expect(bus.notifications == expected)
        let log = try String(contentsOfFile: d.log, encoding: .utf8)
        #expect(log.contains("warn: 1 s of game time left (daily_limit); notified"), "\(log)")

        // The child presses the first warning's button (the mock numbers its notifications from
        // 1): the child's ask for 15 minutes, told back; a second press of it asks nothing more.
        func press(_ id: Int, _ key: String) throws {
            let r = try ReplayBinaryTests.runBinary("/usr/bin/env", ["DBUS_SESSION_BUS_ADDRESS=\(bus.address)", "/usr/bin/gdbus", "emit", "--session",
                                                                    "--object-path", "/org/freedesktop/Notifications",
                                                                    "--signal", "org.freedesktop.Notifications.ActionInvoked", "uint32 \(id)", "'\(key)'"])
            #expect(r.status == 0, "\(r.stderr)")
        }
        try press(3, "ask-15")          // the stop's notification has no button: nothing
        try press(1, "ask-15")
        var requests: [[String: Any]] = []
        try Wait.whether(within: 30) {   // each look runs stctl
            requests = try #require(try d.json(["requests"])["requests"] as? [[String: Any]])
            return !requests.isEmpty
        }
        #expect(requests.count == 1)
        #expect(requests.first?["minutes"] as? Int == 15 && requests.first?["state"] as? String == "pending", "\(requests)")
        #expect(requests.first?["reason"] as? String == "asked from a warning's button")
        Wait.whether(within: 15) { bus.notifications.count > expected.count }
        #expect(bus.notifications.dropFirst(expected.count).first ==
                #""screentime" 0 "screentime" "You asked for 15 more minutes" "A parent will answer; you will see the answer here." [] {"urgency": 1} -1"#)
        // Pressed again, or with another key: nothing. Then the second warning's button: the bus
        // brings the presses in order, so once its request is there the others were read.
        try press(1, "ask-15")
        try press(2, "ask-16")
        try press(2, "ask-15")
        try Wait.whether(within: 30) {
            requests = try #require(try d.json(["requests"])["requests"] as? [[String: Any]])
            return requests.count >= 2
        }
        #expect(requests.count == 2, "\(requests)")
        try d.stop()
    }

    @Test("without a session bus: the journal only, and status says notifications are off")
    func noNotifications() throws {
        let d = try LiveDaemon(environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"], arguments: ["--sample-every", "1h", "--no-logind"], uid: Self.child)
        _ = try d.waitFor("watching uid")
        let status = try d.status()
        #expect((status["observers"] as? [String: Any])?["notifications"] as? Bool == false)
        let blind = status["blind_spots"] as? [String] ?? []
        #expect(blind.contains { $0.hasPrefix("no session bus (cannot connect to the session bus at unix:path=/nonexistent/bus") && $0.hasSuffix("notifications go to the journal only") }, "\(blind)")
        try d.stop()
    }

    @Test("notifications at the end of a learning session: the points, and the time not counted with its reason")
    func sessionNotification() throws {
        let bus = try MockNotifications()
        let dir = try AppCopies.folder()
        let app = "\(dir)/gcompris-qt"
        let d = try LiveDaemon(policy: """
            version = 1
            timezone = "UTC"
            [points]
            learning_per_hour = 3600
            [validation]
            idle_after = "2s"
            min_session = "2s"
            min_focus_dwell = "0s"
            [[apps]]
            name = "GCompris"
            category = "learning"
            exe = ["\(app)"]
            """, environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address], arguments: ["--sample-every", "200ms", "--no-logind"], uid: Self.child)
        _ = try d.waitFor("watching uid")
        let p = try Self.child([app, "60"])
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        try d.waitUntilSeen(p.processIdentifier, runs: app)
        // Focused, with input for 4 s; then nothing for 3.5 s (idle after 2 s); then it is closed.
        let hook = try FakeHook.send(to: d.socket, focusOn: p.processIdentifier, inputs: 14, quiet: 3.5, uid: Self.child)
        #expect(FakeHook.taken(hook) == 15, "\(hook.stdout)\(hook.stderr)")
        kill(p.processIdentifier, SIGKILL)
        _ = try d.waitFor("session GCompris")
        // Before the focus event the app ran unfocused, and that time is refused too: under a
        // second it is not told; a loaded machine can make it more (the hook starts after the daemon
        // saved the process), and over idle_after it is a session of its own. However long, it must
        // be exactly the gap between the two events the daemon logged.
        let mono = { (kind: String) throws -> Double in
            let line = try d.sql("SELECT line FROM event WHERE line LIKE '%\"event\":\"\(kind)\",\"pid\":\(p.processIdentifier)%' ORDER BY seq LIMIT 1")
            let event = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            return try #require(event["mono"] as? Double)
        }
        let gap = try mono("focus_changed") - (try mono("process_started"))
        let sessions = try #require(try d.json(["sessions"])["sessions"] as? [[String: Any]])
        let told = { (s: [String: Any]) in (s["refused"] as? [[String: Any]] ?? []).filter { ($0["seconds"] as? Int ?? 0) >= 1 } }
        let words = ["unfocused": "the app was not the window in front.", "idle": "you were idle (no keys or mouse).",
                     "hook_gap": "screentime could not see your screen for a while."]
        let notCounted = { (s: [String: Any]) in told(s).map { "\($0["seconds"] as? Int ?? -1) s not counted: \(words[$0["reason"] as? String ?? ""] ?? "?")" } }
        var expected: [String] = []
        var unfocused = 0
        if sessions.count == 2 {     // the time before the focus, a session of its own
            #expect(told(sessions[0]).map { $0["reason"] as? String } == ["unfocused"] && sessions[0]["points"] as? Int == 0, "\(sessions)")
            unfocused += told(sessions[0]).first?["seconds"] as? Int ?? 0
            expected.append(#""screentime" 0 "screentime" "GCompris: no points this time" "\#(notCounted(sessions[0]).joined(separator: " "))" [] {"urgency": 1} -1"#)
        }
        #expect(sessions.count == 1 || (sessions.count == 2 && gap > 2), "\(sessions); the focus came \(gap) s after the process")
        let session = try #require(sessions.last)
        let points = try #require(session["points"] as? Int)
        let credited = try #require(session["credited_seconds"] as? Int)
        // The hook leaves before the app is killed: on a loaded machine that can be a second or more,
        // which is time nobody could see (hook_gap), and is told as such.
        let reasons = told(session).map { $0["reason"] as? String ?? "" }.filter { $0 != "hook_gap" }
        #expect(points >= 3 && credited >= 3, "\(session)")
        #expect(reasons == ["idle"] || (reasons == ["unfocused", "idle"] && sessions.count == 1), "\(session)")
        if reasons.first == "unfocused" { unfocused += told(session).first?["seconds"] as? Int ?? 0 }
        #expect(abs(Double(unfocused) - gap) <= 1, "\(unfocused) s unfocused, but the focus came \(gap) s after the process")
        let body = (["\(credited) s of learning counted."] + notCounted(session)).joined(separator: " ")
        expected.append(#""screentime" 0 "screentime" "+\#(points) points for GCompris" "\#(body)" [] {"urgency": 1} -1"#)
        Wait.whether(within: 15) { bus.notifications.count >= expected.count }
        #expect(bus.notifications == expected)
        try d.stop()
    }

    /// The shape of Tests/Scenarios/shared/redeem-and-play in seconds: points for chores, a redemption,
    /// a game played until the minutes are gone, warned before; then the live daemon's own event
    /// log replayed gives the same warnings and stop at the same moments.
    @Test("redeem and play, live and scaled down: the warnings and the stop are those its replay gives")
    func redeemAndPlayLive() throws {
        let dir = try AppCopies.folder()
        let game = "\(dir)/supertuxkart"
        let policy = Self.policy(games: [game], rewards: "", enforcement: #"warn_before = ["20s", "5s"]"# + "\naction = \"terminate\"\ngrace = \"3s\"")
            .replacingOccurrences(of: "per_reward_minute = 1", with: "per_reward_minute = 2")
        let d = try LiveDaemon(policy: policy, arguments: ["--sample-every", "200ms", "--no-logind", "--no-notifications"], uid: Self.child)
        _ = try d.waitFor("watching uid")
        try Self.parent(d, ["adjust", "60", "--reason", "chores"])
        try Self.parent(d, ["redeem", "1", "--anyway"])
        let p = try Self.child([game, "600"])
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        #expect(Self.ends(p, within: 90))
        #expect(p.ending == .signal(SIGTERM))
        _ = try d.waitFor("SIGTERM to 1 process")
        // The exit seen and saved.
        _ = try d.poll("SELECT count(*) FROM event WHERE line LIKE '%\"process_exited\",\"pid\":\(p.processIdentifier)}%'") { $0 == "1" }
        try d.stop()

        // What the live daemon did, from its journal lines: "TIME warn: …" and "TIME stop …".
        let log = try String(contentsOfFile: d.log, encoding: .utf8)
        let live: [String] = log.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard words.count > 3, words[2] == "warn:" || words[2] == "stop" else { return nil }
            return words[2] == "warn:" ? "\(words[1]) warn \(words[3]) s" : "\(words[1]) stop pid \(p.processIdentifier) no_reward_time"
        }
        // The same log, replayed.
        let (result, r) = try d.replayOwnLog()
        let replayed: [String] = (result["actions"] as? [[String: Any]] ?? []).compactMap { a in
            switch a["action"] as? String {
            case "warn": return "\(a["at"] as? String ?? "") warn \(Int(a["remaining_seconds"] as? Double ?? -1)) s"
            case "stop": return "\(a["at"] as? String ?? "") stop pid \(a["pid"] as? Int ?? -1) \(a["reason"] as? String ?? "")"
            default: return nil
            }
        }
        #expect(replayed.count == 3, "\(r.stdout)")
        #expect(live == replayed, "live: \(live)\nreplay: \(replayed)")
        #expect(result["balance"] as? Int == 58)
    }
}
