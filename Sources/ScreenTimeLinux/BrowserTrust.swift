import FoundationEssentials
import Glibc
import ScreenTimeCore

/// System mode: whether a site report (docs/spec/sites.md) may be believed. The browser is the
/// child's process, so what its extension says is believed only when root can show that nothing
/// of the child's could have put words in its mouth (docs/security.md), by the rules a compositor
/// is held to (`CompositorTrust`), and more:
/// - the report came through the system's native messaging host, whose parent is the browser;
/// - the browser's program is one the policy names in `[browsers] exe`, root's, and one the child
///   cannot change; it is the child's own process, not traced, and the kernel lets no process of
///   the child's attach to it (Yama's `ptrace_scope` at least 1);
/// - nothing of the child's is mapped into it as code (`LD_PRELOAD` of a library of theirs);
/// - the system forces screentime's extension on that browser, and forbids what would let the
///   child run other code in its place (developer mode and tools, private windows, guest mode,
///   about:config), by the managed policy the package installs, root's and unchangeable.
/// Decides from facts; `BrowserFacts` reads them.
public enum BrowserTrust {
    /// The native messaging host the package installs.
    public static let hostName = "screentime-browser-host"

    /// Why a report from the host process `host` about the browser `browser` cannot be believed
    /// for `child`, every reason found; nil: it can.
    public static func distrust(host: CompositorFacts, browser: CompositorFacts, managed: ManagedBrowserPolicy.Verdict, started: BrowserFacts,
                                child: UInt32, isPolicyBrowser: (String) -> Bool) -> String? {
        guard let hostExe = host.exe else { return "the reporting process is gone" }
        guard hostExe.split(separator: "/").last.map(String.init) == hostName, !host.exeAlterable else {
            return "the report did not come through the system's \(hostName) (it came from \(hostExe))"
        }
        guard let exe = browser.exe else { return "the browser is gone" }
        guard isPolicyBrowser(exe) else { return "\(exe) is not a browser of the policy's [browsers] exe" }
        if browser.exeAlterable { return "\(exe) can be changed by the child" }
        guard let uids = browser.uids, uids.real == child, uids.effective == child else { return "\(exe) is not the child's own process" }
        var why: [String] = []
        if browser.tracer != 0 { why.append("the browser is being traced (pid \(browser.tracer))") }
        if host.tracer != 0 { why.append("the native messaging host is being traced (pid \(host.tracer))") }
        if let yama = CompositorTrust.yamaProblem(browser.ptraceScope, name: "the browser") { why.append(yama) }
        let code = browser.alterableCode + host.alterableCode
        if !code.isEmpty {
            let shown = code.prefix(3).joined(separator: ", ") + (code.count > 3 ? " and \(code.count - 3) more" : "")
            why.append("the browser runs code from \(shown), which is not root's or which the child can change")
        }
        if case .notForced(let reason) = managed { why.append(reason) }
        if let driven = drivenFromOutside(exe, started.arguments, browser.environment) { why.append(driven) }
        if let copy = started.extensionCopyProblem { why.append(copy) }
        if let folder = started.childExtensionFolders.first {
            why.append("the browser loads an extension from \(folder), which is not root's or which the child can change (--load-extension)")
        }
        return why.isEmpty ? nil : why.joined(separator: "; ")
    }

    /// Whether the program is Firefox (Debian's firefox-esr, or a firefox of the policy's).
    public static func isFirefox(_ exe: String) -> Bool { (exe.split(separator: "/").last ?? "").hasPrefix("firefox") }

    /// Why the browser was started to be driven by another program (which could then load an
    /// extension of its own in place of screentime's, or speak for it); nil when it was not. A child
    /// can start the system's browser with any arguments and environment; the kernel keeps both as
    /// the browser started. Chromium's managed policy also forbids remote debugging; Firefox has no
    /// policy for Marionette or its remote agent, so their switches are looked for here.
    static func drivenFromOutside(_ exe: String, _ arguments: [String], _ environment: [String: String]) -> String? {
        let switches = isFirefox(exe)
            ? ["marionette", "remote-debugging-port", "remote-allow-system-access", "start-debugger-server", "jsdebugger"]
            : ["remote-debugging-port", "remote-debugging-pipe"]
        for argument in arguments.dropFirst() where argument.hasPrefix("-") {
            // Firefox takes -switch and --switch alike, Chromium --switch=value.
            let name = argument.drop { $0 == "-" }.prefix { $0 != "=" }.lowercased()
            if switches.contains(name) { return "the browser was started to be driven from outside (\(argument.prefix { $0 != "=" }))" }
        }
        let variables = isFirefox(exe) ? ["MOZ_MARIONETTE", "MOZ_REMOTE_ALLOW_SYSTEM_ACCESS"] : []
        if let variable = variables.first(where: { environment[$0] != nil }) { return "the browser was started to be driven from outside (\(variable) is set)" }
        return nil
    }
}

/// The managed policy that forces screentime's extension on a browser and keeps the child from
/// running other code in its place: Chromium's `/etc/chromium/policies/managed/*.json`, Firefox
/// ESR's `policies.json` (in `/etc/firefox/policies/` or the program's `distribution/` folder).
public enum ManagedBrowserPolicy {
    public enum Verdict: Equatable, Sendable { case forced, notForced(String) }

    /// Chromium's id of the extension: the hash of the key its package is signed with
    /// (packaging/browser/extension-key.pem; tools/pack-browser-extension prints it).
    public static let chromiumExtensionID = "mggocjoioobolalbokcfippmdldfgkac"
    /// Firefox's id of the extension (`browser_specific_settings.gecko.id`).
    public static let firefoxExtensionID = "browser@screentime"

    public static let chromiumFolder = "/etc/chromium/policies/managed"
    public static let firefoxFiles = ["/etc/firefox/policies/policies.json", "/usr/lib/firefox-esr/distribution/policies.json"]

    /// What the system forces on the browser whose program is `exe`, as `child` could change it or not.
    public static func check(browserExe exe: String, child: UserAccount, chromiumFolder: String = chromiumFolder,
                             firefoxFiles: [String] = firefoxFiles) -> Verdict {
        if BrowserTrust.isFirefox(exe) {
            for file in firefoxFiles {
                guard let object = root(file, child: child) else { continue }
                return firefox(object["policies"]?.fields ?? [:], file: file)
            }
            return .notForced("no policies.json of root's forces screentime's extension on Firefox (\(firefoxFiles.joined(separator: " or ")))")
        }
        guard !child.canAlterOrMake(chromiumFolder) else { return .notForced("the child can change \(chromiumFolder)") }
        return chromium(chromiumPolicy(child: child, chromiumFolder: chromiumFolder))
    }

    /// Chromium's managed policy: every file of the folder that is root's and that the child
    /// cannot change, later ones over earlier ones, as Chromium reads them.
    private static func chromiumPolicy(child: UserAccount, chromiumFolder: String) -> [String: JSONValue] {
        var merged: [String: JSONValue] = [:]
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: chromiumFolder)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
        for file in files {
            guard let object = root(chromiumFolder + "/" + file, child: child) else { continue }
            merged.merge(object) { _, new in new }
        }
        return merged
    }

    /// The package's unpacked copy of the extension, which the copy Chromium runs must equal
    /// (`BrowserFacts`): the `chromium` folder beside the update manifest that Chromium's policy
    /// installs the extension from (`ExtensionInstallForcelist`, `ID;file:///…/updates.xml`), when
    /// it is root's and the child cannot change it. Nil otherwise.
    public static func chromiumPackage(child: UserAccount, chromiumFolder: String = chromiumFolder) -> String? {
        guard !child.canAlterOrMake(chromiumFolder) else { return nil }
        let entries = chromiumPolicy(child: child, chromiumFolder: chromiumFolder)["ExtensionInstallForcelist"]?.strings ?? []
        guard let entry = entries.first(where: { $0.hasPrefix(chromiumExtensionID + ";file:///") }) else { return nil }
        let updates = String(entry.dropFirst(chromiumExtensionID.count + ";file://".count))
        guard let slash = updates.lastIndex(of: "/") else { return nil }
        let folder = String(updates[..<slash]) + "/chromium"
        guard let mode = ProcFS.mode(of: folder), mode.uid == 0, mode.mode & S_IFMT == S_IFDIR, !child.canAlter(folder) else { return nil }
        return folder
    }

    /// The file Firefox's policies install screentime's extension from (its `install_url`, a
    /// file:// URL), when it is root's and the child cannot change it: the copy the extension Firefox
    /// runs must equal (`BrowserFacts`). Nil otherwise.
    public static func firefoxPackage(child: UserAccount, firefoxFiles: [String] = firefoxFiles) -> String? {
        for file in firefoxFiles {
            guard let object = root(file, child: child) else { continue }
            let settings = object["policies"]?.fields["ExtensionSettings"]?.fields[firefoxExtensionID]?.fields ?? [:]
            guard case .string(let url) = settings["install_url"], url.hasPrefix("file:///") else { return nil }
            let path = String(url.dropFirst("file://".count))
            guard let mode = ProcFS.mode(of: path), mode.uid == 0, mode.mode & S_IFMT == S_IFREG, !child.canAlter(path) else { return nil }
            return path
        }
        return nil
    }

    /// Chromium: the extension force-installed; private (incognito) windows, guest mode, the
    /// developer tools (which also reach extensions' pages), developer mode (which loads an
    /// extension from a folder) and remote debugging (which drives the browser from outside) off.
    static func chromium(_ p: [String: JSONValue]) -> Verdict {
        var missing: [String] = []
        let forced = p["ExtensionInstallForcelist"]?.strings.contains { $0.hasPrefix(chromiumExtensionID) } ?? false
        if !forced { missing.append("ExtensionInstallForcelist with screentime's extension") }
        if p["IncognitoModeAvailability"]?.integer != 1 { missing.append("IncognitoModeAvailability = 1") }
        if p["BrowserGuestModeEnabled"] != .bool(false) { missing.append("BrowserGuestModeEnabled = false") }
        if p["DeveloperToolsAvailability"]?.integer != 2 { missing.append("DeveloperToolsAvailability = 2") }
        if p["ExtensionDeveloperModeSettings"]?.integer != 1 { missing.append("ExtensionDeveloperModeSettings = 1") }
        if p["RemoteDebuggingAllowed"] != .bool(false) { missing.append("RemoteDebuggingAllowed = false") }
        return missing.isEmpty ? .forced : .notForced("Chromium's managed policy (\(chromiumFolder)) lacks " + missing.joined(separator: ", "))
    }

    /// Firefox: the extension force-installed; private windows, about:config and the developer tools off.
    static func firefox(_ p: [String: JSONValue], file: String) -> Verdict {
        var missing: [String] = []
        let settings = p["ExtensionSettings"]?.fields[firefoxExtensionID]?.fields ?? [:]
        if settings["installation_mode"] != .string("force_installed") { missing.append("ExtensionSettings forcing screentime's extension") }
        if p["DisablePrivateBrowsing"] != .bool(true) { missing.append("DisablePrivateBrowsing") }
        if p["BlockAboutConfig"] != .bool(true) { missing.append("BlockAboutConfig") }
        if p["DisableDeveloperTools"] != .bool(true) { missing.append("DisableDeveloperTools") }
        return missing.isEmpty ? .forced : .notForced("Firefox's policies (\(file)) lack " + missing.joined(separator: ", "))
    }

    /// A JSON object from a file of root's that the child cannot change; nil otherwise. A link (the
    /// Debian package links its files in /usr/share) is followed: the link and what it names
    /// must both be so.
    private static func root(_ path: String, child: UserAccount) -> [String: JSONValue]? {
        guard let mode = ProcFS.mode(of: path), mode.uid == 0 else { return nil }
        // A link's own mode says nothing (it is always 0777): what keeps it is its folder.
        let kept = mode.mode & S_IFMT == S_IFLNK ? String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) : path
        guard !child.canAlter(kept), let real = ProcFS.realPath(path),
              let target = ProcFS.mode(of: real), target.uid == 0, target.mode & S_IFMT == S_IFREG, !child.canAlter(real),
              let bytes = ProcFS.contents(of: real),
              let value = try? JSONLineReader.parse(String(decoding: bytes, as: UTF8.self)), case .object = value else { return nil }
        return value.fields
    }
}

extension JSONValue {
    /// An object's members by name (the last of a name wins); empty for anything else.
    var fields: [String: JSONValue] {
        guard case .object(let members) = self else { return [:] }
        return Dictionary(members, uniquingKeysWith: { _, last in last })
    }

    /// A whole number; nil for anything else.
    var integer: Int64? { if case .number(let n) = self { n.int64 } else { nil } }

    /// An array's strings; empty for anything else.
    var strings: [String] {
        guard case .array(let items) = self else { return [] }
        return items.compactMap { if case .string(let s) = $0 { s } else { nil } }
    }
}

/// The process tree a report came up through.
public enum ProcessTree {
    /// The program a process runs (the realpath of /proc/PID/exe); nil when it is gone.
    public static func program(of pid: Int32) -> String? { ProcFS.realPath("/proc/\(pid)/exe") }

    /// The parent of `pid` (from /proc/PID/stat); nil when it is gone.
    public static func parent(of pid: Int32) -> Int32? {
        guard let bytes = ProcFS.contents(of: "/proc/\(pid)/stat") else { return nil }
        // pid (comm) state ppid …: comm may hold spaces and parentheses; the last ')' ends it.
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let rest = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        guard rest.count > 1 else { return nil }
        return Int32(String(decoding: rest[1], as: UTF8.self))
    }
}
