import Foundation
import ScreenTimeCore
import Testing

/// Issue #15: the daemon restarted under libfaketime (`FAKETIME=+1d`) read a boot clock 57 years
/// ahead. A clock that cannot be true must change nothing that cannot be undone.
@Suite("Clocks that cannot be true")
struct ClockFaultTests {
    static let t0 = RFC3339.parse("2026-11-23T15:00:00+01:00")!
    static let s = Seconds.micro

    /// An event `wall` seconds after t0 (wall clock) with the boot clock at `mono` µs.
    static func at(_ wall: Int64, mono: Microseconds, _ kind: Event.Kind) -> Event {
        Event(at: WallTime(micros: t0.micros + wall * s, utcOffsetSeconds: 3600), mono: mono, kind)
    }

    /// What libfaketime with FAKETIME=+1d gave as CLOCK_BOOTTIME: the faked wall clock.
    static func faked(_ wall: Int64) -> Microseconds { t0.micros + 86_400 * s + wall * s }

    /// 60 min redeemed (expiring after a day), the daemon restarted under the faked clock for a
    /// while, then restarted normally.
    static var fakedRestart: [Event] {
        let boot: Microseconds = 1000 * s
        return [
            at(0, mono: boot, .adjust(points: 200, reason: "chores")),
            at(0, mono: boot, .redeem(minutes: 60, by: "mom")),
            at(10, mono: boot + 10 * s, .tick),
            // Restarted under FAKETIME=+1d: the wall clock a day ahead, the boot clock 57 years.
            at(86_400 + 20, mono: faked(20), .daemonStarted(boot: nil)),
            at(86_400 + 30, mono: faked(30), .tick),
            at(86_400 + 3_000, mono: faked(3_000), .tick),
            // A normal restart: both clocks are the kernel's again.
            at(3_010, mono: boot + 3_010 * s, .daemonStarted(boot: nil)),
            at(3_020, mono: boot + 3_020 * s, .tick),
        ]
    }

    @Test("a boot clock that runs ahead of the wall clock between two events is a fault: no time passes, the calendar stays")
    func bootClockAhead() {
        var c = TrustedClock()
        let w0: Microseconds = 1_000_000_000_000
        #expect(c.observe(wall: w0, mono: 5 * Self.s) == .steady)
        // 57 years ahead by the boot clock, a day by the wall clock.
        let years = 57 * 365 * 86_400 * Self.s
        #expect(c.observe(wall: w0 + 86_400 * Self.s, mono: years) == .bootClockAhead(by: years - 5 * Self.s - 86_400 * Self.s))
        #expect(c.now == 5 * Self.s)
        #expect(c.wall(at: c.now) == w0)
        // The next steps count from the new reading.
        #expect(c.observe(wall: w0 + 86_401 * Self.s, mono: years + Self.s) == .steady)
        #expect(c.now == 6 * Self.s)
        // A normal restart: the boot clock is back (it looks like a reboot); the calendar is today's.
        #expect(c.observe(wall: w0 + 10 * Self.s, mono: 15 * Self.s) == .rebooted(offFor: 9 * Self.s))
        #expect(c.wall(at: c.now) == w0 + 10 * Self.s)
    }

    @Test("the wall clock set back over a second between two samples is a wall-clock jump, as before, not a fault")
    func wallSetBack() {
        var c = TrustedClock()
        let w0: Microseconds = 1_000_000_000_000
        _ = c.observe(wall: w0, mono: 5 * Self.s)
        #expect(c.observe(wall: w0 - 3_600 * Self.s, mono: 6 * Self.s) == .jumped(by: -3_601 * Self.s))
        #expect(c.now == 6 * Self.s)
    }

    @Test("restarted under a faked clock: nothing expires, no day passes, the fault is recorded, and a normal restart has today's calendar")
    func fakedRestartChangesNothing() {
        let policy = testPolicy(["rewards.redemption_expires_after": "\"1h\""])
        var engine = Engine(policy: policy)
        var effects: [Effect] = []
        for e in Self.fakedRestart.prefix(6) { engine.apply(e, into: &effects) }
        // Under the faked clock a day and 50 min later by its wall clock: 50 min passed, not a day.
        #expect(!effects.contains { if case .ledger(let l) = $0 { l.kind == .expired } else { false } }, "\(effects)")
        #expect(engine.reward.remaining == 60 * 60 * Self.s)
        #expect(engine.clockFaults.map(\.kind) == [.bootClockAhead])
        #expect(engine.clockFaults.first?.bootAhead ?? 0 > 50 * 365 * 86_400 * Self.s)
        #expect(effects.contains { if case .clockFault = $0 { true } else { false } })
        for e in Self.fakedRestart.dropFirst(6) { engine.apply(e, into: &effects) }
        #expect(engine.clock.wall(at: engine.now) == Self.t0.micros + 3_020 * Self.s)
        #expect(engine.today.start == RFC3339.parse("2026-11-23T00:00:00+01:00")!.micros)
        // The redemption's hour has not passed: the faked run's 50 minutes counted, as the kernel's clock gave them.
        #expect(engine.ledger.balance == 80)
        let replayed = ReplayResult.replay(Self.fakedRestart, policy: policy)
        #expect(replayed.ledger.map(\.kind) == [.adjusted, .redeemed])
        #expect(replayed.clockFaults.count == 1)
    }

    @Test("clock_faked: written and read back; the engine records it and counts nothing by it")
    func clockFakedEvent() throws {
        let e = Self.at(20, mono: 1020 * Self.s, .clockFaked(bootAhead: 1_795_385_000 * Self.s, wallAhead: 86_400 * Self.s))
        let line = EventLog.encode(e)
        #expect(line.contains("\"event\":\"clock_faked\",\"boot_ahead\":1795385000,\"wall_ahead\":86400"), "\(line)")
        #expect(try EventLog.decode(line: line) == e)
        var engine = Engine(policy: testPolicy())
        var effects: [Effect] = []
        engine.apply(Self.at(0, mono: 1000 * Self.s, .tick), into: &effects)
        engine.apply(e, into: &effects)
        #expect(engine.now == 1020 * Self.s)
        #expect(engine.clockFaults == [ClockFault(kind: .fakedClock, at: Self.t0.micros + 20 * Self.s, bootAhead: 1_795_385_000 * Self.s,
                                                  wallAhead: 86_400 * Self.s)])
        #expect(engine.clockFaults[0].words.contains("20779 days ahead of the kernel's (its wall clock 24 h 00 min ahead)"), "\(engine.clockFaults[0].words)")
        // A checkpoint keeps the faults.
        let restored = Engine(policy: testPolicy(), checkpoint: try JSONDecoder().decode(Engine.Checkpoint.self, from: engine.checkpointData))
        #expect(restored.clockFaults == engine.clockFaults)
    }
}
