import ControlProtocol
import ScreenTimeWords

/// The login page: the parent passphrase, checked by the daemon (with its lock after five wrong ones).
public enum LoginPage {
    /// In the language of `tr` (`error` is shown as it is given).
    public static func page(csrf: String, error: String?, tr: Translator = .english) -> String {
        let problem = error.map { "<p class=\"error\" role=\"alert\">\(HTML.escape($0))</p>" } ?? ""
        let e = { (text: String) in HTML.escape(text) }
        return HTML.page(title: tr("Parents"), body: """
            <main class="login">\(problem)
            <form method="post" action="/login">\(HTML.csrfField(csrf))
            <label>\(e(tr("Which parent are you?"))) <input type="text" name="parent" autocomplete="username" maxlength="64" autofocus></label>
            <label>\(e(tr("Parent passphrase"))) <input type="password" name="passphrase" autocomplete="current-password" required></label>
            <button type="submit">\(e(tr("Log in")))</button></form>
            </main>
            """, signedIn: false, tr: tr, here: "/login")
    }
}

/// The policy in force, read-only, and `simulate` of another policy's text: the last days under it.
public enum PolicyPage {
    /// `child`: whose policy it is; `children`: the session's, each a link to theirs (system mode
    /// gives each child a policy of their own).
    /// `summary`: the policy in figures (the daemon's); the file itself is behind a disclosure.
    /// `editing`: what the page may change (the apps and sites the child used, the changes made
    /// so far), nil for a page without forms; `flash`: what the last change did.
    /// In the language of `tr` (`error` is shown as it is given); `here`: the page's own path, for
    /// the links to the other languages (none without it).
    public static func page(policy: String, summary: ControlReply.PolicySummary? = nil, child: String, children: [String], csrf: String,
                            tried: String? = nil, simulation: [ControlReply.SimulatedDay]? = nil, error: String? = nil,
                            editing: Editing? = nil, flash: Flash? = nil, tr: Translator = .english, here: String? = nil) -> String {
        let e = { (text: String) in HTML.escape(text) }
        var body = "<main class=\"policy\">" + (flash?.html ?? "")
        if children.count > 1 {
            body += "<p class=\"children\">" + children.map { c in
                c == child ? "<strong>\(HTML.escape(c))</strong>" : "<a href=\"/policy?child=\(HTML.escape(c))\">\(HTML.escape(c))</a>"
            }.joined(separator: " · ") + "</p>"
        }
        body += "<h2>\(e(tr("{child}'s rules", ["child": child])))</h2>" + (summary.map { Self.summary($0, tr) } ?? "")
        if let editing, let summary {
            body += "<h2>\(e(tr("Change the rules")))</h2>"
                + PolicyEditing.sortSection(apps: editing.apps, sites: editing.sites, child: child, csrf: csrf, tr: tr)
                + PolicyEditing.settingsSection(summary.settings ?? [], child: child, csrf: csrf, tr: tr)
                + PolicyEditing.choresSection(summary.chores, child: child, csrf: csrf, tr: tr)
                + PolicyEditing.historySection(editing.history, child: child, csrf: csrf, tr: tr)
        }
        body += "<details id=\"policy-file\"\(summary == nil ? " open" : "")><summary>\(e(tr("The policy file as written")))</summary>"
            + "<pre id=\"policy-text\">\(HTML.escape(hidingPassphrase(policy)))</pre></details>"
        body += "<h2>\(e(tr("Try another policy")))</h2>"
        if let error { body += "<p class=\"error\" role=\"alert\">\(HTML.escape(error))</p>" }
        if let simulation { body += table(simulation, tr) }
        body += """
            <form method="post" action="/simulate" enctype="multipart/form-data">\(HTML.csrfField(csrf))<input type="hidden" name="child" value="\(HTML.escape(child))">
            <label>\(e(tr("A policy file"))) <input type="file" name="file" accept=".toml,text/plain"></label>
            <label>\(e(tr("or its text"))) <textarea name="policy" rows="10">\(HTML.escape(tried ?? ""))</textarea></label>
            <button type="submit">\(e(tr("Simulate {child}'s last 7 days", ["child": child])))</button></form></main>
            """
        return HTML.page(title: tr("Policy"), body: body, signedIn: true, csrf: csrf, tr: tr, here: here)
    }

    /// What the page's forms need besides the policy: the programs and websites the child used
    /// (`apps`), and the changes made so far (`policy_history`).
    public struct Editing: Sendable {
        public var apps: [ControlReply.SeenApp]
        public var sites: [ControlReply.SeenSite]
        public var history: [ControlReply.PolicyChangeLine]
        public init(apps: [ControlReply.SeenApp], sites: [ControlReply.SeenSite], history: [ControlReply.PolicyChangeLine]) {
            self.apps = apps; self.sites = sites; self.history = history
        }
    }

    /// The policy read at a glance: points, the coming week's limits day by day, what it names
    /// in each category, the chores; in the language of `tr`.
    static func summary(_ p: ControlReply.PolicySummary, _ tr: Translator = .english) -> String {
        func figure(_ term: String, _ value: String) -> String { "<div><dt>\(HTML.escape(term))</dt><dd>\(HTML.escape(value))</dd></div>" }
        let duration = { (seconds: Int64) in HTML.duration(seconds, tr) }
        let list = tr(", ", context: "list")
        var out = "<section id=\"policy-summary\"><dl class=\"figures\">"
        out += figure(tr("Learning earns"), tr.plural("{n} point an hour", "{n} points an hour", Int(p.learningPerHour), ["n": WeekCharts.number(p.learningPerHour, tr)]))
        out += figure(tr("A minute of games costs"), tr.plural("{n} point", "{n} points", Int(p.pointsPerRewardMinute), ["n": WeekCharts.number(p.pointsPerRewardMinute, tr)]))
        if let goal = p.dailyGoalSeconds { out += figure(tr("Learning goal"), tr("{duration} a day", ["duration": duration(goal)])) }
        if let week = p.gameWeeklyLimitSeconds { out += figure(tr("Games in a week"), tr("at most {duration}", ["duration": duration(week)])) }
        if let week = p.screenWeeklyLimitSeconds { out += figure(tr("Screen time in a week"), tr("at most {duration}", ["duration": duration(week)])) }
        out += "</dl><h3>\(HTML.escape(tr("The coming week")))</h3>"
        let screen = p.week.contains { $0.screenDailyLimitSeconds != nil || $0.screenHours != nil }
        out += "<table class=\"week\"><thead><tr><th scope=\"col\">\(HTML.escape(tr("Day")))</th><th scope=\"col\">\(HTML.escape(tr("Games", context: "page")))</th>"
            + (screen ? "<th scope=\"col\">\(HTML.escape(tr("Screen time", context: "page")))</th>" : "") + "</tr></thead><tbody>"
        // A day's limit, then its hours ("at no hour" when it has none that day).
        func rules(_ limit: Int64?, _ hours: [String]?) -> [String] {
            [limit.map { tr("{duration} a day", ["duration": duration($0)]) } ?? tr("no daily limit")]
                + (hours.map { $0.isEmpty ? [tr("at no hour")] : $0 } ?? [])
        }
        for d in p.week {
            var games = rules(d.gameDailyLimitSeconds, d.gameHours)
            if d.gameFreeSeconds > 0 { games.append(tr("{duration} free", ["duration": duration(d.gameFreeSeconds)])) }
            out += "<tr data-day=\"\(HTML.escape(d.date))\"><th scope=\"row\">\(HTML.escape(WeekCharts.dayName(d.date, tr)))"
                + (d.schedule.map { " <small>(\(HTML.escape($0)))</small>" } ?? "") + "</th><td>\(HTML.escape(games.joined(separator: list)))</td>"
            if screen {
                var time = rules(d.screenDailyLimitSeconds, d.screenHours).joined(separator: list)
                if let end = d.screenHours?.last?.split(separator: "-").last { time = tr("{rules}; bedtime {time}", ["rules": time, "time": String(end)]) }
                out += "<td>\(HTML.escape(time))</td>"
            }
            out += "</tr>"
        }
        out += "</tbody></table>"
        let kinds = [("learning", tr("Learning", context: "page")), ("reward", tr("Games", context: "page")), ("blocked", tr("Blocked", context: "page")),
                     ("neutral", tr("Neither (not counted)"))]
        let named = kinds.compactMap { kind, words -> String? in
            let entries = p.entries.filter { $0.category == kind }
            guard !entries.isEmpty else { return nil }
            return figure(words, entries.map { $0.site ? tr("{name} (website)", ["name": $0.name]) : $0.name }.joined(separator: list))
        }
        if !named.isEmpty { out += "<h3>\(HTML.escape(tr("Apps and websites")))</h3><dl class=\"named\">" + named.joined() + "</dl>" }
        if !p.chores.isEmpty {
            out += "<h3>\(HTML.escape(tr("Chores")))</h3><ul class=\"chores\">" + p.chores.map { "<li>\(HTML.escape(chore($0, tr)))</li>" }.joined() + "</ul>"
        }
        return out + "<p class=\"note\">\(HTML.escape(tr("Times are in {zone}.", ["zone": p.timeZone])))</p></section>"
    }

    /// "Dishes: 20 points, every day".
    static func chore(_ c: ControlReply.PolicySummary.Chore, _ tr: Translator = .english) -> String {
        tr.plural("{chore}: {n} point, {every}", "{chore}: {n} points, {every}", Int(c.points),
                  ["chore": c.name, "n": WeekCharts.number(c.points, tr), "every": every(c.every, tr)])
    }

    /// A chore's period as the daemon names it from the policy (`Chore.Every`: "every day", "once a
    /// week", "once", "on mon, thu"), fixed names used as codes, in the words of `tr`; as it is
    /// when it is none of these.
    static func every(_ every: String, _ tr: Translator = .english) -> String {
        switch every {
        // not shown: the daemon's fixed names of a period, matched to be said in the page's words
        case "every day": return tr("every day")
        case "once a week": return tr("once a week")
        case "once": return tr("once", context: "chore")
        default:
            guard every.hasPrefix("on ") else { return every }
            let days = every.dropFirst(3).split(separator: ",").map { WeekdayWords.name($0.filter { $0 != " " }, tr) }
            return tr("on {days}", ["days": days.joined(separator: tr(", ", context: "list"))])
        }
    }

    /// The passphrase's hash is the parents' secret's shadow: not shown on a screen.
    static func hidingPassphrase(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            let t = line.drop { $0 == " " || $0 == "\t" }
            return t.hasPrefix("passphrase_hash") ? line.prefix(line.count - t.count) + "passphrase_hash = (hidden)" : String(line)
        }.joined(separator: "\n")
    }

    static func table(_ days: [ControlReply.SimulatedDay], _ tr: Translator = .english) -> String {
        let e = { (text: String) in HTML.escape(text) }
        var out = "<table class=\"simulation\"><thead><tr><th>\(e(tr("Day")))</th><th>\(e(tr("Points", context: "page")))</th><th>\(e(tr("Learning counted")))</th>"
            + "<th>\(e(tr("Game time", context: "page")))</th></tr></thead><tbody>"
        let duration = { (seconds: Int64) in HTML.duration(seconds, tr) }
        for d in days {
            func change(_ old: Int64, _ new: Int64, _ text: (Int64) -> String) -> String {
                old == new ? text(new) : "\(text(old)) → <strong>\(text(new))</strong>"
            }
            out += "<tr data-day=\"\(HTML.escape(d.day))\"><td>\(HTML.escape(String(d.day.suffix(5))))</td>"
            out += "<td>\(change(d.old.points, d.new.points) { HTML.escape(WeekCharts.number($0, tr)) })</td>"
            out += "<td>\(change(d.old.learningCreditedSeconds, d.new.learningCreditedSeconds) { HTML.escape(duration($0)) })</td>"
            out += "<td>\(change(d.old.gameSeconds, d.new.gameSeconds) { HTML.escape(duration($0)) })</td></tr>"
        }
        return out + "</tbody></table>"
    }
}

/// The page's own style sheet and script (the Content-Security-Policy allows nothing else).
public enum PageAssets {
    // not shown: the style sheet (CSS)
    public static let style = """
        *{box-sizing:border-box}
        body{font:16px/1.4 system-ui,sans-serif;margin:0;padding:0 12px 24px;max-width:720px;margin-inline:auto;color:#1b1b1b;background:#fafafa}
        header{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:8px}
        h1{font-size:1.4rem;margin:12px 0}
        nav{display:flex;flex-wrap:wrap;gap:12px;align-items:center}
        .inline{display:inline}
        footer{margin-top:24px;font-size:.9rem}
        .child{background:#fff;border:1px solid #ddd;border-radius:10px;padding:8px 12px;margin:12px 0}
        .child h2{margin:4px 0;font-size:1.2rem}
        .badge{background:#c62828;color:#fff;border-radius:10px;padding:1px 8px;font-size:.85rem;vertical-align:middle}
        .figures{display:grid;grid-template-columns:repeat(auto-fit,minmax(140px,1fr));gap:6px;margin:8px 0}
        .figures div{background:#f1f5f9;border-radius:6px;padding:6px}
        dt{font-size:.8rem;color:#555}
        dd{margin:0;font-size:1.1rem;font-weight:600;overflow-wrap:anywhere}
        .waiting{border-left:4px solid #c62828;padding:4px 8px;margin:8px 0;background:#fff7f7}
        .row{display:flex;flex-wrap:wrap;gap:6px;align-items:end;margin:6px 0}
        label.check{flex-direction:row;align-items:center;gap:4px}
        label{display:flex;flex-direction:column;font-size:.85rem;max-width:100%}
        input,textarea,button{font:inherit;max-width:100%}
        input[type=number]{width:6em}
        textarea{width:100%}
        button{padding:6px 12px;border-radius:6px;border:1px solid #888;background:#eee}
        .note{color:#555;font-size:.9rem}
        .flash{background:#e8f5e9;padding:6px 8px;border-radius:6px}
        .error{background:#ffebee;border-left:4px solid #c62828;padding:6px 8px;border-radius:6px}
        pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#fff;border:1px solid #ddd;padding:8px}
        .sessions{padding-left:1.2em}
        .session{margin:6px 0;overflow-wrap:anywhere}
        .app{font-weight:600}
        .chart{margin:12px 0}
        .chart>svg{max-width:100%;height:auto;background:#fff;border:1px solid #ddd}
        .chart text{font-size:10px;fill:#333}
        .chart text.value{font-size:9px;font-weight:600}
        .legend{display:flex;flex-wrap:wrap;gap:4px 12px;font-size:.85rem}
        .key svg{vertical-align:middle}
        .days{margin:4px 0 8px}
        .sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
        rect.counted,rect.played,rect.earned{fill:#2e7d32}
        rect.used{fill:#1565c0}
        line.bonus{stroke:#ef6c00;stroke-width:2;stroke-dasharray:4 2}
        rect.refused{fill:#c8e6c9}
        rect.spent{fill:#ef6c00}
        line.limit{stroke:#c62828;stroke-width:2}
        line.axis{stroke:#999}
        line.grid{stroke:#ddd;stroke-dasharray:2 2}
        table{border-collapse:collapse;width:100%}
        ul.sort{list-style:none;padding:0}
        li.unsorted{display:flex;flex-wrap:wrap;justify-content:space-between;gap:6px;padding:6px 0;border-bottom:1px solid #ddd}
        li.unsorted small{overflow-wrap:anywhere}
        form.choices{display:flex;flex-wrap:wrap;gap:4px}
        #limits form,#new-chore{display:flex;flex-direction:column;gap:8px}
        table.change-lines th,table.change-lines td{overflow-wrap:anywhere;text-align:left;padding:2px 4px}
        td.after{font-weight:600}
        td,th{border-bottom:1px solid #ddd;padding:4px;text-align:left}
        .named dd{font-weight:400;font-size:1rem}
        details{margin:12px 0}
        @media (prefers-color-scheme:dark){
        body{color:#e8e8e8;background:#121212}
        a{color:#9ecbff}
        .child,pre,.chart>svg{background:#1e1e1e;border-color:#3a3a3a}
        .figures div{background:#263238}
        dt,.note{color:#b0b0b0}
        .waiting{background:#2b1d1d}
        .flash{background:#1b3320}
        .error{background:#3b1d1d}
        button,input,textarea,select{background:#2a2a2a;color:#e8e8e8;border-color:#777}
        .chart text{fill:#ddd}
        rect.refused{fill:#4f7a52}
        line.axis{stroke:#888}
        line.grid{stroke:#444}
        td,th{border-color:#3a3a3a}
        }
        """

    /// Follows the daemon: /events sends the family part again whenever it changed, and says when
    /// the session is over (then back to the login page). It decides nothing.
    // not shown: the page's script (its words are <html>'s data-clock-…, in the page's language)
    public static let script = """
        "use strict";
        // Figures that run on between two updates (game time left counting down, learning today
        // up): counted here by the second from when the page got them; the daemon's next figures
        // set them right. The same words as HTML.clock.
        var shownAt = performance.now();
        // In the page's language: <html>'s data-clock-s, -m and -h (HTML.clockWords).
        function clock(s) {
          function two(n) { return n < 10 ? "0" + n : "" + n; }
          var root = document.documentElement;
          function words(which, fallback, values) {
            var text = root.getAttribute("data-clock-" + which) || fallback;
            return text.replace(/\\{(\\w+)\\}/g, function (all, name) { return name in values ? values[name] : all; });
          }
          if (s < 60) return words("s", "{s} s", {s: s});
          if (s < 3600) return words("m", "{m} min {ss} s", {m: Math.floor(s / 60), ss: two(s % 60)});
          return words("h", "{h} h {mm} min {ss} s", {h: Math.floor(s / 3600), mm: two(Math.floor(s / 60) % 60), ss: two(s % 60)});
        }
        function runOn() {
          var passed = Math.floor((performance.now() - shownAt) / 1000);
          Array.prototype.forEach.call(document.querySelectorAll("[data-counting]"), function (el) {
            var s = parseInt(el.getAttribute("data-seconds"), 10);
            if (isNaN(s)) return;
            el.textContent = clock(el.getAttribute("data-counting") === "down" ? Math.max(0, s - passed) : s + passed);
          });
        }
        setInterval(runOn, 1000);
        (function () {
          var family = document.getElementById("family");
          if (!family || !window.EventSource) return;
          var waiting = null;
          // Not while a parent types in one of its fields: then when they leave it.
          function typing() { var a = document.activeElement; return a && family.contains(a) && a.tagName !== "BUTTON"; }
          function show(html) {
            if (typing()) { waiting = html; return; }
            // What the parent opened stays open: each child's section, and which of its panels
            // (by class: give, today, screen).
            var open = Array.prototype.map.call(family.querySelectorAll("details[open]"), function (d) {
              return "#" + CSS.escape(d.closest("section").id) + " details." + CSS.escape(d.className);
            });
            family.innerHTML = html;
            shownAt = performance.now();
            waiting = null;
            open.forEach(function (where) { var d = document.querySelector(where); if (d) d.open = true; });
          }
          family.addEventListener("focusout", function () { setTimeout(function () { if (waiting !== null) show(waiting); }, 0); });
          // Only what differs from the version this page shows is sent.
          var events = new EventSource("/events?since=" + encodeURIComponent(family.getAttribute("data-version") || ""));
          events.addEventListener("family", function (e) { show(e.data); });
          events.addEventListener("ended", function () { events.close(); window.location.assign("/login"); });
        })();
        """
}
