import Foundation
import ScreenTimeCore
import ScreenTimePolicy
@testable import ScreenTimeStore
import Testing

@Suite("Retention: removing old events changes nothing derived")
struct RetentionTests {
    static let policy = """
        version = 1
        timezone = "Europe/Berlin"
        [points]
        learning_per_hour = 60
        per_reward_minute = 1
        [rewards]
        daily_limit = "1h"
        [validation]
        min_session = "1m"
        [[apps]]
        name = "gcompris"
        category = "learning"
        exe = ["/usr/bin/gcompris-qt"]
        [[apps]]
        name = "supertuxkart"
        category = "reward"
        exe = ["/usr/games/supertuxkart"]
        """

    /// `days` days of life: each day 30 min of focused learning with typing, a redemption of 10
    /// minutes, and 10 min of a game. Ticks every minute keep deadlines moving.
    static func days(_ days: Int, from origin: Microseconds) -> [Event] {
        var events: [Event] = []
        var mono: Microseconds = 1_000_000
        var last: Microseconds = origin
        func at(_ wall: Microseconds, _ kind: Event.Kind) {
            mono += wall - last
            last = wall
            events.append(Event(at: WallTime(micros: wall, utcOffsetSeconds: 3600), mono: mono, kind))
        }
        let s = Seconds.micro
        for d in 0..<days {
            let day = origin + Int64(d) * 86_400 * s
            let pid = Int32(1000 + d * 2)
            at(day, .processStarted(ProcessFacts(pid: pid, exe: "/usr/bin/gcompris-qt", startTicks: Int64(d) * 100, uid: 1000,
                                                 comm: "gcompris-qt", cmdline: ["gcompris-qt"], flatpak: nil, exeWritable: false)))
            at(day + s, .focusChanged(FocusedWindow(pid: pid, appID: "gcompris", title: "GCompris")))
            var t: Microseconds = 2
            while t < 1800 { at(day + t * s, .input(count: 3)); t += 7 + (t % 13) }
            at(day + 1800 * s, .processExited(pid: pid))
            at(day + 1900 * s, .redeem(minutes: 10, by: "mom"))
            at(day + 2000 * s, .processStarted(ProcessFacts(pid: pid + 1, exe: "/usr/games/supertuxkart", startTicks: Int64(d) * 100 + 1,
                                                            uid: 1000, comm: "supertuxkart", cmdline: ["supertuxkart"], flatpak: nil, exeWritable: false)))
            for m in 1...10 { at(day + (2000 + Int64(m) * 60) * s, .tick) }
            at(day + 2700 * s, .processExited(pid: pid + 1))
            at(day + 3000 * s, .tick)
        }
        return events
    }

    static let origin = RFC3339.parse("2026-01-05T09:00:00+01:00")!.micros

    /// A state of `n` days, written as the daemon writes it, with a policy change on day 3.
    static func state(days n: Int) throws -> Store {
        let store = try Store(path: try StoreTests.freshPath())
        var live = try LiveState(store: store, policyText: policy, policyFile: "policy.toml")
        for (k, e) in days(n, from: origin).enumerated() {
            if k == 600 { try live.adopt(policyText: policy.replacingOccurrences(of: "learning_per_hour = 60", with: "learning_per_hour = 90"), file: "policy.toml") }
            live.ingest(e)
            if k % 97 == 0 { try live.flush(checkpoint: k % 3 == 0) }
        }
        try live.flush(checkpoint: true)
        return store
    }

    struct Figures: Equatable {
        var ledger: [StoredLedgerEntry]
        var engineState: Data
        var balance: Int64
        var reward: Engine.RewardFigures
    }

    static func figures(_ store: Store) throws -> Figures {
        let rebuilt = try #require(try LiveState.rebuild(from: store, fromCheckpoint: false))
        return Figures(ledger: try store.ledger(), engineState: rebuilt.engine.checkpointData,
                       balance: rebuilt.engine.ledger.balance, reward: rebuilt.engine.reward)
    }

    @Test("each day that ends keeps the game time played on it, for reports")
    func daysKeepRewardUsed() throws {
        let store = try Self.state(days: 3)
        let midnight = RFC3339.parse("2026-01-05T00:00:00+01:00")!.micros
        let day = 86_400 * Seconds.micro
        // On the first day the redemption comes before the learning session is judged (the balance
        // is 0: refused, nothing played); on the second, 10 minutes are played; the third has not ended.
        #expect(try store.rewardUsed(from: midnight - day, to: midnight + 5 * day) == [midnight: 0, midnight + day: 10 * 60 * Seconds.micro])
        #expect(try store.rewardUsed(from: midnight + day, to: midnight + 2 * day) == [midnight + day: 10 * 60 * Seconds.micro])
        let replayed = ReplayResult.replay(Self.days(3, from: Self.origin), policy: try PolicyLoader.parse(Self.policy))
        #expect(replayed.refusals.count == 1)
        #expect(replayed.reward.used == 20 * 60 * Seconds.micro)
    }

    @Test("old days removed in several runs: the ledger, the engine's state and check agree with the whole log")
    func removesOldDays() throws {
        let store = try Self.state(days: 6)
        let whole = try Self.figures(store)
        let eventsBefore = try store.eventCount()
        let ledgerEntries = whole.ledger.count
        #expect(ledgerEntries >= 12)   // earned and redeemed each day (the exact figures are the engine tests' job)
        #expect(try StateAudit.run(store)?.base == nil)

        // Keep 3 days, as seen at the end of day 6, and remove at most 400 events per run.
        let now = Self.origin + 5 * 86_400 * Seconds.micro + 3600 * Seconds.micro
        let retention = Retention(keep: 3 * 86_400 * Seconds.micro, maxEventsPerRun: 400)
        var removed = 0
        var runs = 0
        while case let n = try retention.run(on: store, now: now), n > 0 {
            removed += n
            runs += 1
            // After every run, a replay from the new start gives the same figures as the whole log.
            #expect(try Self.figures(store) == whole)
            #expect(try StateAudit.run(store) != nil)
        }
        #expect(runs >= 2)
        let base = try #require(try store.logBase())
        #expect(base.eventsRemoved == Int64(removed))
        // Everything before day 3 is gone, and nothing after the cut-off.
        let cutoff = now - 3 * 86_400 * Seconds.micro
        #expect(base.at < cutoff)
        let rest = try store.events().map { try EventLog.decode(line: $0.line) }
        #expect(rest.count == eventsBefore - removed + 1)   // the base's own row stays
        #expect(rest.dropFirst().allSatisfy { $0.at.micros >= cutoff })
        #expect(rest.dropFirst().first.map { $0.at.micros >= cutoff } == true)
        #expect(try store.latestCheckpoint().map { $0.eventSeq >= base.eventSeq } == true)

        // Start-up from the newest checkpoint and from the base give the same engine.
        let started = try #require(try LiveState.rebuild(from: store, fromCheckpoint: true))
        #expect(started.engine.checkpointData == whole.engineState)

        // And the daemon goes on writing after the base: seq numbers continue, check stays whole.
        var live = try LiveState(store: store, policyText: Self.policy, policyFile: "policy.toml")
        try live.ingestSaved(Event(at: WallTime(micros: now, utcOffsetSeconds: 3600), mono: nil, .adjust(points: 5, reason: "chores")))
        let summary = try #require(try StateAudit.run(store))
        #expect(summary.ledgerEntries == ledgerEntries + 1)
        #expect(summary.balance == whole.balance + 5)
    }

    @Test("nothing old enough: nothing removed")
    func nothingOld() throws {
        let store = try Self.state(days: 2)
        #expect(try Retention().run(on: store, now: Self.origin + 2 * 86_400 * Seconds.micro) == 0)
        #expect(try store.logBase() == nil)
    }

    @Test("a ledger that the old events do not give stops retention, and check names the entry")
    func editedLedgerStopsRetention() throws {
        let store = try Self.state(days: 4)
        let first = try #require(try store.ledger().first)
        try StoreTests.sqlite(store.path, "UPDATE ledger SET points = points + 1, balance_after = balance_after + 1 WHERE seq = 1")
        #expect(throws: StoreError.self) {
            try Retention(keep: 86_400 * Seconds.micro).run(on: store, now: Self.origin + 4 * 86_400 * Seconds.micro)
        }
        #expect(try store.logBase() == nil)
        #expect(try store.eventCount() > 0)
        #expect {
            try StateAudit.run(store)
        } throws: { error in
            "\(error)".contains("ledger entry 1 (") && "\(error)".contains("\(first.entry.kind.rawValue)")
        }
    }

    @Test("the removed part's balance must match the ledger: an edited entry before the base is found")
    func editBeforeBase() throws {
        let store = try Self.state(days: 5)
        try Retention(keep: 2 * 86_400 * Seconds.micro).run(on: store, now: Self.origin + 5 * 86_400 * Seconds.micro)
        let base = try #require(try store.logBase())
        #expect(base.ledgerSeq >= 2)
        // Rewrite the whole chain up to the base with a bigger balance, hashes and all: the chain
        // is then whole, but the base's balance no longer matches.
        var previous = Store.genesisHash
        for row in try store.ledger() {
            var e = row.entry
            if row.seq == 1 { e.points += 100 }
            e.balanceAfter += 100
            let hash = Store.hash(seq: row.seq, e, previous: previous)
            try StoreTests.sqlite(store.path, "UPDATE ledger SET points = \(e.points), balance_after = \(e.balanceAfter), previous_hash = '\(previous)', hash = '\(hash)' WHERE seq = \(row.seq)")
            previous = hash
        }
        #expect(try store.firstBrokenLink() == nil)
        #expect {
            try StateAudit.run(store)
        } throws: { error in
            "\(error)".contains("ledger entry \(base.ledgerSeq) (") && "\(error)".contains("is not the balance")
        }
    }
}
