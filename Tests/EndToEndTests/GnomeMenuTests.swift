import Foundation
import TestSupport
import Testing

/// The child asks from the top bar (issue #40): the GNOME Shell extension's menu in a real
/// headless GNOME Shell (Debian's 43), the real system daemon as root, and the parents' page in a
/// real headless Chromium. The child opens the menu, asks for 15 minutes with a reason typed
/// there, says a chore is done, redeems points, and presses a warning's "Ask for 15 more minutes";
/// the parent's page shows the request and the chore without a reload. The test drives the shell
/// as a person's pointer would, through its test-only driver extension (GnomeShellSession).
///
/// logind is python3-dbusmock's (logind needs systemd as PID 1). The child is uid 65012, the
/// page's own user 65017: no other test uses them.
@Suite("GNOME Shell: the child asks from the top bar's menu", .ownThread, .serialized)
struct GnomeMenuTests {
    static let child: UInt32 = TestUser.ensure(uid: 65012, name: "stgnome65012")
    static let name = "stgnome65012"
    static let webUser: UInt32 = TestUser.ensure(uid: 65017, name: "stweb65017")
    static let games: String = (try? AppCopies.folder()) ?? "/nonexistent"
    static let reason = "I finished my maths sheet"

    /// A parent with a passphrase, requests, a chore, redeeming by the child, and a game whose
    /// first warning comes as soon as it counts (20 minutes before the end, with 15 redeemed).
    static func policy(hash: String) -> String {
        """
        version = 1
        timezone = "UTC"
        [points]
        learning_per_hour = 60
        per_reward_minute = 1
        [rewards]
        child_may_redeem = true
        [enforcement]
        warn_before = ["20m", "1m"]
        [parents]
        users = ["mum"]
        passphrase_hash = "\(hash)"
        [requests]
        max_per_day = 3
        [[chores]]
        name = "Dishes"
        points = 20
        every = "day"
        [[apps]]
        name = "SuperTuxKart"
        category = "reward"
        exe = ["\(games)/supertuxkart"]
        """
    }

    /// Waits for `what` to hold (a look every 0.2 s: each may be a bus call into the shell); a
    /// failure of the test when it does not within `seconds`.
    static func until(_ what: String, within seconds: Double = 30, sourceLocation: SourceLocation = #_sourceLocation,
                      _ condition: () throws -> Bool) rethrows {
        if try !Wait.whether(within: seconds, every: 0.2, condition) {
            Issue.record("not within \(Int(seconds)) s: \(what)", sourceLocation: sourceLocation)
        }
    }

    /// The requests of the child, as a parent (root) lists them.
    static func requests(_ d: SystemModeTests.SystemDaemon) throws -> [[String: Any]] {
        try d.json(0, ["requests", "--user", name])["requests"] as? [[String: Any]] ?? []
    }

    @Test("the menu: a request with a reason shows on the parent's page without a reload; a chore claimed; points redeemed; a warning's button asks")
    func askFromMenu() throws {
        _ = (Self.child, Self.webUser)
        let hash = try PassphraseEndToEndTests.mkpasswd(WebPageTests.passphrase)
        let logind = try MockLogind()
        let d = try SystemModeTests.SystemDaemon(policies: [Self.name: Self.policy(hash: hash)], arguments: ["--web-user", "stweb65017"],
                                                 logind: logind.address)
        defer { try? d.stop() }
        _ = try d.waitFor("watching uid 65012")
        let shell = try GnomeShellSession(uid: Self.child, packed: try GnomeShellTests.packed(), systemWide: true, socket: d.socket, logind: logind)
        defer { shell.stop() }
        let page = try WebPageTests.Page(socket: d.socket, lifetime: "30m", user: Self.webUser)
        defer { page.stop() }

        // The parent's page, open in Chromium before the child asks.
        let shots = ReplayBinaryTests.root.appendingPathComponent(".build/web-screenshots-gnome").path
        try? FileManager.default.removeItem(atPath: shots)
        try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
        let ready = shots + "/ready"
        let browser = Process()
        browser.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        browser.arguments = [ReplayBinaryTests.root.appendingPathComponent("Tests/EndToEndTests/Scripts/web-gnome.py").path]
        browser.environment = ["PATH": "/usr/bin:/bin", "URL": page.url, "PASSPHRASE": WebPageTests.passphrase, "CHILD": Self.name,
                               "SHOTS": shots, "READY": ready, "REASON": Self.reason, "CHORE": "Dishes",
                               "AXE": ReplayBinaryTests.root.appendingPathComponent(".build/axe/axe.min.js").path]
        let said = Pipe()
        browser.standardError = said
        browser.standardOutput = said
        try browser.run()
        defer { if browser.isRunning { kill(browser.processIdentifier, SIGKILL); browser.waitUntilExit() } }
        Self.until("the page open in Chromium", within: 120) { FileManager.default.fileExists(atPath: ready) || !browser.isRunning }
        try #require(browser.isRunning, "the page's browser ended before the page was open: \(String(decoding: said.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))")

        // The child opens the menu, types 15 minutes and why, and asks for game time.
        Self.until("the menu with \"Ask for more time\"") { shell.menuItems().contains("'Ask for more time'") }
        #expect(shell.openMenu())
        #expect(shell.click("Ask for more time"))
        #expect(shell.type(into: "Minutes", "15"))
        #expect(shell.type(into: "Why? A parent reads it", Self.reason))
        #expect(shell.click("Ask for game time"))
        var asked: [[String: Any]] = []
        try Self.until("the request from the menu") {
            asked = try Self.requests(d)
            return !asked.isEmpty
        }
        #expect(asked.count == 1 && asked[0]["minutes"] as? Int == 15 && asked[0]["reason"] as? String == Self.reason
                && asked[0]["state"] as? String == "pending", "\(asked)")
        Self.until("the notification of the ask") { shell.notificationsShown().contains("You asked for 15 more minutes: A parent will see it") }

        // A chore, from the menu's list of today's chores.
        #expect(shell.openMenu())
        #expect(shell.click("I did a chore"))
        Self.until("the chore in the menu") { shell.menuItems().contains("'Dishes (20 points)'") }
        #expect(shell.click("Dishes (20 points)"))
        try Self.until("the chore claimed") {
            let chores = try d.json(0, ["chores", "--user", Self.name])["chores"] as? [[String: Any]] ?? []
            return chores.contains { $0["chore"] as? String == "Dishes" && $0["state"] as? String == "pending" }
        }
        Self.until("the notification of the chore") { shell.notificationsShown().contains("You said you did Dishes") }
        // Claimed, it waits: the menu says so and offers it no more.
        #expect(shell.openMenu())
        Self.until("the chore waiting in the menu") { shell.menuItems().contains("'Dishes: waiting for a parent [off]'") }
        #expect(!shell.click("Dishes (20 points)"))

        // The page showed both by itself.
        Self.until("the page's browser done", within: 240) { !browser.isRunning }
        let pageSaid = String(decoding: said.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(browser.terminationStatus == 0, "\(pageSaid)")

        // Redeeming, where the policy allows it: priced from the status, those the points cannot
        // pay for not offered.
        let given = try d.stctl(0, ["adjust", "30", "--reason", "for the test", "--user", Self.name])
        try #require(given.status == 0, "\(given.stderr)")
        Self.until("the redemptions in the menu, priced") {
            let items = shell.menuItems()
            return items.contains("'15 min of game time for 15 points'") && items.contains("'60 min of game time for 60 points [off]'")
        }
        #expect(shell.openMenu())
        #expect(shell.click("Redeem points"))
        #expect(shell.click("15 min of game time for 15 points"))
        var status: [String: Any] = [:]
        try Self.until("the redeemed minutes") {
            status = try d.json(0, ["status", "--user", Self.name])
            return status["reward_remaining_seconds"] as? Int == 900
        }
        #expect(status["balance"] as? Int == 15, "\(status)")
        Self.until("the notification of the redemption") { shell.notificationsShown().contains("Game time redeemed: It cost 15 points; you have 15 left.") }

        // A game counts: its first warning (shown by the extension, as the root daemon cannot
        // reach the child's session bus here) has the button, and the button asks.
        let game = try EnforcementTests.child(["\(Self.games)/supertuxkart", "600"], uid: Self.child)
        defer { if game.isRunning { kill(game.processIdentifier, SIGKILL); game.waitUntilExit() } }
        Self.until("a warning with its button, pressed", within: 60) { shell.press(notification: "of game time left", button: "Ask for 15 more minutes") }
        try Self.until("the request from the button") { try Self.requests(d).count == 2 }
        let all = try Self.requests(d)
        let fromButton = all.first { $0["reason"] as? String == "asked from a warning's button" }
        #expect(fromButton?["minutes"] as? Int == 15 && fromButton?["state"] as? String == "pending", "\(all)")
        kill(game.processIdentifier, SIGKILL)
        game.waitUntilExit()
        try? FileManager.default.removeItem(atPath: shots + "/profile")
    }
}
