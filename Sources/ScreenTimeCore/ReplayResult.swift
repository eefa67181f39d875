/// The result of a replay (`docs/spec/replay.md`): sessions, ledger, reward figures and actions,
/// gathered from the engine's effects.
public struct ReplayResult: Sendable {
    public var sessions: [SessionRecord] = []
    public var ledger: [LedgerEntry] = []
    public var actions: [Effect] = []
    public var refusals: [Refusal] = []
    public var clockJumps: [(at: Microseconds, by: Microseconds)] = []
    /// Clock readings that could not be true (nothing was counted by them).
    public var clockFaults: [ClockFault] = []
    public var balance: Int64 = 0
    /// Days in a row with the learning goal met, at the end of the timeline.
    public var streakDays = 0
    /// The days that ended, with what the engine alone knew of them; printed as `days`, with
    /// today's (the last event's day) after them.
    public var days: [DayTotals] = []
    /// The calendar day of the last event, and its game time so far.
    public var today: DayTotals?
    /// Every request for time and every chore claim, in the state they ended in, oldest first.
    public var requests: [TimeRequest] = []
    public var choreClaims: [ChoreClaim] = []
    public var reward = Engine.RewardFigures(granted: 0, used: 0, remaining: 0, expired: 0, usedToday: 0, availableNow: 0)
    /// The policy has a `[screen]` table: the result has `screen.days` (docs/spec/screen.md).
    public var screen = false

    public init() {}

    public mutating func collect(_ effects: [Effect]) {
        for e in effects {
            switch e {
            case .sessionClosed(let s): sessions.append(s)
            case .ledger(let l): ledger.append(l)
            case .warn, .stop, .resume, .gamesStopped, .lockSession, .endSession, .siteStop: actions.append(e)
            case .refused(let r): refusals.append(r)
            case .clockJumped(let at, let by): clockJumps.append((at, by))
            case .clockFault(let f): clockFaults.append(f)
            case .dayEnded(let d): days.append(d)
            case .request(let r):
                if let k = requests.lastIndex(where: { $0.id == r.id }) { requests[k] = r } else { requests.append(r) }
            case .chore(let c):
                if let k = choreClaims.lastIndex(where: { $0.chore == c.chore && $0.at == c.at }) { choreClaims[k] = c } else { choreClaims.append(c) }
            }
        }
    }

    /// A line of an event log that could not be read: its 1-based number and why.
    public struct LineFailure: Error, Sendable {
        public var line: Int
        public var reason: String
    }

    /// `screentimed replay`: the event log's lines `bytes` through a fresh engine, line by line,
    /// each line's effects gathered as it is applied (so what is kept is the result, not every
    /// effect). Fails at the first line that cannot be read. `make bench` measures this.
    public static func replay(lines bytes: UnsafeBufferPointer<UInt8>, policy: Policy) -> Result<(ReplayResult, Engine), LineFailure> {
        var engine = Engine(policy: policy)
        var result = ReplayResult()
        var effects: [Effect] = []
        var failure: LineFailure? = nil
        EventLogLines.forEach(in: bytes) { lineNumber, line in
            do throws(EventLog.LineError) {
                engine.apply(try EventLog.decode(bytes: line), into: &effects)
            } catch {
                failure = LineFailure(line: lineNumber, reason: error.reason)
                return false
            }
            if !effects.isEmpty {
                result.collect(effects)
                effects.removeAll(keepingCapacity: true)
            }
            return true
        }
        if let failure { return .failure(failure) }
        engine.finish(into: &effects)
        result.collect(effects)
        result.finish(engine)
        return .success((result, engine))
    }

    /// Runs a whole timeline through a fresh engine.
    public static func replay(_ events: [Event], policy: Policy) -> ReplayResult {
        var engine = Engine(policy: policy)
        var effects: [Effect] = []
        for e in events { engine.apply(e, into: &effects) }
        engine.finish(into: &effects)
        var result = ReplayResult()
        result.collect(effects)
        result.finish(engine)
        return result
    }

    public mutating func finish(_ engine: Engine) {
        balance = engine.ledger.balance
        streakDays = engine.streakDays
        reward = engine.reward
        today = DayTotals(start: engine.today.start, rewardUsed: engine.reward.usedToday, screen: engine.screenDay)
        screen = engine.policy.screen.configured
        sessions.sort { ($0.start, $0.end) < ($1.start, $1.end) }
    }

    /// The result as one JSON object; times in the policy's zone.
    public func json(offset: (Microseconds) -> Int32) -> String {
        var w = JSONWriter()
        func time(_ key: String, _ v: Microseconds) {
            w.key(key)
            w.string(RFC3339.format(micros: v, utcOffsetSeconds: offset(v)))
        }
        w.beginObject()
        w.key("balance"); w.int(balance)
        w.key("streak_days"); w.int(Int64(streakDays))
        // Added by screentime: each calendar day seen, its game time (the day's limit is the policy's).
        w.key("days"); w.beginArray()
        for d in days + (today.map { [$0] } ?? []) {
            w.beginObject()
            w.key("date"); w.string(String(RFC3339.format(micros: d.start, utcOffsetSeconds: offset(d.start)).prefix(10)))
            w.key("reward_used_seconds"); w.int(d.rewardUsed / Seconds.micro)
            w.endObject()
        }
        w.endArray()
        if screen {
            // docs/spec/screen.md: each day's screen time, its limit (absent: none) and the bonus given.
            w.key("screen"); w.beginObject()
            w.key("days"); w.beginArray()
            for d in days + (today.map { [$0] } ?? []) {
                guard let s = d.screen else { continue }
                w.beginObject()
                w.key("date"); w.string(String(RFC3339.format(micros: d.start, utcOffsetSeconds: offset(d.start)).prefix(10)))
                w.key("used_seconds"); w.int(s.used / Seconds.micro)
                if let l = s.limit { w.key("limit_seconds"); w.int(l / Seconds.micro) }
                w.key("bonus_seconds"); w.int(s.bonus / Seconds.micro)
                w.endObject()
            }
            w.endArray()
            w.endObject()
        }
        w.key("sessions"); w.beginArray()
        for s in sessions {
            w.beginObject()
            w.key("app"); w.string(s.app)
            w.key("category"); w.string(s.category.rawValue)
            w.key("pid"); w.int(Int64(s.pid))
            time("start", s.start)
            time("end", s.end)
            w.key("seconds"); w.micros(s.seconds)
            w.key("credited_seconds"); w.micros(s.creditedSeconds)
            w.key("points"); w.int(s.points)
            w.key("verdict"); w.string(s.verdict.rawValue)
            w.key("reasons"); w.beginArray(); for r in s.refused { w.string(r.reason.rawValue) }; w.endArray()
            w.key("refused_seconds"); w.beginObject()
            for r in s.refused { w.key(r.reason.rawValue); w.micros(r.seconds) }
            w.endObject()
            if !s.flags.isEmpty { w.key("flags"); w.beginArray(); for f in s.flags { w.string(f.rawValue) }; w.endArray() }
            w.endObject()
        }
        w.endArray()
        w.key("ledger"); w.beginArray()
        for e in ledger {
            w.beginObject()
            time("at", e.at)
            w.key("kind"); w.string(e.kind.rawValue)
            w.key("points"); w.int(e.points)
            w.key("balance_after"); w.int(e.balanceAfter)
            if e.kind == .bonus, let n = e.note, let days = Int64(n) {
                w.key("streak_days"); w.int(days)
            } else if let n = e.note {
                switch e.kind {
                case .earned: w.key("app")
                case .redeemed, .gifted: w.key("by")
                case .chore: w.key("chore")
                case .adjusted, .expired, .bonus: w.key("reason")
                case .bonusTime, .revoked: w.key("note")       // who, and why or whether refunded
                }
                w.string(n)
            }
            if let r = e.rewardSeconds { w.key("reward_seconds"); w.micros(r) }
            w.endObject()
        }
        w.endArray()
        w.key("reward"); w.beginObject()
        w.key("granted_seconds"); w.micros(reward.granted)
        w.key("used_seconds"); w.micros(reward.used)
        w.key("remaining_seconds"); w.micros(reward.remaining)
        w.key("expired_seconds"); w.micros(reward.expired)
        w.key("allowance_seconds"); w.micros(reward.allowance)
        w.key("allowance_used_seconds"); w.micros(reward.allowanceUsed)
        if reward.revoked > 0 { w.key("revoked_seconds"); w.micros(reward.revoked) }
        w.endObject()
        w.key("requests"); w.beginArray()
        for r in requests {
            w.beginObject()
            w.key("id"); w.string(r.id)
            time("at", r.at)
            w.key("minutes"); w.int(r.minutes)
            w.key("state"); w.string(r.state.rawValue)
            if let v = r.reason { w.key("reason"); w.string(v) }
            if let v = r.pay { w.key("pay"); w.string(v.rawValue) }
            if let v = r.minutesGranted { w.key("minutes_granted"); w.int(v) }
            if let v = r.decidedAt { time("decided_at", v) }
            if let v = r.by { w.key("by"); w.string(v) }
            if let v = r.answer { w.key("answer"); w.string(v) }
            if r.screen == true { w.key("screen"); w.bool(true) }
            w.endObject()
        }
        w.endArray()
        w.key("chores"); w.beginArray()
        for c in choreClaims {
            w.beginObject()
            w.key("chore"); w.string(c.chore)
            time("at", c.at)
            w.key("state"); w.string(c.state.rawValue)
            if let v = c.points { w.key("points"); w.int(v) }
            if let v = c.decidedAt { time("decided_at", v) }
            if let v = c.by { w.key("by"); w.string(v) }
            if let v = c.answer { w.key("answer"); w.string(v) }
            w.endObject()
        }
        w.endArray()
        w.key("actions"); w.beginArray()
        for a in actions {
            w.beginObject()
            switch a {
            case .warn(let warn):
                time("at", warn.at)
                w.key("action"); w.string("warn")
                w.key("remaining_seconds"); w.micros(warn.remaining)
                w.key("limit"); w.string(warn.limit.rawValue)
                if let app = warn.app { w.key("app"); w.string(app) }
            case .stop(let stop):
                time("at", stop.at)
                w.key("action"); w.string("stop")
                w.key("pid"); w.int(Int64(stop.pid))
                w.key("reason"); w.string(stop.reason.rawValue)
                w.key("app"); w.string(stop.app)
                w.key("mode"); w.string(stop.action.rawValue)
                if stop.repeatCount > 0 { w.key("repeat"); w.int(Int64(stop.repeatCount)) }
            case .resume(let pid, let at):
                time("at", at)
                w.key("action"); w.string("resume")
                w.key("pid"); w.int(Int64(pid))
            case .gamesStopped(let at, let until, let by):
                time("at", at)
                w.key("action"); w.string("games_stopped")
                if let until { time("until", until) } else { w.key("until"); w.null() }
                if let by { w.key("by"); w.string(by) }
            case .lockSession(let o), .endSession(let o):
                time("at", o.at)
                if case .lockSession = a { w.key("action"); w.string("lock_session") } else { w.key("action"); w.string("end_session") }
                w.key("session"); w.string(o.session)
                w.key("reason"); w.string(o.reason.rawValue)
            case .siteStop(let s):
                time("at", s.at)
                w.key("action"); w.string("site_stop")
                w.key("pid"); w.int(Int64(s.pid))
                w.key("host"); w.string(s.host)
                w.key("site"); w.string(s.site)
                w.key("reason"); w.string(s.reason.rawValue)
            case .sessionClosed, .ledger, .refused, .clockJumped, .clockFault, .dayEnded, .request, .chore:
                break
            }
            w.endObject()
        }
        w.endArray()
        w.key("clock_jumps"); w.beginArray()
        for j in clockJumps {
            w.beginObject()
            time("at", j.at)
            w.key("seconds"); w.micros(j.by)
            w.endObject()
        }
        w.endArray()
        w.key("clock_faults"); w.beginArray()
        for f in clockFaults {
            w.beginObject()
            time("at", f.at)
            w.key("kind"); w.string(f.kind.rawValue)
            w.key("boot_ahead_seconds"); w.micros(f.bootAhead)
            if let wall = f.wallAhead { w.key("wall_ahead_seconds"); w.micros(wall) }
            w.endObject()
        }
        w.endArray()
        w.key("refused"); w.beginArray()
        for r in refusals {
            w.beginObject()
            time("at", r.at)
            w.key("request"); w.string(r.request)
            w.key("reason"); w.string(r.code.rawValue)
            w.key("detail"); w.string(r.reason)
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return w.output
    }
}
