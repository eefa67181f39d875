import ControlProtocol
import Logging
import ScreenTimeCore
import ScreenTimeLinux

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
        let report = SiteReport(pid: browser, host: said.host, audible: said.audible, focused: said.focused)
        // The extension says it again every few seconds (to hear of a stop while a tab stays open):
        // the same report changes nothing, from whoever it comes, and is answered without a look at
        // the processes (system mode's look reads the browser's memory map).
        if engine.siteReport(of: browser) == report { return siteStops(of: browser) }
        if system {
            guard let account else { return refuseSiteReport("\(name) is not in the user database", peer: peer, who: who) }
            let host = CompositorFacts.read(pid: peer.pid, child: account, extensionUUID: "", yamaFile: yamaFile)
            let facts = CompositorFacts.read(pid: browser, child: account, extensionUUID: "", yamaFile: yamaFile)
            let managed = ManagedBrowserPolicy.check(browserExe: exe, child: account)
            let package = BrowserTrust.isFirefox(exe) ? ManagedBrowserPolicy.firefoxPackage(child: account) : nil
            let started = BrowserFacts.read(pid: browser, exe: exe, child: account, firefoxPackage: package)
            if let why = BrowserTrust.distrust(host: host, browser: facts, managed: managed, started: started, child: uid,
                                               isPolicyBrowser: engine.isPolicyBrowser(exe:)) {
                return refuseSiteReport(why, peer: peer, who: who)
            }
        }
        var stamped = event
        stamped.kind = .siteChanged(report)
        pending += live.ingest(stamped)
        return siteStops(of: browser)
    }

    /// The answer: the hosts the browser must not show now.
    private func siteStops(of browser: Int32) -> ControlReply {
        var reply = ControlReply(ok: true)
        reply.siteStops = live.engine.siteStops(of: browser).map { ControlReply.SiteStopLine(host: $0.host, site: $0.site, reason: $0.reason.rawValue) }
        return reply
    }

    /// A report that cannot be believed: refused, and logged once for each process and reason
    /// (the extension says it again every few seconds).
    private mutating func refuseSiteReport(_ why: String, peer: PeerCredentials, who: String) -> ControlReply {
        if refusedReporters[peer.pid] != why {
            if refusedReporters.count >= 1000 { refusedReporters.removeAll() }
            refusedReporters[peer.pid] = why
            log("refused a site report from \(who)'s process (pid \(peer.pid)): \(why); the browser counts as a browser without screentime's extension",
                level: .warning, ["event": "site_report_refused", "pid": "\(peer.pid)", "reason": "\(why)"])
        }
        return .refused("the site report is not believed: \(why)")
    }
}
