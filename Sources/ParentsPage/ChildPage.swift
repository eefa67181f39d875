import ControlProtocol
import ScreenTimeCore

/// A child's day (sessions, with the reasons time was not counted, in words) and their week as
/// charts the server draws (SVG; nothing is loaded from elsewhere, no script draws them).
public enum ChildPage {
    /// `today`: the child's today (no link goes past it; nil: `day` is the last).
    public static func page(child: String, day: String, today: String? = nil, sessions: [ControlReply.SessionLine], week: [ControlReply.ReportDay],
                            csrf: String) -> String {
        var body = "<main class=\"day\" data-child=\"\(HTML.escape(child))\">"
        body += "<h2>\(HTML.escape(WeekCharts.dayName(day, long: true)))</h2>" + dayLinks(child: child, day: day, today: today)
        if sessions.isEmpty {
            body += "<p>No sessions this day.</p>"
        } else {
            body += "<ol class=\"sessions\">" + sessions.map(session).joined() + "</ol>"
        }
        body += "<h2>The week to \(HTML.escape(week.last?.day ?? day))</h2>"
        body += WeekCharts.learning(week) + WeekCharts.gameTime(week) + WeekCharts.screenTime(week) + WeekCharts.points(week)
        body += "</main>"
        return HTML.page(title: child, body: body, signedIn: true, csrf: csrf)
    }

    /// Links to the day before and after and a week before and after, none past today; and to
    /// today from another day.
    static func dayLinks(child: String, day: String, today: String?) -> String {
        guard let key = CalendarDate.key(of: day) else { return "" }
        let last = today.flatMap { CalendarDate.key(of: $0) } ?? key
        func link(_ k: Int64, _ words: String) -> String? {
            k <= last ? "<a href=\"/child/\(HTML.escape(child))?day=\(CalendarDate.text(of: k))\">\(words)</a>" : nil
        }
        let links = [link(key - 7, "← a week before"), link(key - 1, "← the day before"), link(key + 1, "the day after →"),
                     link(key + 7, "a week after →"), key < last ? link(last, "today") : nil].compactMap { $0 }
        return "<nav class=\"days\" aria-label=\"Other days\">" + links.joined(separator: " ") + "</nav>"
    }

    static func session(_ s: ControlReply.SessionLine) -> String {
        let time = "\(clock(s.start))–\(clock(s.end))"
        var counted: String
        switch s.category {
        case "learning":
            counted = "\(HTML.duration(s.creditedSeconds)) of \(HTML.duration(s.seconds)) counted, \(s.points) points"
            if !s.refused.isEmpty {
                counted += "; not counted: " + s.refused.map {
                    "\(HTML.escape(ControlReply.SessionLine.Refusal.words[$0.reason] ?? $0.reason)) \(HTML.duration($0.seconds))"
                }.joined(separator: ", ")
            }
        case "reward": counted = "\(HTML.duration(s.seconds)) of game time"
        default: counted = HTML.duration(s.seconds)
        }
        return """
            <li class="session \(HTML.escape(s.verdict))"><span class="app">\(HTML.escape(s.app))</span> \
            <span class="when">\(time)</span> <span class="category">\(HTML.escape(s.category))</span><br>\(counted)</li>
            """
    }

    /// "14:05" of an RFC 3339 time.
    static func clock(_ rfc3339: String) -> String {
        guard let t = rfc3339.firstIndex(of: "T") else { return HTML.escape(rfc3339) }
        return HTML.escape(String(rfc3339[rfc3339.index(after: t)...].prefix(5)))
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

    public static func learning(_ days: [ControlReply.ReportDay]) -> String {
        let most = days.map { $0.learningCreditedSeconds + $0.learningRefusedSeconds }.max() ?? 0
        let series = [Series(kind: "counted", words: "counted") { HTML.duration($0.learningCreditedSeconds) },
                      Series(kind: "refused", words: "not counted") { HTML.duration($0.learningRefusedSeconds) }]
        return chart(id: "learning", title: "Learning: counted, and not counted", days: days, scale: most, label: short, series: series) { d, x, w, y0, px in
            let counted = px(d.learningCreditedSeconds), refused = px(d.learningRefusedSeconds)
            return bar(x, y0 - counted, w, counted, "counted", d.learningCreditedSeconds, "\(d.day): \(HTML.duration(d.learningCreditedSeconds)) counted")
                + bar(x, y0 - counted - refused, w, refused, "refused", d.learningRefusedSeconds,
                      "\(d.day): \(HTML.duration(d.learningRefusedSeconds)) not counted")
                + figure(x + w / 2, y0 - counted - refused, d.learningCreditedSeconds > 0 ? short(d.learningCreditedSeconds) : nil)
        }
    }

    public static func gameTime(_ days: [ControlReply.ReportDay]) -> String {
        let limit = days.compactMap(\.rewardDailyLimitSeconds).max()
        let most = max(limit ?? 0, days.compactMap(\.rewardUsedSeconds).max() ?? 0)
        var series = [Series(kind: "played", words: "played") { $0.rewardUsedSeconds.map(HTML.duration) }]
        if limit != nil { series.append(Series(kind: "limit", words: "that day's limit", line: true) { $0.rewardDailyLimitSeconds.map(HTML.duration) }) }
        return chart(id: "game", title: limit.map { "Game time against the daily limit of \(HTML.duration($0))" } ?? "Game time (no daily limit)",
                     days: days, scale: most, label: short, series: series) { d, x, w, y0, px in
            var out = "", highest = y0
            if let used = d.rewardUsedSeconds {
                out += bar(x, y0 - px(used), w, px(used), "played", used, "\(d.day): \(HTML.duration(used)) played")
                highest = y0 - px(used)
            }
            if let l = d.rewardDailyLimitSeconds {
                out += line(x, w, y0 - px(l), "limit", l, "\(d.day): limit \(HTML.duration(l))")
                highest = min(highest, y0 - px(l))
            }
            return out + figure(x + w / 2, highest, d.rewardUsedSeconds.map(short))
        }
    }

    /// Screen time (the computer as a whole) each day against that day's limit (a schedule may
    /// give a day another), and the limit with the parents' extra minutes when they gave some.
    /// Nothing when no day has screen figures (the policy has no `[screen]`).
    public static func screenTime(_ days: [ControlReply.ReportDay]) -> String {
        guard days.contains(where: { $0.screenUsedSeconds != nil || $0.screenLimitSeconds != nil }) else { return "" }
        let limits = Set(days.compactMap(\.screenLimitSeconds))
        let title = limits.isEmpty ? "Screen time (no daily limit)"
            : limits.count == 1 ? "Screen time against the daily limit of \(HTML.duration(limits.first!))" : "Screen time against each day's limit"
        let most = days.map { d in max(d.screenUsedSeconds ?? 0, (d.screenLimitSeconds ?? 0) + (d.screenLimitSeconds == nil ? 0 : d.screenBonusSeconds ?? 0)) }.max() ?? 0
        var series = [Series(kind: "used", words: "used") { $0.screenUsedSeconds.map(HTML.duration) }]
        if !limits.isEmpty {
            series.append(Series(kind: "limit", words: "that day's limit", line: true) { $0.screenLimitSeconds.map(HTML.duration) })
        }
        if days.contains(where: { ($0.screenBonusSeconds ?? 0) > 0 && $0.screenLimitSeconds != nil }) {
            series.append(Series(kind: "bonus", words: "with the parents' extra time", line: true) { d in
                guard let l = d.screenLimitSeconds, let b = d.screenBonusSeconds, b > 0 else { return nil }
                return HTML.duration(l + b)
            })
        }
        return chart(id: "screen", title: title, days: days, scale: most, label: short, series: series) { d, x, w, y0, px in
            var out = "", highest = y0
            if let used = d.screenUsedSeconds {
                out += bar(x, y0 - px(used), w, px(used), "used", used, "\(d.day): \(HTML.duration(used)) of screen time")
                highest = y0 - px(used)
            }
            if let l = d.screenLimitSeconds {
                out += line(x, w, y0 - px(l), "limit", l, "\(d.day): limit \(HTML.duration(l))")
                highest = min(highest, y0 - px(l))
                if let bonus = d.screenBonusSeconds, bonus > 0 {
                    out += line(x, w, y0 - px(l + bonus), "bonus", l + bonus,
                                "\(d.day): limit with the parents' extra \(HTML.duration(bonus)): \(HTML.duration(l + bonus))")
                    highest = min(highest, y0 - px(l + bonus))
                }
            }
            return out + figure(x + w / 2, highest, d.screenUsedSeconds.map(short))
        }
    }

    public static func points(_ days: [ControlReply.ReportDay]) -> String {
        func earned(_ d: ControlReply.ReportDay) -> Int64 { d.pointsEarned + max(0, d.pointsAdjusted) }
        let most = days.map { max(earned($0), $0.pointsSpent) }.max() ?? 0
        let series = [Series(kind: "earned", words: "earned or given") { "\(earned($0))" },
                      Series(kind: "spent", words: "spent") { "\($0.pointsSpent)" }]
        return chart(id: "points", title: "Points earned (and given) against points spent", days: days, scale: most, label: { "\($0)" },
                     series: series) { d, x, w, y0, px in
            let half = max(1, w / 2)
            return bar(x, y0 - px(earned(d)), half, px(earned(d)), "earned", earned(d), "\(d.day): \(earned(d)) points earned or given")
                + bar(x + half, y0 - px(d.pointsSpent), half, px(d.pointsSpent), "spent", d.pointsSpent, "\(d.day): \(d.pointsSpent) points spent")
                + figure(x + half / 2, y0 - px(earned(d)), earned(d) > 0 ? "\(earned(d))" : nil)
                + figure(x + half + half / 2, y0 - px(d.pointsSpent), d.pointsSpent > 0 ? "\(d.pointsSpent)" : nil)
        }
    }

    /// The frame: the scale on the left (nothing, half and the most, each with its figure in
    /// `label`'s words), each day's weekday under its group, the legend in the caption and the
    /// table after the drawing; `draw` gives a day's bars from its x, width, baseline and the
    /// scale (value → pixels).
    static func chart(id: String, title: String, days: [ControlReply.ReportDay], scale: Int64, label: (Int64) -> String,
                      series: [Series], draw: (ControlReply.ReportDay, Int, Int, Int, (Int64) -> Int) -> String) -> String {
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
            out += "<text class=\"day\" x=\"\(x + w / 2)\" y=\"\(height - 7)\" text-anchor=\"middle\">\(HTML.escape(dayName(d.day)))</text></g>"
        }
        return out + "</svg>" + table(days, series) + "</figure>"
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
    static func table(_ days: [ControlReply.ReportDay], _ series: [Series]) -> String {
        var out = "<div class=\"sr-only\"><table><thead><tr><th scope=\"col\">Day</th>"
        out += series.map { "<th scope=\"col\">\(HTML.escape($0.words))</th>" }.joined() + "</tr></thead><tbody>"
        for d in days {
            out += "<tr><th scope=\"row\">\(HTML.escape(dayName(d.day, long: true)))</th>"
            out += series.map { "<td>\(HTML.escape($0.figure(d) ?? "none"))</td>" }.joined() + "</tr>"
        }
        return out + "</tbody></table></div>"
    }

    /// "Mon 23" under a bar; `long`: "Monday 2026-11-23" (the table's). The date as it came when
    /// it is not one.
    static func dayName(_ day: String, long: Bool = false) -> String {
        guard let key = CalendarDate.key(of: day) else { return day }
        let weekday = CalendarDate.weekday(of: key).rawValue
        if long { return ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"][weekday] + " " + day }
        return ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][weekday] + " " + String(Int(day.suffix(2)) ?? 0)
    }

    /// A duration short enough to stand above a bar: "40 s", "35 min", "1 h", "1 h 05".
    static func short(_ seconds: Int64) -> String {
        let s = max(0, seconds)
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) min" }
        let m = s / 60 % 60
        return "\(s / 3600) h" + (m == 0 ? "" : m < 10 ? " 0\(m)" : " \(m)")
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
