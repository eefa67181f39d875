import Foundation
import ScreenTimeCore
import ScreenTimePolicy
import Testing

/// App and group limits (`docs/spec/family.md`): "one hour of Minecraft, not of chess". The test policy's
/// 90 minutes a day hold for every game; Minecraft's launcher has 30 minutes of its own, and the
/// Minecraft group (launcher and Java) 45 minutes a day and 2 hours a week. Numbers by hand.
@Suite("App and group limit scenarios")
struct AppLimitScenarioTests {
    static let launcher = "/usr/games/minecraft-launcher"
    static let java = "/usr/lib/jvm/minecraft-java"
    static let minecraft = """

        [[apps]]
        name = "Minecraft Launcher"
        category = "reward"
        exe = ["/usr/games/minecraft-launcher"]
        group = "Minecraft"
        daily_limit = "30m"

        [[apps]]
        name = "Minecraft Java"
        category = "reward"
        exe = ["/usr/lib/jvm/minecraft-java"]
        group = "Minecraft"

        [[groups]]
        name = "Minecraft"
        daily_limit = "45m"
        weekly_limit = "2h"

        """

    static func policy() -> Policy {
        testPolicy(["rewards.weekly_limit": nil, "rewards.redemption_expires_after": nil], apps: minecraft)
    }

    static func funded() -> Timeline {
        var tl = Timeline()
        tl.adjust(0, points: 2000)
        tl.redeem(0, minutes: 600)
        return tl
    }

    @Test("an app's own limit stops that app (app_limit), warned before; other games go on to the day's limit")
    func appLimitBesideOtherGames() {
        var tl = Self.funded()
        tl.start(0, pid: 1, exe: Self.launcher)
        tl.exit(30 * M + 10, pid: 1)
        tl.start(30 * M + 20, pid: 2, exe: kart)        // 60 minutes of the day's 90 are left
        tl.start(40 * M, pid: 3, exe: Self.launcher)    // no time of its own left: stopped at once
        tl.exit(40 * M + 5, pid: 3)
        tl.exit(90 * M + 30, pid: 2)
        let r = tl.replay(Self.policy())
        #expect(r.stops.map(\.pid) == [1, 3, 2])
        #expect(r.stops.map(\.at) == [wall(30 * M), wall(40 * M), wall(90 * M + 20)])
        #expect(r.stops.map(\.reason) == [.appLimit, .appLimit, .dailyLimit])
        #expect(r.stops.map(\.app) == ["Minecraft Launcher", "Minecraft Launcher", "SuperTuxKart"])
        #expect(r.warnings.map(\.at) == [wall(25 * M), wall(29 * M), wall(85 * M + 20), wall(89 * M + 20)])
        #expect(r.warnings.map(\.limit) == [.appLimit, .appLimit, .dailyLimit, .dailyLimit])
        #expect(r.warnings.map(\.app) == ["Minecraft Launcher", "Minecraft Launcher", nil, nil])
        #expect(r.reward.used == sec(90 * M))
    }

    @Test("a group's limit across its apps: 20 minutes of the launcher leave the Java game 25")
    func groupAcrossApps() {
        var tl = Self.funded()
        tl.start(0, pid: 1, exe: Self.launcher)
        tl.exit(20 * M, pid: 1)
        tl.start(20 * M, pid: 2, exe: Self.java)
        tl.exit(45 * M + 10, pid: 2)
        let r = tl.replay(Self.policy())
        #expect(r.stops.map(\.at) == [wall(45 * M)])
        #expect(r.stops.map(\.reason) == [.appLimit])
        #expect(r.stops.map(\.app) == ["Minecraft Java"])
        #expect(r.reward.used == sec(45 * M))
    }

    @Test("two apps of a group at once use the group's time once: the launcher stops at its own 30, Java at the group's 45")
    func groupAtOnce() throws {
        var tl = Self.funded()
        tl.start(0, pid: 1, exe: Self.launcher)
        tl.start(0, pid: 2, exe: Self.java)
        tl.exit(30 * M + 10, pid: 1)
        tl.exit(45 * M + 10, pid: 2)
        let r = tl.replay(Self.policy())
        #expect(r.stops.map(\.pid) == [1, 2])
        #expect(r.stops.map(\.at) == [wall(30 * M), wall(45 * M)])
        #expect(r.stops.allSatisfy { $0.reason == .appLimit })
        #expect(r.reward.used == sec(45 * M))
        // The engine's own figures: nothing of Minecraft left today; other games' 45 minutes are.
        var engine = Engine(policy: Self.policy())
        var effects: [Effect] = []
        for e in tl.events { engine.apply(e, into: &effects) }
        let left = Dictionary(uniqueKeysWithValues: engine.appTimeLeftToday.map { ($0.app, $0.seconds) })
        #expect(left == ["Minecraft Launcher": 0, "Minecraft Java": 0])
        #expect(engine.rewardAvailableToday == sec(45 * M))
    }

    @Test("a group's weekly limit: 45 minutes on Monday and Tuesday, 30 on Wednesday, then none until Monday")
    func groupWeekly() {
        var tl = Self.funded()
        for day in 0..<3 {
            let t = Double(day) * 24 * H
            tl.start(t, pid: Int32(10 + day), exe: Self.java)
            tl.exit(t + (day == 2 ? 30 : 45) * M + 10, pid: Int32(10 + day))    // each quits 10 s after it was told
        }
        tl.start(3 * 24 * H, pid: 13, exe: Self.java)       // Thursday: nothing left this week
        tl.exit(3 * 24 * H + 5, pid: 13)
        tl.start(7 * 24 * H, pid: 14, exe: Self.java)       // next Monday: a new week
        tl.exit(7 * 24 * H + 10 * M, pid: 14)
        let r = tl.replay(Self.policy())
        #expect(r.stops.map(\.at) == [wall(45 * M), wall(24 * H + 45 * M), wall(48 * H + 30 * M), wall(3 * 24 * H)])
        #expect(r.stops.allSatisfy { $0.reason == .appLimit })
        #expect(r.reward.used == sec(45 * M + 45 * M + 30 * M + 10 * M))
    }

    @Test("app limits need a reward app and a group that exists; each problem on its line")
    func policyProblems() {
        do {
            _ = try PolicyLoader.parse("""
                version = 1

                [[apps]]
                name = "GCompris"
                category = "learning"
                exe = ["/usr/bin/gcompris-qt"]
                daily_limit = "1h"

                [[apps]]
                name = "Minetest"
                category = "reward"
                exe = ["/usr/games/minetest"]
                group = "Minecraf"

                [[groups]]
                name = "Minecraft"
                daily_limit = "1h"

                [[groups]]
                name = "Chess"
                """)
            Issue.record("accepted")
        } catch {
            #expect(error.problems.map(\.line) == [7, 13, 19])
            #expect(error.problems.map(\.message) == [
                "'daily_limit' only applies to reward apps; \"GCompris\" is learning",
                "no [[groups]] entry is named \"Minecraf\" (did you mean 'Minecraft'?)",
                "the group \"Chess\" limits nothing: give daily_limit or weekly_limit",
            ])
        }
    }
}
