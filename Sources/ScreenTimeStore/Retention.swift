import Foundation
import ScreenTimeCore

/// Removes the oldest part of a child's event log without changing anything derived from it:
/// the log is replayed from where it begins up to the last event older than the cut-off, the
/// ledger entries that replay writes must be exactly the stored ones, and the engine's state there
/// becomes the new start of the log (`log_base`). Ledger, sessions and policies stay whole.
public struct Retention {
    /// Events older than this are removed; the default keeps 400 days.
    public var keep: Microseconds
    /// At most this many events are removed per run, so that a run stays short.
    public var maxEventsPerRun: Int

    public static let defaultKeepDays = 400

    public init(keep: Microseconds = Int64(Retention.defaultKeepDays) * 86_400 * Seconds.micro, maxEventsPerRun: Int = 50_000) {
        self.keep = keep
        self.maxEventsPerRun = maxEventsPerRun
    }

    /// Removes events dated before `now - keep` (by their wall time and by the calendar time the
    /// engine gave them, both), up to `maxEventsPerRun`. `now` must be the engine's trusted calendar
    /// time, not the wall clock.
    /// Returns how many were removed (the row of the newest of them stays, as the log's base: the
    /// numbering goes on from it); 0 when none is old enough.
    @discardableResult
    public func run(on store: Store, now: Microseconds) throws -> Int {
        try run(on: store, before: now - keep)
    }

    /// Removes events dated before `cutoff` (trusted calendar time), as `run(on:now:)` does.
    @discardableResult
    public func run(on store: Store, before cutoff: Microseconds) throws -> Int {
        let base = try store.logBase()
        guard var replay = try LogReplay(store: store, start: base.map { .base($0) } ?? .firstEvent) else { return 0 }
        let first = replay.eventSeq
        var last: (seq: Int64, at: Microseconds)? = nil
        var applied = 0
        for (seq, line) in try store.events(after: first, limit: maxEventsPerRun) {
            let event = try replay.decode(seq: seq, line: line)
            // Old by the engine's trusted calendar, never by the wall time the event carries: a
            // clock faked back (or a boot clock faked ahead) makes nothing old.
            guard event.at.micros < cutoff,
                  replay.engine.clock.calendarTime(wall: event.at.micros, mono: event.mono) < cutoff else { break }
            try replay.apply(seq: seq, event: event)
            last = (seq, event.at.micros)
            applied += 1
        }
        guard let last else { return 0 }
        // The log must give exactly the stored ledger before anything it proves is removed.
        let before = Int(base?.ledgerSeq ?? 0)
        let stored = try store.ledger()
        let written = replay.ledger
        guard stored.count >= before + written.count,
              zip(stored[before..<(before + written.count)], written).allSatisfy({ $0.entry == $1 }) else {
            throw StoreError(description: "\(store.path): old events were not removed: replaying them does not give the stored ledger (run screentimed check)")
        }
        try store.moveLogBase(to: Store.LogBase(
            eventSeq: last.seq, policySeq: replay.policySeq, ledgerSeq: Int64(before + written.count), at: last.at,
            eventsRemoved: (base?.eventsRemoved ?? 0) + Int64(applied), state: replay.engine.checkpointData))
        return applied
    }
}
