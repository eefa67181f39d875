import Foundation
@testable import ScreenTimeCore
import Testing

/// Screen time shared by a child's computers in a household (docs/household.md): each computer
/// counts only the screen time it leased from the family, a minute at a time, and a few seconds on
/// credit while it asks. Two engines run live side by side, a second at a time; the family database
/// is played here by `Family` (the same rule as `screentime.take_screen_lease`, which
/// FamilyLedgerTests runs in a real PostgreSQL). Each computer's events are kept as its log, and
/// replayed afterwards: the replay must do what the live run did.
@Suite("Screen time in a household")
struct ScreenHouseholdTests {
    /// Monday 2026-11-23 in Berlin: day key 20780, the week's first day.
    static let day: Int64 = 20780

    /// The family database's lease: what is asked, up to what the limit leaves of the day.
    struct Family {
        var leased: [String: Microseconds] = [:]
        var total: Microseconds { leased.values.reduce(0, +) }
        mutating func take(_ machine: String, _ r: LeaseRequest) -> LeaseGrant {
            let before = total
            var granted = max(r.want, 0), reached: Reason? = nil
            if let limit = r.dailyLimit, limit - before <= granted { granted = max(limit - before, 0); reached = .dailyLimit }
            leased[machine, default: 0] += granted
            return LeaseGrant(day: r.day, granted: granted, dayTotal: before + granted, weekTotal: before + granted, limit: reached, screen: r.screen)
        }
    }

    /// One computer: its engine run live, and its log.
    struct Computer {
        let name: String
        var engine: Engine
        var log = Timeline()
        var effects: [Effect] = []
        /// Whether the family database answers it.
        var online = true
        /// The desktop locked this many times (once for each lock ordered).
        var locksDone = 0

        init(_ name: String, policy: Policy) { self.name = name; engine = Engine(policy: policy) }

        mutating func put(_ s: Double, _ kind: Event.Kind) {
            log.add(s, kind)
            engine.apply(log.events.last!, into: &effects)
        }

        /// A second of the child at this computer: a key every 20 s (a tick between); the shell's
        /// turn with the family; a lock ordered locks the desktop a second later.
        mutating func second(_ s: Int, family: inout Family) {
            if s == 0 { put(0, .sessionStarted(session: name, tty: false, remote: false)) }
            put(Double(s), s % 20 == 0 ? .input(count: 1) : .tick)
            if online, let want = engine.leaseWanted {
                #expect(want.screen, "no game runs: only screen time is asked for")
                put(Double(s) + 0.5, .leaseGranted(family.take(name, want)))
            }
            if locksOrdered > locksDone {
                locksDone += 1
                put(Double(s) + 0.9, .lockChanged(locked: true, claimed: false))
            }
        }

        var locksOrdered: Int { effects.count { if case .lockSession = $0 { true } else { false } } }
        var lockOrdered: Bool { locksOrdered > 0 }
        var used: Int64 { engine.screenFigures.usedToday / Seconds.micro }
        /// Locks, ends and screen warnings, as in ScreenTimeTests.orders.
        var orders: [String] { ScreenTimeTests.orders(ReplayResult.replay(log.events, policy: engine.policy), log) }
        var liveOrders: [String] {
            var r = ReplayResult.replay([], policy: engine.policy)
            r.actions = effects
            return ScreenTimeTests.orders(r, log)
        }
    }

    static let household = """

        [household]
        database = "postgresql://pc@nas.local/family"
        credentials = "/etc/screentime/household.secret"
        machine = "pc"

        """

    static func policy(household: Bool = true) -> Policy {
        ScreenTimeTests.screen(["daily_limit": "\"20m\"", "warn_before": "[\"5m\"]"], extra: household ? Self.household : "")
    }

    @Test("two computers share one day's screen limit: 20 minutes between them, each warned and locked, the family's leases exactly the limit")
    func twoComputers() {
        var family = Family()
        var pc = Computer("pc", policy: Self.policy()), laptop = Computer("laptop", policy: Self.policy())
        for s in 0..<1800 {
            pc.second(s, family: &family)
            laptop.second(s, family: &family)
        }
        // The family leased exactly its 20 minutes, and each computer counted what it leased, at
        // most its 10 s of credit, and the grace (60 s) between the warning at zero and the lock, as
        // a computer alone does.
        #expect(family.total == 1200 * Seconds.micro)
        for c in [pc, laptop] {
            let leased = family.leased[c.name, default: 0] / Seconds.micro
            #expect(c.used >= leased + 60 && c.used <= leased + 10 + 60, "\(c.name): counted \(c.used) s, leased \(leased) s")
        }
        #expect(pc.used + laptop.used <= 1200 + 2 * 70)
        // Alike at both computers, each had about half: warned once with 5 minutes of the family's
        // left (or less: the other computer's lease, a minute, may cross it at once), at zero, and
        // locked a grace (60 s) later — long before the 20 minutes one alone has.
        for c in [pc, laptop] {
            let orders = c.liveOrders
            #expect(orders.count == 3, "\(c.name): \(orders)")
            let first = orders.first.map { $0.split(separator: " ") } ?? []
            #expect(first.count == 4 && first[2] == "screen_daily_limit" && (240...300).contains(Int(first[3]) ?? 0), "\(c.name): \(orders)")
            #expect(orders.dropFirst().first?.hasSuffix("screen_daily_limit 0") == true, "\(c.name): \(orders)")
            let lock = orders.last.flatMap { Int($0.split(separator: " ")[1]) } ?? -1
            #expect(orders.last?.hasPrefix("lock ") == true && orders.last?.hasSuffix("\(c.name) screen_limit") == true, "\(c.name): \(orders)")
            #expect(lock >= 540 + 60 && lock <= 660 + 60, "\(c.name) locked at \(lock) s")
            // Its log replayed does the same.
            #expect(c.orders == orders, "\(c.name): replayed \(c.orders), live \(orders)")
        }
        // Alone (no household), one computer has the whole 20 minutes.
        var alone = Computer("pc", policy: Self.policy(household: false))
        for s in 0..<1800 { alone.second(s, family: &family) }
        #expect(alone.liveOrders.last == "lock 1260 pc screen_limit")
    }

    @Test("a computer the family database does not answer counts what it holds and its credit, then locks; the other has the rest of the day's limit")
    func offline() {
        var family = Family()
        var pc = Computer("pc", policy: Self.policy()), laptop = Computer("laptop", policy: Self.policy())
        for s in 0..<2400 {
            if s == 120 { laptop.online = false }         // the laptop's network goes
            pc.second(s, family: &family)
            laptop.second(s, family: &family)
        }
        let laptopLeased = family.leased["laptop", default: 0] / Seconds.micro
        #expect(laptopLeased > 0 && laptopLeased <= 180, "two minutes online, a minute at a time ahead: \(laptopLeased) s")
        #expect(laptop.used <= laptopLeased + 10 + 60 && laptop.used >= laptopLeased + 60,
                "passed by at most the credit (and the grace before the lock): \(laptop.used) s of \(laptopLeased) s")
        #expect(laptop.lockOrdered)
        // The pc leased the rest: the family's 20 minutes in all.
        #expect(family.total == 1200 * Seconds.micro)
        #expect(pc.used >= 1200 - laptopLeased + 60 && pc.used <= 1200 - laptopLeased + 10 + 60)
        #expect(pc.orders == pc.liveOrders && laptop.orders == laptop.liveOrders)
    }

    @Test("a parent's screen bonus on one computer: asked of the family under limits raised by it; a free day asks for nothing")
    func bonusAndFreeDay() {
        var family = Family()
        var pc = Computer("pc", policy: Self.policy())
        for s in 0..<1300 { pc.second(s, family: &family) }
        #expect(pc.lockOrdered && family.total == 1200 * Seconds.micro)
        pc.put(1300, .screenBonus(minutes: 10, by: "mum", reason: nil))
        pc.put(1300.1, .lockChanged(locked: false, claimed: false))
        let want = pc.engine.leaseWanted
        #expect(want?.dailyLimit == 1800 * Seconds.micro && want?.screen == true, "20 minutes and the bonus's 10")
        for s in 1301..<2400 { pc.second(s, family: &family) }
        // 30 minutes leased in all; counted up to them, then the grace before the second lock.
        #expect(family.total == 1800 * Seconds.micro)
        #expect(pc.used >= 1800 + 60 && pc.used <= 1800 + 60 + 10, "\(pc.used) s \(pc.liveOrders)")
        #expect(pc.locksOrdered == 2, "\(pc.liveOrders)")
        var free = Computer("pc", policy: Self.policy())
        free.put(0, .freeDay(by: "mum", reason: nil))
        for s in 0..<300 { free.second(s, family: &family) }
        #expect(free.log.events.allSatisfy { if case .leaseGranted = $0.kind { false } else { true } }, "nothing leased on a free day")
    }

    @Test("time given back (an idleness learned afterwards) pays what was used after the family's no, then the credit, then is held")
    func giveBack() {
        var l = FamilyLease()
        l.held = 20 * Seconds.micro
        l.use(30 * Seconds.micro)                  // 20 held, 10 on credit
        #expect(l.owed == 10 * Seconds.micro && l.mayUse(credit: Engine.leaseCredit) == 0)
        l.spent = .dailyLimit
        l.use(5 * Seconds.micro)                   // after the family's no
        #expect(l.overdrawn == 5 * Seconds.micro)
        l.giveBack(12 * Seconds.micro)
        #expect(l.overdrawn == 0 && l.owed == 3 * Seconds.micro && l.held == 0, "not held again while owed")
        l.giveBack(10 * Seconds.micro)
        #expect(l.owed == 0 && l.held == 7 * Seconds.micro)
    }

    @Test("a new policy with a higher limit: the computer asks the family again, though it had said no")
    func askAgainAfterReload() {
        var family = Family()
        var pc = Computer("pc", policy: Self.policy())
        for s in 0..<1300 { pc.second(s, family: &family) }
        #expect(pc.engine.leaseWanted == nil && family.total == 1200 * Seconds.micro)
        pc.engine.adopt(ScreenTimeTests.screen(["daily_limit": "\"30m\"", "warn_before": "[\"5m\"]"], extra: Self.household), into: &pc.effects)
        pc.put(1300, .lockChanged(locked: false, claimed: false))
        #expect(pc.engine.leaseWanted?.dailyLimit == 1800 * Seconds.micro)
    }

    @Test("a screen lease in the log: written with \"of\": \"screen\", read back the same; an unknown kind refused")
    func logLine() throws {
        let grant = LeaseGrant(day: Self.day, granted: 60_000_000, dayTotal: 120_000_000, weekTotal: 180_000_000, limit: .dailyLimit, screen: true)
        let line = EventLog.encode(Event(at: RFC3339.parse("2026-11-23T15:00:00+01:00")!, .leaseGranted(grant)))
        #expect(line.contains("\"of\":\"screen\""))
        #expect(try EventLog.decode(line: line).kind == .leaseGranted(grant))
        let game = EventLog.encode(Event(at: RFC3339.parse("2026-11-23T15:00:00+01:00")!, .leaseGranted(LeaseGrant(day: Self.day, granted: 1, dayTotal: 1, weekTotal: 1))))
        #expect(!game.contains("\"of\""), "a game lease is written as before")
        let bad = line.replacingOccurrences(of: "\"of\":\"screen\"", with: "\"of\":\"tv\"")
        #expect(throws: (any Error).self) { try EventLog.decode(line: bad) }
    }
}

/// What status says of screen time going on now (the indicator counts down between replies only
/// while it does).
@Suite("Screen time: counting now")
struct ScreenCountingNowTests {
    @Test("counting while the child types; not past idle_after without input; not while focused learning waits for its judgement")
    func countingNow() {
        var engine = Engine(policy: ScreenTimeTests.screen(["daily_limit": "\"2h\""]))
        var effects: [Effect] = []
        let at = RFC3339.parse("2026-11-23T15:00:00+01:00")!
        func apply(_ s: Int64, _ kind: Event.Kind) {
            engine.apply(Event(at: WallTime(micros: at.micros + s * Seconds.micro, utcOffsetSeconds: 3600), mono: s * Seconds.micro, kind), into: &effects)
        }
        apply(0, .sessionStarted(session: "c1", tty: false, remote: false))
        apply(0, .processStarted(ProcessFacts(pid: 40, exe: xterm, startTicks: 400, uid: 1000)))
        apply(0, .focusChanged(FocusedWindow(pid: 40, appID: "xterm", title: "xterm")))
        apply(1, .input(count: 1))
        #expect(engine.screenFigures.counting)
        // Idle after 3 minutes (moderate): at 4 minutes nothing has been counted since 3:01.
        apply(240, .tick)
        #expect(!engine.screenFigures.counting)
        #expect(engine.screenFigures.usedToday == 181 * Seconds.micro)
        apply(241, .input(count: 1))
        #expect(engine.screenFigures.counting)
        // GCompris in front: its time waits for the judgement of its session (not counted now).
        apply(242, .processStarted(ProcessFacts(pid: 50, exe: gcompris, startTicks: 500, uid: 1000)))
        apply(242, .focusChanged(FocusedWindow(pid: 50, appID: "gcompris", title: "GCompris")))
        apply(243, .input(count: 1))
        #expect(!engine.screenFigures.counting)
        // Locked: not counting.
        apply(244, .focusChanged(FocusedWindow(pid: 40, appID: "xterm", title: "xterm")))
        #expect(engine.screenFigures.counting)
        apply(245, .lockChanged(locked: true, claimed: false))
        #expect(!engine.screenFigures.counting)
    }
}
