import Foundation
@testable import ScreenTimeCore
import ScreenTimePolicy
import Testing

/// Websites (docs/spec/sites.md): the site in a browser's focused tab is what the child uses.
/// Timelines start on Monday 2026-11-23 at 15:00 in Berlin; the test policy is moderate (idle after
/// 3 minutes, sessions of at least 10 minutes, 60 points an hour, warnings at 5 and 1 minutes).
/// Every expected figure is worked out by hand in the comments.
@Suite("Websites")
struct SitesTests {
    static let chromium = "/usr/lib/chromium/chromium"
    static let firefox = "/usr/lib/firefox-esr/firefox-esr"
    static let browser: Int32 = 50

    static let sites = """

        [[sites]]
        name = "Khan Academy"
        category = "learning"
        domains = ["khanacademy.org"]

        [[sites]]
        name = "YouTube"
        category = "reward"
        domains = ["youtube.com"]

        [[sites]]
        name = "Poki"
        category = "blocked"
        domains = ["poki.com"]

        [[sites]]
        name = "Scratch"
        category = "learning"
        domains = ["scratch.mit.edu"]

        [[sites]]
        name = "MIT"
        category = "neutral"
        domains = ["mit.edu"]

        """

    static func policy(_ overrides: [String: String?] = [:], extra: String = "") -> Policy { testPolicy(overrides, apps: sites + extra) }

    /// The child's Chromium, focused from 0, with 100 points (50 minutes of game time at 2 points a minute).
    static func inChromium() -> Timeline {
        var tl = Timeline()
        tl.adjust(0, points: 100)
        tl.start(0, pid: browser, exe: chromium)
        tl.focus(0, pid: browser)
        return tl
    }

    static func site(_ tl: inout Timeline, _ s: Double, _ host: String?, audible: [String] = []) {
        tl.add(s, .siteChanged(SiteReport(pid: browser, host: host, audible: audible, focused: true)))
    }

    /// The site stops a result ordered, as "SECONDS HOST REASON".
    static func siteStops(_ r: ReplayResult, _ tl: Timeline) -> [String] {
        r.actions.compactMap {
            guard case .siteStop(let s) = $0 else { return nil }
            return "\((s.at - tl.origin.micros) / Seconds.micro) \(s.host) \(s.reason.rawValue)"
        }
    }

    static func stops(_ r: ReplayResult) -> [Int32] {
        r.actions.compactMap { if case .stop(let s) = $0 { return s.pid } else { return nil } }
    }

    @Test("a learning site focused with input earns as a learning app")
    func learningSiteEarns() {
        var tl = Self.inChromium()
        Self.site(&tl, 0, "www.khanacademy.org")
        tl.jiggle(from: 0, to: 20 * M, every: 17)   // input every 17 s: never idle (a person's rhythm is another test's)
        tl.start(20 * M, pid: 40, exe: xterm)
        tl.focus(20 * M, pid: 40)
        tl.jiggle(from: 20 * M, to: 25 * M, every: 17)
        let r = tl.replay(Self.policy(["validation.strictness": "\"lenient\""]))
        let khan = r.sessions.filter { $0.app == "Khan Academy" }
        // 0–20:00 focused, input every 17 s: 1200 s at 60 points an hour = 20 points.
        #expect(khan.count == 1)
        #expect(khan.first?.category == .learning)
        #expect(khan.first?.creditedSeconds == 1200 * Seconds.micro)
        #expect(khan.first?.points == 20)
    }

    @Test("the same time on a site no entry names, or a neutral one, earns nothing")
    func neutralSiteEarnsNothing() {
        for host in ["en.wikipedia.org", "web.mit.edu"] {
            var tl = Self.inChromium()
            Self.site(&tl, 0, host)
            tl.jiggle(from: 0, to: 20 * M, every: 17)
            let r = tl.replay(Self.policy(["validation.strictness": "\"lenient\""]))
            #expect(r.sessions.isEmpty, "\(host)")
            #expect(r.ledger.filter { $0.kind == .earned }.isEmpty, "\(host)")
        }
    }

    @Test("of the domains that match a host, the longest names it")
    func longestDomainWins() {
        var engine = Engine(policy: Self.policy())
        var effects: [Effect] = []
        var tl = Self.inChromium()
        Self.site(&tl, 1, "scratch.mit.edu")
        for e in tl.events { engine.apply(e, into: &effects) }
        #expect(engine.focusedApp?.name == "Scratch")
        engine.apply(Event(at: WallTime(micros: tl.origin.micros + 2 * Seconds.micro, utcOffsetSeconds: 3600),
                           .siteChanged(SiteReport(pid: Self.browser, host: "WWW.MIT.EDU."))), into: &effects)
        #expect(engine.focusedApp?.name == "MIT")
        engine.apply(Event(at: WallTime(micros: tl.origin.micros + 3 * Seconds.micro, utcOffsetSeconds: 3600),
                           .siteChanged(SiteReport(pid: Self.browser, host: "notmit.edu"))), into: &effects)
        #expect(engine.focusedApp == nil)   // "notmit.edu" is not under "mit.edu"
    }

    @Test("a reward site uses game time; when it is gone, the site is stopped in the browser, and a learning tab goes on earning")
    func rewardSiteUsesGameTime() {
        var tl = Self.inChromium()
        tl.redeem(0, minutes: 10)
        Self.site(&tl, 0, "m.youtube.com")
        tl.jiggle(from: 0, to: 40 * M, every: 17)
        // The extension shows its page in the tab (no web page), then the child opens Khan Academy.
        Self.site(&tl, 601, nil)
        Self.site(&tl, 610, "www.khanacademy.org")
        tl.start(25 * M, pid: 40, exe: xterm)
        tl.focus(25 * M, pid: 40)
        let r = tl.replay(Self.policy(["validation.strictness": "\"lenient\""]))
        // 10 minutes redeemed: gone at 600 s; YouTube is stopped in the browser, the browser is not.
        #expect(Self.siteStops(r, tl) == ["600 m.youtube.com no_reward_time"])
        #expect(Self.stops(r).isEmpty)
        #expect(r.reward.used == 600 * Seconds.micro)
        // Khan Academy 610–1500 s focused: 890 s at 60 an hour = 14 points (14.83, the rest kept).
        let khan = r.sessions.filter { $0.app == "Khan Academy" }
        #expect(khan.map(\.creditedSeconds) == [890 * Seconds.micro])
        #expect(khan.map(\.points) == [14])
        // The reward session: YouTube shown from 0 until the extension's page replaced it at 601 s
        // (the last second after the stop not counted as game time, above).
        #expect(r.sessions.filter { $0.app == "YouTube" }.map(\.seconds) == [601 * Seconds.micro])
    }

    @Test("a blocked site is stopped at once, whichever tab shows it; reported again after another site, it is stopped again")
    func blockedSiteAtOnce() {
        var tl = Self.inChromium()
        Self.site(&tl, 5, "poki.com")
        Self.site(&tl, 6, "poki.com", audible: ["www.poki.com"])   // the same host still named: not told twice
        Self.site(&tl, 7, nil)
        Self.site(&tl, 20, "games.poki.com")
        let r = tl.replay(Self.policy())
        #expect(Self.siteStops(r, tl) == ["5 poki.com blocked", "6 www.poki.com blocked", "20 games.poki.com blocked"])
        #expect(Self.stops(r).isEmpty)
    }

    @Test("switching tabs switches the category at that moment")
    func tabSwitch() {
        var tl = Self.inChromium()
        tl.redeem(0, minutes: 10)
        Self.site(&tl, 0, "www.youtube.com")
        Self.site(&tl, 60, "www.khanacademy.org")
        Self.site(&tl, 90, "www.youtube.com")
        Self.site(&tl, 100, "www.khanacademy.org")
        tl.jiggle(from: 0, to: 200, every: 17)
        let r = tl.replay(Self.policy())
        // Game time 0–60 and 90–100: 70 s.
        #expect(r.reward.used == 70 * Seconds.micro)
    }

    @Test("a video playing in a background tab uses game time, even with another program focused")
    func audibleBackgroundTab() {
        var tl = Self.inChromium()
        tl.redeem(0, minutes: 20)                     // more than is used: the figure below is not a cap
        Self.site(&tl, 0, "www.khanacademy.org", audible: ["www.youtube.com"])
        Self.site(&tl, 300, "www.khanacademy.org")   // the video stopped
        tl.start(0, pid: 40, exe: xterm)
        tl.focus(400, pid: 40)
        tl.focus(500, pid: Self.browser)
        Self.site(&tl, 500, "www.khanacademy.org", audible: ["www.youtube.com"])
        tl.focus(600, pid: 40)                        // the video plays on behind the terminal
        tl.jiggle(from: 0, to: 800, every: 17)
        tl.tick(800)
        let r = tl.replay(Self.policy(["validation.strictness": "\"lenient\""]))
        // Sound from 0 to 300 and from 500 on, whatever was focused: 300 + 300 s of game time.
        #expect(r.reward.used == 600 * Seconds.micro)
        // Khan Academy focused 0–400 s, the video playing in its browser until 300: only 300–400
        // is learning (the rest was gamed time, concurrent_reward).
        let khan = r.sessions.filter { $0.app == "Khan Academy" }
        #expect(khan.first?.creditedSeconds == 100 * Seconds.micro)
        #expect(khan.first?.reasons == [.concurrentReward])
    }

    @Test("a browser that reports no site is a game once report_within has passed: game time, then stopped as a game")
    func unreportedBrowser() {
        // With game time: focused 0–100 s, counted from 10 s (report_within): 90 s.
        var tl = Timeline()
        tl.adjust(0, points: 100)
        tl.redeem(0, minutes: 10)
        tl.start(0, pid: 60, exe: Self.firefox)
        tl.focus(0, pid: 60)
        tl.start(0, pid: 40, exe: xterm)
        tl.focus(100, pid: 40)
        tl.tick(200)
        let r = tl.replay(Self.policy())
        #expect(r.reward.used == 90 * Seconds.micro)
        #expect(r.sessions.map(\.app) == [Policy.unreportedName])

        // Without: stopped (the whole browser) at 10 s, as a game is.
        var none = Timeline()
        none.start(0, pid: 60, exe: Self.firefox)
        none.focus(0, pid: 60)
        none.tick(30)
        let stopped = none.replay(Self.policy())
        #expect(stopped.actions.contains { if case .stop(let s) = $0 { s.pid == 60 && s.at == none.origin.micros + 10 * Seconds.micro } else { false } })

        // `unreported = "blocked"`: a copy of Chromium in the child's home, named as Chromium's own
        // program, is stopped at 10 s even with game time.
        var copy = Timeline()
        copy.adjust(0, points: 100)
        copy.redeem(0, minutes: 10)
        copy.start(0, pid: 61, exe: "/home/emma/bin/chrome", writable: true, comm: "chrome")
        copy.focus(0, pid: 61)
        copy.tick(30)
        let blocked = copy.replay(Self.policy(extra: "\n[browsers]\nunreported = \"blocked\"\n"))
        #expect(blocked.actions.contains { if case .stop(let s) = $0 { s.pid == 61 && s.reason == .blocked } else { false } })
    }

    @Test("when the host that brought the reports goes away, the last report may only cost: a learning site stops earning, a game site goes on costing (focused until report_within, then unreported; playing sound until the browser reports again); an end with no report since gives no more time")
    func reportEnded() throws {
        // Khan Academy reported, then the host killed at 60 s while the tab shows YouTube: no more
        // learning from 60 s; nothing until 70 s (report_within); a game from 70 s to 100 s.
        var tl = Self.inChromium()
        tl.redeem(0, minutes: 10)
        Self.site(&tl, 0, "www.khanacademy.org")
        tl.jiggle(from: 0, to: 100, every: 3)
        tl.add(60, .siteReportEnded(pid: Self.browser))
        // A second end with no report since (a host killed before it spoke) gives no more time.
        tl.add(80, .siteReportEnded(pid: Self.browser))
        tl.start(0, pid: 40, exe: xterm)
        tl.focus(100, pid: 40)
        tl.tick(200)
        let r = tl.replay(Self.policy(["validation.strictness": "\"lenient\""]))
        let khan = r.sessions.filter { $0.app == "Khan Academy" }
        #expect(khan.map { $0.end - $0.start } == [60 * Seconds.micro], "\(r.sessions)")
        #expect(r.reward.used == 30 * Seconds.micro)
        #expect(r.sessions.filter { $0.app == Policy.unreportedName }.count == 1, "\(r.sessions)")

        // A new host reporting within report_within: YouTube costs in between too (it was the last
        // word, and a game), all 100 s in one session.
        var again = Self.inChromium()
        again.redeem(0, minutes: 10)
        Self.site(&again, 0, "www.youtube.com")
        again.add(60, .siteReportEnded(pid: Self.browser))
        Self.site(&again, 62, "www.youtube.com")
        again.tick(100)
        let back = again.replay(Self.policy())
        #expect(back.reward.used == 100 * Seconds.micro, "\(back.sessions)")
        #expect(back.sessions.map(\.app) == ["YouTube"], "\(back.sessions)")

        // The child kills each new host a few seconds after it spoke (or before it could): YouTube
        // is never free. Hosts reporting at 0, 6, 12, … 54, each killed 5 s after; from 60 the new
        // hosts are killed before they speak (ends at 61, 62, 63 give nothing): YouTube until 69
        // (report_within after 59, the last end that followed a report), then unreported (a game too).
        var loop = Self.inChromium()
        loop.redeem(0, minutes: 10)
        for k in stride(from: 0.0, to: 60, by: 6) {
            Self.site(&loop, k, "www.youtube.com")
            loop.add(k + 5, .siteReportEnded(pid: Self.browser))
        }
        for k in [61.0, 62, 63] { loop.add(k, .siteReportEnded(pid: Self.browser)) }
        loop.tick(120)
        let looped = loop.replay(Self.policy())
        #expect(looped.reward.used == 120 * Seconds.micro, "\(looped.sessions)")
        #expect(looped.sessions.map(\.app) == ["YouTube", Policy.unreportedName], "\(looped.sessions)")
        #expect(looped.sessions.first.map { ($0.end - $0.start) / Seconds.micro } == 69, "\(looped.sessions)")

        // YouTube playing in a tab while the child writes in a terminal, the host killed at 60 and
        // never back: the video goes on costing until the browser exits at 300 s.
        var background = Timeline()
        background.adjust(0, points: 100)
        background.redeem(0, minutes: 10)
        background.start(0, pid: Self.browser, exe: Self.chromium)
        background.start(0, pid: 40, exe: xterm)
        background.focus(0, pid: 40)
        background.add(0, .siteChanged(SiteReport(pid: Self.browser, host: "www.khanacademy.org", audible: ["www.youtube.com"], focused: false)))
        background.add(60, .siteReportEnded(pid: Self.browser))
        background.add(300, .processExited(pid: Self.browser))
        background.tick(400)
        let played = background.replay(Self.policy())
        #expect(played.reward.used == 300 * Seconds.micro, "\(played.sessions)")
        // A Khan Academy tab left in front gives no learning after its host went away.
        #expect(!played.sessions.contains { $0.app == "Khan Academy" }, "\(played.sessions)")

        // The log keeps it, and reads it back.
        let line = EventLog.encode(Event(at: WallTime(micros: 0), .siteReportEnded(pid: 700)))
        #expect(line == #"{"at":"1970-01-01T00:00:00Z","event":"site_report_ended","pid":700}"#)
        #expect(try EventLog.decode(line: line).kind == .siteReportEnded(pid: 700))
        // A hook may not send it: only the daemon sees a host go.
        #expect(throws: (any Error).self) { try EventLog.decode(hookEvent: #"{"event":"site_report_ended","pid":700}"#, at: WallTime(micros: 0), mono: 0) }
    }

    @Test("a report names hosts of a process the engine knows, and only with sites in the policy")
    func reportsIgnored() {
        // A policy without [[sites]] or [browsers]: the browser is a program as before (neutral here).
        var tl = Self.inChromium()
        tl.redeem(0, minutes: 10)
        Self.site(&tl, 0, "www.youtube.com")
        tl.tick(100)
        #expect(tl.replay(testPolicy()).reward.used == 0)
        // A report for a pid the engine never saw starting is nothing.
        var stranger = Timeline()
        stranger.adjust(0, points: 100)
        stranger.redeem(0, minutes: 10)
        stranger.add(0, .siteChanged(SiteReport(pid: 77, host: "www.youtube.com", audible: ["www.youtube.com"])))
        stranger.tick(100)
        #expect(stranger.replay(Self.policy()).reward.used == 0)
    }

    @Test("unnamed_sites = \"reward\": a host no entry names uses game time")
    func unnamedSitesReward() {
        var tl = Self.inChromium()
        tl.redeem(0, minutes: 10)
        Self.site(&tl, 0, "www.example.org")
        Self.site(&tl, 50, "www.khanacademy.org")
        tl.tick(100)
        let r = tl.replay(Self.policy(extra: "\n[browsers]\nunnamed_sites = \"reward\"\n"))
        #expect(r.reward.used == 50 * Seconds.micro)
    }

    @Test("a reward site over its own daily limit is stopped (app_limit) while the overall game time goes on")
    func siteOwnLimit() {
        let limited = Self.sites.replacingOccurrences(of: "domains = [\"youtube.com\"]", with: "domains = [\"youtube.com\"]\ndaily_limit = \"2m\"")
        var tl = Self.inChromium()
        tl.redeem(0, minutes: 10)
        Self.site(&tl, 0, "www.youtube.com")
        tl.tick(300)
        let r = tl.replay(testPolicy(apps: limited))
        #expect(Self.siteStops(r, tl) == ["120 www.youtube.com app_limit"])
        #expect(r.reward.used == 120 * Seconds.micro)
    }

    @Test("an engine restored from a checkpoint goes on with the browsers' reports as the one that never stopped")
    func checkpointKeepsReports() {
        var tl = Self.inChromium()
        tl.redeem(0, minutes: 10)
        Self.site(&tl, 0, "www.khanacademy.org", audible: ["www.youtube.com"])
        Self.site(&tl, 30, "poki.com", audible: ["www.youtube.com"])
        // Its host ends at 40: the ended report (the video playing) is kept in the checkpoint too.
        tl.add(40, .siteReportEnded(pid: Self.browser))
        tl.tick(60)
        tl.tick(700)
        let policy = Self.policy()
        let events = tl.events
        var whole = Engine(policy: policy), wholeEffects: [Effect] = []
        for e in events { whole.apply(e, into: &wholeEffects) }
        let cut = events.count - 2   // before the ticks at 60 and 700 s
        var first = Engine(policy: policy), effects: [Effect] = []
        for e in events[..<cut] { first.apply(e, into: &effects) }
        let data = first.checkpointData
        let restored = try! JSONDecoder().decode(Engine.Checkpoint.self, from: data)
        var second = Engine(policy: policy, checkpoint: restored)
        for e in events[cut...] { second.apply(e, into: &effects) }
        #expect(effects == wholeEffects)
        #expect(second.checkpointData == whole.checkpointData)
        // The video played from 0 until game time was gone at 600 s; poki.com was stopped at 30 s.
        #expect(whole.reward.used == 600 * Seconds.micro)
        #expect(String(decoding: data, as: UTF8.self).contains(#""ended""#))
    }

    @Test("site_changed in the log: read back as written; a URL, a path or a port is refused")
    func eventLine() throws {
        let e = Event(at: RFC3339.parse("2026-11-23T15:00:00+01:00")!,
                      .siteChanged(SiteReport(pid: 50, host: "www.khanacademy.org", audible: ["www.youtube.com", "m.youtube.com"], focused: true)))
        let line = EventLog.encode(e)
        #expect(line == #"{"at":"2026-11-23T15:00:00+01:00","event":"site_changed","pid":50,"host":"www.khanacademy.org","audible":["m.youtube.com","www.youtube.com"],"focused":true}"#)
        #expect(try EventLog.decode(line: line) == e)
        #expect(try EventLog.decode(line: #"{"at":"2026-11-23T15:00:00+01:00","event":"site_changed","pid":50,"host":null}"#)
            == Event(at: e.at, .siteChanged(SiteReport(pid: 50, host: nil))))
        for bad in ["https://www.youtube.com", "www.youtube.com/watch", "www.youtube.com:443", "", ".youtube.com"] {
            #expect(throws: EventLog.LineError.self, "\(bad)") {
                try EventLog.decode(line: #"{"at":"2026-11-23T15:00:00+01:00","event":"site_changed","pid":50,"host":"\#(bad)"}"#)
            }
        }
        #expect(throws: EventLog.LineError.self) {
            try EventLog.decode(line: #"{"at":"2026-11-23T15:00:00+01:00","event":"site_changed","pid":50}"#)
        }
    }
}

@Suite("What the log keeps of a site")
struct SitePrivacyTests {
    /// The hosts of a report as the log keeps them under `policy`.
    static func logged(_ host: String, _ engine: Engine) -> String { SitePrivacy.logged(host) { engine.siteNaming(host: $0) != nil } }

    @Test("a host a rule names is kept as it is; any other only as its registrable domain (Debian's list); an address or a lone name as it is")
    func hostsKept() throws {
        try #require(PublicSuffixList() != nil, "Debian's publicsuffix package: \(PublicSuffixList.debianPath)")
        let engine = Engine(policy: SitesTests.policy())
        #expect(Self.logged("www.khanacademy.org", engine) == "www.khanacademy.org")   // Khan Academy names it
        #expect(Self.logged("scratch.mit.edu", engine) == "scratch.mit.edu")
        #expect(Self.logged("mail.google.com", engine) == "google.com")
        #expect(Self.logged("news.bbc.co.uk", engine) == "bbc.co.uk")
        #expect(Self.logged("emma.github.io", engine) == "emma.github.io")   // github.io is everybody's: emma's is the domain
        #expect(Self.logged("friends.emma.github.io", engine) == "emma.github.io")
        #expect(Self.logged("192.168.1.20", engine) == "192.168.1.20")
        #expect(Self.logged("[fe80::1]", engine) == "[fe80::1]")
        #expect(Self.logged("localhost", engine) == "localhost")
        // A whole report: the active tab's host and those playing sound, each once.
        let report = SitePrivacy.logged(SiteReport(pid: 5, host: "mail.google.com", audible: ["www.youtube.com", "music.google.com", "play.google.com"],
                                                   focused: true)) { engine.siteNaming(host: $0) != nil }
        #expect(report == SiteReport(pid: 5, host: "google.com", audible: ["google.com", "www.youtube.com"], focused: true))
    }

    @Test("what the log keeps is judged as the host it stands for: the same entry, or none, for every host of up to three labels under each kind of policy")
    func sameJudgement() throws {
        try #require(PublicSuffixList() != nil, "Debian's publicsuffix package: \(PublicSuffixList.debianPath)")
        // Every host of one to three of these labels (5,219): the policy's domains, their parts,
        // public suffixes of one and two labels, and names of neither.
        let labels = ["www", "m", "mail", "scratch", "khanacademy", "youtube", "poki", "mit", "edu", "google", "co", "uk", "github", "io", "com", "org", "kids"]
        var hosts = labels
        for a in labels { for b in labels { hosts.append(a + "." + b); for c in labels { hosts.append(a + "." + b + "." + c) } } }
        for unnamed in ["neutral", "reward", "blocked"] {
            let engine = Engine(policy: SitesTests.policy(extra: "\n[browsers]\nunnamed_sites = \"\(unnamed)\"\n"))
            for host in hosts {
                let kept = Self.logged(host, engine)
                let named = engine.siteNaming(host: host) != nil
                #expect(!named || kept == host, "\(host): named, yet kept as \(kept)")
                #expect(engine.classifier.classify(host: kept) == engine.classifier.classify(host: host), "\(host) kept as \(kept) under unnamed_sites = \(unnamed)")
            }
        }
    }
}

@Suite("The public suffix list")
struct PublicSuffixListTests {
    /// The list's own rules, a few of each kind (https://publicsuffix.org/list/).
    static let list = PublicSuffixList(text: """
        // comments are not rules
        com
        uk
        co.uk
        github.io
        *.ck
        !www.ck
        """)

    @Test("suffixes, registrable domains, wildcards and exceptions")
    func rules() {
        #expect(Self.list.suffix(of: "www.bbc.co.uk") == "co.uk")
        #expect(Self.list.registrableDomain(of: "www.bbc.co.uk") == "bbc.co.uk")
        #expect(Self.list.registrableDomain(of: "emma.github.io") == "emma.github.io")
        #expect(Self.list.isSuffix("github.io"))
        #expect(Self.list.isSuffix("co.uk"))
        #expect(!Self.list.isSuffix("bbc.co.uk"))
        #expect(Self.list.suffix(of: "a.b.ck") == "b.ck")        // *.ck: any name under ck is a suffix
        #expect(Self.list.suffix(of: "www.ck") == "ck")          // … but !www.ck is not
        #expect(Self.list.registrableDomain(of: "www.ck") == "www.ck")
        #expect(Self.list.suffix(of: "example.unknowntld") == "unknowntld")   // no rule: the last label
        #expect(Self.list.registrableDomain(of: "com") == nil)
    }

    @Test("Debian's list is read, and knows what everybody's sites are under")
    func debiansList() throws {
        let list = try #require(PublicSuffixList(), "Debian's publicsuffix package: \(PublicSuffixList.debianPath)")
        #expect(list.isSuffix("co.uk") && list.isSuffix("github.io") && list.isSuffix("com"))
        #expect(list.registrableDomain(of: "www.khanacademy.org") == "khanacademy.org")
        #expect(list.registrableDomain(of: "scratch.mit.edu") == "mit.edu")
    }
}
