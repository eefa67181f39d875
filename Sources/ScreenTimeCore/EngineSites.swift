/// Websites (docs/spec/sites.md): what a browser's extension reports of its tabs, and what the
/// engine makes of it. A site is an entry of `policy.apps` (`isSite`): sessions, learning credit,
/// game time, limits and groups hold for it as for an app. What differs: a site is used while a
/// browser's focused window shows it (or, for reward and blocked sites, while a tab of it plays
/// sound), and it is stopped in the browser (`site_stop`), never by stopping the browser.
struct SiteState: Sendable, Codable {
    /// Each browser's last report, by its pid.
    var reports: [Int32: SiteReport] = [:]
    /// The hosts told `site_stop` while the reports that name them hold, with why.
    var told: [Int32: [String: Reason]] = [:]
    /// Reward and blocked sites playing sound in some browser, with the browsers (made from the
    /// reports and the ended reports: not kept in a checkpoint).
    var audible: [AppMatch: Set<Int32>] = [:]
    /// The last report of each browser whose host went away (`site_report_ended`) and that has
    /// not reported since, with when it ended: what cost game time in it goes on costing
    /// (`Engine.siteReportEnded`).
    var ended: [Int32: EndedReport] = [:]

    struct EndedReport: Sendable, Codable, Equatable {
        var at: Microseconds
        var report: SiteReport
    }

    init() {}

    // Kept in a checkpoint as sorted lists: the same bytes for the same state.
    private struct ToldHost: Codable { var pid: Int32; var host: String; var reason: Reason }
    private enum Keys: String, CodingKey { case reports, told, ended }

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        for r in try c.decode([SiteReport].self, forKey: .reports) { reports[r.pid] = r }
        for t in try c.decode([ToldHost].self, forKey: .told) { told[t.pid, default: [:]][t.host] = t.reason }
        // Absent from the checkpoints of versions before it.
        for e in try c.decodeIfPresent([EndedReport].self, forKey: .ended) ?? [] { ended[e.report.pid] = e }
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(reports.keys.sorted().map { reports[$0]! }, forKey: .reports)
        try c.encode(told.keys.sorted().flatMap { pid in told[pid]!.keys.sorted().map { ToldHost(pid: pid, host: $0, reason: told[pid]![$0]!) } },
                     forKey: .told)
        if !ended.isEmpty { try c.encode(ended.keys.sorted().map { ended[$0]! }, forKey: .ended) }
    }
}

extension Engine {
    /// The policy follows sites (`[[sites]]` or `[browsers]`).
    var followsSites: Bool { policy.browsers != nil }

    /// A browser's report replaces its last one.
    mutating func siteChanged(_ report: SiteReport, at t: Microseconds) {
        guard followsSites, processes[report.pid] != nil else { return }
        let pid = report.pid
        sites.reports[pid] = report
        sites.ended[pid] = nil
        // A host still named keeps its stop; one named anew is judged (and told) again.
        if let told = sites.told[pid] {
            let kept = told.filter { report.hosts.contains($0.key) }
            sites.told[pid] = kept.isEmpty ? nil : kept
        }
        rebuildAudibleSites()
        if let window = focus, window.pid == pid { focusMatch = classifyFocus(window) }
        refreshSessions(at: t)
    }

    /// The host that brought a browser's reports went away (the child may end it, as the browser
    /// does when it closes). The last report may no longer be true, so it may only cost: killing
    /// the host must neither keep a learning site earning while the tab shows another, nor make
    /// a game site free while a new host starts (a child could kill each new one).
    /// - Focused, the browser goes on counting as the ended report's site if that site is reward
    ///   or blocked, else as nothing, until `report_within` has passed (its extension reports
    ///   again through a new host within seconds); then it is `unreported`.
    /// - The reward and blocked sites it said were playing sound go on counting as playing until
    ///   the browser reports again or exits.
    /// Only an end after a report gives that time: hosts ended before they could say anything give
    /// none.
    mutating func siteReportEnded(_ pid: Int32, at t: Microseconds) {
        guard followsSites, let report = sites.reports[pid] else { return }
        sites.reports[pid] = nil
        sites.told[pid] = nil
        sites.ended[pid] = SiteState.EndedReport(at: t, report: report)
        rebuildAudibleSites()
        processes[pid]?.seen = t
        if let window = focus, window.pid == pid { focusMatch = classifyFocus(window) }
        refreshSessions(at: t)
    }

    /// A browser's process ended (or everything did): its report ends with it.
    mutating func siteReportGone(_ pid: Int32) {
        guard sites.reports[pid] != nil || sites.told[pid] != nil || sites.ended[pid] != nil else { return }
        sites.reports[pid] = nil
        sites.told[pid] = nil
        sites.ended[pid] = nil
        rebuildAudibleSites()
    }

    mutating func rebuildAudibleSites() {
        var audible: [AppMatch: Set<Int32>] = [:]
        for (pid, report) in sites.reports.merging(sites.ended.mapValues(\.report), uniquingKeysWith: { live, _ in live }) {
            for host in report.audible {
                guard let m = classifier.classify(host: host), siteCosts(m) else { continue }
                audible[m, default: []].insert(pid)
            }
        }
        sites.audible = audible
    }

    /// What the focused window is: a browser's site by its report, a browser without one
    /// (`unreported`, once it has had `report_within` to report; until then the site of a report
    /// whose host went away if that site costs, else nothing), else the app as classified.
    func classifyFocus(_ window: FocusedWindow) -> AppMatch? {
        guard let pid = window.pid else { return nil }
        let facts = processes[pid]?.facts
        if let browsers = policy.browsers {
            if let report = sites.reports[pid] { return report.host.flatMap { classifier.classify(host: $0) } }
            if let ended = sites.ended[pid], now - ended.at < browsers.reportWithin {
                return ended.report.host.flatMap { classifier.classify(host: $0) }.flatMap { siteCosts($0) ? $0 : nil }
            }
            if let facts, classifier.isBrowser(facts) {
                guard let unreported = policy.unreportedEntry, let seen = processes[pid]?.seen,
                      now - seen >= browsers.reportWithin else { return nil }
                return AppMatch(entry: unreported, trusted: true)
            }
        }
        return classifier.classify(window: window, process: facts)
    }

    /// When a focused browser that has not reported yet, or whose host went away, becomes
    /// `unreported`.
    var nextSiteDeadline: Microseconds? {
        guard let browsers = policy.browsers, let pid = focus?.pid, sites.reports[pid] == nil else { return nil }
        if let ended = sites.ended[pid] { return ended.at + browsers.reportWithin }
        guard focusMatch == nil, let p = processes[pid], let seen = p.seen, classifier.isBrowser(p.facts) else { return nil }
        return seen + browsers.reportWithin
    }

    /// The focus is judged again at that moment.
    mutating func siteDeadlinePassed(at t: Microseconds) {
        guard let d = nextSiteDeadline, d <= t, let window = focus else { return }
        let match = classifyFocus(window)
        guard match != focusMatch else { return }   // judged at its deadline already
        focusMatch = match
        refreshSessions(at: t)
    }

    func isSite(_ m: AppMatch) -> Bool { policy.apps[m.entry].isSite }

    /// A reward or blocked site: one whose report may cost the child (game time, a stop).
    func siteCosts(_ m: AppMatch) -> Bool { category(m) == .reward || category(m) == .blocked }

    /// A site was told to stop in a browser whose report names it (a stop ends with its report).
    func siteStopped(_ m: AppMatch) -> Bool {
        sites.told.values.contains { hosts in hosts.keys.contains { classifier.classify(host: $0) == m } }
    }

    /// A reward site is in use: focused in a browser's window, or playing sound, and not stopped.
    var siteRewardInUse: Bool {
        guard followsSites, !locked else { return false }
        if let m = focusMatch, isSite(m), category(m) == .reward, !siteStopped(m) { return true }
        return sites.audible.keys.contains { category($0) == .reward && !siteStopped($0) }
    }

    /// The reward sites whose game time counts now (for their own and their group's limits).
    var countingSites: Set<Int> {
        guard followsSites, !locked else { return [] }
        var out: Set<Int> = []
        if let m = focusMatch, isSite(m), category(m) == .reward, !siteStopped(m) { out.insert(m.entry) }
        for m in sites.audible.keys where category(m) == .reward && !siteStopped(m) { out.insert(m.entry) }
        return out
    }

    /// Tells the browsers which of the hosts they report must not be shown: blocked sites at once,
    /// reward sites when no game time is left for them. A stop that no longer holds (time given)
    /// is forgotten, so that the site counts again if the browser goes on showing it.
    mutating func enforceSites(at t: Microseconds, available: Microseconds, limit: Reason) {
        guard followsSites, !sites.reports.isEmpty else { return }
        for pid in sites.reports.keys.sorted() {
            let report = sites.reports[pid]!
            for host in report.hosts {
                guard let m = classifier.classify(host: host) else { continue }
                var reason: Reason? = nil
                switch category(m) {
                case .blocked: reason = .blocked
                case .reward:
                    if available <= 0 { reason = limit } else if let room = appRoom(m.entry), room <= 0 { reason = .appLimit }
                case .learning, .neutral: break
                }
                guard let reason else {
                    if sites.told[pid]?[host] != nil { sites.told[pid]![host] = nil }
                    continue
                }
                guard sites.told[pid]?[host] == nil else { continue }
                sites.told[pid, default: [:]][host] = reason
                out.append(.siteStop(SiteStop(at: clock.wall(at: t), pid: pid, host: host, site: policy.apps[m.entry].name, reason: reason)))
            }
            if sites.told[pid]?.isEmpty == true { sites.told[pid] = nil }
        }
    }
}

/// What the shell reads of sites.
extension Engine {
    /// A browser's report in force (nil: none, or the process is not known).
    public func siteReport(of pid: Int32) -> SiteReport? { sites.reports[pid] }

    /// The hosts a browser was told not to show, and why, for the report in force.
    public func siteStops(of pid: Int32) -> [(host: String, site: String, reason: Reason)] {
        (sites.told[pid] ?? [:]).keys.sorted().map { host in
            (host, classifier.classify(host: host).map { policy.apps[$0.entry].name } ?? host, sites.told[pid]![host]!)
        }
    }

    /// The host in the focused browser window's active tab, as the browser's report in force says
    /// (nil: the window in front is no reporting browser, or its tab shows no web page).
    public var focusedHost: String? {
        guard followsSites, let pid = focus?.pid else { return nil }
        return sites.reports[pid]?.host
    }

    /// The `[[sites]]` entry that names `host` (a domain names its subdomains), with its
    /// category; nil when none does (the host counts as `[browsers] unnamed_sites`).
    public func siteNaming(host: String) -> (name: String, category: AppCategory)? {
        guard let m = classifier.classify(host: host), m.entry != policy.unnamedSiteEntry else { return nil }
        return (policy.apps[m.entry].name, policy.apps[m.entry].category)
    }

    /// The policy's browsers' programs, when it follows sites.
    public func isPolicyBrowser(exe: String) -> Bool { policy.browsers?.exe.contains { $0.matches(exe) } ?? false }
}
