import Foundation
@testable import ScreenTimeCore
import ScreenTimePolicy
import Testing

/// `[privacy]`: window titles are kept only as far as the policy needs them (issue #18).
@Suite("Privacy: what is kept of window titles")
struct PrivacyTests {
    static let apps = """

        [[apps]]
        name = "Khan Academy"
        category = "learning"
        exe = ["/usr/bin/chromium"]
        title = "(?i)khan academy"

        [[apps]]
        name = "YouTube"
        category = "reward"
        exe = ["/usr/bin/chromium"]
        title = "(?i)youtube"

        """

    static let chromium = ProcessFacts(pid: 7, exe: "/usr/bin/chromium", startTicks: 70, uid: 1000, comm: "chromium", exeWritable: false)

    @Test("an app matched by its exe keeps no title; a title a pattern matched keeps only the app's name; a learning app's name stays a name")
    func redacted() {
        let policy = testPolicy(apps: Self.apps)
        let plain = Privacy.redact(FocusedWindow(pid: 5, appID: "gcompris", title: "Emma's diary — private"), policy: policy)
        #expect(plain.title == nil && plain.titleApps == nil && plain.appID == "gcompris")
        let khan = Privacy.redact(FocusedWindow(pid: 7, title: "Fractions | Khan Academy — Chromium"), policy: policy)
        #expect(khan.title == nil && khan.titleApps == ["Khan Academy"])
        let claim = Privacy.redact(FocusedWindow(pid: 8, title: "gcompris"), policy: policy)
        #expect(claim.title == "GCompris" && claim.titleApps == nil)
        let kept = Privacy.redact(FocusedWindow(pid: 7, title: "Fractions | Khan Academy"), policy: testPolicy(["privacy.keep_titles": "true"], apps: Self.apps))
        #expect(kept.title == "Fractions | Khan Academy" && kept.titleApps == nil)
    }

    @Test("the engine classifies a redacted window as it classified the window with its title", arguments: [
        "Fractions | Khan Academy — Chromium", "Minecraft speedrun - YouTube", "Emma's diary", "GCompris", "khan academy youtube",
    ])
    func sameClassification(_ title: String) {
        let policy = testPolicy(apps: Self.apps)
        let c = Classifier(policy: policy)
        let window = FocusedWindow(pid: 7, appID: nil, title: title)
        let redacted = Privacy.redact(window, policy: policy)
        #expect(redacted.title == nil || policy.apps.contains { $0.name == redacted.title }, "\(redacted)")
        #expect(c.classify(window: redacted, process: Self.chromium) == c.classify(window: window, process: Self.chromium), "\(title) → \(redacted)")
        #expect(c.classify(window: redacted, process: nil) == c.classify(window: window, process: nil), "\(title) → \(redacted)")
    }

    @Test("title_apps is written to the log and read back")
    func logLine() throws {
        let e = Event(at: RFC3339.parse("2026-11-23T16:00:00+01:00")!, .focusChanged(FocusedWindow(pid: 7, titleApps: ["Khan Academy"])))
        let line = EventLog.encode(e)
        #expect(line.contains(#""title_apps":["Khan Academy"]"#) && !line.contains(#""title""#), "\(line)")
        #expect(try EventLog.decode(line: line) == e)
    }
}
