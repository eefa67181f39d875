import ControlProtocol

/// A child's day (sessions, with the reasons time was not counted, in words) and their week as
/// charts the server draws (SVG; nothing is loaded from elsewhere, no script draws them).
public enum ChildPage {
    public static func page(child: String, day: String, sessions: [ControlReply.SessionLine], week: [ControlReply.ReportDay],
                            csrf: String) -> String {
        var body = "<main class=\"day\" data-child=\"\(HTML.escape(child))\">"
        body += "<h2>\(HTML.escape(day))</h2>"
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

/// Bar charts of a week, as SVG: one group per day, each bar with its figure in `data-` attributes
/// and a `<title>` (what a screen reader says, and what a test reads).
public enum WeekCharts {
    static let width = 340, height = 150, top = 10, bottom = 24

    public static func learning(_ days: [ControlReply.ReportDay]) -> String {
        let most = days.map { $0.learningCreditedSeconds + $0.learningRefusedSeconds }.max() ?? 0
        return chart(id: "learning", title: "Learning: counted, and not counted", days: days, scale: most) { d, x, w, y0, px in
            let counted = px(d.learningCreditedSeconds), refused = px(d.learningRefusedSeconds)
            return bar(x, y0 - counted, w, counted, "counted", d.learningCreditedSeconds, "\(d.day): \(HTML.duration(d.learningCreditedSeconds)) counted")
                + bar(x, y0 - counted - refused, w, refused, "refused", d.learningRefusedSeconds,
                      "\(d.day): \(HTML.duration(d.learningRefusedSeconds)) not counted")
        }
    }

    public static func gameTime(_ days: [ControlReply.ReportDay]) -> String {
        let limit = days.compactMap(\.rewardDailyLimitSeconds).max()
        let most = max(limit ?? 0, days.compactMap(\.rewardUsedSeconds).max() ?? 0)
        return chart(id: "game", title: limit.map { "Game time against the daily limit of \(HTML.duration($0))" } ?? "Game time (no daily limit)",
                     days: days, scale: most) { d, x, w, y0, px in
            var out = ""
            if let used = d.rewardUsedSeconds {
                out += bar(x, y0 - px(used), w, px(used), "played", used, "\(d.day): \(HTML.duration(used)) played")
            }
            if let l = d.rewardDailyLimitSeconds {
                out += "<line class=\"limit\" x1=\"\(x - 2)\" x2=\"\(x + w + 2)\" y1=\"\(y0 - px(l))\" y2=\"\(y0 - px(l))\" data-seconds=\"\(l)\"><title>\(HTML.escape(d.day)): limit \(HTML.duration(l))</title></line>"
            }
            return out
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
        return chart(id: "screen", title: title, days: days, scale: most) { d, x, w, y0, px in
            var out = ""
            if let used = d.screenUsedSeconds {
                out += bar(x, y0 - px(used), w, px(used), "used", used, "\(d.day): \(HTML.duration(used)) of screen time")
            }
            if let l = d.screenLimitSeconds {
                out += line(x, w, y0 - px(l), "limit", l, "\(d.day): limit \(HTML.duration(l))")
                if let bonus = d.screenBonusSeconds, bonus > 0 {
                    out += line(x, w, y0 - px(l + bonus), "bonus", l + bonus,
                                "\(d.day): limit with the parents' extra \(HTML.duration(bonus)): \(HTML.duration(l + bonus))")
                }
            }
            return out
        }
    }

    public static func points(_ days: [ControlReply.ReportDay]) -> String {
        let most = days.map { max($0.pointsEarned + max(0, $0.pointsAdjusted), $0.pointsSpent) }.max() ?? 0
        return chart(id: "points", title: "Points earned (and given) against points spent", days: days, scale: most) { d, x, w, y0, px in
            let half = max(1, w / 2)
            let earned = d.pointsEarned + max(0, d.pointsAdjusted)
            return bar(x, y0 - px(earned), half, px(earned), "earned", earned, "\(d.day): \(earned) points earned or given")
                + bar(x + half, y0 - px(d.pointsSpent), half, px(d.pointsSpent), "spent", d.pointsSpent, "\(d.day): \(d.pointsSpent) points spent")
        }
    }

    /// The frame: a day's label under each group; `draw` gives a day's bars from its x, width,
    /// baseline and the scale (value → pixels).
    static func chart(id: String, title: String, days: [ControlReply.ReportDay], scale: Int64,
                      draw: (ControlReply.ReportDay, Int, Int, Int, (Int64) -> Int) -> String) -> String {
        let n = max(1, days.count)
        let slot = width / n, w = max(4, slot * 6 / 10)
        let y0 = height - bottom
        let px: (Int64) -> Int = { v in scale <= 0 || v <= 0 ? 0 : Int((v * Int64(y0 - top)) / scale) }
        var out = "<figure class=\"chart\"><figcaption>\(HTML.escape(title))</figcaption>"
        out += "<svg id=\"chart-\(id)\" viewBox=\"0 0 \(width) \(height)\" width=\"100%\" role=\"img\" aria-label=\"\(HTML.escape(title))\">"
        out += "<line class=\"axis\" x1=\"0\" x2=\"\(width)\" y1=\"\(y0)\" y2=\"\(y0)\"/>"
        for (i, d) in days.enumerated() {
            let x = i * slot + (slot - w) / 2
            out += "<g data-day=\"\(HTML.escape(d.day))\">" + draw(d, x, w, y0, px)
            out += "<text x=\"\(x + w / 2)\" y=\"\(height - 8)\" text-anchor=\"middle\">\(HTML.escape(String(d.day.suffix(5))))</text></g>"
        }
        return out + "</svg></figure>"
    }

    /// A day's limit across its bar, its seconds in `data-seconds`.
    static func line(_ x: Int, _ w: Int, _ y: Int, _ kind: String, _ seconds: Int64, _ title: String) -> String {
        "<line class=\"\(kind)\" x1=\"\(x - 2)\" x2=\"\(x + w + 2)\" y1=\"\(y)\" y2=\"\(y)\" data-kind=\"\(kind)\" data-seconds=\"\(seconds)\"><title>\(HTML.escape(title))</title></line>"
    }

    static func bar(_ x: Int, _ y: Int, _ w: Int, _ h: Int, _ kind: String, _ value: Int64, _ title: String) -> String {
        "<rect class=\"\(kind)\" x=\"\(x)\" y=\"\(y)\" width=\"\(w)\" height=\"\(h)\" data-kind=\"\(kind)\" data-value=\"\(value)\"><title>\(HTML.escape(title))</title></rect>"
    }
}
