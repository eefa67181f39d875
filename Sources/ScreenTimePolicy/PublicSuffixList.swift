import FoundationEssentials

/// The public suffix list as Debian's `publicsuffix` package ships it
/// (/usr/share/publicsuffix/public_suffix_list.dat): which names are suffixes under which anyone
/// may register a domain (`com`, `co.uk`, `github.io`), so that a policy's domain never names
/// everybody's sites, and a host is listed by the domain a family would recognise (`stctl apps`).
///
/// Read here, not through libpsl: libpsl brings libidn2 and libunistring (1.7 MB) into every
/// program that loads a policy, stctl's every start among them, for a list that is only read when
/// a policy names sites. The rules are the list's own (https://publicsuffix.org/list/): a rule
/// `*.ck` makes every name under `ck` a suffix, `!www.ck` makes that one not; the longest rule
/// that matches wins, an exception over all; a name no rule matches has its last label as suffix.
public struct PublicSuffixList: Sendable {
    public static let debianPath = "/usr/share/publicsuffix/public_suffix_list.dat"

    private var exact: Set<String> = []
    private var wildcards: Set<String> = []
    private var exceptions: Set<String> = []

    /// The list read from `path`; nil when it cannot be read.
    public init?(path: String = PublicSuffixList.debianPath) {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        self.init(text: String(decoding: data, as: UTF8.self))
    }

    /// The list from its text (one rule a line, `//` comments).
    public init(text: String) {
        for raw in text.split(whereSeparator: \.isNewline) {
            // A rule ends at the first white space.
            guard let rule = raw.split(whereSeparator: \.isWhitespace).first, !rule.hasPrefix("//") else { continue }
            let r = rule.lowercased()
            if r.hasPrefix("!") { exceptions.insert(String(r.dropFirst())) }
            else if r.hasPrefix("*.") { wildcards.insert(String(r.dropFirst(2))) }
            else { exact.insert(r) }
        }
    }

    /// The public suffix of a host (lower case, no trailing dot): `co.uk` for `www.bbc.co.uk`.
    public func suffix(of host: String) -> String {
        let labels = host.split(separator: ".")
        guard !labels.isEmpty else { return host }
        // From the longest candidate to the shortest: the first rule found is the longest.
        for i in 0..<labels.count {
            let name = labels[i...].joined(separator: ".")
            if exceptions.contains(name) { return labels[(i + 1)...].joined(separator: ".") }
            if exact.contains(name) { return name }
            if i + 1 < labels.count, wildcards.contains(labels[(i + 1)...].joined(separator: ".")) { return name }
        }
        return String(labels[labels.count - 1])
    }

    /// The name is itself a public suffix (`co.uk`, `github.io`, `com`).
    public func isSuffix(_ host: String) -> Bool { suffix(of: host) == host }

    /// The registrable domain of a host: its public suffix and one label more (`bbc.co.uk` for
    /// `www.bbc.co.uk`); nil when the host is a suffix itself.
    public func registrableDomain(of host: String) -> String? {
        let suffix = suffix(of: host)
        guard host != suffix, host.hasSuffix("." + suffix) else { return nil }
        let rest = host.dropLast(suffix.count + 1)
        let label = rest.split(separator: ".").last.map(String.init) ?? String(rest)
        return label + "." + suffix
    }
}
