import Foundation
import TestSupport
import Testing

/// `stctl status --format waybar` and `--format i3blocks` (docs/status-bars.md), run as the child
/// against the real daemon (uid 65534), brought into each state as a parent would: root adjusts
/// and redeems over the socket. The expected figures come from what the test redeemed.
@Suite("stctl status for status bars (waybar, i3blocks), end to end", .ownThread, .serialized)
struct StatusBarTests {
    /// The policy's price of a game minute, and the bonus the parent gives.
    static let perMinute = 2
    static let bonus = 100

    static func policy(apps: String = "") -> String {
        """
        version = 1
        timezone = "UTC"
        [points]
        per_reward_minute = \(perMinute)
        \(apps)
        """
    }

    /// A daemon that answers: polls `stctl status` until it does (the socket appears when it is ready).
    /// With `logind`, the daemon follows that logind (the child's sessions count screen time);
    /// without, it is started with `--no-logind`.
    static func start(policy: String = policy(), sampleEvery: String = "1h", logind: MockLogind? = nil) throws -> LiveDaemon {
        let d = try LiveDaemon(policy: policy, environment: logind.map { ["DBUS_SYSTEM_BUS_ADDRESS": $0.address] } ?? [:],
                               arguments: ["--sample-every", sampleEvery] + (logind == nil ? ["--no-logind"] : []))
        var answered = false
        try Wait.whether(within: 60) {
            answered = try d.stctl(["status"]).status == 0
            return answered || !d.process.isRunning
        }
        if answered { return d }
        Issue.record("the daemon never answered; it said: \((try? String(contentsOfFile: d.log, encoding: .utf8)) ?? "")")
        return d
    }

    /// A parent's command: root, over the socket.
    static func parent(_ d: LiveDaemon, _ args: [String]) throws {
        let r = try ReplayBinaryTests.runBinary(ControlSocketTests.stctl, args + ["--socket", d.socket])
        #expect(r.status == 0, "\(args): \(r.stderr)")
    }

    /// `stctl status --format waybar` as the child: exactly one line, a JSON object of strings.
    static func waybar(_ run: ReplayBinaryTests.Run) throws -> [String: String] {
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr == "")
        #expect(run.stdout.hasSuffix("\n") && run.stdout.filter { $0 == "\n" }.count == 1, "not one line: \(run.stdout)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")
        let strings = object.compactMapValues { $0 as? String }
        #expect(strings.count == object.count, "every field is a string: \(object)")
        #expect(Set(object.keys) == ["text", "tooltip", "class", "alt"], "\(object)")
        return strings
    }

    /// The lines of `stctl status --format i3blocks` as the child.
    static func i3blocks(_ run: ReplayBinaryTests.Run) -> [String] {
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasSuffix("\n"))
        return run.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    @Test("no game time is class none, a few minutes redeemed are low, plenty are ok: text, tooltip, class and i3blocks colour follow what the parent redeemed")
    func states() throws {
        let d = try Self.start()

        // Nothing redeemed: no game time now.
        let none = try Self.waybar(try d.stctl(["status", "--format", "waybar"]))
        #expect(none["text"] == "🎮 0 min · 0 pts")
        #expect(none["class"] == "none" && none["alt"] == "none")
        let noneTip = try #require(none["tooltip"]).components(separatedBy: "\n")
        #expect(Array(noneTip.prefix(5)) == [
            "Game time now: 0 s",
            "Game time today: 0 s (played 0 s)",
            "Redeemed, left: 0 s",
            "Points: 0 (+0 today; a game minute costs \(Self.perMinute))",
            "Learning today: 0 s",
        ], "\(noneTip)")
        // What the daemon cannot see (no desktop hook, --no-logind) is said, after the figures.
        #expect(noneTip.dropFirst(5).contains { $0.hasPrefix("Note: no desktop hook") }, "\(noneTip)")
        #expect(noneTip.dropFirst(5).contains { $0.hasPrefix("Note: logind is not asked") }, "\(noneTip)")
        #expect(Self.i3blocks(try d.stctl(["status", "--format", "i3blocks"])) == ["🎮 0 min · 0 pts", "🎮 0 min", "#FF5555"])

        // A few minutes: less than five is low.
        let few: Int = 3
        try Self.parent(d, ["adjust", "\(Self.bonus)", "--reason", "status bar test"])
        try Self.parent(d, ["redeem", "\(few)"])
        var balance = Self.bonus - few * Self.perMinute
        let low = try Self.waybar(try d.stctl(["status", "--format", "waybar"]))
        #expect(low["text"] == "🎮 \(few) min · \(balance) pts")
        #expect(low["class"] == "low" && low["alt"] == "low")
        let lowTip = try #require(low["tooltip"]).components(separatedBy: "\n")
        #expect(Array(lowTip.prefix(5)) == [
            "Game time now: \(few) min",
            "Game time today: \(few) min (played 0 s)",
            "Redeemed, left: \(few) min",
            "Points: \(balance) (+0 today; a game minute costs \(Self.perMinute))",
            "Learning today: 0 s",
        ], "\(lowTip)")
        #expect(Self.i3blocks(try d.stctl(["status", "--format", "i3blocks"])) == ["🎮 \(few) min · \(balance) pts", "🎮 \(few) min", "#FFAA00"])

        // Plenty: ok, and no colour line for i3blocks (the block's own colour stays).
        let more: Int = 30
        try Self.parent(d, ["redeem", "\(more)"])
        balance -= more * Self.perMinute
        let ok = try Self.waybar(try d.stctl(["status", "--format", "waybar"]))
        #expect(ok["text"] == "🎮 \(few + more) min · \(balance) pts")
        #expect(ok["class"] == "ok" && ok["alt"] == "ok")
        let okTip = try #require(ok["tooltip"]).components(separatedBy: "\n")
        #expect(okTip.first == "Game time now: \(few + more) min", "\(okTip)")
        #expect(okTip.contains("Points: \(balance) (+0 today; a game minute costs \(Self.perMinute))"), "\(okTip)")
        #expect(Self.i3blocks(try d.stctl(["status", "--format", "i3blocks"])) == ["🎮 \(few + more) min · \(balance) pts", "🎮 \(few + more) min"])

        // The other outputs are as they were: --format text is plain status; --json is the status object.
        let plain = try d.stctl(["status"])
        #expect(try d.stctl(["status", "--format", "text"]).stdout == plain.stdout)
        #expect(plain.stdout.hasPrefix("Points            \(balance)   "), "\(plain.stdout)")
        let json = try d.status()
        #expect(json["balance"] as? Int == balance)
        #expect(json["reward_available_seconds"] as? Int == (few + more) * 60)
        for format in ["waybar", "i3blocks"] {
            let both = try d.stctl(["status", "--format", format, "--json"])
            #expect(both.status == 64)
            #expect(both.stdout == "")
            #expect(both.stderr.hasPrefix("Error: --json and --format \(format) do not go together: --json prints the daemon's status object, --format \(format) a status bar's line; use one of them\n"), "\(both.stderr)")
        }

        // Someone the daemon does not answer: a visible error with the daemon's reason, exit 0.
        chmod(d.socket, 0o666)
        let stranger = try ReplayBinaryTests.runBinary("/usr/bin/setpriv", ["--reuid=65533", "--regid=65533", "--clear-groups",
                                                                            ControlSocketTests.stctl, "status", "--format", "waybar", "--socket", d.socket])
        let refused = try Self.waybar(stranger)
        #expect(refused["class"] == "error" && refused["alt"] == "error")
        #expect(refused["text"] == "🎮 screentime: error")
        #expect(refused["tooltip"] == "only the child this daemon watches, and parents, may ask; you are uid 65533")
        try d.stop()
    }

    @Test("a browser in front (issue #39): the site in use and the host its tab shows, in stctl status and in waybar's tooltip")
    func siteInUse() throws {
        // The "browser" is sh (the policy's [browsers] exe); the daemon takes the parent of the
        // process that reports (here a Python client that stays connected and reports again, as
        // a browser's native messaging host does) as the browser.
        let d = try Self.start(policy: Self.policy(apps: """
            [browsers]
            exe = ["/usr/bin/dash"]
            [[sites]]
            name = "Khan Academy"
            category = "learning"
            domains = ["khanacademy.org"]
            """), sampleEvery: "250ms")
        let client = #"""
            import os, socket, sys, time
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rb")
            event = '{"event": "site_changed", "pid": 1, "host": "www.khanacademy.org", "focused": true}'
            def report():
                s.sendall(('{"v": 1, "command": "hook_event", "event": "%s"}\n' % event.replace('"', '\\"')).encode())
                return b'"ok":true' in f.readline()
            print(os.getppid() if report() else "refused", flush=True)
            # Said again every second, as the extension does (the first may come before the
            # daemon has looked at the browser, and is then not followed).
            while report(): time.sleep(1)
            """#
        let browser = Process()
        browser.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        browser.arguments = ["--reuid=\(d.uid)", "--regid=\(d.uid)", "--clear-groups", "/bin/sh", "-c", "python3 -c \"$0\" \"$1\"; true", client, d.socket]
        let out = Pipe()
        browser.standardOutput = out
        try browser.run()
        // Python ended, sh goes on to `true` and ends.
        defer { _ = try? ReplayBinaryTests.runBinary("/usr/bin/pkill", ["-KILL", "-P", "\(browser.processIdentifier)"]); browser.waitUntilExit() }
        let said = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let pid = try #require(Int32(said), "the browser's report: \(said)")
        #expect(pid == browser.processIdentifier, "setpriv runs sh by exec: one pid")
        try Self.parent(d, ["hook", "event", #"{"event": "focus_changed", "pid": \#(pid), "app_id": "browser", "title": "a page"}"#])
        var status: [String: Any] = [:]
        try Wait.whether(within: 30) {   // each look runs stctl
            status = try d.status()
            return status["current_site"] as? String == "www.khanacademy.org"
        }
        #expect(status["current_app"] as? String == "Khan Academy" && status["current_site"] as? String == "www.khanacademy.org", "\(status)")
        let counts = try #require(status["current_counts"] as? String)
        let text = try d.stctl(["status"])
        #expect(text.stdout.split(separator: "\n").contains { $0.hasPrefix("In use") && $0.hasSuffix("Khan Academy (www.khanacademy.org): \(counts)") }, "\(text.stdout)")
        let tip = try #require(try Self.waybar(try d.stctl(["status", "--format", "waybar"]))["tooltip"]).components(separatedBy: "\n")
        #expect(tip.contains("In use: Khan Academy (www.khanacademy.org): \(counts)"), "\(tip)")
        try d.stop()
    }

    @Test("the tooltip says what is in use and how it counts, with waybar's markup characters escaped")
    func inUse() throws {
        let dir = try AppCopies.folder()
        let name = "Tux & Math <3"
        let d = try Self.start(policy: Self.policy(apps: """
            [[apps]]
            name = "\(name)"
            category = "learning"
            exe = ["\(dir)/gcompris-qt"]
            """), sampleEvery: "250ms")
        let app = try CrashTests.asNobody(["\(dir)/gcompris-qt", "600"])
        defer { kill(app.processIdentifier, SIGKILL); app.waitUntilExit() }
        let pid = app.processIdentifier
        try d.poll("SELECT count(*) FROM event WHERE line LIKE '%process_started%\((dir as NSString).lastPathComponent)%gcompris-qt%'") { $0 != "0" }
        try Self.parent(d, ["hook", "event", #"{"event": "focus_changed", "pid": \#(pid), "app_id": "gcompris", "title": "GCompris"}"#])
        var status: [String: Any] = [:]
        try Wait.whether(within: 30) {   // each look runs stctl
            status = try d.status()
            return status["current_app"] as? String == name
        }
        #expect(status["current_app"] as? String == name, "\(status)")
        let counts = try #require(status["current_counts"] as? String)
        #expect(counts.hasPrefix("learning"))

        let bar = try Self.waybar(try d.stctl(["status", "--format", "waybar"]))
        let tip = try #require(bar["tooltip"]).components(separatedBy: "\n")
        #expect(tip.contains("In use: Tux &amp; Math &lt;3: \(counts)"), "\(tip)")
        let notes = (status["blind_spots"] as? [String] ?? []).map {
            "Note: " + $0.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        }
        #expect(!notes.isEmpty && Array(tip.suffix(notes.count)) == notes, "\(tip)")
        #expect(bar["text"] == "🎮 0 min · 0 pts" && bar["class"] == "none")
        try d.stop()
    }

    /// The policy's screen time (issue #38), in a zone where it is about noon now
    /// (LogindEndToEndTests.noonZone), so that no hour of the test touches midnight.
    static func screenPolicy(dailyLimit: String, allowedHours: String, zone: String) -> String {
        """
        version = 1
        timezone = "\(zone)"
        [points]
        per_reward_minute = \(perMinute)
        [screen]
        daily_limit = "\(dailyLimit)"
        allowed_hours = ["\(allowedHours)"]
        grace = "1h"
        """
    }

    /// Seconds from now to `hour`:00 today in `zone`.
    static func secondsUntil(hour: Int, in zone: String) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        let now = Date()
        let then = calendar.date(bySettingHour: hour, minute: 0, second: 0, of: now)!
        return Int(then.timeIntervalSince(now).rounded(.down))
    }

    /// stctl's words for a time left ("0 min", "40 s", "20 min", "1 h 05 min"; docs/status-bars.md).
    static func words(_ seconds: Int) -> String {
        seconds <= 0 ? "0 min" : seconds < 60 ? "\(seconds) s" : seconds < 3600 ? "\(seconds / 60) min"
            : "\(seconds / 3600) h \(String(format: "%02d", seconds / 60 % 60)) min"
    }

    @Test("with [screen]: screen time left before the game time, bedtime when it is the nearer end, a free day; the tooltip starts with screen time and bedtime")
    func screenTime() throws {
        let zone = LogindEndToEndTests.noonZone()
        let logind = try MockLogind()   // no session of the child yet: screen time does not count
        let limit = 2 * 3600, bedtimeHour = 23
        let d = try Self.start(policy: Self.screenPolicy(dailyLimit: "2h", allowedHours: "00:00-\(bedtimeHour):00", zone: zone), logind: logind)
        defer { if d.process.isRunning { kill(d.process.processIdentifier, SIGKILL) } }
        let game = 30
        try Self.parent(d, ["adjust", "\(Self.bonus)", "--reason", "status bar test"])
        try Self.parent(d, ["redeem", "\(game)"])
        let balance = Self.bonus - game * Self.perMinute

        // The daily limit is the nearer end (bedtime is at 23:00, ten hours on): the whole limit is left.
        let daily = try Self.waybar(try d.stctl(["status", "--format", "waybar"]))
        #expect(daily["text"] == "🖥 \(Self.words(limit)) · 🎮 \(game) min · \(balance) pts")
        #expect(daily["class"] == "ok" && daily["alt"] == "ok")
        let tip = try #require(daily["tooltip"]).components(separatedBy: "\n")
        #expect(Array(tip.prefix(3)) == ["Screen time: \(Self.words(limit)) left today (used 0 s)", "Bedtime: \(bedtimeHour):00",
                                         "Game time now: \(game) min"], "\(tip)")
        #expect(Self.i3blocks(try d.stctl(["status", "--format", "i3blocks"]))
                == ["🖥 \(Self.words(limit)) · 🎮 \(game) min · \(balance) pts", "🖥 \(Self.words(limit)) · 🎮 \(game) min"])

        // A parent moves bedtime to 14:00 tonight (one to two hours from noon): bedtime is the nearer end.
        try Self.parent(d, ["bedtime", "14:00", "--tonight"])
        let before = Self.secondsUntil(hour: 14, in: zone)
        let bar = try Self.waybar(try d.stctl(["status", "--format", "waybar"]))
        let blocks = Self.i3blocks(try d.stctl(["status", "--format", "i3blocks"]))
        let after = Self.secondsUntil(hour: 14, in: zone)
        // The minute may turn between the test's clock and the daemon's: either word is right.
        let lefts = Set([before, after, before + 1].map(Self.words))
        #expect(lefts.contains { bar["text"] == "🖥 \($0) (bedtime 14:00) · 🎮 \(game) min · \(balance) pts" }, "\(bar) \(lefts)")
        #expect(bar["class"] == "ok")
        let bedtimeTip = try #require(bar["tooltip"]).components(separatedBy: "\n")
        #expect(lefts.contains { Array(bedtimeTip.prefix(2)) == ["Screen time: \($0) left until bedtime (used 0 s)", "Bedtime: 14:00"] }, "\(bedtimeTip)")
        // i3blocks' short text leaves bedtime out.
        #expect(blocks.count == 2 && lefts.contains { blocks == ["🖥 \($0) (bedtime 14:00) · 🎮 \(game) min · \(balance) pts", "🖥 \($0) · 🎮 \(game) min"] },
                "\(blocks)")

        // A free day: no screen limit for the rest of today.
        try Self.parent(d, ["free-day"])
        let free = try Self.waybar(try d.stctl(["status", "--format", "waybar"]))
        #expect(try #require(free["text"]).hasPrefix("🖥 free day · 🎮 "), "\(free)")
        #expect(try #require(free["tooltip"]).hasPrefix("Screen time: no limit today (a free day) (used 0 s)\n"), "\(free)")
        try d.stop()
    }

    @Test("with [screen]: the bar turns low, then none, as the child's session uses the screen time up, whatever the game time")
    func screenTimeRunsOut() throws {
        let logind = try MockLogind()
        let limit = 8
        let d = try Self.start(policy: Self.screenPolicy(dailyLimit: "\(limit)s", allowedHours: "00:00-23:00", zone: LogindEndToEndTests.noonZone()),
                               logind: logind)
        defer { if d.process.isRunning { kill(d.process.processIdentifier, SIGKILL) } }
        let game = 30
        try Self.parent(d, ["adjust", "\(Self.bonus)", "--reason", "status bar test"])
        try Self.parent(d, ["redeem", "\(game)"])
        let balance = Self.bonus - game * Self.perMinute

        // No session: nothing counts yet, the whole limit is left, and it is under five minutes: low.
        let low = try Self.waybar(try d.stctl(["status", "--format", "waybar"]))
        #expect(low["text"] == "🖥 \(limit) s · 🎮 \(game) min · \(balance) pts")
        #expect(low["class"] == "low" && low["alt"] == "low", "\(low)")
        #expect(Self.i3blocks(try d.stctl(["status", "--format", "i3blocks"]))
                == ["🖥 \(limit) s · 🎮 \(game) min · \(balance) pts", "🖥 \(limit) s · 🎮 \(game) min", "#FFAA00"])

        // The child logs in: the session counts, and the limit is used up.
        try logind.addSession("c6", uid: 65534, name: "nobody")
        _ = try d.waitFor("following logind session /org/freedesktop/login1/session/c6")
        var none: [String: String] = [:]
        try Wait.whether(within: 30) {   // each look runs stctl
            none = try Self.waybar(try d.stctl(["status", "--format", "waybar"]))
            return none["class"] != "low"
        }
        #expect(none["text"] == "🖥 0 min · 🎮 \(game) min · \(balance) pts", "\(none)")
        #expect(none["class"] == "none" && none["alt"] == "none", "\(none)")
        #expect(try #require(none["tooltip"]).hasPrefix("Screen time: 0 s left today (used "), "\(none)")
        #expect(Self.i3blocks(try d.stctl(["status", "--format", "i3blocks"]))
                == ["🖥 0 min · 🎮 \(game) min · \(balance) pts", "🖥 0 min · 🎮 \(game) min", "#FF5555"])
        try d.stop()
    }

    @Test("no daemon: waybar gets a visible error module and i3blocks a red block, both with exit status 0")
    func unreachable() throws {
        let socket = FileManager.default.temporaryDirectory.appendingPathComponent("screentime-none-\(UUID().uuidString)/control.sock").path
        let bar = try Self.waybar(try ReplayBinaryTests.runBinary(ControlSocketTests.stctl, ["status", "--format", "waybar", "--socket", socket]))
        #expect(bar["text"] == "🎮 screentime: not running")
        #expect(bar["class"] == "error" && bar["alt"] == "error")
        #expect(bar["tooltip"] == "\(socket): screentimed is not running (there is no socket here); start it, or pass the --socket it listens on")
        let blocks = Self.i3blocks(try ReplayBinaryTests.runBinary(ControlSocketTests.stctl, ["status", "--format", "i3blocks", "--socket", socket]))
        #expect(blocks == ["🎮 screentime: not running", "🎮 off", "#FF5555"])
        // Plain status still fails, as it always did.
        let plain = try ReplayBinaryTests.runBinary(ControlSocketTests.stctl, ["status", "--socket", socket])
        #expect(plain.status == 3)
        #expect(plain.stdout == "")
    }
}
