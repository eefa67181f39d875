import ControlProtocol
import ScreenTimeCore
import ScreenTimeWords

/// A child's day (sessions, with the reasons time was not counted, in words) and their week as
/// charts the server draws (SVG; nothing is loaded from elsewhere, no script draws them).
public enum ChildPage {
    /// `today`: the child's today (no link goes past it; nil: `day` is the last).
    /// In the language of `tr`: its words, weekdays, dates and durations.
    public static func page(child: String, day: String, today: String? = nil, sessions: [ControlReply.SessionLine], week: [ControlReply.ReportDay],
                            csrf: String, tr: Translator = .english) -> String {
        var body = "<main class=\"day\" data-child=\"\(HTML.escape(child))\">"
        body += "<h2>\(HTML.escape(WeekCharts.dayName(day, long: true, tr)))</h2>" + dayLinks(child: child, day: day, today: today, tr)
        if sessions.isEmpty {
            body += "<p>\(HTML.escape(tr("No sessions this day.")))</p>"
        } else {
            body += "<ol class=\"sessions\">" + sessions.map { session($0, tr) }.joined() + "</ol>"
        }
        body += "<h2>\(HTML.escape(tr("The week to {day}", ["day": WeekCharts.date(week.last?.day ?? day, tr)])))</h2>"
        body += WeekCharts.learning(week, tr) + WeekCharts.gameTime(week, tr) + WeekCharts.screenTime(week, tr) + WeekCharts.points(week, tr)
        body += "</main>"
        let here = "/child/\(child)" + (CalendarDate.key(of: day) != nil ? "?day=\(day)" : "")
        return HTML.page(title: child, body: body, signedIn: true, csrf: csrf, tr: tr, here: here)
    }

    /// Links to the day before and after and a week before and after, none past today; and to
    /// today from another day.
    static func dayLinks(child: String, day: String, today: String?, _ tr: Translator = .english) -> String {
        guard let key = CalendarDate.key(of: day) else { return "" }
        let last = today.flatMap { CalendarDate.key(of: $0) } ?? key
        func link(_ k: Int64, _ words: String) -> String? {
            k <= last ? "<a href=\"/child/\(HTML.escape(child))?day=\(CalendarDate.text(of: k))\">\(HTML.escape(words))</a>" : nil
        }
        let links = [link(key - 7, tr("← a week before")), link(key - 1, tr("← the day before")), link(key + 1, tr("the day after →")),
                     link(key + 7, tr("a week after →")), key < last ? link(last, tr("today")) : nil].compactMap { $0 }
        return "<nav class=\"days\" aria-label=\"\(HTML.escape(tr("Other days")))\">" + links.joined(separator: " ") + "</nav>"
    }

    static func session(_ s: ControlReply.SessionLine, _ tr: Translator = .english) -> String {
        let time = "\(clock(s.start))–\(clock(s.end))"
        let duration = { (seconds: Int64) in HTML.duration(seconds, tr) }
        var counted: String
        switch s.category {
        case "learning":
            counted = tr.plural("{counted} of {all} counted, {n} point", "{counted} of {all} counted, {n} points", Int(s.points),
                                ["counted": duration(s.creditedSeconds), "all": duration(s.seconds)])
            if !s.refused.isEmpty {
                let reasons = s.refused.map {
                    tr("{reason} {duration}", context: "not counted", ["reason": reason($0.reason, tr), "duration": duration($0.seconds)])
                }
                counted += tr("; not counted: {reasons}", ["reasons": reasons.joined(separator: tr(", ", context: "list"))])
            }
        case "reward": counted = tr("{duration} of game time", ["duration": duration(s.seconds)])
        default: counted = duration(s.seconds)
        }
        let category = switch s.category {
        case "learning": tr("learning", context: "category")
        case "reward": tr("game", context: "category")
        case "neutral": tr("neither", context: "category")
        case "blocked": tr("blocked", context: "category")
        default: s.category
        }
        return """
            <li class="session \(HTML.escape(s.verdict))"><span class="app">\(HTML.escape(s.app))</span> \
            <span class="when">\(time)</span> <span class="category" data-category="\(HTML.escape(s.category))">\(HTML.escape(tr.language == nil ? s.category : category))</span><br>\(HTML.escape(counted))</li>
            """
    }

    /// Why time was not counted, in a few words for a parent (`ChildWords.short`).
    public static func reason(_ code: String, _ tr: Translator) -> String { ChildWords.short(code, tr) }

    /// "14:05" of an RFC 3339 time, for HTML (HH:MM in each of the page's languages).
    static func clock(_ rfc3339: String) -> String { HTML.escape(time(rfc3339)) }

    /// "14:05" of an RFC 3339 time, as text.
    static func time(_ rfc3339: String) -> String {
        guard let t = rfc3339.firstIndex(of: "T") else { return rfc3339 }
        return String(rfc3339[rfc3339.index(after: t)...].prefix(5))
    }
}

/// Bar charts of a week, as SVG the server draws. A parent reads them at a glance, on a phone
/// too: each day's figure is written above its bars (a phone has no hover), the axis has its
/// scale, each day its weekday, each chart a legend; and a table of the same figures, in words,
/// is what a screen reader reads (the drawing is hidden from it). Each bar keeps its figure in
/// `data-` attributes (what the browser tests read).
public enum WeekCharts {
    static let width = 360, height = 170, left = 44, top = 18, bottom = 22

    /// What a chart shows, for its legend and its table: the CSS class of its marks, its words,
    /// whether it is drawn as bars or as a day's line (a limit), and each day's figure in words
    /// (nil: none that day).
    struct Series {
        var kind: String
        var words: String
        var line = false
        var figure: (ControlReply.ReportDay) -> String?
    }

    public static func learning(_ days: [ControlReply.ReportDay], _ tr: Translator = .english) -> String {
        let most = days.map { $0.learningCreditedSeconds + $0.learningRefusedSeconds }.max() ?? 0
        let duration = { (seconds: Int64) in HTML.duration(seconds, tr) }
        let series = [Series(kind: "counted", words: tr("counted", context: "chart")) { duration($0.learningCreditedSeconds) },
                      Series(kind: "refused", words: tr("not counted", context: "chart")) { duration($0.learningRefusedSeconds) }]
        return chart(id: "learning", title: tr("Learning: counted, and not counted"), days: days, scale: most, label: { short($0, tr) }, series: series, tr) { d, x, w, y0, px in
            let counted = px(d.learningCreditedSeconds), refused = px(d.learningRefusedSeconds)
            let day = date(d.day, tr)
            return bar(x, y0 - counted, w, counted, "counted", d.learningCreditedSeconds,
                       tr("{day}: {duration} counted", ["day": day, "duration": duration(d.learningCreditedSeconds)]))
                + bar(x, y0 - counted - refused, w, refused, "refused", d.learningRefusedSeconds,
                      tr("{day}: {duration} not counted", ["day": day, "duration": duration(d.learningRefusedSeconds)]))
                + figure(x + w / 2, y0 - counted - refused, d.learningCreditedSeconds > 0 ? short(d.learningCreditedSeconds, tr) : nil)
        }
    }

    public static func gameTime(_ days: [ControlReply.ReportDay], _ tr: Translator = .english) -> String {
        let limit = days.compactMap(\.rewardDailyLimitSeconds).max()
        let most = max(limit ?? 0, days.compactMap(\.rewardUsedSeconds).max() ?? 0)
        let duration = { (seconds: Int64) in HTML.duration(seconds, tr) }
        var series = [Series(kind: "played", words: tr("played", context: "chart")) { $0.rewardUsedSeconds.map(duration) }]
        if limit != nil { series.append(Series(kind: "limit", words: tr("that day's limit", context: "chart"), line: true) { $0.rewardDailyLimitSeconds.map(duration) }) }
        return chart(id: "game", title: limit.map { tr("Game time against the daily limit of {limit}", ["limit": duration($0)]) } ?? tr("Game time (no daily limit)"),
                     days: days, scale: most, label: { short($0, tr) }, series: series, tr) { d, x, w, y0, px in
            var out = "", highest = y0
            let day = date(d.day, tr)
            if let used = d.rewardUsedSeconds {
                out += bar(x, y0 - px(used), w, px(used), "played", used, tr("{day}: {duration} played", ["day": day, "duration": duration(used)]))
                highest = y0 - px(used)
            }
            if let l = d.rewardDailyLimitSeconds {
                out += line(x, w, y0 - px(l), "limit", l, tr("{day}: limit {duration}", ["day": day, "duration": duration(l)]))
                highest = min(highest, y0 - px(l))
            }
            return out + figure(x + w / 2, highest, d.rewardUsedSeconds.map { short($0, tr) })
        }
    }

    /// Screen time (the computer as a whole) each day against that day's limit (a schedule may
    /// give a day another), and the limit with the parents' extra minutes when they gave some.
    /// Nothing when no day has screen figures (the policy has no `[screen]`).
    public static func screenTime(_ days: [ControlReply.ReportDay], _ tr: Translator = .english) -> String {
        guard days.contains(where: { $0.screenUsedSeconds != nil || $0.screenLimitSeconds != nil }) else { return "" }
        let duration = { (seconds: Int64) in HTML.duration(seconds, tr) }
        let limits = Set(days.compactMap(\.screenLimitSeconds))
        let title = limits.isEmpty ? tr("Screen time (no daily limit)")
            : limits.count == 1 ? tr("Screen time against the daily limit of {limit}", ["limit": duration(limits.first!)]) : tr("Screen time against each day's limit")
        let most = days.map { d in max(d.screenUsedSeconds ?? 0, (d.screenLimitSeconds ?? 0) + (d.screenLimitSeconds == nil ? 0 : d.screenBonusSeconds ?? 0)) }.max() ?? 0
        var series = [Series(kind: "used", words: tr("used", context: "chart")) { $0.screenUsedSeconds.map(duration) }]
        if !limits.isEmpty {
            series.append(Series(kind: "limit", words: tr("that day's limit", context: "chart"), line: true) { $0.screenLimitSeconds.map(duration) })
        }
        if days.contains(where: { ($0.screenBonusSeconds ?? 0) > 0 && $0.screenLimitSeconds != nil }) {
            series.append(Series(kind: "bonus", words: tr("with the parents' extra time", context: "chart"), line: true) { d in
                guard let l = d.screenLimitSeconds, let b = d.screenBonusSeconds, b > 0 else { return nil }
                return duration(l + b)
            })
        }
        return chart(id: "screen", title: title, days: days, scale: most, label: { short($0, tr) }, series: series, tr) { d, x, w, y0, px in
            var out = "", highest = y0
            let day = date(d.day, tr)
            if let used = d.screenUsedSeconds {
                out += bar(x, y0 - px(used), w, px(used), "used", used, tr("{day}: {duration} of screen time", ["day": day, "duration": duration(used)]))
                highest = y0 - px(used)
            }
            if let l = d.screenLimitSeconds {
                out += line(x, w, y0 - px(l), "limit", l, tr("{day}: limit {duration}", ["day": day, "duration": duration(l)]))
                highest = min(highest, y0 - px(l))
                if let bonus = d.screenBonusSeconds, bonus > 0 {
                    out += line(x, w, y0 - px(l + bonus), "bonus", l + bonus,
                                tr("{day}: limit with the parents' extra {bonus}: {duration}", ["day": day, "bonus": duration(bonus), "duration": duration(l + bonus)]))
                    highest = min(highest, y0 - px(l + bonus))
                }
            }
            return out + figure(x + w / 2, highest, d.screenUsedSeconds.map { short($0, tr) })
        }
    }

    public static func points(_ days: [ControlReply.ReportDay], _ tr: Translator = .english) -> String {
        func earned(_ d: ControlReply.ReportDay) -> Int64 { d.pointsEarned + max(0, d.pointsAdjusted) }
        let most = days.map { max(earned($0), $0.pointsSpent) }.max() ?? 0
        let series = [Series(kind: "earned", words: tr("earned or given", context: "chart")) { number(earned($0), tr) },
                      Series(kind: "spent", words: tr("spent", context: "chart")) { number($0.pointsSpent, tr) }]
        return chart(id: "points", title: tr("Points earned (and given) against points spent"), days: days, scale: most, label: { number($0, tr) },
                     series: series, tr) { d, x, w, y0, px in
            let half = max(1, w / 2)
            let day = date(d.day, tr)
            return bar(x, y0 - px(earned(d)), half, px(earned(d)), "earned", earned(d),
                       tr.plural("{day}: {n} point earned or given", "{day}: {n} points earned or given", Int(earned(d)), ["day": day, "n": number(earned(d), tr)]))
                + bar(x + half, y0 - px(d.pointsSpent), half, px(d.pointsSpent), "spent", d.pointsSpent,
                      tr.plural("{day}: {n} point spent", "{day}: {n} points spent", Int(d.pointsSpent), ["day": day, "n": number(d.pointsSpent, tr)]))
                + figure(x + half / 2, y0 - px(earned(d)), earned(d) > 0 ? number(earned(d), tr) : nil)
                + figure(x + half + half / 2, y0 - px(d.pointsSpent), d.pointsSpent > 0 ? number(d.pointsSpent, tr) : nil)
        }
    }

    /// The frame: the scale on the left (nothing, half and the most, each with its figure in
    /// `label`'s words), each day's weekday under its group, the legend in the caption and the
    /// table after the drawing; `draw` gives a day's bars from its x, width, baseline and the
    /// scale (value → pixels).
    static func chart(id: String, title: String, days: [ControlReply.ReportDay], scale: Int64, label: (Int64) -> String,
                      series: [Series], _ tr: Translator = .english, draw: (ControlReply.ReportDay, Int, Int, Int, (Int64) -> Int) -> String) -> String {
        let n = max(1, days.count)
        let slot = (width - left) / n, w = max(4, slot * 6 / 10)
        let y0 = height - bottom
        let px: (Int64) -> Int = { v in scale <= 0 || v <= 0 ? 0 : Int((v * Int64(y0 - top)) / scale) }
        var out = "<figure class=\"chart\"><figcaption>\(HTML.escape(title)) \(legend(series))</figcaption>"
        out += "<svg id=\"chart-\(id)\" viewBox=\"0 0 \(width) \(height)\" width=\"100%\" aria-hidden=\"true\">"
        for v in scale > 0 ? [0, scale / 2, scale] : [0] {
            let y = y0 - px(v)
            out += "<line class=\"\(v == 0 ? "axis" : "grid")\" x1=\"\(left)\" x2=\"\(width)\" y1=\"\(y)\" y2=\"\(y)\"/>"
            out += "<text class=\"tick\" x=\"\(left - 4)\" y=\"\(y + 3)\" text-anchor=\"end\">\(v == 0 ? "0" : HTML.escape(label(v)))</text>"
        }
        for (i, d) in days.enumerated() {
            let x = left + i * slot + (slot - w) / 2
            out += "<g data-day=\"\(HTML.escape(d.day))\">" + draw(d, x, w, y0, px)
            out += "<text class=\"day\" x=\"\(x + w / 2)\" y=\"\(height - 7)\" text-anchor=\"middle\">\(HTML.escape(dayName(d.day, tr)))</text></g>"
        }
        return out + "</svg>" + table(days, series, tr) + "</figure>"
    }

    /// The legend: a mark of each series' colour (a bar's, or a limit's line) and its words.
    static func legend(_ series: [Series]) -> String {
        "<span class=\"legend\">" + series.map { s in
            let mark = s.line ? "<line class=\"\(s.kind)\" x1=\"0\" x2=\"16\" y1=\"6\" y2=\"6\"/>" : "<rect class=\"\(s.kind)\" width=\"16\" height=\"12\"/>"
            return "<span class=\"key\"><svg width=\"16\" height=\"12\" aria-hidden=\"true\">\(mark)</svg> \(HTML.escape(s.words))</span>"
        }.joined(separator: " ") + "</span>"
    }

    /// The chart's figures as a table for screen readers, hidden from sight in a box of one pixel
    /// (a table itself would not clip, and would widen the page): a row per day, a
    /// column per series, in words.
    static func table(_ days: [ControlReply.ReportDay], _ series: [Series], _ tr: Translator = .english) -> String {
        var out = "<div class=\"sr-only\"><table><thead><tr><th scope=\"col\">\(HTML.escape(tr("Day")))</th>"
        out += series.map { "<th scope=\"col\">\(HTML.escape($0.words))</th>" }.joined() + "</tr></thead><tbody>"
        for d in days {
            out += "<tr><th scope=\"row\">\(HTML.escape(dayName(d.day, long: true, tr)))</th>"
            out += series.map { "<td>\(HTML.escape($0.figure(d) ?? tr("none", context: "chart")))</td>" }.joined() + "</tr>"
        }
        return out + "</tbody></table></div>"
    }

    /// "Mon 23" under a bar; `long`: "Monday 2026-11-23" (the heading's and the table's); in the
    /// language of `tr` ("Mo 23.", "Montag, 23. November 2026"). The date as it came when it is not one.
    static func dayName(_ day: String, long: Bool = false, _ tr: Translator = .english) -> String {
        guard let key = CalendarDate.key(of: day) else { return day }
        let weekday = CalendarDate.weekday(of: key).rawValue
        if long {
            let names = [tr("Monday", context: "weekday"), tr("Tuesday", context: "weekday"), tr("Wednesday", context: "weekday"),
                         tr("Thursday", context: "weekday"), tr("Friday", context: "weekday"), tr("Saturday", context: "weekday"),
                         tr("Sunday", context: "weekday")]
            return tr("{weekday} {date}", context: "long day", ["weekday": names[weekday], "date": date(day, tr)])
        }
        let names = [tr("Mon", context: "weekday"), tr("Tue", context: "weekday"), tr("Wed", context: "weekday"), tr("Thu", context: "weekday"),
                     tr("Fri", context: "weekday"), tr("Sat", context: "weekday"), tr("Sun", context: "weekday")]
        return tr("{weekday} {d}", context: "short day", ["weekday": names[weekday], "d": String(Int(day.suffix(2)) ?? 0)])
    }

    /// "2026-11-23" in the language of `tr`: "23. November 2026", "23 de noviembre de 2026" (the
    /// same in English). As it came when it is not a date. The catalog gives the order as a
    /// pattern (`yyyy-MM-dd`, `d. MMMM yyyy`, `d 'de' MMMM 'de' yyyy`; Unicode's date pattern
    /// letters, of which yyyy, MM, MMMM, dd and d; text in quotes as it is).
    static func date(_ day: String, _ tr: Translator = .english) -> String {
        guard CalendarDate.key(of: day) != nil, day.count == 10, let month = Int(day.dropFirst(5).prefix(2)), (1...12).contains(month),
              let dayOfMonth = Int(day.suffix(2)) else { return day }
        let months = [tr("January", context: "month"), tr("February", context: "month"), tr("March", context: "month"), tr("April", context: "month"),
                      tr("May", context: "month"), tr("June", context: "month"), tr("July", context: "month"), tr("August", context: "month"),
                      tr("September", context: "month"), tr("October", context: "month"), tr("November", context: "month"), tr("December", context: "month")]
        let pattern = Array(tr("yyyy-MM-dd", context: "date pattern"))
        var out = "", i = 0
        while i < pattern.count {
            let c = pattern[i]
            if c == "'" {
                var j = i + 1
                while j < pattern.count, pattern[j] != "'" { out.append(pattern[j]); j += 1 }
                i = j + 1
                continue
            }
            var j = i
            while j < pattern.count, pattern[j] == c { j += 1 }
            let run = j - i
            switch (c, run) {
            case ("y", _): out += day.prefix(4)
            case ("M", 1...2): out += run == 2 ? String(day.dropFirst(5).prefix(2)) : String(month)
            case ("M", _): out += months[month - 1]
            case ("d", 1): out += String(dayOfMonth)
            case ("d", _): out += day.suffix(2)
            default: out += String(repeating: c, count: run)
            }
            i = j
        }
        return out
    }

    /// A duration short enough to stand above a bar: "40 s", "35 min", "1 h", "1 h 05".
    static func short(_ seconds: Int64, _ tr: Translator = .english) -> String {
        let s = max(0, seconds)
        if s < 60 { return tr("{s} s", context: "duration", ["s": String(s)]) }
        if s < 3600 { return tr("{m} min", context: "duration", ["m": String(s / 60)]) }
        let m = s / 60 % 60
        if m == 0 { return tr("{h} h", context: "duration", ["h": String(s / 3600)]) }
        return tr("{h} h {mm}", context: "duration", ["h": String(s / 3600), "mm": HTML.two(m)])
    }

    /// A whole number as the language writes it: 1,200 in English, 1.200 in German, 1 200 in
    /// French (from four digits on, as their style guides do; 1200 in Spanish, which groups from five).
    static func number(_ n: Int64, _ tr: Translator = .english) -> String {
        let separator = tr(",", context: "thousands separator")
        let digits = String(n.magnitude)
        let minimum = Int(tr("4", context: "digits before grouping")) ?? 4
        guard digits.count >= max(4, minimum) else { return (n < 0 ? "-" : "") + digits }
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out += separator }
            out.append(c)
        }
        return (n < 0 ? "-" : "") + out
    }

    /// A figure written above what it tells of (nothing when nil), centred on x.
    static func figure(_ cx: Int, _ y: Int, _ text: String?) -> String {
        guard let text else { return "" }
        return "<text class=\"value\" x=\"\(cx)\" y=\"\(y - 3)\" text-anchor=\"middle\">\(HTML.escape(text))</text>"
    }

    /// A day's limit across its bar, its seconds in `data-seconds`.
    static func line(_ x: Int, _ w: Int, _ y: Int, _ kind: String, _ seconds: Int64, _ title: String) -> String {
        "<line class=\"\(kind)\" x1=\"\(x - 2)\" x2=\"\(x + w + 2)\" y1=\"\(y)\" y2=\"\(y)\" data-kind=\"\(kind)\" data-seconds=\"\(seconds)\"><title>\(HTML.escape(title))</title></line>"
    }

    static func bar(_ x: Int, _ y: Int, _ w: Int, _ h: Int, _ kind: String, _ value: Int64, _ title: String) -> String {
        "<rect class=\"\(kind)\" x=\"\(x)\" y=\"\(y)\" width=\"\(w)\" height=\"\(h)\" data-kind=\"\(kind)\" data-value=\"\(value)\"><title>\(HTML.escape(title))</title></rect>"
    }
}
