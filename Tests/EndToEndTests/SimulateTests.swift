import Foundation
import TestSupport
import Testing

/// `stctl simulate` against the real daemon (issue #18): a stored week replayed under a policy
/// with half the rate gives half the points each day, and the state is not touched.
///
/// The child is uid 65054, which no other test uses.
@Suite("stctl simulate, end to end", .ownThread, .serialized)
struct SimulateTests {
    static let child: UInt32 = TestUser.ensure(uid: 65054, name: "stkid65054")

    static func policy(rate: Int) -> String {
        """
        version = 1
        timezone = "UTC"
        [points]
        learning_per_hour = \(rate)
        [[apps]]
        name = "GCompris"
        category = "learning"
        exe = ["/usr/bin/gcompris-qt"]
        """
    }

    /// 40 minutes of GCompris at 10:00 UTC on each of the six days before today.
    static func week() -> String {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let today = utc.startOfDay(for: Date())
        let f = ISO8601DateFormatter()
        return (1...6).reversed().map { back -> String in
            let start = utc.date(byAdding: .hour, value: 10, to: utc.date(byAdding: .day, value: -back, to: today)!)!
            let end = start.addingTimeInterval(40 * 60)
            let pid = 5000 + back
            return """
                {"at": "\(f.string(from: start))", "event": "process_started", "pid": \(pid), "exe": "/usr/bin/gcompris-qt", "start_ticks": \(pid * 10)}
                {"at": "\(f.string(from: start))", "event": "focus_changed", "pid": \(pid)}
                {"at": "\(f.string(from: end))", "event": "process_exited", "pid": \(pid)}
                """
        }.joined(separator: "\n") + "\n"
    }

    static func digest(_ path: String) throws -> String {
        guard FileManager.default.fileExists(atPath: path) else { return "absent" }
        return try ReplayBinaryTests.runBinary("/usr/bin/sha256sum", [path]).stdout
    }

    @Test("a week under half the rate: half the points every day, the difference said, nothing changed in the state")
    func halfTheRate() throws {
        _ = Self.child
        let events = FileManager.default.temporaryDirectory.appendingPathComponent("screentime-week-\(UUID().uuidString).jsonl").path
        try Self.week().write(toFile: events, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: events) }
        _ = chmod(events, 0o644)
        let d = try LiveDaemon(policy: Self.policy(rate: 60), arguments: ["--sample-every", "1h", "--no-logind", "--no-notifications"],
                               importing: events, uid: Self.child)
        _ = try d.waitFor("watching uid")
        let half = d.base + "/half.toml"
        try Self.policy(rate: 30).write(toFile: half, atomically: true, encoding: .utf8)
        _ = chmod(half, 0o644)
        let files = [d.database, d.database + "-wal"]
        // The start saved (once a second at most; its first sample, of every process, may take a
        // while on a busy machine): the files unchanged for longer than a save's second. (The
        // daemon says nothing when it has saved: two looks 1.2 s apart that agree are the sign.)
        var last: [String]? = nil
        let before = try Wait.for("the state's files to stay the same for 1.2 s (the start saved)", within: 30, every: 1.2) { () -> [String]? in
            let now = try files.map(Self.digest)
            defer { last = now }
            return now == last ? now : nil
        }

        let root = { (args: [String]) in try ReplayBinaryTests.runBinary(ControlSocketTests.stctl, args + ["--socket", d.socket]) }
        let r = try root(["simulate", half, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let reply = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)")
        let days = try #require(reply["simulation"] as? [[String: Any]])
        #expect(days.count == 7)
        func figure(_ day: [String: Any], _ side: String, _ key: String) -> Int { (day[side] as? [String: Any])?[key] as? Int ?? -1 }
        // The six days with learning (where "today" falls depends on the calendar the daemon
        // carried forward from the imported log, which has no monotonic clock): 40 points old,
        // 20 new; every other day nothing either way.
        let learned = days.filter { figure($0, "old", "learning_credited_seconds") > 0 }
        #expect(learned.count == 6, "\(days)")
        for day in learned {
            #expect(figure(day, "old", "points") == 40 && figure(day, "new", "points") == 20 && figure(day, "difference", "points") == -20, "\(day)")
            #expect(figure(day, "old", "learning_credited_seconds") == 2400 && figure(day, "new", "learning_credited_seconds") == 2400, "\(day)")
        }
        for day in days where figure(day, "old", "learning_credited_seconds") == 0 {
            #expect(figure(day, "old", "points") == 0 && figure(day, "new", "points") == 0, "\(day)")
        }
        let text = try root(["simulate", half])
        #expect(text.stdout.contains("40 → 20 (−20)") && text.stdout.hasSuffix("Over 7 days the new policy gives -120 points and +0 s of game time. Nothing was changed.\n"), "\(text.stdout)")
        // Nothing was written: the state is the same, byte for byte; the balance too. A sleep, not a
        // wait: the daemon saves once a second, and the test shows that a save does not come.
        usleep(1_200_000)
        let newest = (try? d.sql("SELECT seq || ' ' || line FROM event ORDER BY seq DESC LIMIT 4")) ?? ""
        #expect(try files.map(Self.digest) == before, "the newest events: \(newest)")
        #expect(try d.status()["balance"] as? Int == 240)

        // Only parents may; a policy with a problem is refused with its line.
        let asChild = try d.stctl(["simulate", half])
        #expect(asChild.status == 1 && asChild.stderr.hasPrefix("stctl: simulate is for parents: "), "\(asChild.stderr)")
        let bad = d.base + "/bad.toml"
        try "version = 1\n[points]\nlearning_per_hour = 0\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let refused = try root(["simulate", bad])
        #expect(refused.status == 1 && refused.stderr == "stctl: the new policy cannot be used: line 3: 'learning_per_hour' must be from 1 to 1000000, not 0\n", "\(refused.stderr)")
        try d.stop()
    }

    @Test("privacy: a window's title is not kept; a title a policy pattern matched is kept as the app's name only; keep_titles keeps them")
    func titles() throws {
        _ = Self.child
        let policy = Self.policy(rate: 60) + """

            [[apps]]
            name = "Khan Academy"
            category = "learning"
            exe = ["/usr/bin/chromium"]
            title = "(?i)khan academy"
            """
        for keep in [false, true] {
            let d = try LiveDaemon(policy: policy + (keep ? "\n[privacy]\nkeep_titles = true\n" : ""),
                                   arguments: ["--sample-every", "1h", "--no-logind", "--no-notifications"], uid: Self.child)
            _ = try d.waitFor("watching uid")
            for title in ["Emma's diary, private", "Fractions | Khan Academy"] {
                let r = try d.stctl(["hook", "event", #"{"event": "focus_changed", "pid": 4242, "title": "\#(title)"}"#])
                #expect(r.status == 0, "\(r.stderr)")
            }
            // (By the event's name: the sampler may log the stctl that sent them, whose command line says focus_changed too.)
            let lines = try d.poll("SELECT count(*) FROM event WHERE line LIKE '%\"event\":\"focus_changed\"%'") { $0 == "2" }
            _ = lines
            let stored = try d.sql("SELECT line FROM event WHERE line LIKE '%\"event\":\"focus_changed\"%' ORDER BY seq").split(separator: "\n")
            try d.stop()
            // Not in the log, nor anywhere in the state's files (the database and its write-ahead log).
            let everything = [d.database, d.database + "-wal"].compactMap { FileManager.default.contents(atPath: $0) }.reduce(Data(), +)
            let diary = everything.range(of: Data("Emma's diary".utf8)) != nil
            let fractions = everything.range(of: Data("Fractions".utf8)) != nil
            if keep {
                #expect(stored.count == 2 && stored[0].contains(#""title":"Emma's diary, private""#), "\(stored)")
                #expect(diary && fractions)
            } else {
                #expect(stored.count == 2 && !stored[0].contains(#""title""#) && !stored[0].contains("title_apps"), "\(stored)")
                #expect(stored.count == 2 && stored[1].contains(#""title_apps":["Khan Academy"]"#) && !stored[1].contains(#""title""#), "\(stored)")
                #expect(!diary && !fractions)
            }
        }
    }

    @Test("export gives everything kept, as JSON; forget removes the events and sessions before a day, the ledger stays whole and check passes")
    func exportAndForget() throws {
        _ = Self.child
        let events = FileManager.default.temporaryDirectory.appendingPathComponent("screentime-week-\(UUID().uuidString).jsonl").path
        try Self.week().write(toFile: events, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: events) }
        _ = chmod(events, 0o644)
        let d = try LiveDaemon(policy: Self.policy(rate: 60), arguments: ["--sample-every", "1h", "--no-logind", "--no-notifications"],
                               importing: events, uid: Self.child)
        _ = try d.waitFor("watching uid")
        let root = { (args: [String]) in try ReplayBinaryTests.runBinary(ControlSocketTests.stctl, args + ["--socket", d.socket]) }

        let exported = try root(["export"])
        #expect(exported.status == 0, "\(exported.stderr)")
        let all = try #require(try JSONSerialization.jsonObject(with: Data(exported.stdout.utf8)) as? [String: Any], "\(exported.stdout.prefix(300))")
        #expect(all["child"] as? String == "stkid65054")
        #expect((all["ledger"] as? [[String: Any]])?.map { $0["points"] as? Int } == Array(repeating: 40, count: 6))
        #expect((all["sessions"] as? [[String: Any]])?.count == 6)
        let logged = try #require(all["events"] as? [[String: Any]])
        #expect(logged.filter { $0["event"] as? String == "process_started" && $0["exe"] as? String == "/usr/bin/gcompris-qt" }.count == 6)
        #expect((all["policies"] as? [[String: Any]])?.isEmpty == false)
        let asChild = try d.stctl(["export"])
        #expect(asChild.status == 1 && asChild.stderr.hasPrefix("stctl: export is for parents: "), "\(asChild.stderr)")

        // Forget what is before three days ago: three of the six days go, events and sessions.
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let cut = utc.date(byAdding: .day, value: -3, to: utc.startOfDay(for: Date()))!
        let day = ISO8601DateFormatter().string(from: cut).prefix(10)
        let forgot = try root(["forget", "--before", String(day)])
        #expect(forgot.status == 0, "\(forgot.stderr)")
        #expect(forgot.stdout.hasPrefix("Removed ") && forgot.stdout.contains(" events and 3 sessions from before \(day); the ledger is unchanged."), "\(forgot.stdout)")
        #expect(try d.sql("SELECT count(*) FROM session") == "3")
        #expect(try d.sql("SELECT count(*) FROM ledger") == "6")
        #expect(try d.status()["balance"] as? Int == 240)
        let later = try root(["forget", "--before", "2999-01-01"])
        #expect(later.status == 1 && later.stderr.contains("is later"), "\(later.stderr)")
        try d.stop()   // and `screentimed check` passes on what is left
    }
}
