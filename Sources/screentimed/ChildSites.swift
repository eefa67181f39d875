import ControlProtocol
import Logging
import ScreenTimeCore
import ScreenTimeLinux
import ScreenTimePolicy

/// Websites (docs/spec/sites.md): a browser's extension reports its tabs through the native
/// messaging host the browser started (`screentime-browser-host`), which sends them here as a
/// `site_changed` hook event. The daemon names the browser (the host's parent; the host cannot
/// choose it), believes the report only as `BrowserTrust` allows in system mode, logs it when it
/// differs from that browser's last, and answers with the hosts the browser must not show.
extension Child {
    mutating func answerSiteReport(_ event: Event, _ said: SiteReport, from peer: PeerCredentials, who: String) throws -> ControlReply {
        let engine = live.engine
        guard engine.policy.browsers != nil else {
            return ControlReply(ok: true, note: "the policy names no sites: the browser counts as the program it is")
        }
        // The browser is the host's parent: the browser starts its native messaging host itself.
        guard let browser = ProcessTree.parent(of: peer.pid), let exe = ProcessTree.program(of: browser), engine.isPolicyBrowser(exe: exe) else {
            return refuseSiteReport("the report did not come from a browser of the policy's [browsers] exe through its native messaging host", peer: peer, who: who)
        }
        let exact = SiteReport(pid: browser, host: said.host, audible: said.audible, focused: said.focused)
        // What the log keeps: hosts no rule names only as their domain (docs/websites.md).
        let report = SitePrivacy.logged(exact, named: Self.naming(engine))
        // The extension says it again every few seconds (to hear of a stop while a tab stays open):
        // the same report changes nothing, from whoever it comes, and is answered without a look at
        // the processes (system mode's look reads the browser's memory map).
        // (Its exact hosts may differ among those the log keeps as one domain; they are not
        // believed, only added to those the stops are said for: that can only stop more tabs.)
        if engine.siteReport(of: browser) == report { return siteStops(of: browser, alsoFor: exact.hosts) }
        if system {
            guard let account else { return refuseSiteReport("\(name) is not in the user database", peer: peer, who: who) }
            let host = CompositorFacts.read(pid: peer.pid, child: account, extensionUUID: "", yamaFile: yamaFile)
            let facts = CompositorFacts.read(pid: browser, child: account, extensionUUID: "", yamaFile: yamaFile)
            let managed = ManagedBrowserPolicy.check(browserExe: exe, child: account)
            let package = BrowserTrust.isFirefox(exe) ? ManagedBrowserPolicy.firefoxPackage(child: account) : ManagedBrowserPolicy.chromiumPackage(child: account)
            let started = BrowserFacts.read(pid: browser, exe: exe, child: account, package: package)
            if let why = BrowserTrust.distrust(host: host, browser: facts, managed: managed, started: started, child: uid,
                                               isPolicyBrowser: engine.isPolicyBrowser(exe:)) {
                return refuseSiteReport(why, peer: peer, who: who)
            }
        }
        var stamped = event
        stamped.kind = .siteChanged(report)
        pending += live.ingest(stamped)
        // Only the browsers whose reports the engine holds (the others ended or exited).
        reportedSites = reportedSites.filter { live.engine.siteReport(of: $0.key) != nil }
        if live.engine.siteReport(of: browser) != nil { reportedSites[browser] = exact }
        return siteStops(of: browser)
    }

    /// The answer: the hosts the browser must not show now, as its extension named them (a stop
    /// of a domain is for each of the browser's hosts the log keeps as that domain).
    private func siteStops(of browser: Int32, alsoFor said: [String] = []) -> ControlReply {
        let engine = live.engine
        let exact = Set((reportedSites[browser]?.hosts ?? []) + said).sorted()
        var reply = ControlReply(ok: true)
        reply.siteStops = engine.siteStops(of: browser).flatMap { stop in
            let hosts = exact.filter { SitePrivacy.logged($0, named: Self.naming(engine)) == stop.host }
            return (hosts.isEmpty ? [stop.host] : hosts).map { ControlReply.SiteStopLine(host: $0, site: stop.site, reason: stop.reason.rawValue) }
        }
        return reply
    }

    /// Whether a `[[sites]]` entry names a host (what `SitePrivacy` keeps whole).
    private static func naming(_ engine: Engine) -> (String) -> Bool { { engine.siteNaming(host: $0) != nil } }

    /// A report that cannot be believed: refused, and logged once for each process and reason
    /// (the extension says it again every few seconds).
    private mutating func refuseSiteReport(_ why: String, peer: PeerCredentials, who: String) -> ControlReply {
        if refusedReporters[peer.pid] != why {
            if refusedReporters.count >= 1000 { refusedReporters.removeAll() }
            refusedReporters[peer.pid] = why
            log("refused a site report from \(who)'s process (pid \(peer.pid)): \(why); the browser counts as a browser without screentime's extension",
                level: .warning, ["event": "site_report_refused", "pid": "\(peer.pid)", "reason": "\(why)"])
        }
        return .refused(.asSaid, ["detail": "the site report is not believed: \(why)"])
    }
}
