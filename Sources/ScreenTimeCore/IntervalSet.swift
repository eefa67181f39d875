/// A set of half-open time intervals [start, end), sorted and disjoint. Sessions are judged by
/// measuring what part of their use falls into the times the user was idle, the screen locked, a
/// game running, and so on.
public struct IntervalSet: Sendable, Equatable, Codable {
    public private(set) var spans: [Span] = []

    public struct Span: Sendable, Equatable, Codable {
        public var start: Microseconds
        public var end: Microseconds
        public var length: Microseconds { end - start }
    }

    public init() {}
    public init(_ spans: [(Microseconds, Microseconds)]) {
        for (a, b) in spans { insert(a, b) }
    }

    public var isEmpty: Bool { spans.isEmpty }
    public var measure: Microseconds { spans.reduce(0) { $0 + $1.length } }

    /// Adds [start, end), merging with what it touches. Appending in time order is O(1).
    public mutating func insert(_ start: Microseconds, _ end: Microseconds) {
        guard end > start else { return }
        if let last = spans.last {
            if start > last.end { spans.append(Span(start: start, end: end)); return }
            if start >= last.start { spans[spans.count - 1].end = max(last.end, end); return }
        } else {
            spans.append(Span(start: start, end: end))
            return
        }
        // Out of order: find the first span ending at or after start.
        var lo = 0, hi = spans.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if spans[mid].end < start { lo = mid + 1 } else { hi = mid }
        }
        var merged = Span(start: start, end: end)
        var k = lo
        while k < spans.count, spans[k].start <= merged.end {
            merged.start = min(merged.start, spans[k].start)
            merged.end = max(merged.end, spans[k].end)
            k += 1
        }
        spans.replaceSubrange(lo..<k, with: [merged])
    }

    public mutating func formUnion(_ other: IntervalSet) {
        for s in other.spans { insert(s.start, s.end) }
    }

    public func intersection(_ other: IntervalSet) -> IntervalSet {
        var out = IntervalSet()
        var i = 0, j = 0
        let a = spans, b = other.spans
        while i < a.count, j < b.count {
            let s = max(a[i].start, b[j].start), e = min(a[i].end, b[j].end)
            if e > s { out.spans.append(Span(start: s, end: e)) }
            if a[i].end < b[j].end { i += 1 } else { j += 1 }
        }
        return out
    }

    public func subtracting(_ other: IntervalSet) -> IntervalSet {
        var out = IntervalSet()
        var j = 0
        let b = other.spans
        for span in spans {
            var cur = span.start
            while j < b.count, b[j].end <= cur { j += 1 }
            var k = j
            while k < b.count, b[k].start < span.end {
                if b[k].start > cur { out.spans.append(Span(start: cur, end: b[k].start)) }
                cur = max(cur, b[k].end)
                k += 1
            }
            if cur < span.end { out.spans.append(Span(start: cur, end: span.end)) }
        }
        return out
    }

    /// The part of self within [start, end).
    public func clipped(to start: Microseconds, _ end: Microseconds) -> IntervalSet {
        intersection(IntervalSet([(start, end)]))
    }

    /// Forgets everything before `time`.
    public mutating func forget(before time: Microseconds) {
        guard let first = spans.first, first.start < time else { return }
        var k = 0
        while k < spans.count, spans[k].end <= time { k += 1 }
        spans.removeFirst(k)
    }

    /// Forgets everything after `time`.
    public mutating func forget(after time: Microseconds) {
        while let last = spans.last, last.end > time {
            guard last.start < time else { spans.removeLast(); continue }
            spans[spans.count - 1].end = time
            return
        }
    }

    /// Keeps only the earliest `amount` of the set.
    public func prefix(measure amount: Microseconds) -> IntervalSet {
        var out = IntervalSet()
        var left = amount
        for s in spans where left > 0 {
            let take = min(left, s.length)
            out.spans.append(Span(start: s.start, end: s.start + take))
            left -= take
        }
        return out
    }
}

/// A condition that is on or off over time (idle, locked, a game running): closed spans plus the
/// one still open.
struct Stretches: Sendable, Codable {
    private(set) var closed = IntervalSet()
    private(set) var openSince: Microseconds?

    mutating func set(_ on: Bool, at t: Microseconds) {
        if on, openSince == nil { openSince = t }
        if !on, let s = openSince { closed.insert(s, t); openSince = nil }
    }

    /// Marks [start, end) directly (back-dated knowledge).
    mutating func add(_ start: Microseconds, _ end: Microseconds) { closed.insert(start, end) }

    /// Everything up to `now`, the open stretch included.
    func asOf(_ now: Microseconds) -> IntervalSet {
        guard let s = openSince, now > s else { return closed }
        var c = closed
        c.insert(s, now)
        return c
    }

    mutating func forget(before t: Microseconds) { closed.forget(before: t) }
}
