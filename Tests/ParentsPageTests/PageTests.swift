import ControlProtocol
import ParentsPage
import ScreenTimeCore
import Testing

/// The parents' page without a server: what it shows, and how it keeps a parent's session.
@Suite("The parents' page")
struct PageTests {
    static func status(balance: Int64 = 54, requests: [ControlReply.RequestLine]? = nil, chores: [ControlReply.ChoreLine]? = nil) -> ControlReply.Status {
        var s = ControlReply.Status(balance: balance, rewardAvailableSeconds: 1200, rewardRemainingSeconds: 1200, rewardTodayRemainingSeconds: 1200,
                                    rewardUsedTodaySeconds: 600, learningTodaySeconds: 2100, pointsToday: 35, pointsPerRewardMinute: 2,
                                    currentApp: "<GCompris>", currentCategory: "learning", currentCounts: "counts", observers: .init(proc: true, logind: true, focusHook: true, notifications: false),
                                    hooks: ["x11"], blindSpots: [])
        s.goalSeconds = 2700
        s.requests = requests
        s.chores = chores
        return s
    }

    @Test("what a child or an app's name says is shown as text, never as markup")
    func escaping() {
        #expect(HTML.escape("<script>alert('x')</script> & \"") == "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;")
        let request = ControlReply.RequestLine(child: nil, id: "3", at: "2026-11-26T10:00:00Z", minutes: 20, reason: "<img src=x onerror=alert(1)>",
                                               state: "pending", expiresAt: nil, pay: nil, minutesGranted: nil, decidedAt: nil, by: nil, answer: nil)
        let html = FamilyPage.fragment([.init(child: "emma", status: Self.status(requests: [request]))], csrf: "t0k")
        #expect(!html.contains("<img"))
        #expect(html.contains("&lt;img src=x onerror=alert(1)&gt;"))
        #expect(html.contains("&lt;GCompris&gt;"))
        // A host is the extension's report, the child's to make up: text too.
        var site = Self.status()
        site.currentSite = "<b>.example"
        let withSite = FamilyPage.fragment([.init(child: "emma", status: site)], csrf: "t0k")
        #expect(withSite.contains("data-figure=\"now\">&lt;GCompris&gt; (&lt;b&gt;.example) <small>(learning: earns points while you use it)</small></dd>"), "\(withSite)")
        // A copy the policy does not trust: said so, from the category and the trust (not the daemon's English).
        site.currentTrusted = false
        #expect(FamilyPage.fragment([.init(child: "emma", status: site)], csrf: "t0k")
                    .contains("<small>(learning, but not from a place the policy trusts: earns nothing)</small>"))
    }

    @Test("a child's card: game time left, points, learning against the goal, and a pending request with its answers and their cost")
    func familyCard() {
        let request = ControlReply.RequestLine(child: nil, id: "7", at: "2026-11-26T10:00:00Z", minutes: 20, reason: "one more level",
                                               state: "pending", expiresAt: nil, pay: nil, minutesGranted: nil, decidedAt: nil, by: nil, answer: nil)
        let chore = ControlReply.ChoreLine(child: nil, chore: "dishes", points: 15, every: "every day", state: "pending", note: nil,
                                           claimedAt: nil, decidedAt: nil, by: nil, answer: nil)
        let html = FamilyPage.fragment([.init(child: "emma", status: Self.status(requests: [request], chores: [chore]))], csrf: "t0k")
        #expect(html.contains("data-seconds=\"1200\">20 min</dd>"))
        #expect(html.contains("data-points=\"54\">54</dd>"))
        #expect(html.contains("35 min of the 45 min goal"))
        #expect(html.contains("data-waiting=\"2\">2 waiting"))
        #expect(html.contains("Approve (40 points)"))          // 20 min × 2 points a minute
        #expect(html.contains("name=\"id\" value=\"7\""))
        #expect(html.contains("Approve (+15 points)"))
        // The same state gives the same text (so /events sends only changes), another state another.
        let member = ControlReply.FamilyMember(child: "emma", status: Self.status(requests: [request], chores: [chore]))
        #expect(FamilyPage.fragment([member], csrf: "t0k") == html)
        let richer = ControlReply.FamilyMember(child: "emma", status: Self.status(balance: 55, requests: [request], chores: [chore]))
        #expect(FamilyPage.version(of: FamilyPage.fragment([richer], csrf: "t0k")) != FamilyPage.version(of: html))
        // Every form carries the session's token.
        #expect(html.components(separatedBy: "<form").count - 1 == html.components(separatedBy: "name=\"csrf\" value=\"t0k\"").count - 1)
    }

    @Test("the week's charts carry each day's figures, on one scale")
    func charts() {
        let days = [("2026-11-24", 1800, 600, 900, 3600), ("2026-11-25", 3600, 0, 3600, 3600)].map { d in
            ControlReply.ReportDay(day: d.0, learningCreditedSeconds: Int64(d.1), learningRefusedSeconds: Int64(d.2), refused: [],
                                   pointsEarned: 30, pointsSpent: 20, pointsAdjusted: 0, rewardUsedSeconds: Int64(d.3),
                                   rewardDailyLimitSeconds: Int64(d.4), topApps: [])
        }
        let learning = WeekCharts.learning(days)
        #expect(learning.contains("data-kind=\"counted\" data-value=\"1800\""))
        #expect(learning.contains("data-kind=\"refused\" data-value=\"600\""))
        // The longest day (60 min) fills the chart's 130 pixels (170 high, 18 above for the
        // figures, 22 below for the days); 30 min half of them.
        #expect(learning.contains("height=\"130\" data-kind=\"counted\" data-value=\"3600\""))
        #expect(learning.contains("height=\"65\" data-kind=\"counted\" data-value=\"1800\""))
        let game = WeekCharts.gameTime(days)
        #expect(game.contains("against the daily limit of 1 h 00 min"))
        #expect(game.contains("data-kind=\"played\" data-value=\"900\""))
    }

    /// The texts of a chart's elements of one class, in order.
    static func texts(_ svg: String, _ cls: String) -> [String] {
        svg.components(separatedBy: "<text class=\"\(cls)\"").dropFirst().map { part in
            String(part[part.index(after: part.firstIndex(of: ">")!)..<part.firstRange(of: "</text>")!.lowerBound])
        }
    }

    @Test("a chart read at a glance (issue #40): each day's figure written above its bars, the scale on its axis, weekday names, a legend, and a table of the figures in words for screen readers")
    func chartsAtAGlance() {
        // Tuesday 24 and Wednesday 25 November 2026.
        let days = [("2026-11-24", 1800, 600, 900, 45), ("2026-11-25", 3600, 0, 4500, 0)].map { d in
            ControlReply.ReportDay(day: d.0, learningCreditedSeconds: Int64(d.1), learningRefusedSeconds: Int64(d.2), refused: [],
                                   pointsEarned: Int64(d.4), pointsSpent: 20, pointsAdjusted: 0, rewardUsedSeconds: Int64(d.3),
                                   rewardDailyLimitSeconds: 3600, topApps: [])
        }
        let learning = WeekCharts.learning(days)
        #expect(Self.texts(learning, "day") == ["Tue 24", "Wed 25"])
        // 30 min counted on Tuesday, 1 h on Wednesday: the scale goes to the longest day.
        #expect(Self.texts(learning, "value") == ["30 min", "1 h"])
        #expect(Self.texts(learning, "tick") == ["0", "30 min", "1 h"])
        #expect(learning.contains("<span class=\"key\">") && learning.contains("</svg> counted</span>") && learning.contains("</svg> not counted</span>"))
        // The drawing is hidden from screen readers; the table says it all.
        #expect(learning.contains("<svg id=\"chart-learning\" viewBox=\"0 0 360 170\" width=\"100%\" aria-hidden=\"true\">"))
        #expect(learning.contains("<tr><th scope=\"row\">Tuesday 2026-11-24</th><td>30 min</td><td>10 min</td></tr>"), "\(learning)")
        #expect(learning.contains("<tr><th scope=\"row\">Wednesday 2026-11-25</th><td>1 h 00 min</td><td>0 s</td></tr>"), "\(learning)")
        // Game time: 1 h 15 min played on Wednesday against its limit of an hour.
        let game = WeekCharts.gameTime(days)
        #expect(Self.texts(game, "value") == ["15 min", "1 h 15"])
        #expect(Self.texts(game, "tick") == ["0", "37 min", "1 h 15"])
        #expect(game.contains("</svg> that day&#39;s limit</span>"))
        #expect(game.contains("<tr><th scope=\"row\">Wednesday 2026-11-25</th><td>1 h 15 min</td><td>1 h 00 min</td></tr>"), "\(game)")
        // Points: 45 earned and 20 spent on Tuesday; nothing earned on Wednesday is not written.
        let points = WeekCharts.points(days)
        #expect(Self.texts(points, "value") == ["45", "20", "20"])
        #expect(Self.texts(points, "tick") == ["0", "22", "45"])
    }

    @Test("a child's day links to the day before and after and a week before and after, never past today")
    func dayLinks() {
        let page = ChildPage.page(child: "emma", day: "2026-11-25", today: "2026-11-27", sessions: [], week: [], csrf: "t")
        #expect(page.contains("<h2>Wednesday 2026-11-25</h2>"))
        for (day, words) in [("2026-11-18", "← a week before"), ("2026-11-24", "← the day before"), ("2026-11-26", "the day after →"), ("2026-11-27", "today")] {
            #expect(page.contains("<a href=\"/child/emma?day=\(day)\">\(words)</a>"), "no link to \(day)")
        }
        #expect(!page.contains("a week after"), "2026-12-02 is after today")
        let today = ChildPage.page(child: "emma", day: "2026-11-27", sessions: [], week: [], csrf: "t")
        #expect(today.contains("?day=2026-11-26\">← the day before</a>") && !today.contains("the day after") && !today.contains(">today</a>"))
        // Across a month's end and a year's.
        #expect(ChildPage.page(child: "emma", day: "2027-01-01", sessions: [], week: [], csrf: "t").contains("?day=2026-12-31\">← the day before</a>"))
    }

    @Test("every page follows the system's dark mode")
    func darkMode() {
        #expect(HTML.page(title: "t", body: "", signedIn: false).contains("<meta name=\"color-scheme\" content=\"light dark\">"))
        #expect(PageAssets.style.contains("@media (prefers-color-scheme:dark){"))
    }

    @Test("the policy is shown without the passphrase's hash")
    func policyHidesHash() {
        let page = PolicyPage.page(policy: "version = 1\n[parents]\n  passphrase_hash = \"$y$j9T$abc\"\n", child: "emma", children: ["emma", "tom"], csrf: "t")
        #expect(page.contains("<a href=\"/policy?child=tom\">tom</a>"))
        #expect(page.contains("name=\"child\" value=\"emma\""))
        #expect(!page.contains("$y$j9T$abc"))
        #expect(page.contains("  passphrase_hash = (hidden)"))
    }

    @Test("the policy at a glance: its figures, the coming week day by day with its schedule and bedtime, what it names by category, the chores; the file behind a disclosure, its hash hidden")
    func policySummary() {
        let day = { (date: String, schedule: String?, game: Int64?, screen: Int64?) in
            ControlReply.PolicySummary.Day(date: date, schedule: schedule, gameDailyLimitSeconds: game, gameHours: ["15:00-19:00"],
                                           gameFreeSeconds: schedule == nil ? 0 : 1800, learningCapSeconds: 7200,
                                           screenDailyLimitSeconds: screen, screenHours: schedule == nil ? ["07:00-20:30"] : ["08:00-21:00"])
        }
        let summary = ControlReply.PolicySummary(
            timeZone: "Europe/Berlin", learningPerHour: 90, pointsPerRewardMinute: 3, dailyGoalSeconds: 1800, gameWeeklyLimitSeconds: 18_000,
            screenWeeklyLimitSeconds: nil,
            entries: [.init(name: "GCompris", category: "learning", site: false), .init(name: "<Tux>", category: "reward", site: false),
                      .init(name: "Khan Academy", category: "learning", site: true)],
            chores: [.init(name: "Dishes", points: 20, every: "every day")],
            week: [day("2026-11-27", nil, 3600, 7200), day("2026-11-28", "weekend", 10_800, 14_400)])
        let page = PolicyPage.page(policy: "version = 1\npassphrase_hash = \"$y$j9T$abc\"\n", summary: summary, child: "emma", children: ["emma"], csrf: "t")
        #expect(page.contains("<dt>Learning earns</dt><dd>90 points an hour</dd>"))
        #expect(page.contains("<dt>A minute of games costs</dt><dd>3 points</dd>"))
        #expect(page.contains("<dt>Learning goal</dt><dd>30 min a day</dd>"))
        #expect(page.contains("<dt>Games in a week</dt><dd>at most 5 h 00 min</dd>"))
        #expect(!page.contains("Screen time in a week"))
        #expect(page.contains("<tr data-day=\"2026-11-27\"><th scope=\"row\">Fri 27</th><td>1 h 00 min a day, 15:00-19:00</td><td>2 h 00 min a day, 07:00-20:30; bedtime 20:30</td></tr>"), "\(page)")
        #expect(page.contains("<th scope=\"row\">Sat 28 <small>(weekend)</small></th><td>3 h 00 min a day, 15:00-19:00, 30 min free</td><td>4 h 00 min a day, 08:00-21:00; bedtime 21:00</td>"), "\(page)")
        #expect(page.contains("<dt>Learning</dt><dd>GCompris, Khan Academy (website)</dd>"))
        #expect(page.contains("<dt>Games</dt><dd>&lt;Tux&gt;</dd>"))
        #expect(!page.contains("<dt>Blocked</dt>"))
        #expect(page.contains("<li>Dishes: 20 points, every day</li>"))
        // The file is there, closed, without the hash; without a summary it is shown open.
        #expect(page.contains("<details id=\"policy-file\"><summary>The policy file as written</summary><pre id=\"policy-text\">"))
        #expect(!page.contains("$y$j9T$abc"))
        #expect(PolicyPage.page(policy: "version = 1\n", child: "emma", children: ["emma"], csrf: "t").contains("<details id=\"policy-file\" open>"))
    }

    @Test("sessions: a cookie's session lasts its lifetime, ends at logout, and tokens are long, random and compared whole")
    func sessions() {
        var sessions = WebSessions()
        let s = sessions.open(daemonToken: "d", children: ["emma"], lifetime: 60 * Seconds.micro, now: 1_000)
        #expect(s.id.count == 64 && s.csrf.count == 64 && s.id != s.csrf)
        #expect(sessions.session(s.id, now: 1_000 + 59 * Seconds.micro) == s)
        #expect(sessions.session(s.id, now: 1_000 + 60 * Seconds.micro) == nil)
        #expect(sessions.session("nope", now: 1_000) == nil)
        #expect(sessions.close(s.id) != nil)
        #expect(sessions.session(s.id, now: 1_000) == nil)
        #expect(WebSessions.same("abc", "abc") && !WebSessions.same("abc", "abd") && !WebSessions.same("abc", "ab"))
    }

    @Test("forms: + and %XX decoded, the first of a name kept, bad escapes dropped; cookies read by name")
    func forms() {
        let f = FormFields("a=1&reason=one+more%20level%21&a=2&bad=%zz&csrf=")
        #expect(f["a"] == "1")
        #expect(f["reason"] == "one more level!")
        #expect(f["bad"] == nil)
        #expect(f["csrf"] == "")
        #expect(CookieHeader.value(of: "st_session", in: "x=1; st_session=abc ; y=2") == "abc")
        #expect(CookieHeader.value(of: "st_session", in: "st_sessionx=abc") == nil)
    }

    @Test("after a form: a refusal is an alert, in the page's words; what was done is a status; each is shown once")
    func refusalsAreErrors() throws {
        let member = ControlReply.FamilyMember(child: "emma", status: Self.status(balance: 10))
        // What the daemon answers an approval the balance cannot pay: its code and figures (its
        // English, worded for stctl, names --gift and --minutes).
        let daemon = ControlReply.refused(Why(.notApprovedPoints, because: Why(.insufficientPoints, ["cost": "40", "balance": "10"])))
        let refused = FamilyPage.page([member], csrf: "t0k", flash: .answer(daemon, done: "Approved: 20 min for emma"))
        #expect(refused.contains("<p class=\"error\" role=\"alert\">Not approved: it costs 40 points and the balance is 10: give it as a gift, or approve fewer minutes; the request still waits.</p>"), "\(refused)")
        #expect(!refused.contains("role=\"status\"") && !refused.contains("class=\"flash\""))
        #expect(!refused.contains("--gift") && !refused.contains("--minutes") && !refused.contains("Approved: 20 min"))
        let done = FamilyPage.page([member], csrf: "t0k", flash: .answer(ControlReply(ok: true), done: "Approved: 20 min for emma"))
        #expect(done.contains("<p class=\"flash\" role=\"status\">Approved: 20 min for emma</p>"))
        #expect(!done.contains("role=\"alert\""))
        // The two look different: the style sheet gives the alert a red mark of its own.
        let style = PageAssets.style.split(separator: "\n")
        let errorStyle = try #require(style.first { $0.hasPrefix(".error{") }), flashStyle = try #require(style.first { $0.hasPrefix(".flash{") })
        #expect(errorStyle.contains("border-left:4px solid #c62828") && !flashStyle.contains("#c62828"))
        // The session keeps which it was, for the next page only.
        var sessions = WebSessions()
        let s = sessions.open(daemonToken: "d", children: ["emma"], lifetime: 60 * Seconds.micro, now: 1_000)
        sessions.setFlash(.answer(.refused(Why(.notRedeemed, because: Why(.insufficientPoints, ["cost": "40", "balance": "10"]))), done: "Redeemed"), of: s.id)
        #expect(sessions.takeFlash(of: s.id) == .refused("Not redeemed: it costs 40 points and the balance is 10."))
        #expect(sessions.takeFlash(of: s.id) == nil)
    }

    /// Refusals a parent can meet on the page, as the daemon sends them (screentimed's replies:
    /// codes and figures; their English words for stctl name its commands and options).
    @Test("the daemon's refusals are said without stctl's commands and options, from their codes", arguments: [
        (Why(.noSuchRequest, ["id": "7"]),
         "Not done: there is no request 7 here (the requests still waiting are on the family page)."),
        (Why(.approveMinutes, ["id": "7", "most": "20"]),
         "Not done: request 7 asked for 20 min: approve from 1 to 20 min (for more minutes, redeem points)."),
        (Why(.nothingToDecide, because: Why(.choreNotClaimed, ["chore": "dishes"]), ["command": "approve"]),
         "Nothing to approve: no claim of dishes waits for a parent."),
        (Why(.notApprovedPoints, because: Why(.insufficientPoints, ["cost": "40", "balance": "10"])),
         "Not approved: it costs 40 points and the balance is 10: give it as a gift, or approve fewer minutes; the request still waits."),
    ])
    func pageWords(_ why: Why, _ page: String) {
        let said = PageWords.refusal(.refused(why))
        #expect(said == page)
        #expect(!said.contains("stctl") && !said.contains("--") && !said.contains("sudo"))
    }

    @Test("every refusal code the daemon has, in English and in German, without stctl's commands and options")
    func everyCode() {
        for code in Why.Code.allCases {
            let said = PageWords.refusal(.refused(Why(code, ["id": "7", "most": "20", "command": "approve", "child": "emma", "minutes": "30"])))
            #expect(!said.contains("stctl") && !said.contains(" --") && !said.contains("sudo"), "\(code): \(said)")
        }
        // A reply without a code (an older daemon): its words after "Not done:", its commands cut out.
        #expect(PageWords.refusal(ControlReply(ok: false, error: "a new stctl --frobnicate phrase (stctl frob) the page does not know yet; the request still waits"))
                == "Not done: the request still waits.")
    }

    @Test("a policy file sent as multipart/form-data: each part by name")
    func multipart() {
        let body = "--XyZ\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\nt0k\r\n--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"p.toml\"\r\nContent-Type: text/plain\r\n\r\nversion = 1\r\n--x\r\n\r\n--XyZ--\r\n"
        #expect(Multipart.boundary(contentType: "multipart/form-data; boundary=XyZ") == "XyZ")
        #expect(Multipart.boundary(contentType: "multipart/form-data; boundary=\"XyZ\"") == "XyZ")
        #expect(Multipart.boundary(contentType: "application/x-www-form-urlencoded") == nil)
        let parts = Multipart.parts(Array(body.utf8), boundary: "XyZ")
        #expect(parts["csrf"].map { String(decoding: $0, as: UTF8.self) } == "t0k")
        #expect(parts["file"].map { String(decoding: $0, as: UTF8.self) } == "version = 1\r\n--x\r\n")
    }
}

/// Figures that run on between two updates (issue 35).
@Suite("The parents' page: figures that move")
struct RunningFigureTests {
    @Test("a game counting: game time left is marked to count down by the second; the version changes only with its minute")
    func countingDown() {
        var s = PageTests.status()
        s.rewardTodayRemainingSeconds = 725          // 12 min 05 s
        s.rewardRemainingSeconds = 1195
        s.rewardCounting = true
        s.learningCounting = false
        let html = FamilyPage.fragment([.init(child: "emma", status: s)], csrf: "t0k")
        #expect(html.contains("<span class=\"running\" data-counting=\"down\" data-seconds=\"725\">12 min 05 s</span>"))
        #expect(!html.contains("data-counting=\"up\""))
        // A second later, the same minute: the same version (nothing sent); a minute later, another.
        var later = s
        later.rewardTodayRemainingSeconds = 721
        later.rewardRemainingSeconds = s.rewardRemainingSeconds - 4     // redeemed time runs down with it
        #expect(FamilyPage.version(of: [.init(child: "emma", status: later)], csrf: "t0k") == FamilyPage.version(of: [.init(child: "emma", status: s)], csrf: "t0k"))
        later.rewardTodayRemainingSeconds = 719
        #expect(FamilyPage.version(of: [.init(child: "emma", status: later)], csrf: "t0k") != FamilyPage.version(of: [.init(child: "emma", status: s)], csrf: "t0k"))
        // Not counting: the figure is plain, and every second of it is a change.
        s.rewardCounting = false
        let still = FamilyPage.fragment([.init(child: "emma", status: s)], csrf: "t0k")
        #expect(still.contains("data-seconds=\"725\">12 min</dd>"))
        #expect(!still.contains("data-counting"))
    }

    @Test("learning counting: learning today counts up; bonus time and a parent's stop are shown; the forms for them are there")
    func countingUpAndToday() {
        var s = PageTests.status()
        s.learningCounting = true
        s.bonusLeftSeconds = 600
        s.gamesStoppedUntil = "2026-11-26T19:00:00+01:00"
        let html = FamilyPage.fragment([.init(child: "emma", status: s)], csrf: "t0k")
        #expect(html.contains("<span class=\"running\" data-counting=\"up\" data-seconds=\"2100\">35 min 00 s</span> of the 45 min goal"))
        #expect(html.contains("data-figure=\"bonus\">10 min</dd>"))
        #expect(html.contains("data-figure=\"stopped\">stopped until 19:00</dd>"))
        for action in ["/bonus", "/stop-games", "/revoke"] { #expect(html.contains("action=\"\(action)\"")) }
        #expect(html.contains("name=\"until\" value=\"now\""))      // games stopped: they can be let go
        #expect(html.components(separatedBy: "<form").count - 1 == html.components(separatedBy: "name=\"csrf\" value=\"t0k\"").count - 1)
    }

    @Test("the clock words of a running figure")
    func clockWords() {
        #expect(HTML.clock(0) == "0 s")
        #expect(HTML.clock(59) == "59 s")
        #expect(HTML.clock(60) == "1 min 00 s")
        #expect(HTML.clock(3599) == "59 min 59 s")
        #expect(HTML.clock(3661) == "1 h 01 min 01 s")
        #expect(HTML.clock(-5) == "0 s")
    }

    @Test("the refusal before paying for minutes today has no room for, in the page's words")
    func beyondTodayWords() {
        let said = PageWords.refusal(.refused(Why(.beyondToday, ["room": "10", "over": "20", "minutes": "30", "expires": "604800", "child": "emma"])))
        #expect(said.hasSuffix("give bonus time instead; or tick “Even beyond today's limits” and send it again."))
        #expect(!said.contains("--"))
    }
}

/// Screen time on the parents' page (issue #38): the figures beside game time, the three forms,
/// and the week's chart.
@Suite("The parents' page: screen time")
struct ScreenTimePageTests {
    /// Emma's day under `[screen] daily_limit = "2h"`: 45 min used, a parent gave 15 min more,
    /// bedtime at 20:30.
    static let limit: Int64 = 7200, used: Int64 = 2700, bonus: Int64 = 900

    static func screen(counting: Bool = false, limit bound: String? = "screen_daily_limit", left: Int64? = limit + bonus - used,
                       bedtime: String? = "2026-11-26T20:30:00+01:00", freeDay: Bool = false) -> ControlReply.Status.Screen {
        .init(usedTodaySeconds: used, dailyLimitSeconds: limit, bonusSeconds: bonus, leftSeconds: left, limit: bound,
              bedtime: bedtime, freeDay: freeDay, counting: counting, sessions: ["c2"])
    }

    static func card(_ screen: ControlReply.Status.Screen?, asOf: String? = "2026-11-26T12:00:00+01:00") -> String {
        var s = PageTests.status()
        s.screen = screen
        s.asOf = asOf
        return FamilyPage.fragment([.init(child: "emma", status: s)], csrf: "t0k")
    }

    /// The text of one figure (`data-figure`), from its `>` to its `</dd>`.
    static func figure(_ name: String, in html: String) -> String? {
        guard let at = html.firstRange(of: "data-figure=\"\(name)\"") else { return nil }
        let rest = html[at.upperBound...]
        guard let open = rest.firstIndex(of: ">"), let close = rest.firstRange(of: "</dd>") else { return nil }
        return String(rest[rest.index(after: open)..<close.lowerBound])
    }

    @Test("a child with [screen]: screen time left and used of the limit with the bonus, bedtime tonight; the three forms, each with the session's token")
    func figuresAndForms() throws {
        let html = Self.card(Self.screen())
        let left = Self.limit + Self.bonus - Self.used
        #expect(html.contains("data-figure=\"screen-left\" data-seconds=\"\(left)\""))
        #expect(Self.figure("screen-left", in: html) == HTML.duration(left))
        #expect(Self.figure("screen-used", in: html) == "\(HTML.duration(Self.used)) of \(HTML.duration(Self.limit)) + \(HTML.duration(Self.bonus)) bonus")
        #expect(Self.figure("bedtime", in: html) == "20:30")
        // Game time is still there beside it.
        #expect(html.contains("data-figure=\"game-left\""))
        for action in ["/screen-bonus", "/bedtime", "/free-day"] { #expect(html.contains("action=\"\(action)\""), "no form for \(action)") }
        #expect(html.contains("<button type=\"submit\">More screen time today</button>"))
        #expect(html.contains("<input type=\"time\" name=\"until\" required>"))
        // A free day is sent only with its tick (the browser will not send the form without it).
        #expect(html.contains("<input type=\"checkbox\" name=\"sure\" value=\"yes\" required>"))
        #expect(html.components(separatedBy: "<form").count - 1 == html.components(separatedBy: "name=\"csrf\" value=\"t0k\"").count - 1)
    }

    @Test("a child without [screen]: no screen figure, no screen form")
    func noScreen() {
        let html = Self.card(nil)
        for part in ["screen-left", "screen-used", "data-figure=\"bedtime\"", "/screen-bonus", "/free-day", "action=\"/bedtime\""] {
            #expect(!html.contains(part), "\(part) is shown for a child without screen time")
        }
    }

    @Test("screen time counting: left counts down, used up, and the version changes only with the minute; up to bedtime, left counts down by the clock even while not counting")
    func counting() {
        let html = Self.card(Self.screen(counting: true))
        let left = Self.limit + Self.bonus - Self.used
        #expect(html.contains("<span class=\"running\" data-counting=\"down\" data-seconds=\"\(left)\">\(HTML.clock(left))</span>"))
        #expect(html.contains("<span class=\"running\" data-counting=\"up\" data-seconds=\"\(Self.used)\">\(HTML.clock(Self.used))</span>"))
        func version(_ s: ControlReply.Status.Screen) -> String {
            var st = PageTests.status()
            st.screen = s
            return FamilyPage.version(of: [.init(child: "emma", status: st)], csrf: "t0k")
        }
        // 5400 s left and 2700 used: 20 s later both still show their minute (1 h 30 min left, 45 min
        // used), 61 s later neither does.
        var later = Self.screen(counting: true, left: left - 20)
        later.usedTodaySeconds = Self.used + 20
        #expect(version(later) == version(Self.screen(counting: true)))
        later.leftSeconds = left - 61
        later.usedTodaySeconds = Self.used + 61
        #expect(version(later) != version(Self.screen(counting: true)))
        // Bounded by bedtime, not counting: the time to bedtime runs out all the same.
        let bed = Self.card(Self.screen(counting: false, limit: "bedtime", left: 1800))
        #expect(bed.contains("<span class=\"running\" data-counting=\"down\" data-seconds=\"1800\">\(HTML.clock(1800))</span> <small>(until bedtime)</small>"))
        #expect(!bed.contains("data-counting=\"up\" data-seconds=\"\(Self.used)\""))
        // Not counting, bounded by the daily limit: plain figures.
        let still = Self.card(Self.screen(counting: false))
        #expect(!still.contains("data-counting"))
    }

    @Test("a free day: said instead of a limit and a bedtime; no free-day form then")
    func freeDay() {
        let html = Self.card(Self.screen(left: nil, freeDay: true))
        #expect(Self.figure("screen-left", in: html) == "no limit: a free day")
        #expect(Self.figure("bedtime", in: html) == "none: a free day")
        #expect(!html.contains("action=\"/free-day\""))
        #expect(html.contains("Today is a free day: no screen or game limit until midnight."))
        #expect(html.contains("action=\"/screen-bonus\"") && html.contains("action=\"/bedtime\""))
    }

    @Test("bedtime after midnight is said so; none when the policy sets no hours")
    func bedtimeWords() {
        #expect(Self.figure("bedtime", in: Self.card(Self.screen(bedtime: "2026-11-27T00:30:00+01:00"))) == "00:30 after midnight")
        #expect(Self.figure("bedtime", in: Self.card(Self.screen(bedtime: "2026-11-27T00:00:00+01:00"))) == "midnight")
        #expect(Self.figure("bedtime", in: Self.card(Self.screen(bedtime: nil))) == "none (any hour)")
        #expect(Self.figure("screen-left", in: Self.card(Self.screen(limit: nil, left: nil))) == "no limit now")
    }

    @Test("a screen form's id is the same for the same state (a double tap is carried out once) and another once the bonus, bedtime or free day changed")
    func formIDs() throws {
        func rid(_ action: String, _ html: String) throws -> String {
            let marker = "name=\"rid\" value=\"\(action)-"
            let at = try #require(html.firstRange(of: marker))
            return String(html[at.upperBound...].prefix(16))
        }
        let first = Self.card(Self.screen())
        #expect(try rid("screen-bonus", first) == rid("screen-bonus", Self.card(Self.screen())))
        var more = Self.screen()
        more.bonusSeconds += 600
        #expect(try rid("screen-bonus", first) != rid("screen-bonus", Self.card(more)))
        #expect(try rid("bedtime", first) != rid("bedtime", Self.card(Self.screen(bedtime: "2026-11-26T21:15:00+01:00"))))
    }

    @Test("a child's ask for screen minutes: said so, with one answer that gives them free, not for points")
    func screenRequest() {
        var r = ControlReply.RequestLine(child: nil, id: "4", at: "2026-11-26T10:00:00Z", minutes: 20, reason: "finish my project",
                                         state: "pending", expiresAt: nil, pay: nil, minutesGranted: nil, decidedAt: nil, by: nil, answer: nil)
        r.screen = true
        let html = FamilyPage.fragment([.init(child: "emma", status: PageTests.status(requests: [r]))], csrf: "t0k")
        #expect(html.contains("Asks for <strong>20 min of screen time</strong>"))
        #expect(html.contains("<button type=\"submit\" name=\"pay\" value=\"screen\">Give as screen time for today</button>"))
        #expect(!html.contains("points)</button>") && !html.contains("value=\"gift\""))
    }

    static func day(_ date: String, used: Int64?, limit: Int64?, bonus: Int64?) -> ControlReply.ReportDay {
        var d = ControlReply.ReportDay(day: date, learningCreditedSeconds: 0, learningRefusedSeconds: 0, refused: [], pointsEarned: 0,
                                       pointsSpent: 0, pointsAdjusted: 0, rewardUsedSeconds: nil, rewardDailyLimitSeconds: nil, topApps: [])
        d.screenUsedSeconds = used
        d.screenLimitSeconds = limit
        d.screenBonusSeconds = bonus
        return d
    }

    @Test("the week's screen time chart: each day's time against its own limit, the limit with a bonus, on one scale; none without screen figures")
    func chart() {
        // A school day (2 h), a weekend day a schedule gives 3 h, with 1 h of bonus; a day not seen.
        let days = [Self.day("2026-11-27", used: 3600, limit: 7200, bonus: 0), Self.day("2026-11-28", used: 14_400, limit: 10_800, bonus: 3600),
                    Self.day("2026-11-29", used: nil, limit: 10_800, bonus: nil)]
        let chart = WeekCharts.screenTime(days)
        #expect(chart.contains("id=\"chart-screen\""))
        #expect(chart.contains("Screen time against each day&#39;s limit"))
        // The scale is the most of any day: 4 h (used, and the limit with the bonus) fills the 130 pixels.
        #expect(chart.contains("height=\"130\" data-kind=\"used\" data-value=\"14400\""))
        #expect(chart.contains("height=\"32\" data-kind=\"used\" data-value=\"3600\""))            // 1 h: a quarter, 32.5 rounded down
        #expect(chart.contains("data-kind=\"limit\" data-seconds=\"7200\""))
        #expect(chart.contains("data-kind=\"limit\" data-seconds=\"10800\""))
        #expect(chart.contains("data-kind=\"bonus\" data-seconds=\"14400\""))
        #expect(chart.components(separatedBy: "data-kind=\"bonus\"").count - 1 == 1)
        #expect(chart.components(separatedBy: "data-kind=\"used\"").count - 1 == 2)           // the day not seen has no bar
        // The table: each day's own limit, the limit with the bonus where there was one, "none" where nothing was seen.
        #expect(chart.contains("<tr><th scope=\"row\">Saturday 2026-11-28</th><td>4 h 00 min</td><td>3 h 00 min</td><td>4 h 00 min</td></tr>"), "\(chart)")
        #expect(chart.contains("<tr><th scope=\"row\">Sunday 2026-11-29</th><td>none</td><td>3 h 00 min</td><td>none</td></tr>"), "\(chart)")
        #expect(WeekCharts.screenTime([Self.day("2026-11-27", used: 0, limit: 7200, bonus: 0)]).contains("against the daily limit of 2 h 00 min"))
        #expect(WeekCharts.screenTime([Self.day("2026-11-27", used: nil, limit: nil, bonus: nil)]) == "")
        let page = ChildPage.page(child: "emma", day: "2026-11-29", sessions: [], week: days, csrf: "t")
        #expect(page.contains("id=\"chart-screen\"") && page.contains("id=\"chart-game\""))
    }

    /// The daemon's refusals of the three (screentimed's ParentsSay), as a parent reads them.
    @Test("the daemon's refusals of screen time, bedtime and a free day, in the page's words", arguments: [
        ("bonus needs minutes from 1 to 1440 (a day); nothing was given", "Not done: bonus needs minutes from 1 to 1440 (a day); nothing was given."),
        ("bedtime needs a time tonight such as 21:30 (HH:MM, up to 24:00); nothing was changed",
         "Not done: bedtime needs a time tonight such as 21:30 (HH:MM, up to 24:00); nothing was changed."),
        ("the reason is 301 characters long; at most 300, please", "Not done: the reason is 301 characters long; at most 300, please."),
    ])
    func refusals(_ daemon: String, _ page: String) {
        #expect(PageWords.refusal(daemon) == page)
        let shown = FamilyPage.page([.init(child: "emma", status: PageTests.status())], csrf: "t0k", flash: .answer(ok: false, done: "Bedtime", error: daemon))
        #expect(shown.contains("<p class=\"error\" role=\"alert\">\(HTML.escape(page))</p>"))
    }
}
