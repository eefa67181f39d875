import FoundationEssentials
import Glibc
import ScreenTimeCore

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

    /// Reads them for the browser `pid` running `exe`, of `child`; `package`: the package's copy
    /// of the extension as the browser's managed policy forces it (nil: it names none of root's) —
    /// Firefox's XPI (`ManagedBrowserPolicy.firefoxPackage`), Chromium's unpacked files
    /// (`ManagedBrowserPolicy.chromiumPackage`).
    public static func read(pid: Int32, exe: String, child: UserAccount, package: String?) -> BrowserFacts {
        let arguments = (ProcFS.contents(of: "/proc/\(pid)/cmdline") ?? []).split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        var facts = BrowserFacts(arguments: arguments)
        if BrowserTrust.isFirefox(exe) {
            facts.extensionCopyProblem = firefoxCopyProblem(pid: pid, package: package)
        } else {
            facts.childExtensionFolders = childFolders(of: arguments, child: child)
            let profiles = chromiumProfiles(arguments: arguments, environment: ProcFS.environment(of: pid),
                                            openFiles: ProcFS.openFiles(of: pid).map(\.path), workingFolder: ProcFS.realPath("/proc/\(pid)/cwd"))
            facts.extensionCopyProblem = chromiumCopyProblem(profiles: profiles, package: package)
        }
        return facts
    }

    /// The profile folders a Chromium process runs extensions from: those whose `History` it
    /// holds open (wherever they are); when it holds none open yet, every profile of its user
    /// data folder (`--user-data-dir`, else `$CHROME_CONFIG_HOME/chromium`,
    /// `$XDG_CONFIG_HOME/chromium` or `~/.config/chromium`, as Chromium picks it; a relative one
    /// from the browser's own working folder, `workingFolder`). A profile the browser does not run
    /// (one left from before an upgrade) is then not held against it.
    public static func chromiumProfiles(arguments: [String], environment: [String: String], openFiles: [String], workingFolder: String?) -> [String] {
        var seen = Set<String>()
        let open = openFiles.filter { $0.hasSuffix("/History") }.map { String($0.dropLast("/History".count)) }
            .filter { seen.insert(ProcFS.realPath($0) ?? $0).inserted }
        if !open.isEmpty { return open }
        /// A folder as the browser reads it: relative ones from its working folder.
        func absolute(_ path: String) -> String? {
            path.hasPrefix("/") ? path : workingFolder.map { $0 + "/" + path }
        }
        var dataFolders = arguments.filter { $0.hasPrefix("--user-data-dir=") }.compactMap { absolute(String($0.dropFirst("--user-data-dir=".count))) }
        if !arguments.contains(where: { $0.hasPrefix("--user-data-dir=") }) {
            if let config = environment["CHROME_CONFIG_HOME"], !config.isEmpty { dataFolders += absolute(config).map { [$0 + "/chromium"] } ?? [] }
            else if let config = environment["XDG_CONFIG_HOME"], !config.isEmpty { dataFolders += absolute(config).map { [$0 + "/chromium"] } ?? [] }
            else if let home = environment["HOME"], home.hasPrefix("/") { dataFolders.append(home + "/.config/chromium") }
        }
        var profiles: [String] = []
        for folder in dataFolders {
            for name in ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted() {
                profiles.append(folder + "/" + name)
            }
        }
        return profiles.filter { seen.insert(ProcFS.realPath($0) ?? $0).inserted }
    }

    /// At most this many profiles, and copies in one, are looked at: a child's folder of a million
    /// entries must not hold the daemon up (more are refused).
    static let mostProfiles = 64, mostCopies = 4

    /// Chromium unpacks the extension it runs into the child's profile
    /// (`Extensions/<id>/<version>_<n>/`), where the child can write, and holds none of its files
    /// open; its own check of those files uses hashes it keeps beside them, which the child can
    /// write too. So root compares every such copy in the browser's `profiles` with the
    /// package's unpacked files (`package`): each file byte for byte; the manifest and the words of
    /// each language (`_locales/LANG/messages.json`), which Chromium writes again in its own
    /// layout, as JSON; no file besides them but Chromium's `_metadata`.
    /// And the profile's preferences must load it from there, as the policy installed it (a
    /// `path` inside `Extensions/`, `location` 7: installed by policy), not from elsewhere.
    /// Nil when all is so.
    public static func chromiumCopyProblem(profiles: [String], package: String?) -> String? {
        guard let package else {
            return "Chromium's managed policy names no folder of root's that the child cannot change to install screentime's extension from"
        }
        let fm = FileManager.default
        guard let names = files(under: package), names.contains("manifest.json") else {
            return "the package's copy of screentime's extension (\(package)) cannot be read"
        }
        guard profiles.count <= mostProfiles else { return "Chromium's user data folder has more than \(mostProfiles) profiles to look at" }
        let id = ManagedBrowserPolicy.chromiumExtensionID
        var copies: [String] = []
        for profile in profiles {
            let folder = profile + "/Extensions/" + id
            let versions = ((try? fm.contentsOfDirectory(atPath: folder)) ?? []).sorted()
            guard versions.count <= mostCopies else { return "the profile \(profile) holds more than \(mostCopies) copies of screentime's extension" }
            copies += versions.map { folder + "/" + $0 }
            if let why = preferencesProblem(profile: profile) { return why }
        }
        guard !copies.isEmpty else { return "Chromium's copy of screentime's extension was not found in the child's profiles" }
        for copy in copies {
            let present = files(under: copy, leavingOut: "_metadata")
            if present.map(Set.init) != Set(names) { return "the copy of screentime's extension in Chromium's profile (\(copy)) does not hold the package's files (\(package))" }
            for name in names {
                guard let packaged = ProcFS.regularFileContents(of: package + "/" + name) else {
                    return "the package's copy of screentime's extension (\(package)/\(name)) cannot be read"
                }
                let same: Bool
                if let copied = ProcFS.regularFileContents(of: copy + "/" + name) {
                    same = name.hasSuffix(".json") ? sameJSON(packaged, copied) : packaged == copied
                } else {
                    same = false
                }
                if !same { return "the copy of screentime's extension in Chromium's profile (\(copy)/\(name)) is not the package's (\(package))" }
            }
        }
        return nil
    }

    /// What is in `folder` and the folders in it (the words of each language are in
    /// `_locales/LANG/`), as paths relative to it; `leavingOut` a name at the top (Chromium's own
    /// `_metadata`). Anything but a folder is listed, not entered: a link or a device is named
    /// here and refused when its contents are compared (never followed or opened). Nil for more
    /// than `most` entries or 3 levels, or a folder that cannot be read.
    static func files(under folder: String, leavingOut: String? = nil, most: Int = 64) -> [String]? {
        var found: [String] = [], seen = 0
        func walk(_ relative: String, depth: Int) -> Bool {
            guard depth <= 3, let names = try? FileManager.default.contentsOfDirectory(atPath: folder + relative) else { return false }
            for name in names.sorted() where !(relative.isEmpty && name == leavingOut) {
                seen += 1
                guard seen <= most, let mode = ProcFS.mode(of: folder + relative + "/" + name)?.mode else { return false }
                let path = relative.isEmpty ? name : String(relative.dropFirst()) + "/" + name
                if mode & S_IFMT == S_IFDIR {
                    guard walk(relative + "/" + name, depth: depth + 1) else { return false }
                } else {
                    found.append(path)
                }
            }
            return true
        }
        return walk("", depth: 0) ? found : nil
    }

    /// Why the profile's preferences would load screentime's extension from somewhere other than
    /// its copy in `Extensions/` as the policy installed it; nil when they do not name it, or
    /// name it so.
    static func preferencesProblem(profile: String) -> String? {
        let file = profile + "/Preferences"
        guard FileManager.default.fileExists(atPath: file) else { return nil }
        guard let bytes = ProcFS.regularFileContents(of: file), let value = try? JSONLineReader.parse(String(decoding: bytes, as: UTF8.self)) else {
            return "the preferences of Chromium's profile (\(file)) cannot be read"
        }
        guard let setting = value.fields["extensions"]?.fields["settings"]?.fields[ManagedBrowserPolicy.chromiumExtensionID] else { return nil }
        let id = ManagedBrowserPolicy.chromiumExtensionID
        guard case .string(let path) = setting.fields["path"] ?? .null, path.hasPrefix(id + "/"), !path.dropFirst(id.count + 1).contains("/"),
              !path.contains(".."), setting.fields["location"]?.integer == 7 else {
            return "the preferences of Chromium's profile (\(file)) load screentime's extension from elsewhere than its copy in Extensions"
        }
        return nil
    }

    /// Two JSON texts hold the same value (members in any order; the last of a name counts).
    static func sameJSON(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        func parsed(_ bytes: [UInt8]) -> JSONValue? { try? JSONLineReader.parse(String(decoding: bytes, as: UTF8.self)) }
        func canonical(_ v: JSONValue) -> JSONValue {
            switch v {
            case .object: .object(v.fields.map { ($0.key, canonical($0.value)) }.sorted { $0.0 < $1.0 })
            case .array(let items): .array(items.map(canonical))
            default: v
            }
        }
        guard let x = parsed(a), let y = parsed(b) else { return false }
        return canonical(x) == canonical(y)
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
