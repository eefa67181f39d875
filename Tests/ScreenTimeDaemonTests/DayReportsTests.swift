import ControlProtocol
@testable import ScreenTimeCore
import ScreenTimeDaemon
import ScreenTimePolicy
import Testing

/// `stctl report` from saved sessions and ledger entries of three days, on a fake clock: each
/// figure follows from the records given.
@Suite("Day reports")
struct DayReportsTests {
    static let minute = 60 * Seconds.micro
    static let day = 86_400 * Seconds.micro
    /// Monday 2026-11-23 00:00 UTC, Tuesday, and Wednesday ("today").
    static let monday: Microseconds = 1_795_392_000 * Seconds.micro
    static let tuesday = monday + day, wednesday = monday + 2 * day

    static func engine(schedule: String = "") throws -> Engine {
        var engine = Engine(policy: try PolicyLoader.parse("""
            version = 1
            timezone = "UTC"
            [points]
            learning_per_hour = 60
            daily_goal = "30m"
            [rewards]
            daily_limit = "60m"
            \(schedule)
            [[apps]]
            name = "GCompris"
            category = "learning"
            exe = ["/usr/bin/gcompris-qt"]
            """))
        var effects: [Effect] = []
        engine.apply(Event(at: WallTime(micros: wednesday + 9 * 3600 * Seconds.micro, utcOffsetSeconds: 0), mono: Seconds.micro, .input(count: 1)),
                     into: &effects)
        return engine
    }

    static func session(_ app: String, _ category: AppCategory, at start: Microseconds, minutes: Int64, credited: Int64 = 0,
                        refused: [(reason: Reason, seconds: Microseconds)] = []) -> SessionRecord {
        SessionRecord(app: app, category: category, pid: 9, start: start, end: start + minutes * minute, seconds: minutes * minute,
                      creditedSeconds: credited * minute, points: credited, verdict: credited > 0 ? .credited : .rejected,
                      refused: refused, flags: [])
    }

    @Test("three days: learning and its refusals, points by kind, game time saved or made from the games' sessions, the goal")
    func threeDays() throws {
        let engine = try Self.engine()
        #expect(engine.today.start == Self.wednesday)
        let tenAM = 10 * 3600 * Seconds.micro
        let sessions = [
            Self.session("GCompris", .learning, at: Self.monday + tenAM, minutes: 40, credited: 30, refused: [(.idle, 6 * Self.minute), (.unfocused, 4 * Self.minute)]),
            // Two games at once on Monday (overlapping by 10 minutes), and no saved total for it.
            Self.session("SuperTuxKart", .reward, at: Self.monday + 2 * tenAM, minutes: 30),
            Self.session("Minetest", .reward, at: Self.monday + 2 * tenAM + 20 * Self.minute, minutes: 20),
            Self.session("GCompris", .learning, at: Self.tuesday + tenAM, minutes: 10, credited: 10),
        ]
        let ledger = [
            LedgerEntry(at: Self.monday + tenAM + 40 * Self.minute, kind: .earned, points: 30, balanceAfter: 30),
            LedgerEntry(at: Self.monday + 2 * tenAM, kind: .redeemed, points: -20, balanceAfter: 10),
            LedgerEntry(at: Self.tuesday + tenAM, kind: .adjusted, points: 5, balanceAfter: 15),
            LedgerEntry(at: Self.tuesday + tenAM, kind: .chore, points: 3, balanceAfter: 18),
            LedgerEntry(at: Self.wednesday + Self.day + tenAM, kind: .earned, points: 99, balanceAfter: 117),   // after the last day: left out
        ]
        let days = DayReports.build(days: 3, last: engine.today, engine: engine, sessions: sessions, ledger: ledger,
                                    rewardUsed: [Self.tuesday: 15 * Self.minute])
        #expect(days.map(\.day) == ["2026-11-23", "2026-11-24", "2026-11-25"])
        let (mon, tue, wed) = (days[0], days[1], days[2])
        #expect(mon.learningCreditedSeconds == 30 * 60 && mon.learningRefusedSeconds == 10 * 60)
        #expect(mon.refused.map(\.reason) == ["idle", "unfocused"], "the reason that took most time first")
        #expect(mon.pointsEarned == 30 && mon.pointsSpent == 20 && mon.pointsAdjusted == 0)
        #expect(mon.rewardUsedSeconds == Int64(40 * 60), "30 + 20 minutes of games, 10 of them at once: 40 minutes of game time")
        #expect(mon.topApps.map(\.app) == ["GCompris", "SuperTuxKart", "Minetest"])
        #expect(mon.goalMet == true, "30 minutes credited, a goal of 30")
        #expect(tue.rewardUsedSeconds == Int64(15 * 60), "the saved total, not the sessions")
        #expect(tue.pointsAdjusted == 8, "adjustments and chores")
        #expect(tue.goalMet == false)
        #expect(wed.rewardUsedSeconds == Int64(0), "today's is the engine's own")
        #expect(wed.pointsEarned == 0, "an entry after the last day is left out")
        #expect(days.allSatisfy { $0.rewardDailyLimitSeconds == Int64(3600) })
        #expect(days.allSatisfy { $0.screenUsedSeconds == nil && $0.screenLimitSeconds == nil && $0.screenBonusSeconds == nil },
                "no [screen]: no screen time in the report")
    }

    @Test("screen time: a past day as saved with its own limit and bonus, a day not seen to its end unknown against its schedule's limit, today the engine's")
    func screenTime() throws {
        let engine = try Self.engine(schedule: """
            [screen]
            daily_limit = "2h"
            [[schedules]]
            name = "tuesdays"
            days = ["tue"]
            screen_daily_limit = "1h"
            """)
        let days = DayReports.build(days: 3, last: engine.today, engine: engine, sessions: [], ledger: [], rewardUsed: [:],
                                    screenUsed: [Self.monday: ScreenDayTotals(used: 90 * Self.minute, limit: 150 * Self.minute, bonus: 30 * Self.minute)])
        #expect(days.map(\.screenUsedSeconds) == [5400, nil, 0])
        #expect(days.map(\.screenLimitSeconds) == [9000, 3600, 7200], "Monday's as saved (a limit changed since), Tuesday's schedule, today's policy")
        #expect(days.map(\.screenBonusSeconds) == [1800, nil, 0])
    }

    @Test("a day's own limit comes from its schedule; a week of days back over a month's end")
    func schedulesAndBounds() throws {
        let engine = try Self.engine(schedule: """
            [[schedules]]
            name = "tuesdays"
            days = ["tue"]
            daily_limit = "30m"
            """)
        let days = DayReports.build(days: 8, last: engine.today, engine: engine, sessions: [], ledger: [], rewardUsed: [:])
        #expect(days.map(\.day) == ["2026-11-18", "2026-11-19", "2026-11-20", "2026-11-21", "2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25"])
        #expect(days.map(\.rewardDailyLimitSeconds) == [3600, 3600, 3600, 3600, 3600, 3600, 1800, 3600].map { Int64($0) })
        #expect(days.dropLast().allSatisfy { $0.rewardUsedSeconds == Int64(0) }, "a past day with no games: none used")
    }

    @Test("time covered: overlaps once, gaps not at all, in any order")
    func covered() {
        let s = { (from: Int64, to: Int64) in Self.session("g", .reward, at: from * Self.minute, minutes: to - from) }
        #expect(DayReports.timeCovered(by: []) == 0)
        #expect(DayReports.timeCovered(by: [s(30, 40), s(0, 10), s(5, 20)]) == 30 * Self.minute)
        #expect(DayReports.timeCovered(by: [s(0, 60), s(10, 20)]) == 60 * Self.minute, "one inside another")
    }
}

/// `status`'s blind spots, from what the observers say.
@Suite("Blind spots")
struct BlindSpotsTests {
    static func engine(strictness: String = "strict") throws -> Engine {
        Engine(policy: try PolicyLoader.parse("""
            version = 1
            timezone = "UTC"
            [validation]
            strictness = "\(strictness)"
            [[apps]]
            name = "GCompris"
            category = "learning"
            exe = ["/usr/bin/gcompris-qt"]
            """))
    }

    @Test("all seen: nothing to say, and notices reach the desktop")
    func nothing() throws {
        let spots = BlindSpots(notices: .notifier(available: true, problem: nil), hooks: ["gnome"], logind: .watching)
        #expect(spots.words(engine: try Self.engine()).isEmpty)
        #expect(spots.notifying)
    }

    @Test("no hook first; then the state, notices, the seat, a compositor, logind, the login sessions and the family database, each in its words")
    func everything() throws {
        var spots = BlindSpots(notices: .relay(sessionBus: false, problem: nil, uid: 1001), hooks: [], logind: .notWatching(problem: nil))
        spots.rollback = "rolled back to entry 3"
        spots.seat = "no keyboard on seat0"
        spots.refusedCompositor = (name: "GNOME Shell", pid: 321, why: "ptrace is allowed")
        spots.household = .init(machine: "m", child: "emma", reachable: false, unreachableSince: "2026-11-25T10:00:00Z",
                                problem: "connection refused", unsent: 2, readThrough: 9)
        spots.loginSessions = "logind does not answer"
        let words = spots.words(engine: try Self.engine())
        #expect(words.count == 8)
        #expect(words[0].contains("learning is not credited"), "a strict policy credits nothing without a hook")
        #expect(words[1].contains("rolled back to entry 3"))
        #expect(words[2].contains("/run/user/1001/bus"))
        #expect(words[3] == "no keyboard on seat0")
        #expect(words[4].contains("GNOME Shell (pid 321)") && words[4].contains("ptrace is allowed"))
        #expect(words[5].contains("logind is not watched"))
        #expect(words[6].contains("logind does not answer") && words[6].contains("screen time is not counted"))
        #expect(words[7].contains("2026-11-25T10:00:00Z") && words[7].contains("connection refused"))
        #expect(!spots.notifying)
    }

    @Test("notices: off says why; a relay's problem is its own; a relay with a bus and no problem notifies")
    func notices() throws {
        let engine = try Self.engine(strictness: "lenient")
        let off = BlindSpots(notices: .off("desktop notifications are off (--no-notifications)"), hooks: ["x11"], logind: .notAsked)
        #expect(off.words(engine: engine) == ["desktop notifications are off (--no-notifications)",
                                               "logind is not asked (--no-logind): idle and lock come only from desktop hooks"])
        #expect(!off.notifying)
        let problem = BlindSpots(notices: .relay(sessionBus: true, problem: "the relay crashed", uid: 1001), hooks: ["x11"], logind: .watching)
        #expect(problem.words(engine: engine) == ["the relay crashed"])
        #expect(BlindSpots(notices: .relay(sessionBus: true, problem: nil, uid: 1001), hooks: ["x11"], logind: .watching).notifying)
        let lenient = BlindSpots(notices: .notifier(available: false, problem: nil), hooks: [], logind: .watching).words(engine: engine)
        #expect(lenient == ["no desktop hook has reported the focused window: learning counts while the app uses the CPU",
                            "desktop notifications are off"])
    }
}
