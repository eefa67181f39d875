import Foundation
import ScreenTimeCore
import ScreenTimePolicy

/// A policy and a timeline of valid events, chosen by the fuzzer's bytes: each choice takes the
/// next byte (0 once they run out), so a mutation of one byte changes one choice, and libFuzzer's
/// coverage feedback steers the choices toward what the engine has not done yet.
public struct EngineInput {
    public var policy: Policy
    public var events: [Event]

    struct Choices {
        var bytes: [UInt8]
        var next = 0
        var exhausted: Bool { next >= bytes.count }
        mutating func below(_ n: Int) -> Int {
            defer { next += 1 }
            return next < bytes.count ? Int(bytes[next]) % n : 0
        }
        mutating func pick<T>(_ options: [T]) -> T { options[below(options.count)] }
    }

    static let learning = ["/usr/bin/gcompris-qt", "/usr/games/tuxmath"]
    static let reward = ["/usr/games/supertuxkart", "/usr/games/minetest"]
    static let programs = learning + reward + ["/usr/bin/xterm", "/usr/games/blocked-game", "/home/kid/gcompris-qt", "/usr/bin/bash", "(hidden)"]

    public init(_ bytes: [UInt8]) {
        var c = Choices(bytes: bytes)
        // The family keys come from a hash of all the bytes, not from the sequence of choices, so
        // that inputs from before they existed still choose the same policy and timeline.
        let family = bytes.reduce(UInt32(7)) { $0 &* 31 &+ UInt32($1) }
        policy = Self.policy(&c, family: family)
        var events: [Event] = []
        let origin = WallTime(micros: 1_795_420_800_000_000, utcOffsetSeconds: 0)    // 2026-11-23T06:00:00Z
        var wall = origin.micros
        var mono: Int64? = c.below(2) == 0 ? 1_234_500_000 : nil
        var alive: [Int32: Int64] = [:]
        var ticks: Int64 = 1
        var requests = 0
        func add(_ kind: Event.Kind) {
            events.append(Event(at: WallTime(micros: wall, utcOffsetSeconds: 0), mono: mono, kind))
        }
        add(.focusChanged(FocusedWindow(pid: nil)))
        while !c.exhausted, events.count < 400 {
            // Time goes on by a step from a fraction of a second to four hours; a clock trick moves
            // only the wall clock (either way) while the monotonic clock goes on.
            let step = Int64(c.pick([200_000, 2_000_000, 10_000_000, 30_000_000, 90_000_000, 400_000_000, 1_500_000_000, 14_400_000_000]))
            wall += step
            mono = mono.map { $0 + step }
            if c.below(32) == 0 { wall += Int64(c.pick([-7200, -60, 60, 3600, 86_400])) * 1_000_000 }
            let pid = Int32(100 + c.below(8))
            switch c.below(24) {
            case 0...2:
                ticks += 1
                let started = alive[pid] ?? ticks
                alive[pid] = started
                let exe = c.pick(Self.programs)
                add(.processStarted(ProcessFacts(pid: pid, exe: exe, startTicks: started, uid: 1000,
                                                 comm: String(exe.split(separator: "/").last?.prefix(15) ?? "x"), cmdline: [exe],
                                                 flatpak: c.below(8) == 0 ? "org.kde.gcompris" : nil,
                                                 exeWritable: c.below(4) == 0 ? true : nil,
                                                 contentOf: c.below(8) == 0 ? c.pick(Self.reward) : nil)))
            case 3: alive[pid] = nil; add(.processExited(pid: pid))
            case 4...6:
                // `hook_lost` comes only with nothing focused (docs/spec/replay.md).
                let focused: Int32? = c.below(5) == 0 ? nil : pid
                add(.focusChanged(FocusedWindow(pid: focused, appID: c.below(4) == 0 ? "minetest" : nil,
                                                hookLost: focused == nil && c.below(4) == 0 ? true : nil)))
            case 7...12: add(.input(count: Int64(1 + c.below(20))))
            case 13: add(.lockChanged(locked: c.below(2) == 0))
            case 14:
                let idle = c.below(2) == 0
                add(.idleChanged(idle: idle, since: idle && c.below(2) == 0 ? WallTime(micros: wall - Int64(c.below(200)) * 1_000_000, utcOffsetSeconds: 0) : nil))
            case 15: add(.redeem(minutes: Int64(1 + c.below(60)), by: "mom"))
            case 16:
                let points = Int64(c.below(200)) - 50
                add(.adjust(points: points == 0 ? 1 : points, reason: "fuzz"))    // the log refuses an adjustment of 0
            case 17: add(.processCPU(pid: pid, cpuMillis: max(0, wall - origin.micros) / 10_000 * Int64(c.below(3))))
            case 18: add(.gameContinued(pid: pid, since: c.below(2) == 0 ? WallTime(micros: wall - step / 2, utcOffsetSeconds: 0) : nil))
            case 19: add(.daemonStarted(boot: c.below(3) == 0 ? nil : "boot-\(c.below(2))"))
            case 20:
                requests += 1
                add(.timeRequested(id: "r\(requests)", minutes: Int64(1 + c.below(60)), reason: c.below(2) == 0 ? "please" : nil))
            case 21:
                add(.requestDecided(RequestDecision(id: "r\(max(1, requests - c.below(3)))", approved: c.below(3) != 0,
                                                    pay: c.pick([.points, .gift, .points, .bonus]),
                                                    minutes: c.below(3) == 0 ? Int64(1 + c.below(60)) : nil, by: "mom")))
            case 22:
                let chore = c.pick(["Dishes", "Trash", "Piano", "Tidy room", "Dishez"])
                if c.below(2) == 0 {
                    add(.choreDone(chore: chore))
                } else {
                    add(.choreDecided(chore: chore, approved: c.below(3) != 0, by: "mom", reason: nil))
                }
                if c.below(4) == 0 { add(.redeem(minutes: Int64(1 + c.below(30)), by: RequestDecision.child)) }
            case 23:
                // A parent's say over today: bonus time, games stopped until a time (or let go), minutes taken back.
                switch c.below(4) {
                case 0: add(.bonusGiven(minutes: Int64(1 + c.below(90)), by: "mom", reason: c.below(2) == 0 ? "birthday" : nil))
                case 1: add(.gamesStopped(until: WallTime(micros: wall + Int64(c.pick([-60, 0, 600, 3600, 86_400])) * 1_000_000, utcOffsetSeconds: 0), by: "dad"))
                case 2: add(.minutesRevoked(minutes: Int64(1 + c.below(60)), refund: c.below(2) == 0, by: "mom"))
                default: add(.tick)
                }
            default: add(.tick)
            }
        }
        add(.tick)
        self.events = events
    }

    /// A policy in the spec's words, its numbers chosen by the bytes (always a valid policy).
    static func policy(_ c: inout Choices, family: UInt32) -> Policy {
        var text = """
            version = 1
            timezone = "\(c.pick(["UTC", "Europe/Berlin", "America/New_York"]))"
            [points]
            learning_per_hour = \(c.pick([30, 60, 120]))
            per_reward_minute = \(c.pick([1, 2, 5]))

            """
        if c.below(2) == 0 { text += "daily_learning_cap = \"\(30 + c.below(120))m\"\n" }
        if family & 0x80000000 != 0 {
            text += "daily_goal = \"\(1 + (family >> 3) % 60)m\"\nstreak_bonus_days = \(1 + (family >> 7) % 4)\nstreak_bonus_points = 25\n"
        }
        text += "[rewards]\n"
        if c.below(2) == 0 { text += "daily_limit = \"\(30 + c.below(90))m\"\n" }
        if c.below(3) == 0 { text += "weekly_limit = \"\(60 + c.below(200))m\"\n" }
        if c.below(2) == 0 { text += "allowed_hours = [\"\(String(format: "%02d", 6 + c.below(6))):00-\(14 + c.below(9)):30\"]\n" }
        text += "redemption_expires_after = \"\(c.pick(["3h", "1d", "7d"]))\"\n"
        text += "counts_while = \"\(c.pick(["running", "focused"]))\"\n"
        text += "unknown_apps = \"\(c.pick(["neutral", "reward"]))\"\n"
        if family & 3 != 0 { text += "daily_allowance = \"\([10, 30, 90][Int(family & 3) - 1])m\"\n" }
        if family & 4 != 0 { text += "child_may_redeem = true\n" }
        if family & 8 != 0 { text += "child_redeem_daily_max = \"\(15 + (family >> 4) % 60)m\"\n" }
        text += "[requests]\nexpire_after = \"\(1 + (family >> 10) % 90)m\"\nmax_per_day = \((family >> 16) % 7)\n"
        text += """
            [validation]
            strictness = "\(c.pick(["lenient", "moderate", "strict"]))"
            idle_after = "\(c.pick([120, 180, 300]))s"
            [enforcement]
            action = "\(c.pick(["pause", "terminate"]))"
            warn_before = ["5m", "1m"]
            grace = "15s"

            [[apps]]
            name = "GCompris"
            category = "learning"
            exe = ["/usr/bin/gcompris-qt"]
            flatpak = "org.kde.gcompris"

            [[apps]]
            name = "TuxMath"
            category = "learning"
            points_per_hour = 30
            exe = ["/usr/games/tuxmath"]

            [[apps]]
            name = "SuperTuxKart"
            category = "reward"
            exe = ["/usr/games/supertuxkart"]

            [[apps]]
            name = "Minetest"
            category = "reward"
            exe = ["/usr/games/minetest"]
            \(family & 0x40000000 != 0 ? "group = \"Blocks\"\ndaily_limit = \"\(5 + (family >> 5) % 40)m\"" : "")

            [[apps]]
            name = "Blocked Game"
            category = "blocked"
            exe = ["/usr/games/blocked-game"]

            [[apps]]
            name = "Terminal"
            category = "neutral"
            exe = ["/usr/bin/xterm"]

            [[chores]]
            name = "Dishes"
            points = 20

            [[chores]]
            name = "Trash"
            points = 10
            every = "week"

            [[chores]]
            name = "Piano"
            points = 15
            every = ["mon", "thu"]

            [[chores]]
            name = "Tidy room"
            points = 50
            every = "once"

            """
        if family & 0x40000000 != 0 {
            text += "[[groups]]\nname = \"Blocks\"\ndaily_limit = \"\(10 + (family >> 9) % 50)m\"\nweekly_limit = \"\(60 + (family >> 14) % 200)m\"\n\n"
        }
        if family & 0x20000 != 0 {
            text += """
                [[schedules]]
                name = "weekend"
                days = ["sat", "sun", "\(["mon", "tue", "wed", "thu", "fri"][Int((family >> 18) % 5)])"]
                daily_limit = "\(20 + (family >> 21) % 150)m"
                allowed_hours = ["0\((family >> 24) % 9):00-2\((family >> 27) % 5):00"]
                daily_allowance = "\((family >> 12) % 40)m"
                daily_learning_cap = "\(10 + (family >> 8) % 100)m"

                """
        }
        do { return try PolicyLoader.parse(text, systemZone: .utc) } catch {
            preconditionFailure("the fuzz policy is not valid: \(error)\n\(text)")
        }
    }
}

/// What must hold for every timeline (the property tests check the same of seeded ones).
public enum EngineInvariants {
    public static func check(events: [Event], policy: Policy) -> String? {
        let r = ReplayResult.replay(events, policy: policy)
        // The balance is the sum of the ledger, entry by entry; a redemption never takes it below zero.
        var sum: Int64 = 0
        for e in r.ledger {
            if e.kind == .redeemed, sum < -e.points { return "a redemption of \(-e.points) points with \(sum) in the ledger" }
            sum += e.points
            if e.balanceAfter != sum { return "a ledger entry says \(e.balanceAfter) after it, the entries sum to \(sum)" }
        }
        if r.balance != sum { return "the balance is \(r.balance), the ledger sums to \(sum)" }
        // Credit is never more than the session's time, nor negative.
        for s in r.sessions {
            if s.creditedSeconds > s.seconds || s.creditedSeconds < 0 { return "\(s.app): \(s.creditedSeconds) µs credited of \(s.seconds)" }
            if s.refused.contains(where: { $0.seconds < 0 }) { return "\(s.app): a refusal of negative time" }
            if s.category != .learning, s.points != 0 { return "\(s.app) (\(s.category)) earned \(s.points) points" }
        }
        // Reward time used never exceeds what was granted and allowed, and every granted second is
        // accounted for; the allowance is never used beyond what was given.
        if r.reward.allowanceUsed > r.reward.allowance { return "allowance used \(r.reward.allowanceUsed) µs of \(r.reward.allowance)" }
        let usedOfGrants = r.reward.used - r.reward.allowanceUsed
        if usedOfGrants < 0 || usedOfGrants > r.reward.granted { return "reward used \(r.reward.used) µs of \(r.reward.granted) granted and \(r.reward.allowanceUsed) allowance" }
        if usedOfGrants + r.reward.remaining + r.reward.expired + r.reward.revoked != r.reward.granted {
            return "reward used (of grants) + remaining + expired + revoked is not what was granted: \(r.reward)"
        }
        let granted = r.ledger.compactMap { [.redeemed, .gifted, .bonusTime].contains($0.kind) ? $0.rewardSeconds : nil }.reduce(0, +)
        if granted != r.reward.granted { return "the ledger's redemptions, gifts and bonus time grant \(granted) µs, the budget says \(r.reward.granted)" }
        let revoked = r.ledger.compactMap { $0.kind == .revoked ? $0.rewardSeconds : nil }.reduce(0, +)
        if revoked != r.reward.revoked { return "the ledger takes back \(revoked) µs, the budget says \(r.reward.revoked)" }
        // A refund gives back at most what the minutes cost (the dearest a minute can cost).
        for e in r.ledger where e.kind == .revoked {
            if e.points < 0 || e.points > (e.rewardSeconds ?? 0) * policy.points.perRewardMinute / 60_000_000 { return "a revoke refunded \(e.points) points" }
        }
        // Gifts and bonus time cost nothing; chores pay what the policy says; an approved request was paid once.
        if r.ledger.contains(where: { ($0.kind == .gifted || $0.kind == .bonusTime) && $0.points != 0 }) { return "a gift cost points" }
        for e in r.ledger where e.kind == .chore {
            if e.points != policy.chores.first(where: { $0.name == e.note })?.points { return "chore \(e.note ?? "?") paid \(e.points)" }
        }
        for q in r.requests where q.state == .approved {
            let seconds = (q.minutesGranted ?? 0) * 60_000_000
            let kind: LedgerEntry.Kind = switch q.pay { case .gift: .gifted; case .bonus: .bonusTime; default: .redeemed }
            guard r.ledger.contains(where: { $0.at == q.decidedAt && $0.kind == kind && $0.rewardSeconds == seconds }) else {
                return "request \(q.id) was approved, but no ledger entry paid it"
            }
        }
        if r.choreClaims.filter({ $0.state == .approved }).count != r.ledger.filter({ $0.kind == .chore }).count {
            return "approved chores and chore entries differ"
        }
        if r.requests.contains(where: { $0.state == .approved && ($0.minutesGranted ?? 0) > $0.minutes }) { return "a request granted more than asked" }
        // The log written and read back replays the same.
        var reread: [Event] = []
        for e in events {
            guard let again = try? EventLog.decode(line: EventLog.encode(e)), again == e else { return "an event does not read back: \(EventLog.encode(e))" }
            reread.append(again)
        }
        // An engine restored from a checkpoint halfway (through JSON) goes on exactly like the whole.
        let k = events.count / 2
        var whole = Engine(policy: policy)
        var first = Engine(policy: policy)
        var ignored: [Effect] = []
        for e in events[..<k] { whole.apply(e, into: &ignored); first.apply(e, into: &ignored) }
        guard let data = try? JSONEncoder().encode(first.checkpoint),
              let checkpoint = try? JSONDecoder().decode(Engine.Checkpoint.self, from: data) else { return "the checkpoint does not read back" }
        var restored = Engine(policy: policy, checkpoint: checkpoint)
        var a: [Effect] = [], b: [Effect] = []
        for e in events[k...] { whole.apply(e, into: &a); restored.apply(e, into: &b) }
        whole.finish(into: &a)
        restored.finish(into: &b)
        if a != b {
            let n = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
            return "an engine restored from a checkpoint after \(k) events did otherwise than the whole: effect \(n): "
                + "whole \(n < a.count ? String(describing: a[n]) : "none"), restored \(n < b.count ? String(describing: b[n]) : "none")"
        }
        if restored.ledger.balance != whole.ledger.balance || restored.reward != whole.reward { return "a restored engine has another balance or budget" }
        return nil
    }
}
