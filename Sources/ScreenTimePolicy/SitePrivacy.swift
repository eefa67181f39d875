import ScreenTimeCore

/// What the event log keeps of the hosts a browser reports (docs/spec/sites.md, docs/websites.md):
/// a host a `[[sites]]` rule names, as it is (`docs.google.com`); any other only as its
/// registrable domain (`mail.google.com` and `www.google.com` are both `google.com`), the way a
/// window's title is kept only as far as a rule needs it. What a child reads, and which friend's
/// blog or which school subdomain, stays out of the log unless a parent names it.
///
/// Nothing the engine decides changes: a domain names its subdomains, so a rule that named the
/// registrable domain would have named the host too (which would have been kept). The exact hosts
/// live only in the daemon's memory, to tell the extension which of its tabs a stop is for.
public enum SitePrivacy {
    /// Debian's list, read once for the process on the first report that needs it.
    private static let suffixes = PublicSuffixList()

    /// The host as the log keeps it. `named(host)`: a rule names it. An address (`192.0.2.7`,
    /// `[2001:db8::1]`) or a name that is a suffix itself (`localhost`) is kept as it is; so is
    /// every host when the list cannot be read (`stctl policy check` says so).
    public static func logged(_ host: String, named: (String) -> Bool) -> String {
        guard !named(host), !isAddress(host), let domain = suffixes?.registrableDomain(of: host) else { return host }
        return domain
    }

    /// The report as the log keeps it (its hosts each as `logged` says).
    public static func logged(_ report: SiteReport, named: (String) -> Bool) -> SiteReport {
        SiteReport(pid: report.pid, host: report.host.map { logged($0, named: named) },
                   audible: report.audible.map { logged($0, named: named) }, focused: report.focused)
    }

    /// An IPv4 address or a bracketed IPv6 one: no domain to reduce it to.
    static func isAddress(_ host: String) -> Bool {
        host.hasPrefix("[") || host.utf8.allSatisfy { ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: ".") }
    }
}
