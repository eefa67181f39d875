import ScreenTimeCore

/// When a child's state is saved (monotonic microseconds): a second after the first unsaved
/// event, so that a burst of events is one transaction, and while saving fails, again every
/// second. Says when saving starts to fail and when it works again, once each, for the journal.
public struct SaveSchedule: Sendable {
    public static let every: Microseconds = Seconds.micro
    /// The last save, or the last try.
    public private(set) var last: Microseconds
    /// Why saving fails while it does.
    public private(set) var failure: String?

    public init(now: Microseconds) { last = now }

    /// When the next save is due; nil: nothing to save.
    public func next(unsaved: Int) -> Microseconds? { unsaved > 0 ? last + Self.every : nil }

    public func due(now: Microseconds, unsaved: Int) -> Bool { next(unsaved: unsaved).map { now >= $0 } ?? false }

    /// What a try changed, for the journal.
    public enum Change: Equatable, Sendable {
        case none
        /// Saving fails, or fails in a new way: say so (it is retried every second).
        case fails(String)
        /// Saving works again after failing.
        case worksAgain
    }

    /// A save was tried at `now`; `failure`: why it failed, nil when it worked.
    public mutating func tried(at now: Microseconds, failure: String?) -> Change {
        last = now
        defer { self.failure = failure }
        switch (self.failure, failure) {
        case (nil, nil): return .none
        case (.some, nil): return .worksAgain
        case let (old, new?): return old == new ? .none : .fails(new)
        }
    }
}

/// When old events are next removed from the event log (monotonic microseconds): hourly, and
/// sooner while a run had more to remove than it may remove at once, so that a large backlog is
/// worked off in steps without holding the daemon for long. Not while saving fails.
public struct RetentionSchedule: Sendable {
    public static let hourly: Microseconds = 3600 * Seconds.micro
    public static let backlog: Microseconds = 10 * Seconds.micro
    public private(set) var next: Microseconds

    /// The first run is due at once (a daemon started after weeks off has old events to remove).
    public init(now: Microseconds) { next = now }

    public func due(now: Microseconds) -> Bool { now >= next }

    /// A run at `now` removed `removed` events, at most `most` at once (nil: nothing is removed,
    /// retention is off).
    public mutating func ran(at now: Microseconds, removed: Int, most: Int?) {
        next = now + (most.map { removed >= $0 } == true ? Self.backlog : Self.hourly)
    }
}
