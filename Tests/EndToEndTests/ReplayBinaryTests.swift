import Foundation
import ScreenTimeLinux
import TestSupport
import Testing

/// Runs the real `screentimed` binary, as a parent or CI would.
@Suite("screentimed replay, end to end", .ownThread)
struct ReplayBinaryTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let binary = Readable.path(".build/debug/screentimed")
    static let scenarios = root.appendingPathComponent("Tests/Scenarios/shared")
    static let scenarioNames = scenarioFolders(in: scenarios)

    /// The scenario folders (those with an `expect.json`) in `folder`; none when it is missing,
    /// which `scenariosPresent` reports: a parameterized test with no arguments runs no case.
    static func scenarioFolders(in folder: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { FileManager.default.fileExists(atPath: folder.appendingPathComponent($0 + "/expect.json").path) }.sorted()
    }

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ args: [String], stdin: String? = nil) throws -> Run {
        try runBinary(binary, args, stdin: stdin)
    }

    /// Runs a built binary of this package to its end.
    static func runBinary(_ path: String, _ args: [String], stdin: String? = nil) throws -> Run {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        let out = Pipe(), err = Pipe(), input = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = input
        try p.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Run(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    static func temp(_ name: String, _ text: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("screentime-e2e-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    static var policy: String { scenarios.appendingPathComponent("honest-half-hour/policy.toml").path }

    /// The shared scenarios, checked by the company's checker, as the family and calendar ones are.
    @Test("the shared scenarios hold against the binary (check-scenario)", arguments: scenarioNames)
    func sharedScenario(_ name: String) throws {
        try Self.check(Self.scenarios.appendingPathComponent(name), name)
    }

    static let familyScenarios = root.appendingPathComponent("Tests/Scenarios/family")
    static let familyNames = scenarioFolders(in: familyScenarios)

    /// The family scenarios, checked by the company's own checker (a copy in Tests/Scenarios), which
    /// reads dotted keys and `match_include` as `docs/spec/scenarios.md` says.
    @Test("the family scenarios hold against the binary (check-scenario)", arguments: familyNames)
    func familyScenario(_ name: String) throws {
        try Self.check(Self.familyScenarios.appendingPathComponent(name), name)
    }

    static let calendarScenarios = root.appendingPathComponent("Tests/Scenarios/calendar")
    static let calendarNames = scenarioFolders(in: calendarScenarios)

    /// A family's week (issue #35): a night switched off, suspend, the clock changes, a dual-boot
    /// clock, an NTP step back, a firmware clock set ahead then corrected.
    @Test("the calendar scenarios hold against the binary (check-scenario)", arguments: calendarNames)
    func calendarScenario(_ name: String) throws {
        try Self.check(Self.calendarScenarios.appendingPathComponent(name), name)
    }

    static let screenScenarios = root.appendingPathComponent("Tests/Scenarios/screen")
    static let screenNames = scenarioFolders(in: screenScenarios)

    /// The whole computer (issue #38, docs/spec/screen.md): a daily screen limit, a bedtime.
    @Test("the screen-time scenarios hold against the binary (check-scenario)", arguments: screenNames)
    func screenScenario(_ name: String) throws {
        try Self.check(Self.screenScenarios.appendingPathComponent(name), name)
    }

    static let sitesScenarios = root.appendingPathComponent("Tests/Scenarios/sites")
    static let sitesNames = scenarioFolders(in: sitesScenarios)

    /// Websites (issue #39, docs/spec/sites.md): the site in a browser's tab, as its extension reports it.
    @Test("the websites scenarios hold against the binary (check-scenario)", arguments: sitesNames)
    func sitesScenario(_ name: String) throws {
        try Self.check(Self.sitesScenarios.appendingPathComponent(name), name)
    }

    /// The scenarios above are parameterized by their folders: without this, a missing folder
    /// would run no case and pass.
    @Test("every scenario folder is there, each with its policy, events and expectations")
    func scenariosPresent() throws {
        for (folder, names, least) in [(Self.scenarios, Self.scenarioNames, 5), (Self.familyScenarios, Self.familyNames, 2),
                                       (Self.calendarScenarios, Self.calendarNames, 6), (Self.screenScenarios, Self.screenNames, 22),
                                       (Self.sitesScenarios, Self.sitesNames, 14)] {
            #expect(names.count >= least, "\(folder.path): \(names.count) scenarios, expected at least \(least)")
            for name in names {
                for file in ["policy.toml", "events.jsonl", "expect.json"] {
                    #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(name + "/" + file).path), "\(name): no \(file)")
                }
            }
        }
    }

    /// The keys `check-scenario` reads (docs/spec/scenarios.md). A key it does not read would be
    /// an expectation nobody checks.
    static let expectKeys: Set<String> = ["balance", "learning_points", "reward_used_seconds", "reward_remaining_seconds",
                                          "reasons_include", "reasons_exclude", "actions_include", "match_include",
                                          "match_exclude", "note"]

    @Test("every key of every expect.json is one the checker reads")
    func expectKeysKnown() throws {
        var seen = 0
        for (folder, names) in [(Self.scenarios, Self.scenarioNames), (Self.familyScenarios, Self.familyNames),
                                (Self.calendarScenarios, Self.calendarNames), (Self.screenScenarios, Self.screenNames),
                                (Self.sitesScenarios, Self.sitesNames)] {
            for name in names {
                let data = try Data(contentsOf: folder.appendingPathComponent(name + "/expect.json"))
                let expect = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(name): expect.json is not an object")
                for key in expect.keys {
                    seen += 1
                    // A dotted key is a path into the result, checked as a [lo, hi] range.
                    let known = Self.expectKeys.contains(key) || (key.contains(".") && (expect[key] as? [NSNumber])?.count == 2)
                    #expect(known, "\(name)/expect.json: '\(key)' is not a key check-scenario reads")
                }
            }
        }
        #expect(seen > 0)
    }

    /// Runs the company's checker (a copy in Tests/Scenarios) on one folder against the binary.
    static func check(_ folder: URL, _ name: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = [Self.root.appendingPathComponent("Tests/Scenarios/check-scenario").path, folder.path]
        p.environment = ["SCREENTIMED": Self.binary, "PATH": "/usr/bin:/bin"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "\(text)")
        #expect(text.contains("ok   \(name)") && text.contains("1 passed, 0 failed"), "\(text)")
    }

    @Test("a malformed event line: exit 2, 'file:line: reason' on stderr, nothing on stdout")
    func malformedLine() throws {
        let events = try Self.temp("bad.jsonl", """
            {"at": "2026-11-23T15:00:00+01:00", "event": "tick"}

            {"at": "2026-11-23T15:00:01+01:00", "event": "process_exited"}
            """)
        let r = try Self.run(["replay", "--policy", Self.policy, events])
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr == "\(events):3: missing field 'pid' (a whole number)\n")
    }

    @Test("an unknown event is refused; unknown fields are ignored")
    func unknownEvent() throws {
        let events = try Self.temp("unknown.jsonl", """
            {"at": "2026-11-23T15:00:00+01:00", "event": "tick", "hostname": "kidslaptop"}
            {"at": "2026-11-23T15:00:01+01:00", "event": "proces_started", "pid": 1, "exe": "/bin/true"}
            """)
        let r = try Self.run(["replay", "--policy", Self.policy, events])
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr == "\(events):2: unknown event 'proces_started' (did you mean 'process_started'?)\n")
    }

    @Test("not JSON, a bad time, a wrong type: each named with its line", arguments: [
        ("{\"at\": \"2026-11-23T15:00:00+01:00\", \"event\": \"tick\"", "not valid JSON at column 52: unexpected end of line, expected '}'"),
        ("{\"at\": \"2026-11-23 15:00\", \"event\": \"tick\"}", "'at' is not an RFC 3339 time with offset: \"2026-11-23 15:00\""),
        ("{\"at\": \"2026-11-23T15:00:00+01:00\", \"event\": \"redeem\", \"minutes\": \"20\"}", "'minutes' must be a whole number, not a string"),
        ("{\"at\": \"2026-11-23T15:00:00+01:00\", \"event\": \"redeem\", \"minutes\": 0}", "'minutes' must be a whole number from 1 to 100000"),
        ("[1, 2]", "an event must be a JSON object, not an array"),
    ])
    func malformedKinds(_ line: String, _ reason: String) throws {
        let events = try Self.temp("kinds-\(UUID().uuidString).jsonl", line + "\n")
        let r = try Self.run(["replay", "--policy", Self.policy, events])
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr == "\(events):1: \(reason)\n")
    }

    @Test("a malformed policy: exit 2 with file:line")
    func malformedPolicy() throws {
        let policy = try Self.temp("policy.toml", "version = 1\n[rewards]\ndaily_limt = \"90m\"\n")
        let events = try Self.temp("empty.jsonl", "")
        let r = try Self.run(["replay", "--policy", policy, events])
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr == "\(policy):3: unknown key 'daily_limt' in [rewards] (did you mean 'daily_limit'?)\n")
    }

    @Test("events from standard input; the result is one JSON object")
    func standardInput() throws {
        let r = try Self.run(["replay", "--policy", Self.policy, "-"], stdin: """
            {"at": "2026-11-23T15:00:00+01:00", "event": "adjust", "points": 12, "reason": "chores"}
            """)
        #expect(r.status == 0)
        let obj = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect((obj["balance"] as? NSNumber)?.intValue == 12)
    }
}

@Suite("stctl policy check, end to end", .ownThread)
struct PolicyCheckBinaryTests {
    static let stctl = Readable.path(".build/debug/stctl")

    static func run(_ args: [String]) throws -> ReplayBinaryTests.Run {
        try ReplayBinaryTests.runBinary(stctl, args)
    }

    @Test("the default policy is good, and the summary says what it allows")
    func good() throws {
        let r = try Self.run(["policy", "check", ReplayBinaryTests.root.appendingPathComponent("policies/default.toml").path])
        #expect(r.status == 0)
        #expect(r.stdout.contains("learning      60 points an hour, at most 2 h 00 min a day"))
        #expect(r.stdout.contains("only 07:00-12:00, 14:00-20:00"))
    }

    @Test("the coming week, each day with its schedule's limits and hours (a parent sees what they wrote)")
    func week() throws {
        let path = try ReplayBinaryTests.temp("week-\(UUID().uuidString).toml", """
            version = 1
            timezone = "Europe/Berlin"
            [rewards]
            daily_limit = "90m"
            allowed_hours = ["07:00-20:00"]
            [[schedules]]
            name = "Christmas"
            dates = ["2026-12-21..2027-01-06"]
            daily_limit = "4h"
            [[schedules]]
            name = "weekend"
            days = ["sat", "sun"]
            daily_limit = "3h"
            allowed_hours = ["08:00-21:00"]
            daily_allowance = "1h"
            """)
        let r = try Self.run(["policy", "check", path, "--from", "2026-12-18"])
        #expect(r.status == 0, "\(r.stderr)")
        let week = r.stdout.split(separator: "\n").drop { !$0.contains("the coming week") }.dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(week == [
            "Fri 2026-12-18  games 1 h 30 min a day, 07:00-20:00; learning at most 2 h 00 min",
            "Sat 2026-12-19  games 3 h 00 min a day, 08:00-21:00, 1 h 00 min free; learning at most 2 h 00 min  (weekend)",
            "Sun 2026-12-20  games 3 h 00 min a day, 08:00-21:00, 1 h 00 min free; learning at most 2 h 00 min  (weekend)",
            "Mon 2026-12-21  games 4 h 00 min a day, 07:00-20:00; learning at most 2 h 00 min  (Christmas)",
            "Tue 2026-12-22  games 4 h 00 min a day, 07:00-20:00; learning at most 2 h 00 min  (Christmas)",
            "Wed 2026-12-23  games 4 h 00 min a day, 07:00-20:00; learning at most 2 h 00 min  (Christmas)",
            "Thu 2026-12-24  games 4 h 00 min a day, 07:00-20:00; learning at most 2 h 00 min  (Christmas)",
        ], "\(r.stdout)")
        let j = try Self.object(try Self.run(["policy", "check", "--json", path, "--from", "2026-12-26"]))
        let days = try #require(j["week"] as? [[String: Any]])
        #expect(days.map { $0["schedule"] as? String } == Array(repeating: "Christmas", count: 7))   // the first that holds a day
        #expect(days.first?["daily_limit_seconds"] as? Int == 4 * 3600 && days.first?["daily_allowance_seconds"] as? Int == 0)
    }

    @Test("the coming week with screen time: each day's screen limit and bedtime, the weekend's from its schedule")
    func screenWeek() throws {
        let path = try ReplayBinaryTests.temp("screen-week-\(UUID().uuidString).toml", """
            version = 1
            timezone = "Europe/Berlin"
            [rewards]
            daily_limit = "90m"
            [screen]
            daily_limit = "2h"
            allowed_hours = ["07:00-20:30"]
            [[schedules]]
            name = "weekend"
            days = ["sat", "sun"]
            screen_daily_limit = "3h"
            screen_allowed_hours = ["08:00-21:00"]
            """)
        let r = try Self.run(["policy", "check", path, "--from", "2026-12-18"])
        #expect(r.status == 0, "\(r.stderr)")
        let week = r.stdout.split(separator: "\n").drop { !$0.contains("the coming week") }.dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(week.prefix(3) == [
            "Fri 2026-12-18  games 1 h 30 min a day; screen 2 h 00 min a day, 07:00-20:30 (bedtime 20:30); learning at most 2 h 00 min",
            "Sat 2026-12-19  games 1 h 30 min a day; screen 3 h 00 min a day, 08:00-21:00 (bedtime 21:00); learning at most 2 h 00 min  (weekend)",
            "Sun 2026-12-20  games 1 h 30 min a day; screen 3 h 00 min a day, 08:00-21:00 (bedtime 21:00); learning at most 2 h 00 min  (weekend)",
        ], "\(r.stdout)")
        let days = try #require(try Self.object(try Self.run(["policy", "check", "--json", path, "--from", "2026-12-18"]))["week"] as? [[String: Any]])
        #expect(days.map { $0["screen_daily_limit_seconds"] as? Int } == [7200, 10800, 10800, 7200, 7200, 7200, 7200])
        #expect(days.first?["screen_allowed_hours"] as? [String] == ["07:00-20:30"])
    }

    static func object(_ r: ReplayBinaryTests.Run) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)\(r.stderr)")
    }

    /// A mistyped parent is no parent at all, and the daemon says nothing of it; but the same
    /// policy may be meant for another computer, which has the account: a warning, exit status 0.
    @Test("[parents] accounts this computer does not have: a warning each, with its line and what to do; the policy is still good")
    func missingParents() throws {
        let user = "nosuchparent\(getpid())", group = "nosuchgroup\(getpid())"
        let path = try ReplayBinaryTests.temp("parents-\(UUID().uuidString).toml", """
            version = 1
            timezone = "UTC"

            [parents]
            users = ["root", "\(user)"]
            groups = [
              "root", "\(group)",
            ]
            """)
        let r = try Self.run(["policy", "check", path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr == """
            \(path):5: warning: [parents] users names '\(user)', but this computer has no user '\(user)', so nobody can act as that parent here. \
            Check the spelling (a login name, as `id -un` prints it), or add the user; if the policy is for another computer that has '\(user)', all is well.
            \(path):6: warning: [parents] groups names '\(group)', but this computer has no group '\(group)', so nobody is a parent through it here. \
            Check the spelling (`getent group` lists the groups), or add the group; if the policy is for another computer that has '\(group)', all is well.

            """, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("\(path): good (2 warnings)\n"), "\(r.stdout)")
        let j = try Self.object(try Self.run(["policy", "check", "--json", path]))
        #expect(j["ok"] as? Bool == true)
        let warnings = try #require(j["warnings"] as? [[String: Any]])
        #expect(warnings.map { ($0["line"] as? NSNumber)?.intValue } == [5, 6])
        #expect((warnings.first?["message"] as? String)?.hasPrefix("[parents] users names '\(user)', but this computer has no user") == true)

        // Accounts that exist: no warning.
        let known = try ReplayBinaryTests.temp("parents-\(UUID().uuidString).toml", "version = 1\ntimezone = \"UTC\"\n[parents]\nusers = [\"root\"]\ngroups = [\"root\"]\n")
        let good = try Self.run(["policy", "check", known])
        #expect(good.status == 0 && good.stderr == "", "\(good.stderr)")
        #expect(good.stdout.hasPrefix("\(known): good\n"), "\(good.stdout)")
        #expect(try Self.object(try Self.run(["policy", "check", "--json", known]))["warnings"] as? [Any] != nil)
    }

    @Test("with [[sites]]: a warning says what a browser without the extension counts as, and names each installed browser on which no policy of root's forces it")
    func sitesWarnings() throws {
        try #require(!FileManager.default.fileExists(atPath: ManagedBrowserPolicy.chromiumFolder + "/screentime.json"),
                     "this test needs a machine without the screentime package's Chromium policy")
        let sites = """
            [[sites]]
            name = "Khan Academy"
            category = "learning"
            domains = ["khanacademy.org"]
            """
        // A browser that is not on this machine: only what such a browser counts as.
        let absent = try ReplayBinaryTests.temp("sites-\(UUID().uuidString).toml",
            "version = 1\ntimezone = \"UTC\"\n[browsers]\nexe = [\"/nonexistent/browser\"]\nunreported = \"blocked\"\nreport_within = \"20s\"\n" + sites)
        let r = try Self.run(["policy", "check", absent])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 1, "\(r.stderr)")
        #expect(lines.first?.hasPrefix("\(absent):3: warning: with [[sites]], a browser without screentime's extension") == true, "\(r.stderr)")
        #expect(lines.first?.contains("counts as blocked (\"unreported\"): it is closed") == true, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("\(absent): good (1 warning)\n"), "\(r.stdout)")
        // A program that is here, and no managed policy of Chromium's forcing the extension.
        let here = try ReplayBinaryTests.temp("sites-\(UUID().uuidString).toml", "version = 1\ntimezone = \"UTC\"\n[browsers]\nexe = [\"/usr/bin/true\"]\n" + sites)
        let j = try Self.object(try Self.run(["policy", "check", "--json", here]))
        let messages = try #require(j["warnings"] as? [[String: Any]]).compactMap { $0["message"] as? String }
        #expect(messages.count == 2, "\(messages)")
        #expect(messages.first?.contains("counts as a game (\"unreported\"): it uses game time") == true, "\(messages)")
        #expect(messages.last?.hasPrefix("/usr/bin/true is installed here, but Chromium's managed policy (\(ManagedBrowserPolicy.chromiumFolder)) lacks ExtensionInstallForcelist") == true,
                "\(messages)")
        // Without [[sites]]: nothing of the kind.
        let none = try ReplayBinaryTests.temp("sites-\(UUID().uuidString).toml", "version = 1\ntimezone = \"UTC\"\n")
        #expect(try Self.run(["policy", "check", none]).stderr == "")
    }

    @Test("a bad policy: exit 1, every problem with its line")
    func bad() throws {
        let path = try ReplayBinaryTests.temp("check-\(UUID().uuidString).toml", "version = 1\n[points]\nlearning_per_hour = 0\n[rewards]\ndaily_limt = \"1h\"\n")
        let r = try Self.run(["policy", "check", path])
        #expect(r.status == 1)
        #expect(r.stderr == "\(path):3: 'learning_per_hour' must be from 1 to 1000000, not 0\n\(path):5: unknown key 'daily_limt' in [rewards] (did you mean 'daily_limit'?)\n")
        let j = try Self.run(["policy", "check", "--json", path])
        let obj = try #require(try JSONSerialization.jsonObject(with: Data(j.stdout.utf8)) as? [String: Any])
        #expect(obj["ok"] as? Bool == false)
        #expect((obj["problems"] as? [[String: Any]])?.map { ($0["line"] as? NSNumber)?.intValue } == [3, 5])
    }
}
