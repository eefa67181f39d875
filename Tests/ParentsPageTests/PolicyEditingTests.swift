import ControlProtocol
import Foundation
import ParentsPage
import Testing

/// The policy page's forms made into changes (issue 40), and what a child's program may be sorted as.
@Suite("The policy page's changes")
struct PolicyEditingTests {
    static func seen(_ exe: String, trusted: Bool) -> ControlReply.SeenApp {
        ControlReply.SeenApp(exe: exe, flatpak: nil, comm: "x", starts: 1, lastStarted: "2026-11-29T07:00:00Z", app: nil, category: nil, trusted: trusted)
    }

    static func form(_ pairs: [String: String]) -> FormFields {
        FormFields(pairs.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&"))
    }

    @Test("a program of root's may be learning; one the child can change, an interpreter, or a path that is a pattern only a game or blocked")
    func onlyWhatCostsTheChild() {
        let root = Self.seen("/opt/maths/maths", trusted: true)
        let childs = Self.seen("/home/emma/.local/bin/maths", trusted: false)
        let python = Self.seen("/usr/bin/python3.11", trusted: true)
        let pattern = Self.seen("/home/emma/bin/*", trusted: true)
        let all = [root, childs, python, pattern]
        func sort(_ exe: String, _ category: String) -> [ControlRequest.PolicyChange]? {
            PolicyEditing.sorting(Self.form(["category": category, "exe": exe, "name": "maths"]), taken: ["maths"], seen: all)
        }
        #expect(sort(root.exe, "learning") == [.init(key: "apps[maths 2].category", value: "\"learning\""),
                                                .init(key: "apps[maths 2].exe", value: "[\"/opt/maths/maths\"]")])
        for exe in [childs.exe, python.exe] {
            #expect(sort(exe, "learning") == nil && sort(exe, "neutral") == nil, "\(exe)")
            #expect(sort(exe, "reward")?.count == 2 && sort(exe, "blocked")?.count == 2, "\(exe)")
        }
        // A path the policy would read as a pattern is never written.
        #expect(sort(pattern.exe, "blocked") == nil && sort(pattern.exe, "learning") == nil)
        // Unknown to the daemon: not learning.
        #expect(sort("/opt/other/other", "learning") == nil)
        #expect(PolicyEditing.mayHelp(exe: "/usr/bin/bash", flatpak: nil, trusted: true) == false)
        #expect(PolicyEditing.mayHelp(exe: "/usr/bin/java", flatpak: "org.example.Game", trusted: false))
    }

    @Test("the limits form: only fields changed; an emptied field removes its rule; hours as an array; a new chore")
    func limitsForm() {
        let f = Self.form(["key.0": "rewards.daily_limit", "was.0": "90m", "value.0": "90m",
                           "key.1": "screen.allowed_hours", "was.1": "07:00-20:30", "value.1": "07:00-12:00, 14:00-21:00", "kind.1": "hours",
                           "key.2": "points.daily_goal", "was.2": "30m", "value.2": "",
                           "chore-name": "Feed the cat", "chore-points": "25", "chore-every": "day"])
        #expect(PolicyEditing.changes(f) == [.init(key: "screen.allowed_hours", value: "[\"07:00-12:00\", \"14:00-21:00\"]"),
                                            .init(key: "points.daily_goal", value: nil),
                                            .init(key: "chores[Feed the cat].points", value: "25"),
                                            .init(key: "chores[Feed the cat].every", value: "\"day\"")])
        #expect(PolicyEditing.shown("[\"07:00-12:00\", \"14:00-21:00\"]") == "07:00-12:00, 14:00-21:00")
        #expect(PolicyEditing.shown("\"90m\"") == "90m" && PolicyEditing.shown("25") == "25" && PolicyEditing.shown(nil) == "")
    }
}
