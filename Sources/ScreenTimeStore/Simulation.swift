import Foundation
import ScreenTimeCore

/// `stctl simulate` (a parent's "what if"): the child's stored log of the last days replayed twice
/// from the same state, under the policies that were in force and under a new one, day by day.
/// It reads the store and writes nothing.
public enum Simulation {
    /// What one policy made of one day.
    public struct Figures: Sendable, Equatable {
        /// Points earned by learning (sessions that started that day).
        public var points: Int64 = 0
        public var learningCredited: Microseconds = 0
        /// Learning time not credited, by reason.
        public var refused: [Reason: Microseconds] = [:]
        /// Game time played (allowed) that day.
        public var gameTime: Microseconds = 0

        public var learningRefused: Microseconds { refused.values.reduce(0, +) }
    }

    public struct Day: Sendable, Equatable {
        /// Where the day starts (wall time, µs).
        public var start: Microseconds
        public var old = Figures()
        public var new = Figures()
    }

    /// Replays the stored log and then `unsaved` (lines not saved yet) as stored, and again with
    /// `policy` from the first event at or after `from` on. `days`: the starts of the days to
    /// report (each event is counted on the day that holds it: `dayStart`).
    public static func run(store: Store, unsaved: [String], policy: Policy, policyText: String, from: Microseconds,
                           days: [Microseconds], dayStart: @escaping (Microseconds) -> Microseconds) throws -> [Day] {
        let base = try store.logBase()
        guard var old = try LogReplay(store: store, start: base.map { .base($0) } ?? .firstEvent) else { return days.map { Day(start: $0) } }
        var result: [Microseconds: Day] = Dictionary(uniqueKeysWithValues: days.map { ($0, Day(start: $0)) })
        final class Sink: @unchecked Sendable { var effects: [Effect] = [] }
        let oldSink = Sink(), newSink = Sink()
        var new: LogReplay? = nil
        func fork() {
            var n = old
            n.observer = { newSink.effects += $0 }
            n.substitute(policy, text: policyText)
            old.observer = { oldSink.effects += $0 }
            new = n
        }
        var lines = try store.events(after: old.eventSeq).map { (seq: $0.seq, line: $0.line) }
        var seq = lines.last?.seq ?? old.eventSeq
        for line in unsaved {
            seq += 1
            lines.append((seq, line))
        }
        for (s, line) in lines {
            let event = try old.decode(seq: s, line: line)
            if new == nil, event.at.micros >= from { fork() }
            try old.apply(seq: s, event: event)
            try new?.apply(seq: s, event: event)
        }
        if new == nil { fork() }
        old.finish()
        new?.finish()
        func gather(_ effects: [Effect], _ engine: Engine, into keyPath: WritableKeyPath<Day, Figures>) {
            func add(_ start: Microseconds, _ change: (inout Figures) -> Void) {
                let day = dayStart(start)
                guard result[day] != nil else { return }
                change(&result[day]![keyPath: keyPath])
            }
            for e in effects {
                switch e {
                case .sessionClosed(let s) where s.category == .learning:
                    add(s.start) { f in
                        f.points += s.points
                        f.learningCredited += s.creditedSeconds
                        for r in s.refused { f.refused[r.reason, default: 0] += r.seconds }
                    }
                case .dayEnded(let d):
                    add(d.start) { $0.gameTime = d.rewardUsed }
                default:
                    break
                }
            }
            add(engine.today.start) { $0.gameTime = engine.reward.usedToday }
        }
        gather(oldSink.effects, old.engine, into: \.old)
        if let new { gather(newSink.effects, new.engine, into: \.new) }
        return days.compactMap { result[$0] }
    }
}
