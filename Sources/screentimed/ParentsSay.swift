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
                return ControlReply(ok: true, note: "\(minutes) min of screen time for \(system ? name : "the child") today, beyond the limits; "
                                    + (left.map { "screen time left today: \(DurationText.words($0))." } ?? "no screen limit holds now."))
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
                let limits = engine.policy.screenLimited ? "" : " (the policy sets no screen hours: bedtime holds only with [screen] allowed_hours)"
                return ControlReply(ok: true, note: "Bedtime tonight\(system ? " for \(name)" : "") is \(HourWindow.text(minute: minute))\(limits)"
                                    + (screen.left.map { "; screen time left: \(DurationText.words($0))." } ?? "."))
            }
        case .freeDay:
            return try saveAndAnswer(.freeDay(by: by, reason: reason), request, asked: "free day \(reason ?? "")", caller: caller) { [self] _, _ in
                ControlReply(ok: true, note: "A free day\(system ? " for \(name)" : ""): no screen or game limit until midnight (redeemed minutes still pay for games).")
            }
        case .bonus:
            guard let minutes = request.minutes, (1...1440).contains(minutes) else {
                return .refused(.bonusMinutes)
            }
            return try saveAndAnswer(.bonusGiven(minutes: minutes, by: by, reason: reason), request, asked: "bonus \(minutes) \(reason ?? "")",
                                     caller: caller) { [self] effects, engine in
                if let r = Self.refusal(in: effects) { return .refused(Why(.noBonus, because: Self.why(r))) }
                let left = engine.asOf(mono: SystemClock.monoMicros())
                return ControlReply(ok: true, note: "\(minutes) min of bonus time for \(system ? name : "the child") today; "
                                    + "game time left today: \(DurationText.words(left.rewardAvailableToday)).")
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
                    return ControlReply(ok: true, note: "Games may be played again.")
                }
                return ControlReply(ok: true, note: "Games are stopped\(system ? " for \(name)" : "") until \(policy.localClock(held, from: now.calendarNow)).")
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
                let taken = DurationText.words(entry?.rewardSeconds ?? 0)
                let refunded = (entry?.points ?? 0) > 0 ? ", \(entry!.points) points given back" : refund ? ", no points to give back (they were given, not bought)" : ""
                return ControlReply(ok: true, balance: engine.ledger.balance, note: "Took back \(taken)\(refunded).")
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
