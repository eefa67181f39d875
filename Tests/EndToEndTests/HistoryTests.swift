import Foundation
import ScreenTimeCore
import ScreenTimePolicy
import TestSupport
import Testing

/// `stctl history`, `stctl sessions` and `stctl report` against the real daemon, on a state made by importing the
/// demo afternoon; what they say is checked against `screentimed replay` of the same log.
@Suite("stctl history, sessions and report, end to end", .ownThread)
struct HistoryTests {
    static var demo: String { Readable.path("policies/demo-day.jsonl") }
    static var defaultPolicy: String { Readable.path("policies/default.toml") }

    /// The replay of the demo day under the default policy, in UTC.
    static func replay() throws -> [String: Any] {
        let policy = "timezone = \"UTC\"\n" + (try String(contentsOfFile: defaultPolicy, encoding: .utf8))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("screentime-demo-\(UUID().uuidString).toml").path
        try policy.write(toFile: file, atomically: true, encoding: .utf8)
        let r = try ReplayBinaryTests.runBinary(ReplayBinaryTests.binary, ["replay", "--policy", file, demo])
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stderr)")
    }

    static func daemon() throws -> LiveDaemon {
        let policy = "timezone = \"UTC\"\n" + (try String(contentsOfFile: defaultPolicy, encoding: .utf8))
        // Its own child (uid 65003): the demo's game time is used up, and the default policy names
        // many games, which it would stop among other tests' processes of uid 65534.
        let d = try LiveDaemon(policy: policy, arguments: ["--sample-every", "1h", "--no-logind"], importing: demo, uid: 65003)
        _ = try d.waitFor("watching uid")
        return d
    }

    @Test("sessions of a day, field by field, as the replay judged them; in words for the child")
    func sessions() throws {
        let expected = try #require(try Self.replay()["sessions"] as? [[String: Any]])
        let d = try Self.daemon()
        let reply = try d.json(["sessions", "--day", "2026-11-23"])
        let got = try #require(reply["sessions"] as? [[String: Any]], "\(reply)")
        #expect(got.count == expected.count)
        for (g, e) in zip(got, expected) {
            #expect(g["app"] as? String == e["app"] as? String)
            #expect(g["category"] as? String == e["category"] as? String)
            #expect(g["start"] as? String == e["start"] as? String)
            #expect(g["end"] as? String == e["end"] as? String)
            #expect(g["points"] as? Int == e["points"] as? Int)
            #expect(g["verdict"] as? String == e["verdict"] as? String)
            #expect(g["seconds"] as? Int == Int(e["seconds"] as? Double ?? -1))
            #expect(g["credited_seconds"] as? Int == Int(e["credited_seconds"] as? Double ?? -1))
            let refused = (g["refused"] as? [[String: Any]] ?? []).map { $0["reason"] as? String ?? "" }
            #expect(refused == (e["reasons"] as? [String] ?? []), "\(g)")
        }
        let human = try d.stctl(["sessions", "--day", "2026-11-23"])
        #expect(human.status == 0)
        #expect(human.stdout.hasPrefix("13:00–13:40  GCompris  40 min, 39 min counted: 39 points\n    11 s not counted: you were idle (no keys or mouse)\n"),
                "\(human.stdout)")
        #expect(human.stdout.contains("14 min not counted: this copy of the app is not one your parents' policy trusts"), "\(human.stdout)")
        let none = try d.stctl(["sessions", "--day", "2026-11-20"])
        #expect(none.stdout == "No sessions on 2026-11-20 yet.\n")
        let bad = try d.stctl(["sessions", "--day", "tomorrow"])
        #expect(bad.status == 1)
        #expect(bad.stderr == "stctl: sessions needs a day as YYYY-MM-DD, not \"tomorrow\"\n")
        try d.stop()
    }

    @Test("history: the ledger, field by field, as the replay wrote it")
    func history() throws {
        let expected = try #require(try Self.replay()["ledger"] as? [[String: Any]])
        let d = try Self.daemon()
        let got = try #require(try d.json(["history", "--days", "30"])["history"] as? [[String: Any]])
        #expect(got.count == expected.count)
        for (g, e) in zip(got, expected) {
            #expect(g["at"] as? String == e["at"] as? String)
            #expect(g["kind"] as? String == e["kind"] as? String)
            #expect(g["points"] as? Int == e["points"] as? Int)
            #expect(g["balance_after"] as? Int == e["balance_after"] as? Int)
            #expect(g["reward_seconds"] as? Int == e["reward_seconds"] as? Int ?? nil)
        }
        let human = try d.stctl(["history", "--days", "30"])
        #expect(human.status == 0)
        #expect(human.stdout.contains("2026-11-23 14:50  bought 20 min of game time  -40     14"), "\(human.stdout)")
        try d.stop()
    }

    @Test("report: a day's figures, field by field, as the replay's sessions, ledger and reward time give them")
    func report() throws {
        let replay = try Self.replay()
        let sessions = try #require(replay["sessions"] as? [[String: Any]]).filter { ($0["start"] as? String)?.hasPrefix("2026-11-23") == true }
        let ledger = try #require(replay["ledger"] as? [[String: Any]]).filter { ($0["at"] as? String)?.hasPrefix("2026-11-23") == true }
        let rewardUsed = try #require((replay["reward"] as? [String: Any])?["used_seconds"] as? Double)
        let policy = try PolicyLoader.load(path: Self.defaultPolicy)
        func micros(_ s: [[String: Any]], _ key: String) -> Int64 {
            s.reduce(0) { $0 + Int64((($1[key] as? Double) ?? 0) * 1e6 + 0.5) }
        }
        let learning = sessions.filter { $0["category"] as? String == "learning" }
        func points(_ kind: String) -> Int { ledger.filter { $0["kind"] as? String == kind }.reduce(0) { $0 + ($1["points"] as? Int ?? 0) } }

        let d = try Self.daemon()
        let reply = try d.json(["report", "--day", "2026-11-23"])
        let days = try #require(reply["report"] as? [[String: Any]], "\(reply)")
        #expect(days.count == 1)
        let day = try #require(days.first)
        #expect(day["day"] as? String == "2026-11-23")
        #expect(day["learning_credited_seconds"] as? Int == Int(micros(learning, "credited_seconds") / 1_000_000))
        #expect(day["learning_refused_seconds"] as? Int == Int((micros(learning, "seconds") - micros(learning, "credited_seconds")) / 1_000_000))
        let reasons = Set(learning.flatMap { $0["reasons"] as? [String] ?? [] })
        #expect(Set((day["refused"] as? [[String: Any]] ?? []).compactMap { $0["reason"] as? String }) == reasons)
        #expect(!reasons.isEmpty)
        #expect(day["points_earned"] as? Int == points("earned"))
        #expect(day["points_spent"] as? Int == -points("redeemed"))
        #expect(day["points_adjusted"] as? Int == points("adjusted"))
        #expect(points("earned") > 0 && points("redeemed") < 0)
        #expect(day["reward_used_seconds"] as? Int == Int(rewardUsed))
        #expect(day["reward_daily_limit_seconds"] as? Int == policy.rewards.dailyLimit.map { Int($0 / Seconds.micro) })
        let top = try #require(day["top_apps"] as? [[String: Any]])
        var byApp: [String: Int64] = [:]
        for s in sessions { byApp[s["app"] as? String ?? "", default: 0] += Int64(((s["seconds"] as? Double) ?? 0) * 1e6 + 0.5) }
        let expectedTop = byApp.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.prefix(5)
        #expect(top.map { $0["app"] as? String ?? "" } == expectedTop.map(\.key))
        #expect(top.map { Int64($0["seconds"] as? Int ?? -1) } == expectedTop.map { $0.value / 1_000_000 })

        // A week up to that day: seven days, the six before it empty; the same day last.
        let week = try #require(try d.json(["report", "--week", "--day", "2026-11-23"])["report"] as? [[String: Any]])
        #expect(week.map { $0["day"] as? String ?? "" } == (17...23).map { "2026-11-\($0)" })
        #expect(week.dropLast().allSatisfy { $0["learning_credited_seconds"] as? Int == 0 && $0["points_earned"] as? Int == 0 })
        #expect(week.last?["learning_credited_seconds"] as? Int == day["learning_credited_seconds"] as? Int)

        // The same figures as bars and as CSV.
        let text = try d.stctl(["report", "--day", "2026-11-23"])
        #expect(text.status == 0)
        #expect(text.stdout.hasPrefix("Report for Mon 2026-11-23\n\nLearning: █ counted, ░ not counted\n"), "\(text.stdout)")
        let credited = day["learning_credited_seconds"] as? Int ?? 0, refused = day["learning_refused_seconds"] as? Int ?? 0
        #expect(text.stdout.contains("\(credited / 60) min counted, \(refused / 60) min not (idle "), "\(text.stdout)")
        #expect(text.stdout.contains("earned +\(points("earned"))  spent −\(-points("redeemed"))  from parents 0"), "\(text.stdout)")
        let csv = try d.stctl(["report", "--day", "2026-11-23", "--csv"])
        let rows = csv.stdout.components(separatedBy: "\r\n")
        #expect(rows.count == 3 && rows[2].isEmpty)
        #expect(rows.first == "day,learning_credited_seconds,learning_refused_seconds,refused,points_earned,points_spent,points_adjusted,reward_used_seconds,reward_daily_limit_seconds,top_apps,screen_used_seconds,screen_limit_seconds,screen_bonus_seconds")
        let cells = rows.count > 1 ? rows[1].split(separator: ",", omittingEmptySubsequences: false).map(String.init) : []
        #expect(cells.count == 13)
        if cells.count == 13 {
            #expect(cells[0] == "2026-11-23")
            #expect(cells[1] == String(credited) && cells[2] == String(refused))
            #expect(cells[4] == String(points("earned")) && cells[5] == String(-points("redeemed")) && cells[6] == "0")
            #expect(cells[7] == String(Int(rewardUsed)))
            #expect(cells[9].hasPrefix("\(expectedTop.first?.key ?? "")=\((expectedTop.first?.value ?? 0) / 1_000_000);"))
            #expect(cells[10...12] == ["", "", ""], "no [screen]: no screen time")
        }
        #expect(!text.stdout.contains("Screen time"), "no [screen]: no screen time section")
        let bad = try d.stctl(["report", "--day", "11-23"])
        #expect(bad.status == 1)
        #expect(bad.stderr == "stctl: report needs a day as YYYY-MM-DD, not \"11-23\"\n")
        try d.stop()
    }
}
