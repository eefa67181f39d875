import Foundation
import ScreenTimeCore
import ScreenTimePolicy
import Testing

/// Random event logs from a seeded generator, and what must hold for every one of them. The
/// oracles here recompute what they need from the events themselves, not from the engine.
@Suite("Properties of random timelines")
struct PropertyTests {
    static let seeds: [UInt64] = Array(1...150)

    struct Generated {
        var events: [Event]
        var policy: Policy
        var idleAfter: Double
        var dailyLimit: Double?
        var weeklyLimit: Double?
        var hours: (Double, Double)?       // UTC seconds of the day
        var days: Int
    }

    static let learningExes = [gcompris, tuxmath]
    static let rewardExes = [kart, minetest]
    static let allExes = [gcompris, tuxmath, kart, minetest, xterm, "/usr/games/blocked-game", "/home/kid/gcompris-qt", "/usr/bin/bash"]

    static func generate(seed: UInt64) -> Generated {
        var rng = SplitMix(seed: seed)
        let strictness = ["lenient", "moderate", "strict"][rng.below(3)]
        let idleAfter = [120.0, 180, 300][rng.below(3)]
        let daily: Double? = rng.below(2) == 0 ? Double(30 + rng.below(90)) * 60 : nil
        let weekly: Double? = rng.below(3) == 0 ? Double(60 + rng.below(200)) * 60 : nil
        let hours: (Double, Double)? = rng.below(2) == 0 ? (Double(6 + rng.below(6)) * 3600, Double(14 + rng.below(9)) * 3600) : nil
        var o: [String: String?] = [
            "timezone": "\"UTC\"",
            "validation.strictness": "\"\(strictness)\"",
            "validation.idle_after": "\"\(Int(idleAfter))s\"",
            "rewards.daily_limit": daily.map { "\"\(Int($0))s\"" } ?? nil,
            "rewards.weekly_limit": weekly.map { "\"\(Int($0))s\"" } ?? nil,
            "rewards.allowed_hours": hours.map { h in
                func hm(_ s: Double) -> String { String(format: "%02d:%02d", Int(s) / 3600, Int(s) % 3600 / 60) }
                return "[\"\(hm(h.0))-\(hm(h.1))\"]"
            } ?? nil,
            "rewards.redemption_expires_after": ["\"1d\"", "\"3h\"", "\"7d\""][rng.below(3)],
            "rewards.counts_while": "\"running\"",
            "enforcement.action": rng.below(2) == 0 ? "\"pause\"" : "\"terminate\"",
        ]
        if rng.below(2) == 0 { o["points.daily_learning_cap"] = "\"\(30 + rng.below(120))m\"" }
        let policy = testPolicy(o)

        var tl = Timeline("2026-11-23T06:00:00Z", mono: rng.below(2) == 0 ? 1234.5 : nil)
        let days = 1 + rng.below(3)
        let end = Double(days) * 86_400
        var t = 0.0
        var alive: [Int32: Int64] = [:]
        var nextTicks: Int64 = 1
        tl.focus(0, pid: nil)
        while t < end {
            t += [0.2, 2, 10, 30, 90, 400, 1500, 4 * 3600][rng.below(8)] * (0.5 + rng.nextUnit())
            switch rng.below(20) {
            case 0...2:
                let pid = Int32(100 + rng.below(12))
                nextTicks += 1
                let ticks = alive[pid] ?? nextTicks
                alive[pid] = ticks
                tl.start(t, pid: pid, exe: allExes[rng.below(allExes.count)], ticks: ticks)
            case 3:
                if let pid = alive.keys.sorted().randomElement(using: &rng) { alive[pid] = nil; tl.exit(t, pid: pid) }
            case 4...6:
                tl.focus(t, pid: rng.below(5) == 0 ? nil : alive.keys.sorted().randomElement(using: &rng))
            case 7...12:
                tl.add(t, .input(count: 1))
            case 13:
                // A third of them the child's own claim (system mode): it stops learning all the same.
                tl.lock(t, rng.below(2) == 0, claimed: rng.below(3) == 0)
            case 14:
                let idle = rng.below(2) == 0
                tl.idle(t, idle, since: idle && rng.below(2) == 0 ? t - rng.nextUnit() * 200 : nil)
            case 15:
                tl.redeem(t, minutes: Int64(1 + rng.below(60)))
            case 16:
                let points = Int64(rng.below(200)) - 50
                tl.adjust(t, points: points == 0 ? 1 : points)
            case 17:
                if let pid = alive.keys.sorted().randomElement(using: &rng) { tl.cpu(t, pid: pid, ms: Int64(t * 100)) }
            default:
                tl.tick(t)
            }
        }
        tl.tick(end)
        return Generated(events: tl.events, policy: policy, idleAfter: idleAfter, dailyLimit: daily, weeklyLimit: weekly,
                         hours: hours, days: days)
    }

    /// Seconds, from the events alone, when a learning app (by its exe) had the focus, the screen
    /// was unlocked and the user was not idle by either source.
    static func creditableSeconds(_ g: Generated) -> Double {
        let times = engineTimes(g.events)
        var exe: [Int32: String] = [:]
        var focused: Int32? = nil
        var locked = false, lockClaimed = false
        var good: [(Double, Double)] = []
        var idleSpans: [(Double, Double)] = []
        var inputs: [Double] = []
        var idleSince: Double? = nil
        for (k, e) in g.events.enumerated() {
            let t = times[k]
            if k > 0, let f = focused, let x = exe[f], learningExes.contains(x), !locked, !lockClaimed { good.append((times[k - 1], t)) }
            switch e.kind {
            case .processStarted(let p): exe[p.pid] = p.exe
            case .processExited(let pid): exe[pid] = nil; if focused == pid { focused = nil }
            case .focusChanged(let w): focused = w.pid
            case .lockChanged(let l, let claimed):
                if claimed { lockClaimed = l } else { locked = l; if !l { lockClaimed = false } }
            case .input: inputs.append(t)
            case .idleChanged(let idle, let since, _):
                if idle, idleSince == nil { idleSince = t - Double(e.at.micros - (since?.micros ?? e.at.micros)) / 1e6 }
                if !idle, let s = idleSince { idleSpans.append((s, t)); idleSince = nil }
            default: break
            }
        }
        let last = times.last ?? 0
        if let s = idleSince { idleSpans.append((s, last)) }
        for (a, b) in zip(inputs, inputs.dropFirst()) where b - a > g.idleAfter { idleSpans.append((a, b)) }
        if let a = inputs.last, last - a > g.idleAfter { idleSpans.append((a, last)) }
        return measure(subtract(good, idleSpans))
    }

    /// Engine time of each event: monotonic when present, else the wall clock (never backwards).
    static func engineTimes(_ events: [Event]) -> [Double] {
        events.map { Double($0.mono ?? $0.at.micros) / 1e6 }
    }

    static func subtract(_ a: [(Double, Double)], _ b: [(Double, Double)]) -> [(Double, Double)] {
        var out = a
        for (s, e) in b {
            out = out.flatMap { (x, y) -> [(Double, Double)] in
                if e <= x || s >= y { return [(x, y)] }
                return [(x, min(s, y)), (max(e, x), y)].filter { $0.1 > $0.0 }
            }
        }
        return out
    }

    static func measure(_ spans: [(Double, Double)]) -> Double { spans.reduce(0) { $0 + $1.1 - $1.0 } }

    @Test("the balance is the sum of the ledger, entry by entry", arguments: seeds)
    func balanceIsSum(_ seed: UInt64) {
        let g = Self.generate(seed: seed)
        let r = ReplayResult.replay(g.events, policy: g.policy)
        var sum: Int64 = 0
        for e in r.ledger {
            sum += e.points
            #expect(e.balanceAfter == sum)
        }
        #expect(r.balance == sum)
        // A redemption never takes the balance below zero.
        for (e, before) in zip(r.ledger, [0] + r.ledger.map(\.balanceAfter)) where e.kind == .redeemed {
            #expect(before >= -e.points)
        }
    }

    @Test("credited seconds never exceed the focused, unlocked, non-idle seconds", arguments: seeds)
    func creditBounded(_ seed: UInt64) {
        let g = Self.generate(seed: seed)
        let r = ReplayResult.replay(g.events, policy: g.policy)
        let credited = Double(r.sessions.reduce(0) { $0 + $1.creditedSeconds }) / 1e6
        #expect(credited <= Self.creditableSeconds(g) + 1e-6, "seed \(seed)")
        for s in r.sessions {
            #expect(s.creditedSeconds <= s.seconds)
            #expect(s.creditedSeconds >= 0)
            #expect(s.refused.allSatisfy { $0.seconds >= 0 })
        }
    }

    @Test("reward time used never exceeds what was granted or allowed", arguments: seeds)
    func rewardBounded(_ seed: UInt64) {
        let g = Self.generate(seed: seed)
        let r = ReplayResult.replay(g.events, policy: g.policy)
        let used = Double(r.reward.used) / 1e6
        #expect(r.reward.used <= r.reward.granted)
        #expect(r.reward.used + r.reward.remaining + r.reward.expired == r.reward.granted)
        let calendarDays = Double(g.days + 1)
        if let d = g.dailyLimit { #expect(used <= d * calendarDays + 1e-6) }
        if let w = g.weeklyLimit { #expect(used <= w * 2 + 1e-6) }
        if let h = g.hours { #expect(used <= (h.1 - h.0) * calendarDays + 1e-6) }
        let granted = r.ledger.compactMap { $0.kind == .redeemed ? $0.rewardSeconds : nil }.reduce(0, +)
        #expect(granted == r.reward.granted)
    }

    @Test("the log written and read back replays to the same result", arguments: Array(seeds.prefix(40)))
    func logRoundTrip(_ seed: UInt64) throws {
        let g = Self.generate(seed: seed)
        let reread = try g.events.map { try EventLog.decode(line: EventLog.encode($0)) }
        #expect(reread == g.events)
        let a = ReplayResult.replay(g.events, policy: g.policy)
        let b = ReplayResult.replay(reread, policy: g.policy)
        #expect(a.sessions == b.sessions)
        #expect(a.ledger == b.ledger)
        #expect(a.actions == b.actions)
    }
}

extension Array {
    func randomElement(using rng: inout SplitMix) -> Element? {
        isEmpty ? nil : self[rng.below(count)]
    }
}

@Suite("Checkpoints")
struct CheckpointTests {
    @Test("an engine restored from a checkpoint (through JSON) goes on exactly like the one it came from",
          arguments: Array(PropertyTests.seeds.prefix(60)))
    func restoreMatches(_ seed: UInt64) throws {
        let g = PropertyTests.generate(seed: seed)
        var split = SplitMix(seed: seed ^ 0xC0FFEE)
        let k = split.below(g.events.count)
        var whole = Engine(policy: g.policy)
        var first = Engine(policy: g.policy)
        var wholeEffects: [Effect] = []
        var ignored: [Effect] = []
        for e in g.events[..<k] {
            whole.apply(e, into: &ignored)
            first.apply(e, into: &ignored)
        }
        let data = try JSONEncoder().encode(first.checkpoint)
        var restored = Engine(policy: g.policy, checkpoint: try JSONDecoder().decode(Engine.Checkpoint.self, from: data))
        var restoredEffects: [Effect] = []
        for e in g.events[k...] {
            whole.apply(e, into: &wholeEffects)
            restored.apply(e, into: &restoredEffects)
        }
        whole.finish(into: &wholeEffects)
        restored.finish(into: &restoredEffects)
        #expect(restoredEffects == wholeEffects, "seed \(seed), split at \(k)")
        #expect(restored.ledger.balance == whole.ledger.balance)
        #expect(restored.reward == whole.reward)
    }
}
