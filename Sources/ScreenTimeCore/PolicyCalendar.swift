/// Calendar days and weeks in the policy's time zone (never the session's `TZ`). Weeks start on
/// Monday. Days are looked up once each; the engine keeps the current one.
struct PolicyCalendar: Sendable {
    let zone: Zone

    struct Day: Sendable {
        /// Days since 1970-01-01 of the local date.
        var key: Int64
        /// Day key of the Monday that starts its week.
        var weekKey: Int64
        /// Wall-clock bounds (µs since the epoch): 23 or 25 hours apart on DST days.
        var start: Microseconds
        var end: Microseconds
        /// Allowed reward hours as wall-clock spans within the day.
        var allowed: [(start: Microseconds, end: Microseconds)]?
    }

    init(zone: Zone) {
        self.zone = zone
    }

    func day(containing wall: Microseconds, allowedHours: [HourWindow]?) -> Day {
        let seconds = RFC3339.floorDiv(wall, Seconds.micro)
        let key = RFC3339.floorDiv(seconds + Int64(zone.offset(at: seconds)), 86_400)
        let weekKey = key - Int64(CalendarDate.weekday(of: key).rawValue)
        let start = firstMoment(atOrAfterLocal: key * 86_400) * Seconds.micro
        let end = firstMoment(atOrAfterLocal: (key + 1) * 86_400) * Seconds.micro
        let allowed = allowedHours.map { windows in
            windows.map { w in
                (start: localTime(key, minute: w.startMinute, dayStart: start, dayEnd: end),
                 end: localTime(key, minute: w.endMinute, dayStart: start, dayEnd: end))
            }
        }
        return Day(key: key, weekKey: weekKey, start: start, end: end, allowed: allowed)
    }

    /// The first moment (UTC seconds) at which the local clock reads `local` or later: where a
    /// change of clock skips that time (a day that starts at 01:00), the change itself.
    private func firstMoment(atOrAfterLocal local: Int64) -> Int64 {
        if let first = zone.moments(atLocal: local).first { return first }
        // In a gap: the clock reads less than `local` before the change and more after it.
        var low = local - 93_600, high = local + 89_999
        while low < high {
            let mid = RFC3339.floorDiv(low + high, 2)
            if mid + Int64(zone.offset(at: mid)) >= local { high = mid } else { low = mid + 1 }
        }
        return low
    }

    /// Wall time of a local HH:MM on that day; a time a change of clock skips is read with the
    /// offset before the change (02:30 on the spring's change at 02:00 is 03:30); a time the clock
    /// shows twice is its first.
    private func localTime(_ key: Int64, minute: Int, dayStart: Microseconds, dayEnd: Microseconds) -> Microseconds {
        if minute == 0 { return dayStart }
        if minute >= 1440 { return dayEnd }
        let local = key * 86_400 + Int64(minute) * 60
        let moment = zone.moments(atLocal: local).first ?? (local - Int64(zone.offset(at: firstMoment(atOrAfterLocal: local) - 1)))
        return min(max(moment * Seconds.micro, dayStart), dayEnd)
    }

    /// The UTC offset of the zone at a wall time, for printing times the way the parent reads them.
    func utcOffset(at wall: Microseconds) -> Int32 {
        zone.offset(at: RFC3339.floorDiv(wall, Seconds.micro))
    }
}

extension Policy {
    /// A moment as a clock tells it, for words in any language (`Notice.clock`, `Told`): "HH:MM",
    /// how many days after `from`'s day, and the weekday's key (`mon` … `sun`).
    public func localClockParts(_ wall: Microseconds, from: Microseconds) -> (clock: String, daysAhead: Int64, weekday: String) {
        let calendar = PolicyCalendar(zone: timeZone)
        let day = calendar.day(containing: wall, allowedHours: nil), today = calendar.day(containing: from, allowedHours: nil)
        let local = RFC3339.format(micros: wall, utcOffsetSeconds: calendar.utcOffset(at: wall))
        let keys = ["thu", "fri", "sat", "sun", "mon", "tue", "wed"]   // day 0 (1970-01-01) was a Thursday
        return (String(local.dropFirst(11).prefix(5)), day.key - today.key, keys[Int(((day.key % 7) + 7) % 7)])
    }
}
