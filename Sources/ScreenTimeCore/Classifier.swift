/// Which app a process or a focused window is, by the policy's rules: the first matching entry
/// wins; a program that only *looks like* an entry (by name, comm, app id or title) is a game when
/// it looks like a game, and an untrusted impostor when it looks like a learning app.
public struct AppMatch: Hashable, Sendable, Codable, Comparable {
    /// Index into `policy.apps`.
    public var entry: Int
    /// Learning only: the identity is one the policy trusts (an `exe` or `flatpak` match, and an
    /// exe the child cannot write). Always true for other categories.
    public var trusted: Bool

    /// A total order, so that whatever the engine does for several sessions at once it does in the
    /// same order in every run: a live run, its replay, and an engine restored from a checkpoint
    /// (a Dictionary's order differs from one process, and one history, to the next).
    public static func < (a: AppMatch, b: AppMatch) -> Bool { (a.entry, a.trusted ? 1 : 0) < (b.entry, b.trusted ? 1 : 0) }
}

struct Classifier {
    private let apps: [AppEntry]
    /// Lower-cased names a program of each entry goes by: the file names of its exe paths, its Flatpak id.
    private let knownNames: [Set<String>]
    /// The entry a focused program that nothing names counts as (`unknown_apps = "reward"`).
    private let unknownProgram: Int?
    /// `[[sites]]`: each domain and the entry that names it (the first entry that does).
    private let domains: [String: Int]
    /// With `[browsers]`: the browsers' exe patterns, and the entry for an unnamed host.
    private let browsers: [ExePattern]
    /// The names `[browsers]`' programs go by (their file names), made once.
    private let browserBaseNames: Set<String>
    private let unnamedSite: Int?

    init(policy: Policy) {
        self.init(apps: policy.apps, unknownProgram: policy.unknownProgramEntry, browsers: policy.browsers?.exe ?? [],
                  unnamedSite: policy.unnamedSiteEntry)
    }

    init(apps: [AppEntry], unknownProgram: Int? = nil, browsers: [ExePattern] = [], unnamedSite: Int? = nil) {
        self.apps = apps
        self.unknownProgram = unknownProgram
        self.browsers = browsers
        self.browserBaseNames = Set(browsers.compactMap { $0.literalBaseName?.lowercased() })
        self.unnamedSite = unnamedSite
        var domains: [String: Int] = [:]
        for (i, entry) in apps.enumerated() {
            for d in entry.domains where domains[d] == nil { domains[d] = i }
        }
        self.domains = domains
        self.knownNames = apps.map { entry in
            var names = Set(entry.exe.compactMap { $0.literalBaseName?.lowercased() })
            if let f = entry.flatpak { names.insert(f.lowercased()) }
            return names
        }
    }

    /// The app a running process is, from its identity alone (no window).
    func classify(process p: ProcessFacts) -> AppMatch? {
        let exe = ExeFacts(p)
        for (i, entry) in apps.enumerated() where entry.hasIdentity && !entry.hasWindowMatchers {
            if identityMatches(entry, exe) { return AppMatch(entry: i, trusted: isTrusted(entry, exe)) }
        }
        return lookAlike(exe: exe, window: nil)
    }

    /// The app a focused window is: entries with window matchers count here too.
    func classify(window w: FocusedWindow, process p: ProcessFacts?) -> AppMatch? {
        let exe = p.map(ExeFacts.init)
        for (i, entry) in apps.enumerated() {
            if entry.hasIdentity {
                guard let exe, identityMatches(entry, exe) else { continue }
            }
            if let id = entry.appID {
                guard let got = w.appID, got.equalsIgnoringCase(id) else { continue }
            }
            if let title = entry.title {
                // The title's text, or (not kept, `[privacy]`) the entries whose patterns it matched.
                if let got = w.title {
                    guard title.matches(got) else { continue }
                } else {
                    guard w.titleApps?.contains(entry.name) == true else { continue }
                }
            }
            guard entry.hasIdentity || entry.hasWindowMatchers else { continue }
            return AppMatch(entry: i, trusted: entry.category != .learning || (exe.map { isTrusted(entry, $0) } ?? false))
        }
        if let match = lookAlike(exe: exe, window: w) { return match }
        // A window of the child's that nothing names: what the policy says an unknown program is.
        guard p != nil, let unknown = unknownProgram else { return nil }
        return AppMatch(entry: unknown, trusted: true)
    }

    /// The site a host is (docs/spec/sites.md): of the domains that match it (itself, or a name it
    /// is under), the longest; a host none names is `unnamed_sites` (nil: neutral). Always trusted:
    /// only a report the daemon believes reaches the engine.
    func classify(host: String) -> AppMatch? {
        var name = Substring(host.lowercased())
        if name.hasSuffix(".") { name = name.dropLast() }
        while !name.isEmpty {
            if let entry = domains[String(name)] { return AppMatch(entry: entry, trusted: true) }
            guard let dot = name.firstIndex(of: ".") else { break }
            name = name[name.index(after: dot)...]
        }
        return unnamedSite.map { AppMatch(entry: $0, trusted: true) }
    }

    /// The process is a browser, for the `unreported` rule: one of `[browsers]`' programs, a copy
    /// of one (the same file or build), or a program that goes by a browser's name (a portable
    /// browser in the child's home). Only ever costs the child: such a browser's sites are never
    /// believed, only its reports are.
    func isBrowser(_ p: ProcessFacts) -> Bool {
        guard !browsers.isEmpty else { return false }
        let exe = ExeFacts(p)
        if browsers.contains(where: { $0.matches(exe.path) || exe.contentOf.map($0.matches) == true }) { return true }
        return exe.names.contains { Classifier.browserNames.contains($0) || browserBaseNames.contains($0) }
    }

    /// The names browsers' programs go by (their file names and `comm`), beyond those of `[browsers] exe`.
    static let browserNames: Set<String> = ["firefox", "firefox-esr", "firefox-bin", "chrome", "chromium", "chromium-browser",
                                            "google-chrome", "brave", "brave-browser", "opera", "vivaldi", "vivaldi-bin",
                                            "msedge", "microsoft-edge", "epiphany", "falkon", "midori", "librewolf",
                                            "waterfox", "qutebrowser", "konqueror", "palemoon", "seamonkey", "nyxt"]

    private func identityMatches(_ entry: AppEntry, _ exe: ExeFacts) -> Bool {
        if trustedIdentityMatches(entry, exe) { return true }
        // What it runs is the named program under another name: that app (a game stays a game).
        guard let content = exe.contentOf else { return false }
        return entry.exe.contains { $0.matches(content) }
    }

    private func trustedIdentityMatches(_ entry: AppEntry, _ exe: ExeFacts) -> Bool {
        if let f = entry.flatpak, exe.flatpak == f { return true }
        return entry.exe.contains { $0.matches(exe.path) }
    }

    /// Learning credit needs an identity the policy names and a binary the child cannot replace.
    /// A match by content alone is never trusted: a build-id is bytes a child can copy into any program.
    private func isTrusted(_ entry: AppEntry, _ exe: ExeFacts) -> Bool {
        guard entry.category == .learning else { return true }
        return entry.hasIdentity && trustedIdentityMatches(entry, exe) && !exe.writable
    }

    private func lookAlike(exe: ExeFacts?, window: FocusedWindow?) -> AppMatch? {
        var names: [String] = []
        if let exe { names += exe.names }
        if let id = window?.appID { names.append(id.lowercased()) }
        let title = window?.title?.lowercased()
        guard !names.isEmpty || title != nil else { return nil }
        for (i, entry) in apps.enumerated() where entry.category != .neutral && !entry.isSite {
            let known = knownNames[i]
            let byName = names.contains { n in known.contains(n) || (n.count == 15 && known.contains { $0.hasPrefix(n) }) }
            // A title that names a learning app is a claim; for games it is not enough (a web page about a game is not the game).
            let byTitle = entry.category == .learning && title == entry.name.lowercased()
            if byName || byTitle {
                return AppMatch(entry: i, trusted: entry.category != .learning)
            }
        }
        return nil
    }
}

extension String {
    func equalsIgnoringCase(_ other: String) -> Bool { lowercased() == other.lowercased() }
}

/// What of a process bears on its identity.
struct ExeFacts {
    var path: String
    var flatpak: String?
    var contentOf: String?
    var writable: Bool
    /// Lower-cased names it goes by: exe file name, comm, argv[0]'s file name.
    var names: [String]

    init(_ p: ProcessFacts) {
        var path = p.exe
        if path.hasSuffix(" (deleted)") { path.removeLast(10) }
        self.path = path
        self.flatpak = p.flatpak
        self.contentOf = p.contentOf
        self.writable = p.exeWritable ?? ExeFacts.inChildWritablePlace(path)
        var names: [String] = []
        if let base = path.split(separator: "/").last { names.append(base.lowercased()) }
        if let c = p.comm, !c.isEmpty { names.append(c.lowercased()) }
        if let a0 = p.cmdline?.first, let base = a0.split(separator: "/").last { names.append(base.lowercased()) }
        self.names = names
    }

    /// When the sampler did not say, these places count as writable by the child (policy spec).
    static func inChildWritablePlace(_ path: String) -> Bool {
        for prefix in ["/home/", "/tmp/", "/var/tmp/", "/dev/shm/", "/run/user/", "/root/"] where path.hasPrefix(prefix) {
            return true
        }
        return false
    }
}
