import Foundation
import ScreenTimeCore
@testable import ScreenTimeStore
import Testing

/// Issue #15: what a daemon restarted under a faked clock wrote must not poison retention or the
/// calendar, and `check` must say it happened.
@Suite("Clocks that cannot be true, in the stored state")
struct ClockFaultStoreTests {
    static let s = Seconds.micro

    /// Two days of life, then a restart under libfaketime (FAKETIME=+1d: the wall clock a day ahead,
    /// the boot clock read as the faked wall clock, 57 years ahead) and a minute under it.
    static func fakedState() throws -> (store: Store, live: LiveState) {
        let store = try Store(path: try StoreTests.freshPath())
        var live = try LiveState(store: store, policyText: RetentionTests.policy, policyFile: "policy.toml")
        let events = RetentionTests.days(2, from: RetentionTests.origin)
        for e in events { live.ingest(e) }
        let wall = events.last!.at.micros + 86_400 * s
        live.ingest(Event(at: WallTime(micros: wall + 10 * s, utcOffsetSeconds: 3600), mono: wall + 10 * s, .daemonStarted(boot: nil)))
        live.ingest(Event(at: WallTime(micros: wall + 70 * s, utcOffsetSeconds: 3600), mono: wall + 70 * s, .tick))
        try live.flush(checkpoint: true)
        return (store, live)
    }

    @Test("retention removes nothing that a boot clock faked ahead made look old")
    func retentionKeepsEverything() throws {
        let (store, live) = try Self.fakedState()
        let events = try store.eventCount()
        // What the daemon passes: the engine's calendar, still on the third day.
        let now = live.engine.clock.wall(at: live.engine.now)
        #expect(now < RetentionTests.origin + 3 * 86_400 * Self.s, "the calendar moved to \(RFC3339.format(micros: now, utcOffsetSeconds: 0))")
        #expect(try Retention().run(on: store, now: now) == 0)
        #expect(try store.eventCount() == events)
        #expect(try store.ledger().allSatisfy { $0.entry.kind != .expired || $0.entry.at < now })
    }

    @Test("check says the log holds a clock that cannot be true")
    func checkReportsTheFault() throws {
        let (store, _) = try Self.fakedState()
        do {
            _ = try StateAudit.run(store, now: RetentionTests.origin + 3 * 86_400 * Self.s)
            Issue.record("check said ok")
        } catch let p as StateAudit.Problem {
            #expect(p.description.contains("a clock that cannot be true: at 2026-01-06T"), "\(p)")
            #expect(p.description.contains("the boot clock advanced 2") && p.description.contains(" days more than the wall clock"), "\(p)")
        }
    }

    @Test("check says when stored times lie more than a year after now")
    func checkReportsFutureTimes() throws {
        let store = try RetentionTests.state(days: 1)
        #expect(try StateAudit.run(store, now: RetentionTests.origin) != nil)
        do {
            _ = try StateAudit.run(store, now: RetentionTests.origin - 400 * 86_400 * Self.s)
            Issue.record("check said ok")
        } catch let p as StateAudit.Problem {
            #expect(p.description.contains("is dated more than a year after now"), "\(p)")
        }
    }
}
