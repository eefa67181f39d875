import Foundation
import Testing

/// `stctl history` and `stctl sessions` against the real daemon, on a state made by importing the
/// demo afternoon; what they say is checked against `screentimed replay` of the same log.
@Suite("stctl history and sessions, end to end")
struct HistoryTests {
    static var demo: String { ReplayBinaryTests.root.appendingPathComponent("policies/demo-day.jsonl").path }
    static var defaultPolicy: String { ReplayBinaryTests.root.appendingPathComponent("policies/default.toml").path }

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
        let d = try LiveDaemon(policy: policy, arguments: ["--sample-every", "1h", "--no-logind"], importing: demo)
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
}
