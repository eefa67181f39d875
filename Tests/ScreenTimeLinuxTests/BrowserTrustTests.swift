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

    static let firefox = "/usr/lib/firefox-esr/firefox-esr"
    static let started = BrowserFacts(arguments: [chromium, "--no-sandbox", "--user-data-dir=/home/emma/.config/chromium", "https://www.khanacademy.org/"])

    static func distrust(host: CompositorFacts = host, browser: CompositorFacts = browser,
                         managed: ManagedBrowserPolicy.Verdict = .forced, started: BrowserFacts = started) -> String? {
        BrowserTrust.distrust(host: host, browser: browser, managed: managed, started: started, child: child,
                              isPolicyBrowser: { $0 == chromium || $0 == firefox })
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
        // Started to be driven by another program, which could load its own extension in place
        // of screentime's or speak for it: by a switch, or for Firefox an environment variable too.
        var theirs = BrowserFacts(arguments: [Self.chromium, "--load-extension=/home/emma/fake"])
        theirs.childExtensionFolders = ["/home/emma/fake"]
        #expect(Self.distrust(started: theirs)
            == "the browser loads an extension from /home/emma/fake, which is not root's or which the child can change (--load-extension)")
        #expect(Self.distrust(started: BrowserFacts(arguments: [Self.chromium, "--remote-debugging-pipe"]))
            == "the browser was started to be driven from outside (--remote-debugging-pipe)")
        let firefox = with(Self.browser) { $0.exe = Self.firefox }
        #expect(Self.distrust(browser: firefox, started: BrowserFacts(arguments: [Self.firefox, "--no-remote", "https://www.khanacademy.org/"])) == nil)
        #expect(Self.distrust(browser: firefox, started: BrowserFacts(arguments: [Self.firefox, "-Marionette"]))
            == "the browser was started to be driven from outside (-Marionette)")
        #expect(Self.distrust(browser: firefox, started: BrowserFacts(arguments: [Self.firefox, "--remote-debugging-port=9222"]))
            == "the browser was started to be driven from outside (--remote-debugging-port)")
        #expect(Self.distrust(browser: with(firefox) { $0.environment = ["MOZ_MARIONETTE": "1"] }, started: BrowserFacts(arguments: [Self.firefox]))
            == "the browser was started to be driven from outside (MOZ_MARIONETTE is set)")
        // A page's address is not a switch.
        #expect(Self.distrust(browser: firefox, started: BrowserFacts(arguments: [Self.firefox, "https://example.org/-marionette"])) == nil)
        // Firefox runs a copy of the extension that is not the package's.
        #expect(Self.distrust(browser: firefox, started: BrowserFacts(arguments: [Self.firefox], extensionCopyProblem: "not the package's"))
            == "not the package's")
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
        // Debian's /usr/lib/firefox-esr/distribution is a link to a folder in /usr/share: a link of
        // root's to a folder of root's is the system's (a link's own mode, 0777, says nothing)...
        try FileManager.default.createSymbolicLink(atPath: dir + "/distribution", withDestinationPath: dir)
        #expect(ManagedBrowserPolicy.check(browserExe: firefox, child: child, firefoxFiles: [dir + "/distribution/policies.json"]) == .forced)
        #expect(!child.canAlter(dir + "/distribution/policies.json"))
        // ...and a link to a folder the child can write is not.
        let theirs = try Self.folder(["policies.json": forced])
        defer { try? FileManager.default.removeItem(atPath: theirs) }
        chown(theirs, child.uid, 65534)
        try FileManager.default.createSymbolicLink(atPath: dir + "/theirs", withDestinationPath: theirs)
        #expect(child.canAlter(dir + "/theirs/policies.json"))
        // A folder of root's inside a folder of the child's, reached through a link of root's: the
        // child can put another in its place.
        try FileManager.default.createDirectory(atPath: theirs + "/inner", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try forced.write(toFile: theirs + "/inner/policies.json", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/inner", withDestinationPath: theirs + "/inner")
        #expect(child.canAlter(dir + "/inner/policies.json"))
        #expect(ManagedBrowserPolicy.check(browserExe: firefox, child: child, firefoxFiles: [dir + "/theirs/policies.json"]) != .forced)
    }

    @Test("Firefox's package of the extension: the policies' file:// install_url, when the file is root's and the child cannot change it")
    func firefoxPackage() throws {
        try #require(getuid() == 0, "run as root (make test): the policy files must be root's")
        let child = try #require(UserAccount.lookup(name: "nobody"))
        func policy(_ url: String) -> String {
            #"{"policies": {"ExtensionSettings": {"\#(ManagedBrowserPolicy.firefoxExtensionID)": {"installation_mode": "force_installed", "install_url": "\#(url)"}}}}"#
        }
        let dir = try Self.folder(["screentime.xpi": "PK", "theirs.xpi": "PK"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        chown(dir + "/theirs.xpi", child.uid, 65534)
        try policy("file://\(dir)/screentime.xpi").write(toFile: dir + "/root.json", atomically: true, encoding: .utf8)
        try policy("file://\(dir)/theirs.xpi").write(toFile: dir + "/theirs.json", atomically: true, encoding: .utf8)
        try policy("https://example.org/screentime.xpi").write(toFile: dir + "/web.json", atomically: true, encoding: .utf8)
        try policy("file://\(dir)/missing.xpi").write(toFile: dir + "/missing.json", atomically: true, encoding: .utf8)
        #expect(ManagedBrowserPolicy.firefoxPackage(child: child, firefoxFiles: [dir + "/none.json", dir + "/root.json"]) == dir + "/screentime.xpi")
        #expect(ManagedBrowserPolicy.firefoxPackage(child: child, firefoxFiles: [dir + "/theirs.json"]) == nil)
        #expect(ManagedBrowserPolicy.firefoxPackage(child: child, firefoxFiles: [dir + "/web.json"]) == nil)
        #expect(ManagedBrowserPolicy.firefoxPackage(child: child, firefoxFiles: [dir + "/missing.json"]) == nil)
    }

    @Test("Chromium's --load-extension: Debian's (none, or root's folders) passes; a folder of the child's, or one that is not there, is named")
    func loadedExtensions() throws {
        try #require(getuid() == 0, "run as root (make test): the folders must be root's")
        let child = try #require(UserAccount.lookup(name: "nobody"))
        let dir = try Self.folder([:])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for folder in ["system", "theirs"] {
            try FileManager.default.createDirectory(atPath: dir + "/" + folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        }
        chown(dir + "/theirs", child.uid, 65534)
        func folders(_ arguments: [String]) -> [String] { BrowserFacts.childFolders(of: arguments, child: child) }
        #expect(folders([Self.chromium, "--load-extension=", "--enable-remote-extensions"]) == [])
        #expect(folders([Self.chromium, "--load-extension=\(dir)/system"]) == [])
        #expect(folders([Self.chromium, "--load-extension=\(dir)/system,\(dir)/theirs"]) == ["\(dir)/theirs"])
        #expect(folders([Self.chromium, "--load-extension=\(dir)/missing"]) == ["\(dir)/missing"])
    }

    @Test("the copy of the extension Firefox runs is read through the file it holds open: the package's is believed, another not, none open not; replacing the file after it was opened changes nothing")
    func firefoxCopy() throws {
        let child = try #require(UserAccount.lookup(name: "nobody"))
        let dir = try Self.folder(["package.xpi": "the package's bytes", "other.xpi": "the child's bytes"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/profile/extensions", withIntermediateDirectories: true)
        let copy = dir + "/profile/extensions/\(ManagedBrowserPolicy.firefoxExtensionID).xpi"
        /// A process that holds `file` open (as Firefox holds its copy) until it is ended.
        func holding(_ file: String?) throws -> Process {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/bin/sh")
            p.arguments = ["-c", (file.map { _ in "exec 3< \"$0\"; " } ?? "") + "echo ready; exec sleep 60", file ?? "-"]
            let out = Pipe()
            p.standardOutput = out
            try p.run()
            _ = out.fileHandleForReading.availableData   // "ready": the file is open
            return p
        }
        func problem(_ p: Process) -> String? {
            BrowserFacts.read(pid: p.processIdentifier, exe: Self.firefox, child: child, package: dir + "/package.xpi").extensionCopyProblem
        }
        try FileManager.default.copyItem(atPath: dir + "/package.xpi", toPath: copy)
        let honest = try holding(copy)
        defer { kill(honest.processIdentifier, SIGKILL); honest.waitUntilExit() }
        #expect(problem(honest) == nil)
        // The child's own copy put in its place: the open file is still the package's.
        try FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: dir + "/other.xpi", toPath: copy)
        #expect(problem(honest) == nil)
        // A Firefox that opened the child's copy.
        let tricked = try holding(copy)
        defer { kill(tricked.processIdentifier, SIGKILL); tricked.waitUntilExit() }
        #expect(problem(tricked) == "the copy of screentime's extension that Firefox runs (\(copy)) is not the package's (\(dir)/package.xpi)")
        let none = try holding(nil)
        defer { kill(none.processIdentifier, SIGKILL); none.waitUntilExit() }
        #expect(problem(none) == "Firefox has no copy of screentime's extension open")
        #expect(BrowserFacts.read(pid: honest.processIdentifier, exe: Self.firefox, child: child, package: nil).extensionCopyProblem?
            .hasPrefix("Firefox's policies name no file of root's") == true)
        // Chromium with no package's copy to compare with: not believed.
        #expect(BrowserFacts.read(pid: none.processIdentifier, exe: Self.chromium, child: child, package: nil).extensionCopyProblem?
            .hasPrefix("Chromium's managed policy names no folder of root's") == true)
        // Its arguments as the kernel keeps them (sh ran sleep in its place).
        #expect(BrowserFacts.read(pid: honest.processIdentifier, exe: Self.chromium, child: child, package: nil).arguments == ["sleep", "60"])
    }

    @Test("Chromium's copies of the extension in the child's profiles are compared with the package's: the same files (the manifest as JSON, in Chromium's layout, with Chromium's _metadata beside) are believed; a changed, added or missing file, a second version of the child's, a FIFO in a file's place, or no copy at all are not")
    func chromiumCopy() throws {
        let manifest = #"{"manifest_version": 3, "name": "screentime", "version": "0.1", "key": "KEY", "background": {"service_worker": "background.js"}}"#
        let dir = try Self.folder([:])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fm = FileManager.default
        let package = dir + "/package"
        try fm.createDirectory(atPath: package, withIntermediateDirectories: true)
        try manifest.write(toFile: package + "/manifest.json", atomically: true, encoding: .utf8)
        try "report();\n".write(toFile: package + "/background.js", atomically: true, encoding: .utf8)
        try fm.createDirectory(atPath: package + "/_locales/de", withIntermediateDirectories: true)
        try #"{"notNow": {"message": "Jetzt nicht"}}"#.write(toFile: package + "/_locales/de/messages.json", atomically: true, encoding: .utf8)
        let profile = dir + "/data/Default"
        let copy = profile + "/Extensions/\(ManagedBrowserPolicy.chromiumExtensionID)/0.1_0"
        try fm.createDirectory(atPath: copy + "/_metadata", withIntermediateDirectories: true)
        // Chromium writes the manifest again: its members sorted, three spaces.
        try "{\n   \"background\": {\n      \"service_worker\": \"background.js\"\n   },\n   \"key\": \"KEY\",\n   \"manifest_version\": 3,\n   \"name\": \"screentime\",\n   \"version\": \"0.1\"\n}\n"
            .write(toFile: copy + "/manifest.json", atomically: true, encoding: .utf8)
        try "report();\n".write(toFile: copy + "/background.js", atomically: true, encoding: .utf8)
        try "{}".write(toFile: copy + "/_metadata/computed_hashes.json", atomically: true, encoding: .utf8)
        try fm.createDirectory(atPath: copy + "/_locales/de", withIntermediateDirectories: true)
        // (Chromium writes the words of each language again too, in its layout.)
        try "{\n   \"notNow\": {\n      \"message\": \"Jetzt nicht\"\n   }\n}\n".write(toFile: copy + "/_locales/de/messages.json", atomically: true, encoding: .utf8)
        func problem() -> String? { BrowserFacts.chromiumCopyProblem(profiles: [dir + "/data/System Profile", profile], package: package) }
        #expect(problem() == nil)

        // The words of a language are the package's too (a page of the extension's shows them).
        try #"{"notNow": {"message": "Du darfst alles"}}"#.write(toFile: copy + "/_locales/de/messages.json", atomically: true, encoding: .utf8)
        #expect(problem() == "the copy of screentime's extension in Chromium's profile (\(copy)/_locales/de/messages.json) is not the package's (\(package))")
        try fm.removeItem(atPath: copy + "/_locales/de/messages.json")
        #expect(problem() == "the copy of screentime's extension in Chromium's profile (\(copy)) does not hold the package's files (\(package))")
        try #"{"notNow": {"message": "Jetzt nicht"}}"#.write(toFile: copy + "/_locales/de/messages.json", atomically: true, encoding: .utf8)
        #expect(problem() == nil)
        try "report(); lie();\n".write(toFile: copy + "/background.js", atomically: true, encoding: .utf8)
        #expect(problem() == "the copy of screentime's extension in Chromium's profile (\(copy)/background.js) is not the package's (\(package))")
        try "report();\n".write(toFile: copy + "/background.js", atomically: true, encoding: .utf8)
        try manifest.replacingOccurrences(of: "background.js", with: "mine.js").write(toFile: copy + "/manifest.json", atomically: true, encoding: .utf8)
        #expect(problem() == "the copy of screentime's extension in Chromium's profile (\(copy)/manifest.json) is not the package's (\(package))")
        try manifest.write(toFile: copy + "/manifest.json", atomically: true, encoding: .utf8)
        #expect(problem() == nil)
        try "lie();".write(toFile: copy + "/mine.js", atomically: true, encoding: .utf8)
        #expect(problem() == "the copy of screentime's extension in Chromium's profile (\(copy)) does not hold the package's files (\(package))")
        try fm.removeItem(atPath: copy + "/mine.js")
        try fm.removeItem(atPath: copy + "/background.js")
        #expect(problem() == "the copy of screentime's extension in Chromium's profile (\(copy)) does not hold the package's files (\(package))")
        // A FIFO where a file was: said at once, never waited on.
        #expect(mkfifo(copy + "/background.js", 0o644) == 0)
        #expect(problem() == "the copy of screentime's extension in Chromium's profile (\(copy)/background.js) is not the package's (\(package))")
        try fm.removeItem(atPath: copy + "/background.js")
        try "report();\n".write(toFile: copy + "/background.js", atomically: true, encoding: .utf8)
        // A link in a file's place, even to the package's own file: not followed (a link to a
        // device would have root open it).
        try fm.removeItem(atPath: copy + "/background.js")
        try fm.createSymbolicLink(atPath: copy + "/background.js", withDestinationPath: package + "/background.js")
        #expect(problem() == "the copy of screentime's extension in Chromium's profile (\(copy)/background.js) is not the package's (\(package))")
        try fm.removeItem(atPath: copy + "/background.js")
        try "report();\n".write(toFile: copy + "/background.js", atomically: true, encoding: .utf8)
        // The profile's preferences load it from its copy, as the policy installed it; or from elsewhere.
        let id = ManagedBrowserPolicy.chromiumExtensionID
        func preferences(path: String, location: Int) throws {
            try #"{"extensions": {"settings": {"\#(id)": {"path": "\#(path)", "location": \#(location)}, "other": {"path": "/x", "location": 4}}}}"#
                .write(toFile: profile + "/Preferences", atomically: true, encoding: .utf8)
        }
        try preferences(path: "\(id)/0.1_0", location: 7)
        #expect(problem() == nil)
        try preferences(path: "\(dir)/mine", location: 4)
        #expect(problem() == "the preferences of Chromium's profile (\(profile)/Preferences) load screentime's extension from elsewhere than its copy in Extensions")
        try preferences(path: "\(id)/../../mine", location: 7)
        #expect(problem()?.hasSuffix("load screentime's extension from elsewhere than its copy in Extensions") == true)
        try fm.removeItem(atPath: profile + "/Preferences")
        // A second version beside it, of the child's.
        let second = profile + "/Extensions/\(ManagedBrowserPolicy.chromiumExtensionID)/9.9_0"
        try fm.copyItem(atPath: copy, toPath: second)
        #expect(problem() == nil)
        try "lie();".write(toFile: second + "/background.js", atomically: true, encoding: .utf8)
        #expect(problem() == "the copy of screentime's extension in Chromium's profile (\(second)/background.js) is not the package's (\(package))")
        try fm.removeItem(atPath: second)
        // More copies or profiles than are looked at: refused, not read.
        for n in 1...4 { try fm.copyItem(atPath: copy, toPath: copy + "-\(n)") }
        #expect(problem() == "the profile \(profile) holds more than 4 copies of screentime's extension")
        for n in 1...4 { try fm.removeItem(atPath: copy + "-\(n)") }
        #expect(BrowserFacts.chromiumCopyProblem(profiles: (0...64).map { "\(dir)/p\($0)" }, package: package)
                == "Chromium's user data folder has more than 64 profiles to look at")
        #expect(BrowserFacts.chromiumCopyProblem(profiles: [dir + "/elsewhere"], package: package)
                == "Chromium's copy of screentime's extension was not found in the child's profiles")
        #expect(BrowserFacts.chromiumCopyProblem(profiles: [profile], package: dir + "/missing") == "the package's copy of screentime's extension (\(dir)/missing) cannot be read")
    }

    @Test("Chromium's profiles: those whose History it holds open; before any is, those of its user data folder as Chromium picks it (a relative one from its working folder)")
    func chromiumProfiles() throws {
        let dir = try Self.folder([:])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for folder in ["given/Default", "given/Profile 1", "config/chromium/Default", "home/.config/chromium/Default", "xdg/chromium/Default", "cwd/rel/Default"] {
            try FileManager.default.createDirectory(atPath: dir + "/" + folder, withIntermediateDirectories: true)
        }
        let profiles = { (arguments: [String], environment: [String: String], open: [String]) in
            BrowserFacts.chromiumProfiles(arguments: [Self.chromium] + arguments, environment: environment, openFiles: open, workingFolder: dir + "/cwd")
        }
        #expect(profiles(["--user-data-dir=\(dir)/given"], ["HOME": dir + "/home"], []) == ["\(dir)/given/Default", "\(dir)/given/Profile 1"])
        #expect(profiles(["--user-data-dir=rel"], ["HOME": dir + "/home"], []) == ["\(dir)/cwd/rel/Default"])
        #expect(profiles([], ["HOME": dir + "/home", "CHROME_CONFIG_HOME": dir + "/config", "XDG_CONFIG_HOME": dir + "/xdg"], []) == ["\(dir)/config/chromium/Default"])
        #expect(profiles([], ["HOME": dir + "/home", "XDG_CONFIG_HOME": dir + "/xdg"], []) == ["\(dir)/xdg/chromium/Default"])
        #expect(profiles([], ["HOME": dir + "/home"], []) == ["\(dir)/home/.config/chromium/Default"])
        // Open profiles are the ones it runs, wherever they are.
        #expect(profiles(["--user-data-dir=\(dir)/given"], ["HOME": dir + "/home"], ["/dev/null", "\(dir)/elsewhere/Default/History", "\(dir)/given/Profile 1/History"])
                == ["\(dir)/elsewhere/Default", "\(dir)/given/Profile 1"])
    }

    @Test("the package's unpacked copy for Chromium: beside the update manifest its policy installs from, when root's")
    func chromiumPackage() throws {
        let child = try #require(UserAccount.lookup(name: "nobody"))
        let dir = try Self.folder([:])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/share/chromium", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/policies", withIntermediateDirectories: true)
        try #"{"ExtensionInstallForcelist": ["\#(ManagedBrowserPolicy.chromiumExtensionID);file://\#(dir)/share/updates.xml"]}"#
            .write(toFile: dir + "/policies/screentime.json", atomically: true, encoding: .utf8)
        #expect(ManagedBrowserPolicy.chromiumPackage(child: child, chromiumFolder: dir + "/policies") == dir + "/share/chromium")
        // The folder given to the child: not the package's.
        #expect(chown(dir + "/share/chromium", child.uid, 0) == 0)
        #expect(ManagedBrowserPolicy.chromiumPackage(child: child, chromiumFolder: dir + "/policies") == nil)
        // Installed from the web: nothing of root's to compare with.
        try #"{"ExtensionInstallForcelist": ["\#(ManagedBrowserPolicy.chromiumExtensionID);https://example.invalid/updates.xml"]}"#
            .write(toFile: dir + "/policies/screentime.json", atomically: true, encoding: .utf8)
        #expect(ManagedBrowserPolicy.chromiumPackage(child: child, chromiumFolder: dir + "/policies") == nil)
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
