import ControlProtocol
import Foundation
import ScreenTimeCore
import ScreenTimeDaemon
import ScreenTimeLinux

/// A parent's say over today (docs/family.md): bonus time, stopping the games, taking minutes
/// back, and the question before paying for minutes today has no room for.
extension Child {
    /// `bonus` (game time, or with `screen` screen time), `stop_games`, `revoke`, `bedtime`, `free_day`: for parents only.
    mutating func answerParentsSay(_ request: ControlRequest, from caller: ControlServer.Caller, role: Authority.Role) throws -> ControlReply {
        let what = request.command.rawValue.replacing("_", with: " ")
        if let no = refuseUnlessParent(what, request, caller: caller, role: role) { return no }
        let by = parentName(caller, role)
        let reason = request.reason.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
        if let words = reason, words.count > Self.maxWords {
            return .refused(.reasonTooLong, ["length": "\(words.count)", "most": "\(Self.maxWords)"])
        }
        switch request.command {
        case .bonus where request.screen == true:
            guard let minutes = request.minutes, (1...1440).contains(minutes) else {
                return .refused(.bonusMinutes)
            }
            return try saveAndAnswer(.screenBonus(minutes: minutes, by: by, reason: reason), request, asked: "bonus screen \(minutes) \(reason ?? "")",
                                     caller: caller) { [self] _, engine in
                let left = engine.asOf(mono: SystemClock.monoMicros()).screenFigures.left
                var figures = ["minutes": "\(minutes)"]
                if system { figures["child"] = name }
                figures["left"] = left.map { "\($0 / Seconds.micro)" }
                return .done(Told(.screenBonus, figures))
            }
        case .bedtime:
            guard let text = request.until?.trimmingCharacters(in: .whitespaces), let minute = HourWindow.minute(of: text), minute > 0 else {
                return .refused(.bedtimeTime)
            }
            // A time already past today (00:30 asked at 21:00, meaning after midnight) would make it
            // bedtime at once: refused, in the parent's words.
            let wall = SystemClock.wallMicros()
            let local = ((wall / Seconds.micro + Int64(live.engine.utcOffset(at: wall))) % 86_400 + 86_400) % 86_400
            if Int64(minute) * 60 <= local {
                return .refused(.bedtimePast, ["time": HourWindow.text(minute: minute)])
            }
            return try saveAndAnswer(.bedtimeMoved(until: minute, by: by), request, asked: "bedtime \(HourWindow.text(minute: minute))",
                                     caller: caller) { [self] _, engine in
                let screen = engine.asOf(mono: SystemClock.monoMicros()).screenFigures
                var figures = ["time": HourWindow.text(minute: minute)]
                if system { figures["child"] = name }
                if !engine.policy.screenLimited { figures["hours"] = "none" }
                figures["left"] = screen.left.map { "\($0 / Seconds.micro)" }
                return .done(Told(.bedtimeMoved, figures))
            }
        case .freeDay:
            return try saveAndAnswer(.freeDay(by: by, reason: reason), request, asked: "free day \(reason ?? "")", caller: caller) { [self] _, _ in
                .done(Told(.freeDay, system ? ["child": name] : [:]))
            }
        case .bonus:
            guard let minutes = request.minutes, (1...1440).contains(minutes) else {
                return .refused(.bonusMinutes)
            }
            return try saveAndAnswer(.bonusGiven(minutes: minutes, by: by, reason: reason), request, asked: "bonus \(minutes) \(reason ?? "")",
                                     caller: caller) { [self] effects, engine in
                if let r = Self.refusal(in: effects) { return .refused(Why(.noBonus, because: Self.why(r))) }
                let left = engine.asOf(mono: SystemClock.monoMicros())
                var figures = ["minutes": "\(minutes)", "left": "\(left.rewardAvailableToday / Seconds.micro)"]
                if system { figures["child"] = name }
                return .done(Told(.bonusGiven, figures))
            }
        case .stopGames:
            let now = live.engine.asOf(mono: SystemClock.monoMicros())
            let until: Microseconds
            switch Self.stopUntil(request.until, engine: now) {
            case .success(let u): until = u
            case .failure(let why): return .refused(why.why)
            }
            let at = WallTime(micros: until, utcOffsetSeconds: now.utcOffset(at: until))
            return try saveAndAnswer(.gamesStopped(until: at, by: by), request, asked: "stop games \(RFC3339.format(micros: until, utcOffsetSeconds: 0))",
                                     caller: caller) { [self] _, engine in
                let policy = engine.policy
                guard let held = engine.gamesStoppedUntil else {
                    return .done(Told(.gamesAllowed))
                }
                let clock = policy.localClockParts(held, from: now.calendarNow)
                var figures = ["until": clock.clock, "ahead": "\(clock.daysAhead)", "weekday": clock.weekday]
                if system { figures["child"] = name }
                return .done(Told(.gamesStopped, figures))
            }
        case .revoke:
            guard let minutes = request.minutes, (1...100_000).contains(minutes) else {
                return .refused(.revokeMinutes)
            }
            let refund = request.refund == true
            return try saveAndAnswer(.minutesRevoked(minutes: minutes, refund: refund, by: by), request, asked: "revoke \(minutes) \(refund)",
                                     caller: caller) { effects, engine in
                if let r = Self.refusal(in: effects) { return .refused(Why(.nothingTakenBack, because: Self.why(r))) }
                let entry = effects.lazy.compactMap { e -> LedgerEntry? in if case .ledger(let l) = e, l.kind == .revoked { return l } else { return nil } }.first
                var figures = ["taken": "\((entry?.rewardSeconds ?? 0) / Seconds.micro)"]
                if let points = entry?.points, points > 0 { figures["points"] = "\(points)" } else if refund { figures["refund"] = "none" }
                return .done(Told(.tookBack, figures), balance: engine.ledger.balance)
            }
        default:
            return .refused(.notParentsSay, ["command": "\(what)"])
        }
    }

    struct UntilProblem: Error { var why: Why }

    /// Until when games stop: "HH:MM" (today, or tomorrow when that time has passed today), an RFC
    /// 3339 time, "now" (they may be played again), or nothing (the end of today). At most a week.
    static func stopUntil(_ text: String?, engine: Engine) -> Result<Microseconds, UntilProblem> {
        let now = engine.calendarNow
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return .success(engine.today.end) }
        if text == "now" { return .success(now) }
        if let t = RFC3339.parse(text) {
            guard t.micros <= now + 7 * 86_400 * Seconds.micro else { return .failure(UntilProblem(why: Why(.stopGamesWeek, ["until": text]))) }
            return .success(t.micros)
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let h = Int64(parts[0]), let m = Int64(parts[1]), (0...23).contains(h), (0...59).contains(m), parts[1].count == 2 else {
            return .failure(UntilProblem(why: Why(.stopGamesUntil, ["until": String(text.prefix(40))])))
        }
        // That time of day today, in the policy's zone; tomorrow when it has passed.
        for dayStart in [engine.today.start, engine.today.end] {
            let offsetAtStart = Int64(engine.utcOffset(at: dayStart))
            var t = dayStart + (h * 3600 + m * 60) * Seconds.micro
            t -= (Int64(engine.utcOffset(at: t)) - offsetAtStart) * Seconds.micro
            if t > now { return .success(t) }
        }
        return .success(engine.today.end)
    }

    /// Minutes about to be paid for (redeemed, or an approved request) that today's limits and
    /// hours leave no room for: refused, with nothing paid, unless the parent said `anyway`; the
    /// answer offers bonus time instead (code `beyond_today`).
    /// `paid`: the minutes are paid with points; when the balance cannot pay them, that refusal
    /// comes first (there is nothing to ask).
    enum Paying: String { case redeemed, approved }

    func beyondToday(_ minutes: Int64, _ request: ControlRequest, doing: Paying, paid: Bool = true) -> ControlReply? {
        guard request.anyway != true else { return nil }
        let engine = live.engine.asOf(mono: SystemClock.monoMicros())
        if paid, engine.ledger.balance < minutes * engine.policy.points.perRewardMinute { return nil }
        guard let room = engine.roomTodayForMoreMinutes else { return nil }
        let seconds = minutes * 60 * Seconds.micro
        guard seconds > room else { return nil }
        let minute = 60 * Seconds.micro
        var figures = ["room": "\(room / minute)", "over": "\((seconds - room + minute - 1) / minute)", "minutes": "\(minutes)", "doing": doing.rawValue]
        if system { figures["child"] = name }
        if let expires = engine.policy.rewards.redemptionExpiresAfter { figures["expires"] = "\(expires / Seconds.micro)" }
        return .refused(.beyondToday, figures)
    }
}
