import Foundation
import ScreenTimeCore
import ScreenTimePolicy
import Testing

/// A parent's changes to a policy file (issue #40): the value changed where it stands, every
/// comment and blank line kept, new keys, tables and entries where a person would put them.
@Suite("Policy edits keep the file's comments")
struct PolicyEditorTests {
    static let file = """
        # The family's policy.
        version = 1
        # timezone = "Europe/Berlin"

        [rewards]
        daily_limit = "90m"             # at most 90 minutes of games a day
        allowed_hours = [
            "07:00-12:00",   # morning
            "14:00-20:00",
        ]

        [[chores]]
        name = "Dishes"
        points = 20
        every = "day"

        # --- Games ---
        [[apps]]
        name = "SuperTuxKart"
        category = "reward"
        exe = ["/usr/games/supertuxkart"]
        """

    static func edited(_ edits: [(String, String?)], in text: String = file) throws -> String {
        var editor = PolicyEditor(text: text)
        for (key, value) in edits { try editor.apply(PolicyEdit(key: try PolicyKey(parsing: key), value: value)) }
        return editor.text
    }

    @Test("a value changed in place keeps its comment; one over several lines becomes one line")
    func inPlace() throws {
        let out = try Self.edited([("rewards.daily_limit", "\"60m\""), ("rewards.allowed_hours", "[\"08:00-19:00\"]")])
        #expect(out == Self.file.replacingOccurrences(of: "daily_limit = \"90m\"             # at most", with: "daily_limit = \"60m\"             # at most")
            .replacingOccurrences(of: "allowed_hours = [\n    \"07:00-12:00\",   # morning\n    \"14:00-20:00\",\n]", with: "allowed_hours = [\"08:00-19:00\"]") + "\n")
        #expect(try PolicyKey(parsing: "rewards.daily_limit").description == "rewards.daily_limit")
        #expect(PolicyEditor(text: out).value(of: try PolicyKey(parsing: "rewards.daily_limit")) == "\"60m\"")
    }

    @Test("new keys go after the table's last key; a new table and a new entry after their kind; a top key before the first table")
    func added() throws {
        let out = try Self.edited([("rewards.weekly_limit", "\"7h\""), ("screen.daily_limit", "\"2h\""),
                                   ("chores[Feed the cat].points", "25"), ("chores[Feed the cat].every", "\"day\""), ("timezone", "\"UTC\"")])
        #expect(out == """
            # The family's policy.
            version = 1
            timezone = "UTC"
            # timezone = "Europe/Berlin"

            [rewards]
            daily_limit = "90m"             # at most 90 minutes of games a day
            allowed_hours = [
                "07:00-12:00",   # morning
                "14:00-20:00",
            ]
            weekly_limit = "7h"

            [[chores]]
            name = "Dishes"
            points = 20
            every = "day"

            [[chores]]
            name = "Feed the cat"
            points = 25
            every = "day"

            # --- Games ---
            [[apps]]
            name = "SuperTuxKart"
            category = "reward"
            exe = ["/usr/games/supertuxkart"]

            [screen]
            daily_limit = "2h"

            """)
        #expect(try PolicyLoader.parse(out).screen.dailyLimit == 2 * 3600 * Seconds.micro)
    }

    @Test("a key or an entry removed, with nothing else; an entry's name may not be removed alone")
    func removed() throws {
        let out = try Self.edited([("rewards.allowed_hours", nil), ("chores[Dishes]", nil), ("rewards.no_such_key", nil)])
        #expect(out == Self.file.replacingOccurrences(of: "allowed_hours = [\n    \"07:00-12:00\",   # morning\n    \"14:00-20:00\",\n]\n", with: "")
            .replacingOccurrences(of: "\n[[chores]]\nname = \"Dishes\"\npoints = 20\nevery = \"day\"\n", with: "") + "\n")
        #expect(throws: PolicyEditError.self) { try Self.edited([("chores[Dishes].name", nil)]) }
        #expect(throws: PolicyEditError.self) { try Self.edited([("chores[Nobody]", nil)]) }
        #expect(throws: PolicyEditError.self) { try Self.edited([("chores[Dishes]", "1")]) }
    }

    @Test("keys as a parent writes them, and what is not a key")
    func keys() throws {
        #expect(try PolicyKey(parsing: "schedules[School days].daily_limit") == PolicyKey(table: "schedules", entry: "School days", key: "daily_limit"))
        #expect(try PolicyKey(parsing: "apps[0 A.D.]") == PolicyKey(table: "apps", entry: "0 A.D.", key: nil))
        #expect(try PolicyKey(parsing: "version") == PolicyKey(table: nil, key: "version"))
        for bad in ["", "rewards.", ".x", "a.b.c", "rewards[x].y", "chores.points", "chores[].points", "chores[x]points", "re wards.x"] {
            #expect(throws: PolicyEditError.self, "\(bad)") { try PolicyKey(parsing: bad) }
        }
    }

    @Test("a value as a parent types it: numbers, true, arrays and quoted strings as TOML, anything else a string")
    func typedValues() {
        #expect(PolicyEdit.value(typed: "25") == "25")
        #expect(PolicyEdit.value(typed: "true") == "true")
        #expect(PolicyEdit.value(typed: "[\"07:00-20:30\"]") == "[\"07:00-20:30\"]")
        #expect(PolicyEdit.value(typed: "\"2h\"") == "\"2h\"")
        #expect(PolicyEdit.value(typed: "2h") == "\"2h\"")
        #expect(PolicyEdit.value(typed: "07:00:00") == "\"07:00:00\"")
        #expect(PolicyEdit.value(typed: "Feed \"the\" cat\\") == "\"Feed \\\"the\\\" cat\\\\\"")
        #expect(PolicyEdit.value(typed: "a\nb = 1") == "\"a\\nb = 1\"")
    }

    @Test("the bundled policy: a limit changed and an app sorted keep every comment line, and the file still loads")
    func bundled() throws {
        let text = try String(contentsOfFile: PolicyLoaderTests.root.appendingPathComponent("policies/default.toml").path, encoding: .utf8)
        let out = try Self.edited([("rewards.daily_limit", "\"1h\""), ("apps[Mystery].category", "\"learning\""),
                                   ("apps[Mystery].exe", "[\"/opt/mystery/mystery\"]")], in: text)
        let comments = { (t: String) in t.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("#") } }
        #expect(comments(out) == comments(text))
        let policy = try PolicyLoader.parse(out)
        #expect(policy.rewards.dailyLimit == 3600 * Seconds.micro)
        #expect(policy.apps.last?.name == "Mystery" && policy.apps.last?.category == .learning)
    }

    @Test("a file with Windows line ends is edited as the loader reads it; a key inside a string over several lines is not a key")
    func lineEndsAndLongStrings() throws {
        let windows = Self.file.replacingOccurrences(of: "\n", with: "\r\n")
        let out = try Self.edited([("rewards.daily_limit", "\"60m\"")], in: windows)
        #expect(out.contains("daily_limit = \"60m\"             # at most 90 minutes") && !out.contains("\"90m\""))
        #expect(try PolicyLoader.parse(out).rewards.dailyLimit == 3600 * Seconds.micro)

        let long = """
            version = 1
            [rewards]
            note = \"\"\"
            daily_limit = "9h"
            [rewards]
            \"\"\"
            daily_limit = "1h"
            """
        let edited = try Self.edited([("rewards.daily_limit", "\"2h\"")], in: long)
        #expect(edited == long.replacingOccurrences(of: "daily_limit = \"1h\"", with: "daily_limit = \"2h\"") + "\n")
        #expect(PolicyEditor(text: long).value(of: try PolicyKey(parsing: "rewards.note"))?.hasPrefix("\"\"\"") == true)
    }
}
