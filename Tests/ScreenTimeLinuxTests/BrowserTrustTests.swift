import Foundation
import ScreenTimeLinux
import TestSupport
import Testing

/// System mode's rules for believing a browser's site report (docs/spec/sites.md), over facts made
/// here, and the managed policies read from folders of root's made here.
@Suite("Which site reports system mode believes", .ownThread)
struct BrowserTrustTests {
    static let child: UInt32 = 1001
    static let chromium = "/usr/lib/chromium/chromium"

    static func facts(pid: Int32, exe: String) -> CompositorFacts {
        var f = CompositorFacts(pid: pid, exe: exe, exeAlterable: false, uids: (child, child), tracer: 0, environment: [:],
                                extensionFolder: nil, extensionAlterable: false)
        f.ptraceScope = 1
        return f
    }
    static let host = facts(pid: 5001, exe: "/usr/bin/screentime-browser-host")
    static let browser = facts(pid: 5000, exe: chromium)

    static func distrust(host: CompositorFacts = host, browser: CompositorFacts = browser,
                         managed: ManagedBrowserPolicy.Verdict = .forced) -> String? {
        BrowserTrust.distrust(host: host, browser: browser, managed: managed, child: child, isPolicyBrowser: { $0 == chromium })
    }

    @Test("the system's Chromium, through the system's host, with the extension forced, is believed")
    func honest() {
        #expect(Self.distrust() == nil)
    }

    @Test("every way of putting words in its mouth is refused, with the reason")
    func tricks() {
        func with(_ f: CompositorFacts, _ change: (inout CompositorFacts) -> Void) -> CompositorFacts { var c = f; change(&c); return c }
        #expect(Self.distrust(host: with(Self.host) { $0.exe = "/home/emma/screentime-browser-host" ; $0.exeAlterable = true })
            == "the report did not come through the system's screentime-browser-host (it came from /home/emma/screentime-browser-host)")
        #expect(Self.distrust(host: with(Self.host) { $0.exe = "/usr/bin/python3.11" })
            == "the report did not come through the system's screentime-browser-host (it came from /usr/bin/python3.11)")
        #expect(Self.distrust(browser: with(Self.browser) { $0.exe = "/home/emma/chrome" }) == "/home/emma/chrome is not a browser of the policy's [browsers] exe")
        #expect(Self.distrust(browser: with(Self.browser) { $0.exeAlterable = true }) == "\(Self.chromium) can be changed by the child")
        #expect(Self.distrust(browser: with(Self.browser) { $0.uids = (1002, 1002) }) == "\(Self.chromium) is not the child's own process")
        #expect(Self.distrust(browser: with(Self.browser) { $0.tracer = 77 }) == "the browser is being traced (pid 77)")
        #expect(Self.distrust(host: with(Self.host) { $0.tracer = 78 }) == "the native messaging host is being traced (pid 78)")
        #expect(Self.distrust(browser: with(Self.browser) { $0.ptraceScope = 0 })?.hasPrefix("Yama's ptrace_scope is 0") == true)
        #expect(Self.distrust(browser: with(Self.browser) { $0.ptraceScope = nil })?.hasPrefix("the kernel has no Yama") == true)
        #expect(Self.distrust(browser: with(Self.browser) { $0.alterableCode = ["/home/emma/.local/lib/inject.so"] })
            == "the browser runs code from /home/emma/.local/lib/inject.so, which is not root's or which the child can change")
        #expect(Self.distrust(managed: .notForced("no policy")) == "no policy")
        // Several reasons are all said.
        #expect(Self.distrust(browser: with(Self.browser) { $0.tracer = 77; $0.ptraceScope = 0 })?.contains("; Yama's") == true)
    }

    /// A folder of root's with these files (this test runs as root, as `make test` does).
    static func folder(_ files: [String: String]) throws -> String {
        let dir = NSTemporaryDirectory() + "browser-trust-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        for (name, text) in files { try text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8) }
        return dir
    }

    static let chromiumForced = """
        {"ExtensionInstallForcelist": ["\(ManagedBrowserPolicy.chromiumExtensionID);https://example.invalid/updates.xml"],
         "IncognitoModeAvailability": 1, "BrowserGuestModeEnabled": false, "DeveloperToolsAvailability": 2,
         "ExtensionDeveloperModeSettings": 1, "RemoteDebuggingAllowed": false}
        """

    @Test("Chromium's managed policy: forced only with the extension, no incognito, no guest mode, no developer tools, mode or remote debugging; later files over earlier; a link of root's to a file of root's is followed")
    func chromiumPolicy() throws {
        try #require(getuid() == 0, "run as root (make test): the policy files must be root's")
        let child = try #require(UserAccount.lookup(name: "nobody"))
        let good = try Self.folder(["screentime.json": Self.chromiumForced])
        defer { try? FileManager.default.removeItem(atPath: good) }
        #expect(ManagedBrowserPolicy.check(browserExe: Self.chromium, child: child, chromiumFolder: good) == .forced)

        let undone = try Self.folder(["screentime.json": Self.chromiumForced, "zz-local.json": #"{"DeveloperToolsAvailability": 1, "IncognitoModeAvailability": 0}"#])
        defer { try? FileManager.default.removeItem(atPath: undone) }
        #expect(ManagedBrowserPolicy.check(browserExe: Self.chromium, child: child, chromiumFolder: undone)
            == .notForced("Chromium's managed policy (\(ManagedBrowserPolicy.chromiumFolder)) lacks IncognitoModeAvailability = 1, DeveloperToolsAvailability = 2"))

        let none = try Self.folder([:])
        defer { try? FileManager.default.removeItem(atPath: none) }
        #expect(ManagedBrowserPolicy.check(browserExe: Self.chromium, child: child, chromiumFolder: none)
            == .notForced("Chromium's managed policy (\(ManagedBrowserPolicy.chromiumFolder)) lacks ExtensionInstallForcelist with screentime's extension, IncognitoModeAvailability = 1, BrowserGuestModeEnabled = false, DeveloperToolsAvailability = 2, ExtensionDeveloperModeSettings = 1, RemoteDebuggingAllowed = false"))

        // The Debian package's form: a link to its file in /usr/share. Followed; a link to a file
        // of the child's is not the system's.
        let linked = try Self.folder(["target.json.txt": Self.chromiumForced])
        defer { try? FileManager.default.removeItem(atPath: linked) }
        try FileManager.default.createSymbolicLink(atPath: linked + "/screentime.json", withDestinationPath: linked + "/target.json.txt")
        #expect(ManagedBrowserPolicy.check(browserExe: Self.chromium, child: child, chromiumFolder: linked) == .forced)
        chown(linked + "/target.json.txt", child.uid, 65534)
        #expect(ManagedBrowserPolicy.check(browserExe: Self.chromium, child: child, chromiumFolder: linked) != .forced)

        // A file the child owns is not the system's: not read.
        let theirs = try Self.folder(["screentime.json": Self.chromiumForced])
        defer { try? FileManager.default.removeItem(atPath: theirs) }
        chown(theirs + "/screentime.json", child.uid, 65534)
        #expect(ManagedBrowserPolicy.check(browserExe: Self.chromium, child: child, chromiumFolder: theirs) != .forced)
    }

    @Test("Firefox's policies.json: forced only with the extension force-installed, no private windows, no about:config, no developer tools")
    func firefoxPolicy() throws {
        try #require(getuid() == 0, "run as root (make test): the policy files must be root's")
        let child = try #require(UserAccount.lookup(name: "nobody"))
        let forced = """
            {"policies": {"ExtensionSettings": {"\(ManagedBrowserPolicy.firefoxExtensionID)": {"installation_mode": "force_installed",
              "install_url": "file:///usr/share/screentime/browser/screentime.xpi"}},
              "DisablePrivateBrowsing": true, "BlockAboutConfig": true, "DisableDeveloperTools": true}}
            """
        let dir = try Self.folder(["policies.json": forced, "weak.json": #"{"policies": {"DisablePrivateBrowsing": true}}"#])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let firefox = "/usr/lib/firefox-esr/firefox-esr"
        #expect(ManagedBrowserPolicy.check(browserExe: firefox, child: child, firefoxFiles: [dir + "/policies.json"]) == .forced)
        // The first file found is the one Firefox reads.
        #expect(ManagedBrowserPolicy.check(browserExe: firefox, child: child, firefoxFiles: [dir + "/weak.json", dir + "/policies.json"])
            == .notForced("Firefox's policies (\(dir)/weak.json) lack ExtensionSettings forcing screentime's extension, BlockAboutConfig, DisableDeveloperTools"))
        #expect(ManagedBrowserPolicy.check(browserExe: firefox, child: child, firefoxFiles: [dir + "/missing.json"])
            == .notForced("no policies.json of root's forces screentime's extension on Firefox (\(dir)/missing.json)"))
    }

    @Test("a process's parent and program, from /proc")
    func processTree() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sleep")
        p.arguments = ["30"]
        try p.run()
        defer { p.terminate(); p.waitUntilExit() }
        #expect(ProcessTree.parent(of: p.processIdentifier) == getpid())
        #expect(ProcessTree.program(of: p.processIdentifier) == "/usr/bin/sleep")
        #expect(ProcessTree.parent(of: 999_999_999) == nil)
    }
}
