import ScreenTimeCore

/// `report` replies, kept for a second: a report over many days reads and encodes the whole range,
/// and a client that asks for the same one again and again gets the same bytes, not a new
/// computation each time. Forgotten when a parent changes the child's state (redeem, adjust, reload).
public struct ReportCache: Sendable {
    public static let keepFor: Microseconds = Seconds.micro
    public static let maxEntries = 8
    private var entries: [String: (at: Microseconds, line: [UInt8])] = [:]

    /// The reply line kept for `key` (days and last day asked), if it is recent.
    public init() {}

    public func line(for key: String, now: Microseconds) -> [UInt8]? {
        guard let e = entries[key], now - e.at < ReportCache.keepFor, now >= e.at else { return nil }
        return e.line
    }

    public mutating func keep(_ line: [UInt8], for key: String, now: Microseconds) {
        entries = entries.filter { now - $0.value.at < ReportCache.keepFor }
        if entries.count >= ReportCache.maxEntries, let oldest = entries.min(by: { $0.value.at < $1.value.at })?.key { entries[oldest] = nil }
        entries[key] = (now, line)
    }

    public mutating func forget() { entries.removeAll() }
}
