import Foundation
import ScreenTimeCore
@testable import ScreenTimePolicy
import Testing

@Suite("Policy loading")
struct PolicyLoaderTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("the shipped default policy loads, with its catalog")
    func defaultPolicy() throws {
        let p = try PolicyLoader.load(path: Self.root.appendingPathComponent("policies/default.toml").path)
        #expect(p.points.learningPerHour == 60)
        #expect(p.rewards.allowedHours?.map(\.text) == ["07:00-12:00", "14:00-20:00"])
        let learning = p.apps.filter { $0.category == .learning }.map(\.name)
        let games = p.apps.filter { $0.category == .reward }.map(\.name)
        for name in ["GCompris", "TuxMath", "TuxType", "KTouch", "Klavaro", "Anki", "Scratch", "Stellarium",
                     "KAlgebra", "KStars", "Kalzium", "Marble", "GeoGebra"] {
            #expect(learning.contains(name), "missing learning app \(name)")
        }
        for name in ["SuperTuxKart", "SuperTux", "Luanti (Minetest)", "0 A.D.", "Xonotic", "Steam", "Minecraft"] {
            #expect(games.contains(name), "missing game \(name)")
        }
        // Every learning entry can earn: it has an identity the child cannot fake.
        let anonymous = p.apps.filter { $0.category == .learning && !$0.hasIdentity }
        #expect(anonymous.isEmpty)
    }

    @Test("strictness sets the defaults of the spec's table; explicit keys win")
    func strictnessDefaults() throws {
        let lenient = try PolicyLoader.parse("version = 1\n[validation]\nstrictness = \"lenient\"\n", systemZone: .utc)
        #expect(lenient.validation.idleAfter == Seconds.of(minutes: 5))
        #expect(lenient.validation.minSession == Seconds.of(minutes: 5))
        #expect(lenient.validation.minFocusDwell == Seconds.of(10))
        #expect(lenient.points.dailyLearningCap == Seconds.of(minutes: 180))
        #expect(lenient.rewards.countsWhile == .focused)
        #expect(!lenient.validation.learningNeedsFocusHook)
        #expect(lenient.validation.periodicInputVariation == 0.05)

        let strict = try PolicyLoader.parse("version = 1\n[validation]\nstrictness = \"strict\"\nidle_after = \"4m\"\n", systemZone: .utc)
        #expect(strict.validation.idleAfter == Seconds.of(minutes: 4))
        #expect(strict.validation.minSession == Seconds.of(minutes: 15))
        #expect(strict.validation.minFocusDwell == Seconds.of(60))
        #expect(strict.points.dailyLearningCap == Seconds.of(minutes: 90))
        #expect(strict.validation.periodicInputAction == .refuseSession)

        let plain = try PolicyLoader.parse("version = 1\n", systemZone: .utc)
        #expect(plain.validation.strictness == .moderate)
        #expect(plain.validation.idleAfter == Seconds.of(minutes: 3))
        #expect(plain.points.perRewardMinute == 2)
        #expect(plain.rewards.dailyLimit == nil && plain.rewards.weeklyLimit == nil && plain.rewards.allowedHours == nil)
        #expect(plain.rewards.redemptionExpiresAfter == nil)
        #expect(plain.enforcement.warnBefore == [Seconds.of(minutes: 5), Seconds.of(minutes: 1)])
        #expect(plain.enforcement.grace == Seconds.of(15))
        #expect(plain.timeZone == .utc)
    }

    @Test("durations", arguments: [("90s", 90), ("10m", 600), ("2h", 7200), ("7d", 604_800), ("1h30m", 5400), ("1m30s", 90)])
    func durations(_ text: String, _ seconds: Int64) {
        #expect(DurationText.parse(text) == Seconds.of(seconds))
    }

    @Test("milliseconds")
    func milliseconds() {
        #expect(DurationText.parse("250ms") == 250_000)
        #expect(DurationText.parse("1s500ms") == 1_500_000)
    }

    @Test("not durations", arguments: ["", "10", "m", "10 m", "1.5h", "-5m", "10w"])
    func notDurations(_ text: String) {
        #expect(DurationText.parse(text) == nil)
    }

    @Test("hour windows")
    func hourWindows() {
        #expect(HourWindow.parse("14:00-20:00") == HourWindow(startMinute: 840, endMinute: 1200))
        #expect(HourWindow.parse("20:00-24:00") == HourWindow(startMinute: 1200, endMinute: 1440))
        #expect(HourWindow.parse("24:00-24:00") == nil)
        #expect(HourWindow.parse("12:00-12:00") == nil)
        #expect(HourWindow.parse("7:00-12:00") == nil)
        #expect(HourWindow.parse("07:60-12:00") == nil)
    }

    @Test("key lines follow tables, arrays of tables, multi-line values and dotted keys")
    func keyLines() {
        let text = """
            version = 1
            [points]
            learning_per_hour = 60   # a comment with = in it
            [rewards]
            allowed_hours = [
              "07:00-12:00",   # [not a table]
            ]
            weekly_limit = "7h"
            [[apps]]
            name = "A"
            title = '''
            x = 1
            '''
            [[apps]]
            name = "B"
            """
        let lines = KeyLines(text)
        #expect(lines.line(of: "points.learning_per_hour") == 3)
        #expect(lines.line(of: "rewards.allowed_hours") == 5)
        #expect(lines.line(of: "rewards.weekly_limit") == 8)
        #expect(lines.line(of: "apps[0].name") == 10)
        #expect(lines.line(of: "apps[1].name") == 15)
        #expect(lines.line(of: "apps[1].exe") == 14)
        #expect(lines.line(of: "x") == nil)
    }

    /// What the page's text box sends: "\r\n" after every line. Swift takes "\r\n" for one
    /// character, so a split at "\n" once put every problem at line 1.
    @Test("a policy with CRLF line ends has its problems at their lines, and loads when good")
    func crlfLines() throws {
        let lines = [
            "version = 1",                      // 1
            "",                                 // 2
            "[points]",                         // 3
            "learning_per_hour = 60",           // 4
            "",                                 // 5
            "[rewards]",                        // 6
            "daily_limt = \"1h\"",              // 7
            "weekly_limit = \"7h\"",            // 8
        ]
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("policy-crlf-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("from-the-page.toml").path
        try Data((lines.joined(separator: "\r\n") + "\r\n").utf8).write(to: URL(fileURLWithPath: path))
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.filter { $0 == 13 }.count == 8 && bytes.filter { $0 == 10 }.count == 8)
        do {
            _ = try PolicyLoader.load(path: path)
            Issue.record("the mistyped key was accepted")
        } catch {
            #expect(error.problems == [.init(line: 7, message: "unknown key 'daily_limt' in [rewards] (did you mean 'daily_limit'?)")])
            #expect(error.description == "\(path):7: unknown key 'daily_limt' in [rewards] (did you mean 'daily_limit'?)")
        }
        // A mistake of TOML itself, found by its parser, is at its line too.
        var broken = lines
        broken[6] = "daily_limit = \"1h"
        #expect(throws: PolicyError.self) { try PolicyLoader.parse(broken.joined(separator: "\r\n"), systemZone: .utc) }
        do { _ = try PolicyLoader.parse(broken.joined(separator: "\r\n"), systemZone: .utc) } catch {
            #expect(error.problems.map(\.line) == [7], "\(error.description)")
        }
        // Corrected, it loads, and its values are the ones written.
        var good = lines
        good[6] = "daily_limit = \"1h\""
        let p = try PolicyLoader.parse(good.joined(separator: "\r\n"), systemZone: .utc)
        #expect(p.rewards.dailyLimit == 3_600 * Seconds.micro)
        #expect(p.rewards.weeklyLimit == 7 * 3_600 * Seconds.micro)
    }

    @Test("a missing file says so")
    func missingFile() {
        #expect(throws: PolicyError.self) { try PolicyLoader.load(path: "/nonexistent/policy.toml") }
    }
}
