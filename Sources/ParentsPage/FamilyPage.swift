import ControlProtocol
import ScreenTimeWords

/// The family at a glance: each child's game time left, points, learning against the goal, what
/// they use now, and what waits for a parent (requests and chores) with its answers one tap away.
public enum FamilyPage {
    /// `flash`: what the last form did, or why it did nothing (`Flash`), shown once above the family.
    /// In the language of `tr`.
    public static func page(_ family: [ControlReply.FamilyMember], csrf: String, flash: Flash?, tr: Translator = .english) -> String {
        let note = flash?.html ?? ""
        let part = fragment(family, csrf: csrf, tr: tr)
        return HTML.page(title: tr("Family"), body: note + "<main id=\"family\" data-version=\"\(version(of: family, csrf: csrf, tr: tr))\">" + part + "</main>",
                         signedIn: true, csrf: csrf, tr: tr, here: "/")
    }

    /// The part the page replaces when it changes (sent by /events). The same family and token
    /// always give the same text. `steady`: the figures that run on by themselves (game time
    /// counting down, learning up) to the whole minute, as `version` sees them.
    public static func fragment(_ family: [ControlReply.FamilyMember], csrf: String, steady: Bool = false, tr: Translator = .english) -> String {
        family.map { child($0, csrf: csrf, steady: steady, tr: tr) }.joined(separator: "\n")
    }

    /// The version of what the page shows, which /events compares: a figure the page counts by the
    /// second itself (page.js) changes it only when its minute does, so that the family part is
    /// sent again when something else changed, or once a minute to set the count right.
    public static func version(of family: [ControlReply.FamilyMember], csrf: String, tr: Translator = .english) -> String {
        version(of: fragment(family, csrf: csrf, steady: true, tr: tr))
    }

    /// A figure that runs on while the page shows it: its seconds now, and which way it counts
    /// (page.js counts it by the second from when the page got it).
    static func running(_ seconds: Int64, counting: String?, steady: Bool, _ tr: Translator = .english) -> String {
        guard let counting else { return HTML.duration(seconds, tr) }
        let shown = steady ? seconds / 60 * 60 : seconds
        return "<span class=\"running\" data-counting=\"\(counting)\" data-seconds=\"\(shown)\">\(HTML.clock(shown, tr))</span>"
    }

    /// Names a fragment's text (FNV-1a, 64 bits, in hex): the page says which it shows, and /events
    /// sends another only when it differs. A change detector, not a secret.
    public static func version(of fragment: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in fragment.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        let digits = String(h, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    static func child(_ member: ControlReply.FamilyMember, csrf: String, steady: Bool = false, tr: Translator = .english) -> String {
        let duration = { (seconds: Int64) in HTML.duration(seconds, tr) }
        let e = { (text: String) in HTML.escape(text) }
        let s = member.status
        let name = HTML.escape(member.child)
        let pendingRequests = (s.requests ?? []).filter { $0.state == "pending" }
        let pendingChores = (s.chores ?? []).filter { $0.state == "pending" }
        let waiting = pendingRequests.count + pendingChores.count
        let badge = waiting == 0 ? "" : "<span class=\"badge\" data-waiting=\"\(waiting)\">\(e(tr.plural("{n} waiting", "{n} waiting", waiting)))</span>"
        var learning = running(s.learningTodaySeconds, counting: s.learningCounting == true ? "up" : nil, steady: steady, tr)
        if let goal = s.goalSeconds { learning += e(tr(" of the {goal} goal", ["goal": duration(goal)])) + (s.learningTodaySeconds >= goal ? " ★" : "") }
        let now = s.currentApp.map { app in
            HTML.escape(app) + (s.currentSite.map { " (\(HTML.escape($0)))" } ?? "") + ((s.currentCategory.map { ChildWords.counts($0, trusted: s.currentTrusted ?? true, tr) } ?? s.currentCounts).map { " <small>(\(HTML.escape($0)))</small>" } ?? "")
        } ?? e(tr("nothing the policy names"))
        var out = """
            <section class="child" id="child-\(name)" data-child="\(name)">
            <h2>\(name) \(badge)</h2>
            <dl class="figures">
            <div><dt>\(e(tr("Game time left today")))</dt><dd data-figure="game-left" data-seconds="\(steady && s.rewardCounting == true ? s.rewardTodayRemainingSeconds / 60 * 60 : s.rewardTodayRemainingSeconds)">\
            \(running(s.rewardTodayRemainingSeconds, counting: s.rewardCounting == true ? "down" : nil, steady: steady, tr))</dd></div>
            <div><dt>\(e(tr("Points", context: "page")))</dt><dd data-figure="points" data-points="\(s.balance)">\(WeekCharts.number(s.balance, tr))</dd></div>
            <div><dt>\(e(tr("Learning today", context: "page")))</dt><dd data-figure="learning" data-seconds="\(steady && s.learningCounting == true ? s.learningTodaySeconds / 60 * 60 : s.learningTodaySeconds)">\(learning)</dd></div>
            <div><dt>\(e(tr("Using now")))</dt><dd data-figure="now">\(now)</dd></div>
            """
        if let bonus = s.bonusLeftSeconds {
            out += "<div><dt>\(e(tr("Bonus time left today")))</dt><dd data-figure=\"bonus\">"
                + running(bonus, counting: s.rewardCounting == true && bonus > 0 ? "down" : nil, steady: steady, tr) + "</dd></div>"
        }
        if let until = s.gamesStoppedUntil {
            out += "<div><dt>\(e(tr("Games", context: "page")))</dt><dd data-figure=\"stopped\">\(e(tr("stopped until {time}", ["time": ChildPage.time(until)])))</dd></div>"
        }
        if let screen = s.screen { out += screenFigures(screen, asOf: s.asOf, steady: steady, tr) }
        out += "</dl>"
        // A form sent twice (a double tap) is carried out once: the daemon knows its id, which is
        // the same for the same form of the same state (after an answer the state, and so the id,
        // is another).
        // (Redeemed time left runs down while a game counts: for the version, by the minute.)
        let remaining = steady && s.rewardCounting == true ? s.rewardRemainingSeconds / 60 : s.rewardRemainingSeconds
        let state = version(of: "\(csrf) \(member.child) \(s.balance) \(remaining) \(s.requests?.count ?? 0) \(s.chores?.count ?? 0)")
        func once(_ form: String) -> String { "<input type=\"hidden\" name=\"rid\" value=\"\(form)-\(state)\">" }
        let anyway = "<label class=\"check\"><input type=\"checkbox\" name=\"anyway\" value=\"yes\"> \(e(tr("Even beyond today's limits")))</label>"
        for r in pendingRequests { out += request(r, child: member.child, perMinute: s.pointsPerRewardMinute, csrf: csrf, anyway: anyway, tr) }
        for c in pendingChores { out += chore(c, child: member.child, csrf: csrf, tr) }
        out += """
            <details class="give"><summary>\(e(tr("Redeem or adjust points")))</summary>
            <form method="post" action="/redeem" class="row">\(HTML.csrfField(csrf))\(once("redeem"))<input type="hidden" name="child" value="\(name)">
            <label>\(e(tr("Minutes"))) <input type="number" name="minutes" min="1" max="600" required inputmode="numeric"></label>
            \(anyway)<button type="submit">\(e(tr("Redeem")))</button></form>
            <form method="post" action="/adjust" class="row">\(HTML.csrfField(csrf))\(once("adjust"))<input type="hidden" name="child" value="\(name)">
            <label>\(e(tr("Points", context: "page"))) <input type="number" name="points" required inputmode="numeric"></label>
            <label>\(e(tr("Reason"))) <input type="text" name="reason" maxlength="200" required></label>
            <button type="submit">\(e(tr("Adjust")))</button></form>
            </details>
            <details class="today"><summary>\(e(tr("Today: bonus time, stop games, take minutes back")))</summary>
            <form method="post" action="/bonus" class="row">\(HTML.csrfField(csrf))\(once("bonus"))<input type="hidden" name="child" value="\(name)">
            <label>\(e(tr("Bonus minutes for today"))) <input type="number" name="minutes" min="1" max="1440" required inputmode="numeric"></label>
            <label>\(e(tr("Reason"))) <input type="text" name="reason" maxlength="200"></label>
            <button type="submit">\(e(tr("Give bonus time")))</button></form>
            <form method="post" action="/stop-games" class="row">\(HTML.csrfField(csrf))\(once("stop"))<input type="hidden" name="child" value="\(name)">
            <label>\(e(tr("Until (empty: the end of today)"))) <input type="time" name="until"></label>
            <button type="submit">\(e(tr("Stop games now")))</button></form>
            """
        if s.gamesStoppedUntil != nil {
            out += """
                <form method="post" action="/stop-games" class="row">\(HTML.csrfField(csrf))\(once("lift"))<input type="hidden" name="child" value="\(name)">
                <input type="hidden" name="until" value="now"><button type="submit">\(e(tr("Let games be played again")))</button></form>
                """
        }
        out += """
            <form method="post" action="/revoke" class="row">\(HTML.csrfField(csrf))\(once("revoke"))<input type="hidden" name="child" value="\(name)">
            <label>\(e(tr("Minutes to take back"))) <input type="number" name="minutes" min="1" max="6000" required inputmode="numeric"></label>
            <label class="check"><input type="checkbox" name="refund" value="yes"> \(e(tr("Give the points back")))</label>
            <button type="submit">\(e(tr("Take back")))</button></form>
            </details>
            \(s.screen.map { screenForms($0, child: name, csrf: csrf, state: state, tr) } ?? "")
            <p><a href="/child/\(name)">\(e(tr("{child}'s day and week", ["child": member.child])))</a></p>
            </section>
            """
        return out
    }

    /// Screen time (a policy with `[screen]`): what is left today and what bounds it, what was
    /// used of the day's limit (and the parents' bonus), tonight's bedtime, and a free day.
    static func screenFigures(_ screen: ControlReply.Status.Screen, asOf: String?, steady: Bool, _ tr: Translator = .english) -> String {
        let e = { (text: String) in HTML.escape(text) }
        let leftWords = e(tr("Screen time left today"))
        var out = ""
        if screen.freeDay {
            out += "<div><dt>\(leftWords)</dt><dd data-figure=\"screen-left\" data-free-day=\"yes\">\(e(tr("no limit: a free day")))</dd></div>"
        } else if let left = screen.leftSeconds {
            // Time to bedtime runs out by the clock, whether or not the child is at the computer.
            let down = left > 0 && (screen.counting || screen.limit == "bedtime")
            let why = switch screen.limit {
            case "bedtime": " <small>\(e(tr("(until bedtime)")))</small>"
            case "screen_weekly_limit": " <small>\(e(tr("(this week's limit)")))</small>"
            default: ""
            }
            // For the version, to the minute it shows rounded up: what is left then changes its
            // minute at the same second as what was used (their sum, the limit, is whole minutes).
            let shown = steady && down ? (left + 59) / 60 * 60 : left
            out += "<div><dt>\(leftWords)</dt><dd data-figure=\"screen-left\" data-seconds=\"\(shown)\">"
                + running(shown, counting: down ? "down" : nil, steady: false, tr) + why + "</dd></div>"
        } else {
            out += "<div><dt>\(leftWords)</dt><dd data-figure=\"screen-left\">\(e(tr("no limit now", context: "page")))</dd></div>"
        }
        let used = screen.usedTodaySeconds
        var of = screen.dailyLimitSeconds.map { e(tr(" of {limit}", ["limit": HTML.duration($0, tr)])) } ?? ""
        if screen.bonusSeconds > 0 { of += e(tr(" + {bonus} bonus", ["bonus": HTML.duration(screen.bonusSeconds, tr)])) }
        let seconds = steady && screen.counting ? used / 60 * 60 : used
        out += "<div><dt>\(e(tr("Screen time used today")))</dt><dd data-figure=\"screen-used\" data-seconds=\"\(seconds)\" data-bonus=\"\(screen.bonusSeconds)\">"
            + running(used, counting: screen.counting ? "up" : nil, steady: steady, tr) + of + "</dd></div>"
        let bedtime: String
        if screen.freeDay {
            bedtime = tr("none: a free day")
        } else if let at = screen.bedtime {
            bedtime = Self.bedtime(at, asOf: asOf, tr)
        } else {
            bedtime = tr("none (any hour)")
        }
        out += "<div><dt>\(e(tr("Bedtime tonight")))</dt><dd data-figure=\"bedtime\" data-at=\"\(HTML.escape(screen.bedtime ?? ""))\">\(e(bedtime))</dd></div>"
        return out
    }

    /// "21:30"; "midnight" or "00:30 after midnight" when bedtime falls on the next day's date.
    static func bedtime(_ at: String, asOf: String?, _ tr: Translator = .english) -> String {
        let time = ChildPage.time(at)
        guard let asOf, at.count >= 10, asOf.count >= 10, at.prefix(10) > asOf.prefix(10) else { return time }
        return time == "00:00" ? tr("midnight") : tr("{time} after midnight", ["time": time])
    }

    /// The parents' say over today's screen time: more of it, tonight's bedtime, a free day. A
    /// free day lifts every limit until midnight, so it asks for a tick first (the browser will
    /// not send the form without it, and the server refuses one that comes without it).
    static func screenForms(_ screen: ControlReply.Status.Screen, child name: String, csrf: String, state: String, _ tr: Translator = .english) -> String {
        let e = { (text: String) in HTML.escape(text) }
        // Each form's id changes with what it changes (ParentsSay: a repeated id is answered, not
        // carried out again): a double tap gives once, the next bonus after it is another.
        let mine = version(of: "\(state) \(screen.bonusSeconds) \(screen.bedtime ?? "-") \(screen.freeDay)")
        func start(_ action: String) -> String {
            "<form method=\"post\" action=\"/\(action)\" class=\"row\">\(HTML.csrfField(csrf))<input type=\"hidden\" name=\"rid\" value=\"\(action)-\(mine)\">"
                + "<input type=\"hidden\" name=\"child\" value=\"\(name)\">"
        }
        var out = """
            <details class="screen"><summary>\(e(tr("Screen time: more today, bedtime tonight, a free day")))</summary>
            \(start("screen-bonus"))
            <label>\(e(tr("Minutes of screen time"))) <input type="number" name="minutes" min="1" max="1440" required inputmode="numeric"></label>
            <label>\(e(tr("Reason"))) <input type="text" name="reason" maxlength="200"></label>
            <button type="submit">\(e(tr("More screen time today")))</button></form>
            \(start("bedtime"))
            <label>\(e(tr("Bedtime tonight"))) <input type="time" name="until" required></label>
            <button type="submit">\(e(tr("Set tonight's bedtime")))</button></form>
            """
        if screen.freeDay {
            out += "<p class=\"note\">\(e(tr("Today is a free day: no screen or game limit until midnight.")))</p>"
        } else {
            out += """
                \(start("free-day"))
                <label>\(e(tr("Reason"))) <input type="text" name="reason" maxlength="200"></label>
                <label class="check"><input type="checkbox" name="sure" value="yes" required> \(e(tr("Yes: no screen or game limit for the rest of today")))</label>
                <button type="submit">\(e(tr("Free day")))</button></form>
                """
        }
        return out + "</details>"
    }

    static func request(_ r: ControlReply.RequestLine, child: String, perMinute: Int64, csrf: String, anyway: String, _ tr: Translator = .english) -> String {
        let e = { (text: String) in HTML.escape(text) }
        let id = HTML.escape(r.id)
        let why = r.reason.map { e(tr(": “{reason}”", ["reason": $0])) } ?? ""
        // Screen minutes asked for are given free, as screen time for today (no points, no limit
        // question): one button.
        let answers = r.screen == true ? "<button type=\"submit\" name=\"pay\" value=\"screen\">\(e(tr("Give as screen time for today")))</button>" : """
            <button type="submit" name="pay" value="points">\(e(tr.plural("Approve ({n} point)", "Approve ({n} points)", Int(r.minutes * perMinute), ["n": WeekCharts.number(r.minutes * perMinute, tr)])))</button>
            <button type="submit" name="pay" value="gift">\(e(tr("Give as a gift")))</button>
            <button type="submit" name="pay" value="bonus">\(e(tr("Give as bonus time for today")))</button>\(anyway)
            """
        // The minutes asked for in bold: the words around them are the translation's.
        let minutes = "<strong>" + e(r.screen == true ? tr.plural("{n} min of screen time", "{n} min of screen time", Int(r.minutes))
                                                       : tr("{m} min", context: "duration", ["m": String(r.minutes)])) + "</strong>"
        let asks = e(tr("Asks for {minutes}", ["minutes": "\u{1}"])).replacing("\u{1}", with: minutes)
        return """
            <div class="waiting request" data-request="\(id)">
            <p>\(asks)\(why)</p>
            <form method="post" action="/requests/approve" class="row">\(HTML.csrfField(csrf))<input type="hidden" name="child" value="\(HTML.escape(child))">
            <input type="hidden" name="id" value="\(id)">
            <label>\(e(tr("Minutes"))) <input type="number" name="minutes" min="1" max="\(r.minutes)" value="\(r.minutes)" inputmode="numeric"></label>
            \(answers)</form>
            <form method="post" action="/requests/deny" class="row">\(HTML.csrfField(csrf))<input type="hidden" name="child" value="\(HTML.escape(child))">
            <input type="hidden" name="id" value="\(id)">
            <label>\(e(tr("Why not"))) <input type="text" name="reason" maxlength="200"></label>
            <button type="submit">\(e(tr("Deny")))</button></form>
            </div>
            """
    }

    static func chore(_ c: ControlReply.ChoreLine, child: String, csrf: String, _ tr: Translator = .english) -> String {
        let e = { (text: String) in HTML.escape(text) }
        let name = HTML.escape(c.chore)
        let fields = HTML.csrfField(csrf) + "<input type=\"hidden\" name=\"child\" value=\"\(HTML.escape(child))\"><input type=\"hidden\" name=\"chore\" value=\"\(name)\">"
        let says = e(tr.plural("Says the chore {chore} is done ({n} point)", "Says the chore {chore} is done ({n} points)", Int(c.points), ["chore": "\u{1}"]))
            .replacing("\u{1}", with: "<strong>\(name)</strong>")
        return """
            <div class="waiting chore" data-chore="\(name)">
            <p>\(says)</p>
            <form method="post" action="/chores/approve" class="row">\(fields)<button type="submit">\(e(tr.plural("Approve (+{n} point)", "Approve (+{n} points)", Int(c.points))))</button></form>
            <form method="post" action="/chores/reject" class="row">\(fields)<label>\(e(tr("Why not"))) <input type="text" name="reason" maxlength="200"></label>
            <button type="submit">\(e(tr("Reject")))</button></form>
            </div>
            """
    }
}
