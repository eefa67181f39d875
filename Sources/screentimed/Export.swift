import ControlProtocol
import ScreenTimeCore
import ScreenTimeLinux
import ScreenTimeStore

/// What a parent may take out of the state, or remove from it (seed 000: export and delete).
extension Child {
    /// Everything kept about the child, as one JSON document: the policies, the event log, the
    /// ledger, the sessions, the days, the requests and chores of the last week.
    func exportAll() throws -> String {
        let engine = live.engine
        let store = live.store
        func at(_ w: Microseconds) -> String { RFC3339.format(micros: w, utcOffsetSeconds: engine.utcOffset(at: w)) }
        var w = JSONWriter()
        w.beginObject()
        w.key("child"); w.string(name)
        w.key("uid"); w.int(Int64(uid))
        w.key("exported_at"); w.string(at(SystemClock.wallMicros()))
        w.key("policy_in_force"); w.string(live.policyText)
        w.key("policies"); w.beginArray()
        for p in try store.policies() {
            w.beginObject(); w.key("from_event"); w.int(p.fromEvent); w.key("text"); w.string(p.text); w.endObject()
        }
        w.endArray()
        if let base = try store.logBase() {
            w.key("events_removed_before"); w.string(at(base.at))
            w.key("events_removed"); w.int(base.eventsRemoved)
        }
        w.key("events"); w.beginArray()
        for e in try store.events(after: try store.logBase()?.eventSeq ?? 0) { w.raw(e.line) }
        for line in live.unsavedEventLines { w.raw(line) }
        w.endArray()
        w.key("ledger"); w.beginArray()
        for e in try store.ledger() {
            w.beginObject()
            w.key("seq"); w.int(e.seq)
            w.key("at"); w.string(at(e.entry.at))
            w.key("kind"); w.string(e.entry.kind.rawValue)
            w.key("points"); w.int(e.entry.points)
            w.key("balance_after"); w.int(e.entry.balanceAfter)
            if let n = e.entry.note { w.key("note"); w.string(n) }
            if let r = e.entry.rewardSeconds { w.key("reward_seconds"); w.micros(r) }
            w.key("hash"); w.string(e.hash)
            w.endObject()
        }
        w.endArray()
        w.key("sessions"); w.beginArray()
        for s in try live.sessions(from: .min, to: .max) {
            w.beginObject()
            w.key("app"); w.string(s.app)
            w.key("category"); w.string(s.category.rawValue)
            w.key("start"); w.string(at(s.start))
            w.key("end"); w.string(at(s.end))
            w.key("seconds"); w.micros(s.seconds)
            w.key("credited_seconds"); w.micros(s.creditedSeconds)
            w.key("points"); w.int(s.points)
            w.key("verdict"); w.string(s.verdict.rawValue)
            w.key("refused"); w.beginObject(); for r in s.refused { w.key(r.reason.rawValue); w.micros(r.seconds) }; w.endObject()
            w.endObject()
        }
        w.endArray()
        w.key("days"); w.beginArray()
        let screen = try live.screenUsed(from: .min, to: .max)
        for (start, used) in try live.rewardUsed(from: .min, to: .max).sorted(by: { $0.key < $1.key }) {
            w.beginObject(); w.key("day"); w.string(String(at(start).prefix(10))); w.key("game_seconds"); w.micros(used)
            if let s = screen[start] {
                w.key("screen_seconds"); w.micros(s.used)
                if let limit = s.limit { w.key("screen_limit_seconds"); w.micros(limit) }
                w.key("screen_bonus_seconds"); w.micros(s.bonus)
            }
            w.endObject()
        }
        w.endArray()
        w.key("requests"); w.beginArray()
        for r in requestLines() {
            w.beginObject(); w.key("id"); w.string(r.id); w.key("at"); w.string(r.at); w.key("minutes"); w.int(r.minutes)
            w.key("state"); w.string(r.state); if let v = r.reason { w.key("reason"); w.string(v) }; w.endObject()
        }
        w.endArray()
        w.key("chore_claims"); w.beginArray()
        for c in engine.choreClaims {
            w.beginObject(); w.key("chore"); w.string(c.chore); w.key("at"); w.string(at(c.at)); w.key("state"); w.string(c.state.rawValue); w.endObject()
        }
        w.endArray()
        w.endObject()
        return w.output
    }

    /// Removes the events and sessions from before `start` (the day `day`), through retention: the
    /// log's base moves to the last event before it, replaying what is removed must give the
    /// stored ledger, and the ledger stays whole and checkable.
    mutating func forget(before start: Microseconds, day: String, by who: String) throws -> ControlReply {
        try live.flush()
        let retention = Retention(maxEventsPerRun: 200_000)
        var removed = 0
        while true {
            let n = try retention.run(on: live.store, before: start)
            removed += n
            if n < retention.maxEventsPerRun { break }
        }
        let sessions = try live.store.forgetSessions(before: start)
        let told = Told(.forgotten, ["events": "\(removed)", "sessions": "\(sessions)", "day": day])
        log("\(told.words()) (asked by \(who))", level: .notice, ["event": "forget", "events_removed": "\(removed)", "sessions_removed": "\(sessions)"])
        return .done(told)
    }
}
