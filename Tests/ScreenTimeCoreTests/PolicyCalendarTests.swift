import Foundation
@testable import ScreenTimeCore
import ScreenTimePolicy
import Testing

/// The policy's days, from the system's zoneinfo (`PolicyCalendar` on `Zone`), against what
/// Foundation's Calendar (ICU's time zones) made of them before: the same day, week, bounds and
/// allowed hours, across changes of clock at 02:00, at midnight (Havana, Santiago, Beirut), by
/// half an hour (Lord Howe), and a day that never was (Apia, 2011-12-30).
@Suite("Policy days in the zone's time")
struct PolicyCalendarTests {
    /// The calendar as it was written on Foundation: the reference.
    struct FoundationDays {
        let calendar: Calendar
        init(_ zone: TimeZone) {
            var c = Calendar(identifier: .gregorian)
            c.timeZone = zone
            c.firstWeekday = 2
            c.minimumDaysInFirstWeek = 4
            calendar = c
        }
        func micros(_ d: Date) -> Int64 { Int64((d.timeIntervalSince1970 * 1e6).rounded()) }

        func day(_ wall: Int64, windows: [HourWindow]) -> [Int64] {
            let date = Date(timeIntervalSince1970: Double(wall) / 1e6)
            let c = calendar.dateComponents([.year, .month, .day, .weekday], from: date)
            let key = CalendarDate.key(year: c.year!, month: c.month!, day: c.day!)
            let weekKey = key - Int64((c.weekday! + 5) % 7)
            let start = micros(calendar.startOfDay(for: date))
            let end = micros(calendar.startOfDay(for: calendar.date(byAdding: .day, value: 1, to: calendar.startOfDay(for: date))!))
            var out = [key, weekKey, start, end]
            for w in windows {
                for minute in [w.startMinute, w.endMinute] {
                    if minute == 0 { out.append(start); continue }
                    if minute >= 1440 { out.append(end); continue }
                    var d = DateComponents()
                    d.year = c.year; d.month = c.month; d.day = c.day; d.hour = minute / 60; d.minute = minute % 60
                    out.append(min(max(micros(calendar.date(from: d)!), start), end))
                }
            }
            return out
        }
    }

    static let windows = [HourWindow(startMinute: 0, endMinute: 30), HourWindow(startMinute: 120, endMinute: 150),
                          HourWindow(startMinute: 150, endMinute: 180), HourWindow(startMinute: 60, endMinute: 1_440),
                          HourWindow(startMinute: 1_380, endMinute: 1_439)]

    @Test("the same days as Foundation's calendar gave, every 13 hours of 2010 to 2030 (each hour of the day in turn), and around each change of clock",
          arguments: ["Europe/Berlin", "America/New_York", "America/Havana", "America/Santiago", "Asia/Beirut", "America/Sao_Paulo",
                      "Australia/Lord_Howe", "Pacific/Chatham", "Pacific/Apia", "Asia/Kolkata", "Europe/Dublin", "UTC"])
    func sameDays(_ name: String) throws {
        let zone = try ZoneInfo.zone(named: name).get()
        let ours = PolicyCalendar(zone: zone)
        let theirs = FoundationDays(try #require(TimeZone(identifier: name)))
        func ourDay(_ wall: Int64) -> [Int64] {
            let d = ours.day(containing: wall, allowedHours: Self.windows)
            return [d.key, d.weekKey, d.start, d.end] + (d.allowed ?? []).flatMap { [$0.start, $0.end] }
        }
        var moments: [Int64] = []
        let (from, to): (Int64, Int64) = (1_262_304_000, 1_924_992_000)   // 2010-01-01 to 2031-01-01
        var t = from
        var before = zone.offset(at: t)
        while t < to {
            moments.append(t)
            let next = t + 46_800
            if zone.offset(at: next) != before {
                // Around a change: just before and after it, and the day's ends on both sides.
                var low = t, high = next
                while high - low > 1 { let mid = (low + high) / 2; if zone.offset(at: mid) == before { low = mid } else { high = mid } }
                moments += [low, high, high + 1, high + 3_599, high + 3_600]
                before = zone.offset(at: next)
            }
            t = next
        }
        var differing: [String] = []
        for m in moments {
            let wall = m * 1_000_000
            let a = ourDay(wall), b = theirs.day(wall, windows: Self.windows)
            if a != b, differing.count < 5 { differing.append("\(name) at \(m): ours \(a), Foundation's \(b)") }
        }
        #expect(moments.count > 14_000)
        #expect(differing.isEmpty, "\(differing.joined(separator: "\n"))")
    }
}
