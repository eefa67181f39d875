import ControlProtocol
import ScreenTimeCore
import ScreenTimeWords

/// The policy page's forms (issue 40): the apps and websites the child used that no rule names,
/// sorted in one tap each; the limits, bedtime, goal and points; the chores; and the history of
/// changes with undo. Every change goes to the daemon's `policy_change`, which checks it as
/// `stctl policy check` does and keeps the file's comments; limits and chores are shown before
/// and after first (`preview`), a sort is made at once (the history undoes it).
///
/// The forms name their fields `key.N` (a policy key), `value.N` (as typed) and `was.N` (the
/// value the form showed: a field left as it was is not a change), `kind.N` (`hours`: typed as
/// "07:00-12:00, 14:00-20:00") and `unset.N` ("yes": remove the key or entry).
public enum PolicyEditing {
    /// How many fields a form may carry (the daemon takes at most 50 changes).
    static let most = 50

    // MARK: - Reading a form

    /// The changes a form asks for, in its order.
    public static func changes(_ form: FormFields) -> [ControlRequest.PolicyChange] {
        var out: [ControlRequest.PolicyChange] = []
        for i in 0..<most {
            guard let key = form["key.\(i)"], !key.isEmpty else { continue }
            if form["unset.\(i)"] == "yes" { out.append(.init(key: key, value: nil)); continue }
            let typed = trimmed(form["value.\(i)"] ?? "")
            if let was = form["was.\(i)"], trimmed(was) == typed { continue }
            if typed.isEmpty { out.append(.init(key: key, value: nil)); continue }
            out.append(.init(key: key, value: form["kind.\(i)"] == "hours" ? hoursArray(typed) : typed))
        }
        // A new chore: its name, points and how often.
        if let name = form["chore-name"].map(trimmed), !name.isEmpty, !name.contains("]") {
            out.append(.init(key: "chores[\(name)].points", value: trimmed(form["chore-points"] ?? "")))
            out.append(.init(key: "chores[\(name)].every", value: tomlString(form["chore-every"] ?? "day")))
        }
        return out
    }

    /// Programs that run other programs: named by their path, an entry would count every script
    /// or game they run (docs/policy.md: these are named by their Flatpak or window instead).
    static let interpreters = ["sh", "bash", "dash", "zsh", "fish", "python", "python3", "perl", "ruby", "node", "nodejs", "java", "gjs",
                               "wine", "wine64", "mono", "lua", "php", "tclsh", "wish", "env", "flatpak", "bwrap", "ld-linux-x86-64.so.2"]

    /// Whether a program seen may be sorted as learning or neither (which can only help the
    /// child): not when its path is the child's to change (the child could put anything there),
    /// not an interpreter, and not a path with a pattern's characters (`*`, `?`, `[`), which the
    /// policy would read as a pattern matching other programs. Game and blocked may always be
    /// chosen: they only cost the child.
    public static func mayHelp(exe: String, flatpak: String?, trusted: Bool) -> Bool {
        if flatpak != nil { return true }
        let name = exe.split(separator: "/").last.map(String.init) ?? exe
        let base = name.prefix { !$0.isNumber && $0 != "." }
        return trusted && !exe.contains(where: { "*?[".contains($0) }) && !interpreters.contains(name) && !interpreters.contains(String(base))
    }

    /// The changes of one tap on a sort button: the program (by its exe or Flatpak id) or the
    /// website (by its domain) named, with the category tapped. `taken`: the names the policy
    /// uses already (a new entry's name must differ). Nil for what may not be sorted so.
    public static func sorting(_ form: FormFields, taken: [String], seen: [ControlReply.SeenApp] = []) -> [ControlRequest.PolicyChange]? {
        guard let category = form["category"], ["learning", "reward", "neutral", "blocked"].contains(category) else { return nil }
        if let domain = form["domain"].map(trimmed), !domain.isEmpty {
            let name = unique(domain, taken: taken)
            return [.init(key: "sites[\(name)].category", value: tomlString(category)),
                    .init(key: "sites[\(name)].domains", value: "[\(tomlString(domain))]")]
        }
        let wanted = trimmed(form["name"] ?? "")
        // not shown: the name of the policy file's new entry when the form gives none (the file's, not the page's words)
        let name = unique(wanted.isEmpty ? "an app" : wanted, taken: taken)
        var out: [ControlRequest.PolicyChange] = [.init(key: "apps[\(name)].category", value: tomlString(category))]
        if let flatpak = form["flatpak"].map(trimmed), !flatpak.isEmpty {
            out.append(.init(key: "apps[\(name)].flatpak", value: tomlString(flatpak)))
        } else if let exe = form["exe"].map(trimmed), exe.hasPrefix("/"), !exe.contains(where: { "*?[".contains($0) }) {
            // What the daemon saw of it, not what the form says.
            let app = seen.first { $0.exe == exe && $0.flatpak == nil }
            if category == "learning" || category == "neutral" {
                guard let app, mayHelp(exe: exe, flatpak: nil, trusted: app.trusted) else { return nil }
            }
            out.append(.init(key: "apps[\(name)].exe", value: "[\(tomlString(exe))]"))
        } else {
            return nil
        }
        return out
    }

    /// `name`, or `name 2`, `name 3`… when the policy uses it (names are unique; `]` would end the key).
    static func unique(_ name: String, taken: [String]) -> String {
        let clean = String(name.filter { $0 != "]" && $0 != "[" }.prefix(60))
        var candidate = clean, n = 1
        while taken.contains(candidate) { n += 1; candidate = "\(clean) \(n)" }
        return candidate
    }

    /// "07:00-12:00, 14:00-20:00" as the TOML array `["07:00-12:00", "14:00-20:00"]`.
    static func hoursArray(_ typed: String) -> String {
        let windows = typed.split(whereSeparator: { $0 == "," || $0 == " " || $0 == ";" }).map(String.init).filter { !$0.isEmpty }
        return "[" + windows.map(tomlString).joined(separator: ", ") + "]"
    }

    /// A TOML basic string.
    static func tomlString(_ text: String) -> String { TOMLString.quoted(text) }

    static func trimmed<S: StringProtocol>(_ s: S) -> String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = s.firstIndex(where: { !blank($0) }), let last = s.lastIndex(where: { !blank($0) }) else { return "" }
        return String(s[first...last])
    }

    /// A value as the policy writes it (TOML text), as a parent reads and types it: `"90m"` is
    /// 90m, `["07:00-12:00", "14:00-20:00"]` is 07:00-12:00, 14:00-20:00.
    public static func shown(_ value: String?) -> String {
        guard let value else { return "" }
        var strings: [String] = [], current = "", inString = false, escaped = false, other = false
        for c in value {
            if inString {
                if escaped { current.append(c); escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { strings.append(current); current = ""; inString = false } else { current.append(c) }
            } else if c == "\"" {
                inString = true
            } else if !(c == "[" || c == "]" || c == "," || c == " " || c == "\n") {
                other = true
            }
        }
        return other || strings.isEmpty ? value : strings.joined(separator: ", ")
    }

    // MARK: - The page's parts

    /// The sort buttons for what the child used that no rule names, in the language of `tr`.
    public static func sortSection(apps: [ControlReply.SeenApp], sites: [ControlReply.SeenSite], child: String, csrf: String,
                                   tr: Translator = .english) -> String {
        let e = { (text: String) in HTML.escape(text) }
        let unnamedApps = apps.filter { $0.app == nil }.prefix(20)
        let unnamedSites = sites.filter { $0.site == nil }.prefix(20)
        var out = "<section id=\"sort\"><h3>\(e(tr("Sort what {child} used", ["child": child])))</h3>"
        guard !unnamedApps.isEmpty || !unnamedSites.isEmpty else {
            return out + "<p>\(e(tr("Every app {child} used this week is sorted already.", ["child": child])))</p></section>"
        }
        out += "<p>\(e(tr("These count as neither learning nor games until you sort them. One tap sorts one; the history below can undo it.")))</p><ul class=\"sort\">"
        let choices = [("learning", tr("Learning", context: "sort")), ("reward", tr("Game", context: "sort")), ("neutral", tr("Neither", context: "sort")),
                       ("blocked", tr("Blocked", context: "sort"))]
        func buttons(helping: Bool = true) -> String {
            choices.filter { helping || $0.0 == "reward" || $0.0 == "blocked" }.map { value, words in
                "<button type=\"submit\" name=\"category\" value=\"\(value)\">\(e(words))</button>"
            }.joined()
        }
        let hidden = HTML.csrfField(csrf) + "<input type=\"hidden\" name=\"child\" value=\"\(HTML.escape(child))\">"
        for app in unnamedApps {
            // Named by what identifies it (the child chooses a program's name, not its path).
            let name = app.flatpak ?? (app.exe.split(separator: "/").last.map(String.init) ?? app.comm)
            let helping = mayHelp(exe: app.exe, flatpak: app.flatpak, trusted: app.trusted)
            let because = app.trusted ? tr("it runs other programs, or its name is a pattern") : tr("{child} can change this program", ["child": child])
            let why = helping ? "" : " <small class=\"note\">\(e(tr("(only game or blocked: {why})", ["why": because])))</small>"
            let which = app.flatpak.map { "<input type=\"hidden\" name=\"flatpak\" value=\"\(HTML.escape($0))\">" }
                ?? "<input type=\"hidden\" name=\"exe\" value=\"\(HTML.escape(app.exe))\">"
            let started = tr.plural("{program}, started {n} time", "{program}, started {n} times", Int(app.starts), ["program": app.flatpak ?? app.exe])
            out += "<li class=\"unsorted\" data-name=\"\(HTML.escape(name))\"><span><strong>\(HTML.escape(name))</strong> <small>\(e(started))</small></span>"
                + "<form method=\"post\" action=\"/policy/sort\" class=\"choices\" aria-label=\"\(e(tr("Sort {name}", ["name": name])))\">\(hidden)"
                + "<input type=\"hidden\" name=\"name\" value=\"\(HTML.escape(name))\">\(which)\(buttons(helping: helping))</form>\(why)</li>"
        }
        for site in unnamedSites {
            let visits = tr.plural("website, {n} visit", "website, {n} visits", Int(site.reports))
            out += "<li class=\"unsorted\" data-name=\"\(HTML.escape(site.domain))\"><span><strong>\(HTML.escape(site.domain))</strong> <small>\(e(visits))</small></span>"
                + "<form method=\"post\" action=\"/policy/sort\" class=\"choices\" aria-label=\"\(e(tr("Sort {name}", ["name": site.domain])))\">\(hidden)"
                + "<input type=\"hidden\" name=\"domain\" value=\"\(HTML.escape(site.domain))\">\(buttons())</form></li>"
        }
        return out + "</ul></section>"
    }

    /// The limits, hours, goal and points as fields, each with its value now; each named by its
    /// key in the language of `tr` (`rule`), else as the daemon names it.
    public static func settingsSection(_ settings: [ControlReply.PolicySummary.Setting], child: String, csrf: String, tr: Translator = .english) -> String {
        let e = { (text: String) in HTML.escape(text) }
        var out = "<section id=\"limits\"><h3>\(e(tr("Limits, bedtime and points")))</h3>"
            + "<p>\(e(tr("Durations like 90m or 1h30m; hours like 07:00-20:30 (several with commas). Empty: no such rule.")))</p>"
            + "<form method=\"post\" action=\"/policy/change\">\(HTML.csrfField(csrf))<input type=\"hidden\" name=\"child\" value=\"\(HTML.escape(child))\">"
            + "<input type=\"hidden\" name=\"step\" value=\"preview\">"
        for (i, s) in settings.prefix(most).enumerated() {
            let value = shown(s.value)
            let numeric = s.kind == "number" ? " inputmode=\"numeric\"" : ""
            out += "<label>\(e(rule(s.key, tr) ?? s.label)) <input name=\"value.\(i)\" value=\"\(HTML.escape(value))\" data-key=\"\(HTML.escape(s.key))\"\(numeric)></label>"
                + "<input type=\"hidden\" name=\"key.\(i)\" value=\"\(HTML.escape(s.key))\"><input type=\"hidden\" name=\"was.\(i)\" value=\"\(HTML.escape(value))\">"
                + (s.kind == "hours" ? "<input type=\"hidden\" name=\"kind.\(i)\" value=\"hours\">" : "")
        }
        return out + "<button type=\"submit\">\(e(tr("Show the change")))</button></form></section>"
    }

    /// The chores, each with a remove button, and a form for a new one, in the language of `tr`.
    public static func choresSection(_ chores: [ControlReply.PolicySummary.Chore], child: String, csrf: String, tr: Translator = .english) -> String {
        let e = { (text: String) in HTML.escape(text) }
        let hidden = HTML.csrfField(csrf) + "<input type=\"hidden\" name=\"child\" value=\"\(HTML.escape(child))\"><input type=\"hidden\" name=\"step\" value=\"preview\">"
        var out = "<section id=\"chore-rules\"><h3>\(e(tr("Chores")))</h3><ul class=\"chores\">"
        for c in chores {
            out += "<li>\(e(PolicyPage.chore(c, tr)))"
                + "<form method=\"post\" action=\"/policy/change\" class=\"inline\">\(hidden)<input type=\"hidden\" name=\"key.0\" value=\"chores[\(HTML.escape(c.name))]\">"
                + "<input type=\"hidden\" name=\"unset.0\" value=\"yes\"><button type=\"submit\" aria-label=\"\(e(tr("Remove the chore {chore}", ["chore": c.name])))\">\(e(tr("Remove")))</button></form></li>"
        }
        return out + "</ul><form method=\"post\" action=\"/policy/change\" id=\"new-chore\">\(hidden)"
            + "<label>\(e(tr("A new chore"))) <input name=\"chore-name\" required maxlength=\"60\"></label>"
            + "<label>\(e(tr("Points", context: "page"))) <input name=\"chore-points\" inputmode=\"numeric\" required value=\"10\"></label>"
            + "<label>\(e(tr("How often"))) <select name=\"chore-every\"><option value=\"day\">\(e(tr("every day")))</option><option value=\"week\">\(e(tr("every week")))</option>"
            + "<option value=\"once\">\(e(tr("once", context: "chore")))</option></select></label><button type=\"submit\">\(e(tr("Show the change")))</button></form></section>"
    }

    /// The changes made through screentime, newest first, each with undo while it stands; in the
    /// language of `tr` (who made it is as the daemon recorded it).
    public static func historySection(_ history: [ControlReply.PolicyChangeLine], child: String, csrf: String, tr: Translator = .english) -> String {
        let e = { (text: String) in HTML.escape(text) }
        var out = "<section id=\"history\"><h3>\(e(tr("Changes")))</h3>"
        guard !history.isEmpty else { return out + "<p>\(e(tr("No change was made here or with stctl yet.")))</p></section>" }
        out += "<ol class=\"history\" reversed>"
        for c in history.prefix(20) {
            let when = c.at.map { String($0.prefix(16)).replacingFirst("T", with: " ") } ?? ""
            // Who made it in bold: the words around it are the translation's.
            var f = ["when": when, "parent": "\u{1}"]
            f["id"] = c.undoes.map(String.init)
            let head = c.undoes == nil ? tr("{when}, {parent}", f) : tr("{when}, {parent} (undid change {id})", f)
            var line = "<li class=\"change\" data-change=\"\(c.id ?? 0)\"><p>" + e(head).replacing("\u{1}", with: "<strong>\(HTML.escape(c.by ?? "?"))</strong>")
            line += "</p>" + linesTable(c.changes, tr)
            if let later = c.undoneBy {
                line += "<p class=\"note\">\(e(tr("Undone by change {id}.", ["id": String(later)])))</p>"
            } else if let id = c.id {
                line += "<form method=\"post\" action=\"/policy/undo\">\(HTML.csrfField(csrf))<input type=\"hidden\" name=\"child\" value=\"\(HTML.escape(child))\">"
                    + "<input type=\"hidden\" name=\"change\" value=\"\(id)\"><button type=\"submit\">\(e(tr("Undo")))</button></form>"
            }
            out += line + "</li>"
        }
        return out + "</ol></section>"
    }

    /// Each rule's value before and after, as a parent reads them: the rule in words (`rule`; its
    /// key when it has none), the values as the policy writes them.
    static func linesTable(_ lines: [ControlReply.PolicyChangeLine.Line], _ tr: Translator = .english) -> String {
        let e = { (text: String) in HTML.escape(text) }
        let unset = tr("not set", context: "policy key")
        return "<table class=\"change-lines\"><thead><tr><th scope=\"col\">\(e(tr("Rule")))</th><th scope=\"col\">\(e(tr("Before")))</th><th scope=\"col\">\(e(tr("After")))</th></tr></thead><tbody>"
            + lines.map { l in
                "<tr data-key=\"\(e(l.key))\"><th scope=\"row\">\(e(rule(l.key, tr) ?? l.key))</th><td class=\"before\">\(e(l.before == nil ? unset : shown(l.before)))</td>"
                    + "<td class=\"after\">\(e(l.after == nil ? unset : shown(l.after)))</td></tr>"
            }.joined() + "</tbody></table>"
    }

    /// A policy key (as `policy_change` takes it) in words, in the language of `tr`: the rules the
    /// page's forms change, and the entries its sort buttons and chore form write; nil for another.
    public static func rule(_ key: String, _ tr: Translator = .english) -> String? {
        switch key {
        case "rewards.daily_limit": return tr("Games a day")
        case "rewards.weekly_limit": return tr("Games a week")
        case "rewards.allowed_hours": return tr("Games at these hours")
        case "screen.daily_limit": return tr("Screen time a day")
        case "screen.allowed_hours": return tr("The computer at these hours (the last end is bedtime)")
        case "points.daily_goal": return tr("Learning goal a day")
        case "points.learning_per_hour": return tr("Points for an hour of learning")
        case "points.per_reward_minute": return tr("Points a minute of games costs")
        default: break
        }
        // `table[name]` or `table[name].field`.
        guard let open = key.firstIndex(of: "["), let close = key.lastIndex(of: "]"), open < close else { return nil }
        let table = key[..<open], name = String(key[key.index(after: open)..<close])
        let rest = key[key.index(after: close)...]
        guard rest.isEmpty || rest.hasPrefix(".") else { return nil }
        let field = String(rest.dropFirst())
        switch (table, field) {
        case ("schedules", "daily_limit"): return tr("Games a day on {schedule}", ["schedule": name])
        case ("schedules", "screen_daily_limit"): return tr("Screen time a day on {schedule}", ["schedule": name])
        case ("schedules", "screen_allowed_hours"): return tr("The computer on {schedule} at these hours (the last end is bedtime)", ["schedule": name])
        case ("apps", ""): return tr("The app {app}", ["app": name])
        case ("apps", "category"): return tr("What the app {app} counts as", ["app": name])
        case ("apps", "exe"): return tr("The program of the app {app}", ["app": name])
        case ("apps", "flatpak"): return tr("The Flatpak of the app {app}", ["app": name])
        case ("sites", ""): return tr("The website {site}", ["site": name])
        case ("sites", "category"): return tr("What the website {site} counts as", ["site": name])
        case ("sites", "domains"): return tr("The domains of the website {site}", ["site": name])
        case ("chores", ""): return tr("The chore {chore}", ["chore": name])
        case ("chores", "points"): return tr("Points for the chore {chore}", ["chore": name])
        case ("chores", "every"): return tr("How often the chore {chore} may be done", ["chore": name])
        default: return nil
        }
    }

    /// The change before it is made: before and after, and a button that makes it; in the
    /// language of `tr`.
    public static func previewPage(_ change: ControlReply.PolicyChangeLine, asked: [ControlRequest.PolicyChange], child: String, csrf: String,
                                   tr: Translator = .english) -> String {
        let e = { (text: String) in HTML.escape(text) }
        var fields = HTML.csrfField(csrf) + "<input type=\"hidden\" name=\"child\" value=\"\(HTML.escape(child))\"><input type=\"hidden\" name=\"step\" value=\"apply\">"
        for (i, c) in asked.prefix(most).enumerated() {
            fields += "<input type=\"hidden\" name=\"key.\(i)\" value=\"\(HTML.escape(c.key))\">"
            fields += c.value.map { "<input type=\"hidden\" name=\"value.\(i)\" value=\"\(HTML.escape($0))\">" } ?? "<input type=\"hidden\" name=\"unset.\(i)\" value=\"yes\">"
        }
        let body = "<main class=\"policy\"><h2>\(e(tr("Change {child}'s rules?", ["child": child])))</h2><section id=\"preview\">" + linesTable(change.changes, tr)
            + "<p>\(e(tr("The policy file keeps its comments; this change is checked as a whole and can be undone later.")))</p>"
            + "<form method=\"post\" action=\"/policy/change\">\(fields)<button type=\"submit\">\(e(tr("Apply")))</button></form>"
            + "<p><a href=\"/policy?child=\(HTML.escape(child))\">\(e(tr("Cancel")))</a></p></section></main>"
        return HTML.page(title: tr("Change the policy"), body: body, signedIn: true, csrf: csrf, tr: tr)
    }
}

extension String {
    /// The string with the first `target` replaced.
    func replacingFirst(_ target: Character, with replacement: String) -> String {
        guard let i = firstIndex(of: target) else { return self }
        return String(self[..<i]) + replacement + String(self[index(after: i)...])
    }
}
