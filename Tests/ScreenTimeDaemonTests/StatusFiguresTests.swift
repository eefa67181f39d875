import ControlProtocol
@testable import ScreenTimeCore
import ScreenTimeDaemon
import ScreenTimePolicy
import Testing

/// `status` figures from an engine fed a child's afternoon, on a fake clock (the events' own
/// times): each expected figure follows from the events and the policy, not from a run.
@Suite("Status figures")
struct StatusFiguresTests {
    static let policy = """
        version = 1
        timezone = "UTC"
        [points]
        learning_per_hour = 60
        per_reward_minute = 2
        daily_goal = "30m"
        [rewards]
        daily_limit = "60m"
        daily_allowance = "15m"
        [[apps]]
        name = "GCompris"
        category = "learning"
        exe = ["/usr/bin/gcompris-qt"]
        [[apps]]
        name = "SuperTuxKart"
        category = "reward"
        exe = ["/usr/games/supertuxkart"]
        """

    /// 14:00 UTC on a Monday, and `s` seconds after it.
    static let start: Microseconds = 1_795_442_400 * Seconds.micro
    static func event(_ s: Double, _ kind: Event.Kind) -> Event {
        let m = Microseconds(s * 1e6)
        return Event(at: WallTime(micros: start + m, utcOffsetSeconds: 0), mono: 1_000 * Seconds.micro + m, kind)
    }

    static func status(after events: [Event], at s: Double, policy text: String = policy) throws -> ControlReply.Status {
        var engine = Engine(policy: try PolicyLoader.parse(text))
        var effects: [Effect] = []
        for e in events { engine.apply(e, into: &effects) }
        let now = engine.asOf(mono: 1_000 * Seconds.micro + Microseconds(s * 1e6))
        return StatusFigures.of(now, pointsToday: 0, hooks: ["x11"], observers: .init(proc: true, logind: true, focusHook: true, notifications: false),
                                blindSpots: [BlindSpot(.noSessionBus, ["path": "/run/user/1001/bus"])], notices: [])
    }

    @Test("a game in front: game time used from the day's allowance first, counting down between events")
    func playing() throws {
        let s = try Self.status(after: [
            Self.event(0, .processStarted(ProcessFacts(pid: 50, exe: "/usr/games/supertuxkart", startTicks: 1, uid: 1000))),
            Self.event(0, .focusChanged(FocusedWindow(pid: 50, appID: "supertuxkart", title: nil))),
            Self.event(60, .input(count: 1)),
        ], at: 300)
        #expect(s.currentApp == "SuperTuxKart" && s.currentCategory == "reward")
        #expect(s.currentCounts == StatusFigures.counts(.reward, trusted: true))
        #expect(s.rewardCounting == true)
        #expect(s.rewardUsedTodaySeconds == 300, "five minutes played by the moment asked, not by the last event")
        #expect(s.allowanceTodaySeconds == Int64(15 * 60))
        #expect(s.allowanceLeftSeconds == Int64(10 * 60))
        #expect(s.rewardAvailableSeconds == 10 * 60, "what is left of the allowance; nothing redeemed")
        #expect(s.goalSeconds == 30 * 60 && s.streakDays == 0)
        #expect(s.asOf?.hasPrefix("2026-11-23T14:05:00") == true, "\(s.asOf ?? "")")
        #expect(s.hooks == ["x11"] && s.blindSpots == ["no desktop session bus (/run/user/1001/bus): notices go to the journal only"]
                && s.blindSpotCodes == [BlindSpot(.noSessionBus, ["path": "/run/user/1001/bus"])] && s.observers.logind)
    }

    @Test("nothing in front, points redeemed: the balance after, the minutes on top of the allowance")
    func redeemed() throws {
        let s = try Self.status(after: [Self.event(0, .adjust(points: 40, reason: "chores")), Self.event(1, .redeem(minutes: 10, by: "mom"))], at: 2)
        #expect(s.currentApp == nil && s.currentCounts == nil)
        #expect(s.balance == 40 - 10 * 2)
        #expect(s.rewardAvailableSeconds == (15 + 10) * 60)
        #expect(s.rewardUsedTodaySeconds == 0 && s.rewardCounting == false)
    }

    @Test("a browser in front: the site its tab shows is in use, with the host its extension reported; another window in front, no site")
    func siteInFront() throws {
        let sites = Self.policy + """

            [browsers]
            exe = ["/usr/lib/chromium/chromium"]
            [[sites]]
            name = "Khan Academy"
            category = "learning"
            domains = ["khanacademy.org"]
            """
        let browser: [Event] = [
            Self.event(0, .processStarted(ProcessFacts(pid: 60, exe: "/usr/lib/chromium/chromium", startTicks: 1, uid: 1000))),
            Self.event(0, .processStarted(ProcessFacts(pid: 50, exe: "/usr/games/supertuxkart", startTicks: 1, uid: 1000))),
            Self.event(0, .focusChanged(FocusedWindow(pid: 60, appID: "chromium", title: nil))),
            Self.event(1, .siteChanged(SiteReport(pid: 60, host: "es.khanacademy.org", focused: true))),
        ]
        let learning = try Self.status(after: browser, at: 2, policy: sites)
        #expect(learning.currentApp == "Khan Academy" && learning.currentCategory == "learning")
        #expect(learning.currentSite == "es.khanacademy.org")
        // A new tab: no web page, no site.
        let blank = try Self.status(after: browser + [Self.event(3, .siteChanged(SiteReport(pid: 60, host: nil, focused: true)))], at: 4, policy: sites)
        #expect(blank.currentSite == nil)
        // The game in front: the browser's report still holds, but its tab is not what is used.
        let game = try Self.status(after: browser + [Self.event(3, .focusChanged(FocusedWindow(pid: 50, appID: "supertuxkart", title: nil)))], at: 4, policy: sites)
        #expect(game.currentApp == "SuperTuxKart" && game.currentSite == nil)
        // Without [[sites]] a report is not followed, and no site is named.
        let plain = try Self.status(after: browser, at: 2)
        #expect(plain.currentSite == nil)
    }
}
