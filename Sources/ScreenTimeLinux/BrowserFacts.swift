import Glibc

/// What root can see of a browser of the child's beyond what `CompositorFacts` holds: how it was
/// started (its arguments as the kernel keeps them) and, for Firefox, the copy of screentime's
/// extension it runs. Only facts; `BrowserTrust` judges them.
public struct BrowserFacts: Sendable {
    /// The browser's arguments (`/proc/PID/cmdline`); empty when they cannot be read.
    public var arguments: [String]
    /// Firefox: why the copy of screentime's extension it runs is not the package's; nil when it
    /// is, or for Chromium.
    public var extensionCopyProblem: String?
    /// Chromium: the folders it loads extensions from by `--load-extension` that are not root's or
    /// that the child can change. (Debian's /usr/bin/chromium always passes the switch, naming the
    /// system's extensions in /usr/share/chromium/extensions, often none.)
    public var childExtensionFolders: [String] = []

    public init(arguments: [String], extensionCopyProblem: String? = nil) {
        self.arguments = arguments
        self.extensionCopyProblem = extensionCopyProblem
    }

    /// Reads them for the browser `pid` running `exe`, of `child`; `firefoxPackage`: the package's
    /// copy of the extension as Firefox's policies force it (nil: they name none of root's).
    public static func read(pid: Int32, exe: String, child: UserAccount, firefoxPackage: String?) -> BrowserFacts {
        let arguments = (ProcFS.contents(of: "/proc/\(pid)/cmdline") ?? []).split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        var facts = BrowserFacts(arguments: arguments)
        if BrowserTrust.isFirefox(exe) {
            facts.extensionCopyProblem = firefoxCopyProblem(pid: pid, package: firefoxPackage)
        } else {
            facts.childExtensionFolders = childFolders(of: arguments, child: child)
        }
        return facts
    }

    /// The folders Chromium's `--load-extension=A,B` names (every such switch) that are not root's
    /// or that `child` can change; one that is not there counts as such.
    public static func childFolders(of arguments: [String], child: UserAccount) -> [String] {
        arguments.filter { $0.hasPrefix("--load-extension=") }
            .flatMap { $0.dropFirst("--load-extension=".count).split(separator: ",").map(String.init) }
            .filter { folder in ProcFS.realPath(folder).map { ProcFS.mode(of: $0)?.uid != 0 || child.canAlter($0) } ?? true }
    }

    /// Firefox keeps the extension it runs in the child's profile (`extensions/browser@screentime.xpi`),
    /// where the child can write, and its signature check is off for screentime's extension (Mozilla
    /// has not signed it; the package's policy turns the check off, docs/security.md): a copy of
    /// the child's would run as screentime's. Firefox holds the copy it runs open; root reads that
    /// very file through /proc/PID/fd (whatever its path names now) and it must be the package's,
    /// byte for byte.
    static func firefoxCopyProblem(pid: Int32, package: String?) -> String? {
        guard let package else {
            return "Firefox's policies name no file of root's that the child cannot change as screentime's extension (a file:// install_url)"
        }
        guard let packaged = ProcFS.contents(of: package) else { return "the package's copy of screentime's extension (\(package)) cannot be read" }
        let name = "/extensions/" + ManagedBrowserPolicy.firefoxExtensionID + ".xpi"
        let open = ProcFS.openFiles(of: pid).filter { $0.path.contains(name) }
        guard !open.isEmpty else { return "Firefox has no copy of screentime's extension open" }
        for file in open where ProcFS.contents(of: "/proc/\(pid)/fd/\(file.fd)") != packaged {
            return "the copy of screentime's extension that Firefox runs (\(file.path)) is not the package's (\(package))"
        }
        return nil
    }
}
