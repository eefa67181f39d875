import Foundation
import ScreenTimeCore
import ScreenTimePolicy
import Testing

/// The engine's side of a family ledger shared by several machines (docs/household.md): entries
/// other machines wrote come in as `family_entry` events, and a spending the family ledger paid
/// first is not refused for a balance this machine has not fully heard of yet. The test policy
/// costs 2 points a minute.
@Suite("Household scenarios")
struct HouseholdScenarioTests {
    @Test("another machine's entries count in the balance here, each marked with its machine and number; their minutes are not granted here")
    func mirroredEntries() {
        var tl = Timeline()
        tl.adjust(0, points: 10)
        tl.add(60, .familyEntry(FamilyLedgerEntry(machine: "laptop", seq: 2, kind: .earned, points: 30, note: "GCompris")))
        tl.add(120, .familyEntry(FamilyLedgerEntry(machine: "laptop", seq: 3, kind: .redeemed, points: -20, note: "mom")))
        let r = tl.replay(testPolicy())
        #expect(r.ledger.map(\.points) == [10, 30, -20])
        #expect(r.ledger.map(\.balanceAfter) == [10, 40, 20])
        #expect(r.ledger.map(\.machine) == [nil, "laptop", "laptop"])
        #expect(r.ledger.map(\.familySeq) == [nil, 2, 3])
        #expect(r.balance == 20)
        #expect(r.reward.granted == 0)           // the laptop's 10 minutes are played on the laptop
    }

    @Test("a redemption the family ledger paid is carried out though the balance here is short; one it did not pay is refused as before")
    func familyPaidRedemption() {
        var tl = Timeline()
        tl.adjust(0, points: 10)
        tl.add(60, .redeem(minutes: 30, by: "mom", familySeq: 7))      // costs 60: the family had them
        tl.add(120, .redeem(minutes: 30, by: "mom"))                   // balance -50 here: refused
        let r = tl.replay(testPolicy())
        #expect(r.ledger.map(\.points) == [10, -60])
        #expect(r.ledger.last?.familySeq == 7)
        #expect(r.ledger.last?.rewardSeconds == Seconds.of(minutes: 30))
        #expect(r.refusals.map(\.code) == [.insufficientPoints])
        #expect(r.reward.granted == 30 * 60 * 1_000_000)
    }

    @Test("an approval paid by the family ledger grants the minutes and records the family's number")
    func familyPaidApproval() {
        var tl = Timeline()
        tl.add(0, .timeRequested(id: "r1", minutes: 15, reason: nil))
        tl.add(60, .requestDecided(RequestDecision(id: "r1", approved: true, pay: .points, by: "dad", familySeq: 4)))
        let r = tl.replay(testPolicy())
        #expect(r.ledger.map(\.points) == [-30])
        #expect(r.ledger.map(\.familySeq) == [4])
        #expect(r.requests.first?.state == .approved)
        #expect(r.reward.granted == 15 * 60 * 1_000_000)
    }

    @Test("family_entry and family_seq survive the log: written, read back, the same events")
    func logRoundTrip() throws {
        let at = RFC3339.parse("2026-11-23T15:00:00+01:00")!
        let events = [
            Event(at: at, mono: 5_000_000, .familyEntry(FamilyLedgerEntry(machine: "laptop", seq: 12, kind: .chore, points: 20, note: "Dishes"))),
            Event(at: at, .familyEntry(FamilyLedgerEntry(machine: "pc", seq: 13, kind: .adjusted, points: -5))),
            Event(at: at, .redeem(minutes: 10, by: "mom", familySeq: 14)),
            Event(at: at, .requestDecided(RequestDecision(id: "r1", approved: true, familySeq: 15))),
        ]
        for e in events {
            let line = EventLog.encode(e)
            #expect(try EventLog.decode(line: line) == e, "\(line)")
        }
        #expect(EventLog.encode(events[2]).contains("\"family_seq\":14"))
        for bad in [#"{"at":"2026-11-23T15:00:00+01:00","event":"family_entry","machine":"pc","seq":0,"kind":"earned","points":1}"#,
                    #"{"at":"2026-11-23T15:00:00+01:00","event":"family_entry","machine":"pc","seq":3,"kind":"stolen","points":1}"#,
                    #"{"at":"2026-11-23T15:00:00+01:00","event":"family_entry","machine":"","seq":3,"kind":"earned","points":1}"#,
                    #"{"at":"2026-11-23T15:00:00+01:00","event":"redeem","minutes":5,"family_seq":-1}"#] {
            #expect(throws: EventLog.LineError.self, "\(bad)") { try EventLog.decode(line: bad) }
        }
    }

    @Test("[household] is read from the policy, and a bad one refused")
    func householdSettings() throws {
        let text = """
            version = 1
            timezone = "UTC"
            [household]
            database = "postgresql://laptop@nas.local/family"
            credentials = "/etc/screentime/household.secret"
            machine = "laptop"
            child = "emma"
            """
        let policy = try PolicyLoader.parse(text, file: "policy.toml")
        #expect(policy.household == Policy.Household(database: "postgresql://laptop@nas.local/family", credentials: "/etc/screentime/household.secret",
                                                     machine: "laptop", child: "emma"))
        #expect(try PolicyLoader.parse("version = 1\n", file: "p.toml").household == nil)
        // Without 'machine', the computer's name in the family is the role it logs in as (the database records entries so).
        let unnamed = try PolicyLoader.parse(text.replacingOccurrences(of: "machine = \"laptop\"\n", with: "")
                                                 .replacingOccurrences(of: "//laptop@", with: "//family%5Fpc@"), file: "policy.toml")
        #expect(unnamed.household?.machine == "family_pc")
        #expect(throws: PolicyError.self) { try PolicyLoader.parse("version = 1\n[household]\nmachine = \"pc\"\n", file: "p.toml") }
    }

    static let household = """

        [household]
        database = "postgresql://pc@nas.local/family"
        credentials = "/etc/screentime/household.secret"
        machine = "pc"

        """

    static func stops(_ r: ReplayResult) -> [(Microseconds, Reason)] {
        r.actions.compactMap { if case .stop(let s) = $0, s.repeatCount == 0 { return (s.at, s.reason) } else { return nil } }
    }

    @Test("with a household, a game plays the game time this machine leased: a grant pays the seconds played on credit, the family's limit stops it")
    func leasedGameTime() {
        var tl = Timeline()
        tl.adjust(0, points: 100)
        tl.redeem(0, minutes: 30)
        tl.start(60, pid: 10, exe: kart)
        // The shell asks at once; the family grants a minute (0.1 s were played on credit).
        tl.add(60.1, .leaseGranted(LeaseGrant(day: 20780, granted: 60_000_000, dayTotal: 60_000_000, weekTotal: 60_000_000)))
        // At 100 s, 20 s are held: another minute.
        tl.add(100, .leaseGranted(LeaseGrant(day: 20780, granted: 60_000_000, dayTotal: 120_000_000, weekTotal: 120_000_000)))
        // At 150 s the other machines have taken the rest of the family's 10 minutes.
        tl.add(150, .leaseGranted(LeaseGrant(day: 20780, granted: 0, dayTotal: 600_000_000, weekTotal: 600_000_000, limit: .dailyLimit)))
        tl.tick(300)
        let r = tl.replay(testPolicy(["rewards.daily_limit": "\"10m\""], apps: Self.household))
        // 60 + 60 leased, all played: from 60 s to 180 s.
        #expect(Self.stops(r).map(\.0) == [wall(180)])
        #expect(Self.stops(r).map(\.1) == [.dailyLimit])
        #expect(r.reward.usedToday == 120_000_000)
    }

    @Test("with a household and no answer from the family database, a game plays its credit, then stops (no_lease)")
    func noLease() {
        var tl = Timeline()
        tl.adjust(0, points: 100)
        tl.redeem(0, minutes: 30)
        tl.start(60, pid: 10, exe: kart)
        tl.tick(300)
        let r = tl.replay(testPolicy(apps: Self.household))
        #expect(Self.stops(r).map(\.0) == [wall(70)])
        #expect(Self.stops(r).map(\.1) == [.noLease])
        // Without a household the same game plays on.
        let alone = tl.replay(testPolicy())
        #expect(Self.stops(alone).isEmpty)
    }

    @Test("a lease is wanted while a game runs and less than 30 s is held, for a minute; not once the family's limit is reached")
    func leaseWanted() {
        var engine = Engine(policy: testPolicy(apps: Self.household))
        var effects: [Effect] = []
        let at = RFC3339.parse("2026-11-23T15:00:00+01:00")!
        func apply(_ s: Int64, _ kind: Event.Kind) {
            engine.apply(Event(at: WallTime(micros: at.micros + s * 1_000_000, utcOffsetSeconds: 3600), mono: s * 1_000_000, kind), into: &effects)
        }
        apply(0, .adjust(points: 100, reason: "test"))
        apply(0, .redeem(minutes: 30, by: "mom"))
        #expect(engine.leaseWanted == nil)                       // no game runs
        apply(1, .processStarted(ProcessFacts(pid: 10, exe: kart, startTicks: 100, uid: 1000)))
        let want = engine.leaseWanted
        #expect(want?.want == 60_000_000)
        #expect(want?.dailyLimit == Seconds.of(minutes: 90))
        #expect(want?.day == 20780 && want?.weekStart == 20780)     // Monday 2026-11-23
        apply(2, .leaseGranted(LeaseGrant(day: 20780, granted: 60_000_000, dayTotal: 60_000_000, weekTotal: 60_000_000)))
        #expect(engine.leaseWanted == nil)
        apply(35, .tick)
        #expect(engine.leaseWanted != nil)                        // 27 s held
        apply(36, .leaseGranted(LeaseGrant(day: 20780, granted: 0, dayTotal: 90 * 60_000_000, weekTotal: 90 * 60_000_000, limit: .dailyLimit)))
        #expect(engine.leaseWanted == nil)
    }

    @Test("with a household, an app's own limit counts what the other computers played of it, as the family database said")
    func sharedAppLimit() throws {
        let kart2 = """

            [[apps]]
            name = "Kart2"
            category = "reward"
            daily_limit = "10m"
            exe = ["/usr/games/kart2"]

            """
        var tl = Timeline()
        tl.adjust(0, points: 100)
        tl.redeem(0, minutes: 30)
        tl.start(60, pid: 10, exe: "/usr/games/kart2")
        tl.add(60, .leaseGranted(LeaseGrant(day: 20780, granted: 600_000_000, dayTotal: 600_000_000, weekTotal: 600_000_000)))
        // The laptop played 8 of Kart2's 10 minutes today: 2 are left here.
        tl.add(60, .appTimeShared(day: 20780, [SharedAppTime(key: "app:Kart2", today: 480_000_000, week: 480_000_000)]))
        tl.tick(700)
        let r = tl.replay(testPolicy(apps: kart2 + Self.household))
        #expect(Self.stops(r).map(\.0) == [wall(180)])
        #expect(Self.stops(r).map(\.1) == [.appLimit])
        // Alone, the same computer plays its 10 minutes.
        let alone = tl.replay(testPolicy(apps: kart2))
        #expect(Self.stops(alone).map(\.0) == [wall(660)])
        // The log keeps what was shared.
        let line = EventLog.encode(Event(at: RFC3339.parse("2026-11-23T15:00:00+01:00")!, .appTimeShared(day: 20780, [SharedAppTime(key: "group:Blocky", today: 60_000_000, week: 90_000_000)])))
        #expect(try EventLog.decode(line: line).kind == .appTimeShared(day: 20780, [SharedAppTime(key: "group:Blocky", today: 60_000_000, week: 90_000_000)]))
    }
}
