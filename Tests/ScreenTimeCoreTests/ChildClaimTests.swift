import Foundation
import ScreenTimeCore
import ScreenTimePolicy
import Testing

/// What a child's own process may say in system mode (issue #36): idle, and a lock it claims
/// (`lock_changed claimed`). Each may only cost the child: refuse learning credit, never slow
/// game time or move a stop later.
@Suite("A child's own claims only cost the child")
struct ChildClaimTests {
    @Test("a lock the child claims refuses learning as a lock does")
    func claimedLockRefusesLearning() {
        var tl = Timeline()
        tl.start(0, pid: 1, exe: gcompris)
        tl.focus(0, pid: 1)
        tl.lock(10 * 60, true, claimed: true)
        tl.lock(20 * 60, false, claimed: true)
        tl.exit(40 * 60, pid: 1)
        let s = tl.replay(testPolicy()).learningSessions[0]
        #expect(s.creditedSeconds == sec(30 * 60))
        #expect(s.refused.map(\.reason) == [.locked])
        #expect(s.refused[0].seconds == sec(10 * 60))
    }

    /// Ten minutes redeemed, the game started at 0 and left running; a lock from 1 min on.
    static func gameUnderLock(claimed: Bool) -> ReplayResult {
        var tl = Timeline()
        tl.adjust(0, points: 100)
        tl.redeem(0, minutes: 10)
        tl.start(0, pid: 7, exe: kart)
        tl.lock(60, true, claimed: claimed)
        tl.tick(30 * 60)
        return tl.replay(testPolicy(["rewards.counts_while": "\"running\"", "enforcement.warn_before": "[]"]))
    }

    @Test("a lock the child claims does not stop game time: the game is stopped when its ten minutes are used; logind's lock stops the count")
    func claimedLockLeavesGameTime() {
        let claimed = Self.gameUnderLock(claimed: true)
        #expect(claimed.reward.used == sec(600))
        let stops = claimed.actions.compactMap { if case .stop(let o) = $0 { return o } else { return nil } }
        // Stopped at ten minutes (and told again while it runs on: the timeline never ends it).
        #expect(!stops.isEmpty && stops.allSatisfy { $0.pid == 7 && $0.reason == .noRewardTime })
        #expect(stops.first.map { $0.at - wall(0) } == sec(600))
        // The same lock from logind: one minute used, and nothing is stopped while it lasts.
        let trusted = Self.gameUnderLock(claimed: false)
        #expect(trusted.reward.used == sec(60))
        #expect(!trusted.actions.contains { if case .stop = $0 { true } else { false } })
    }

    @Test("an unlock from logind ends the child's own lock claim as well; her own unlock does not end logind's lock")
    func unlockOrder() {
        var tl = Timeline()
        tl.start(0, pid: 1, exe: gcompris)
        tl.focus(0, pid: 1)
        tl.lock(5 * 60, true, claimed: true)
        tl.lock(6 * 60, true)                   // logind: locked
        tl.lock(7 * 60, false)                  // logind: unlocked; her claim ends with it
        tl.lock(10 * 60, true)                  // logind: locked again
        tl.lock(11 * 60, false, claimed: true)  // her unlock: logind's lock stands
        tl.lock(15 * 60, false)
        tl.exit(20 * 60, pid: 1)
        let s = tl.replay(testPolicy()).learningSessions[0]
        #expect(s.refused.map(\.reason) == [.locked])
        #expect(s.refused[0].seconds == sec(2 * 60 + 5 * 60))
    }

    /// A random timeline (PropertyTests' generator) with the points to pay for every redemption, so
    /// that what learning earns does not decide how much game time there is.
    static func base(seed: UInt64) -> PropertyTests.Generated {
        var g = PropertyTests.generate(seed: seed)
        g.events.removeAll { if case .lockChanged(_, claimed: true) = $0.kind { true } else { false } }
        let first = g.events[0]
        g.events.insert(Event(at: first.at, mono: first.mono, .adjust(points: 1_000_000, reason: "enough for every redemption")), at: 0)
        return g
    }

    /// The same timeline with claims of the child's inserted at random places: a lock or its
    /// taking back, going idle (taking idle back is not hers to say: refused in system mode).
    static func withClaims(_ events: [Event], seed: UInt64) -> [Event] {
        var rng = SplitMix(seed: seed &* 7919)
        var out: [Event] = []
        let surely = rng.below(events.count)      // one claim at least
        for (k, e) in events.enumerated() {
            out.append(e)
            guard rng.below(12) == 0 || k == surely else { continue }
            let kind: Event.Kind = rng.below(3) == 0 ? .idleChanged(idle: true, since: nil) : .lockChanged(locked: rng.below(2) == 0, claimed: true)
            out.append(Event(at: e.at, mono: e.mono, kind))
        }
        return out
    }

    @Test("claims of the child's, anywhere in a random week: game time, its stops and warnings are the same; learning earns no more", arguments: Array(PropertyTests.seeds.prefix(80)))
    func claimsOnlyCost(_ seed: UInt64) {
        let g = Self.base(seed: seed)
        let without = ReplayResult.replay(g.events, policy: g.policy)
        let claims = Self.withClaims(g.events, seed: seed)
        #expect(claims.count > g.events.count, "seed \(seed): no claim was inserted")
        let with = ReplayResult.replay(claims, policy: g.policy)
        #expect(with.reward.used == without.reward.used, "seed \(seed)")
        #expect(with.reward.granted == without.reward.granted, "seed \(seed)")
        func enforcement(_ r: ReplayResult) -> [Effect] {
            r.actions.filter { switch $0 { case .stop, .warn, .resume: true; default: false } }
        }
        #expect(enforcement(with) == enforcement(without), "seed \(seed)")
        let credited = { (r: ReplayResult) in r.sessions.reduce(0) { $0 + $1.creditedSeconds } }
        #expect(credited(with) <= credited(without), "seed \(seed)")
        #expect(with.balance <= without.balance, "seed \(seed)")
    }
}
