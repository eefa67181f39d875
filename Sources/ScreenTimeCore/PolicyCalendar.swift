import FoundationEssentials
import Glibc

/// Calendar days and weeks in the policy's time zone (never the session's `TZ`). Weeks start on
/// Monday. Days are looked up once each; the engine keeps the current one.
struct PolicyCalendar: Sendable {
    let timeZone: TimeZone
    private let calendar: Calendar

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

    init(timeZone: TimeZone) {
        self.timeZone = timeZone
        var c = Calendar(identifier: .gregorian)
        c.timeZone = timeZone
        c.firstWeekday = 2
        c.minimumDaysInFirstWeek = 4
        self.calendar = c
    }

    func day(containing wall: Microseconds, allowedHours: [HourWindow]?) -> Day {
        let date = Date(timeIntervalSince1970: Double(wall) / 1e6)
        let c = calendar.dateComponents([.year, .month, .day, .weekday], from: date)
        let key = RFC3339.daysFromCivil(year: Int64(c.year!), month: Int64(c.month!), day: Int64(c.day!))
        let weekKey = key - Int64((c.weekday! + 5) % 7)
        let start = micros(of: calendar.startOfDay(for: date))
        let next = calendar.date(byAdding: .day, value: 1, to: calendar.startOfDay(for: date))!
        let end = micros(of: calendar.startOfDay(for: next))
        let allowed = allowedHours.map { windows in
            windows.map { w in
                (start: localTime(c, minute: w.startMinute, dayStart: start, dayEnd: end),
                 end: localTime(c, minute: w.endMinute, dayStart: start, dayEnd: end))
            }
        }
        return Day(key: key, weekKey: weekKey, start: start, end: end, allowed: allowed)
    }

    /// Wall time of a local HH:MM on that day; a time skipped by a DST change falls to the next valid one.
    private func localTime(_ day: DateComponents, minute: Int, dayStart: Microseconds, dayEnd: Microseconds) -> Microseconds {
        if minute == 0 { return dayStart }
        if minute >= 1440 { return dayEnd }
        var c = DateComponents()
        c.year = day.year; c.month = day.month; c.day = day.day
        c.hour = minute / 60; c.minute = minute % 60
        guard let d = calendar.date(from: c) else { return dayStart + Int64(minute) * 60 * Seconds.micro }
        return min(max(micros(of: d), dayStart), dayEnd)
    }

    /// The UTC offset of the zone at a wall time, for printing times the way the parent reads them.
    func utcOffset(at wall: Microseconds) -> Int32 {
        Int32(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(wall) / 1e6)))
    }

    private func micros(of d: Date) -> Microseconds {
        Microseconds((d.timeIntervalSince1970 * 1e6).rounded())
    }
}
