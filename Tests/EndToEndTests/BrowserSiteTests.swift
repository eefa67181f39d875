import Foundation
import ScreenTimeCore
import ScreenTimeLinux
import TestSupport
import Testing

/// Websites in a real Chromium (Debian's), with screentime's extension installed the way the
/// package installs it: force-installed by Chromium's managed policy from the CRX that
/// tools/pack-browser-extension makes, with the real screentime-browser-host as its native
/// messaging host. Chromium runs as the child in Xvfb, so that focus and input reach the daemon
/// through the X11 hook as a child's would. The package's policy and host manifest are put where
/// Chromium reads them (/etc/chromium) in a mount namespace of the browser's own: nothing of this
/// machine's is changed. The sites are pages served here on 127.0.0.1 over TLS, under their real
/// names (Chromium's --host-resolver-rules sends every name to the test's server; several of them
/// are on Chromium's HTTPS-only list, so https it is, with the test's own certificate).
/// The child is uid 65016, which no other test uses: the daemon watches every process of its.
@Suite("Websites in a real Chromium and Firefox ESR with screentime's extension", .ownThread, .serialized)
struct BrowserSiteTests {
    static let child: UInt32 = TestUser.ensure(uid: 65016, name: "stweb65016")
    static let policy = sitesPolicy()
    /// The sites' policy for the browser `exe`; `browsers`: more of its `[browsers]` table; `more`:
    /// tables after it. learn.example and games.example are Firefox's (its pages are served
    /// under names of the reserved `.example`).
    static func sitesPolicy(exe: String = "/usr/lib/chromium/chromium", browsers: String = "", more: String = "") -> String { """
        version = 1
        timezone = "\(NoonZone.name)"
        [points]
        learning_per_hour = 3600
        per_reward_minute = 1
        [validation]
        idle_after = "5s"
        min_session = "10s"
        min_focus_dwell = "2s"
        [browsers]
        exe = ["\(exe)"]
        \(browsers)
        [[sites]]
        name = "Khan Academy"
        category = "learning"
        domains = ["khanacademy.org"]
        [[sites]]
        name = "Wikipedia"
        category = "neutral"
        domains = ["wikipedia.org"]
        [[sites]]
        name = "YouTube"
        category = "reward"
        domains = ["youtube.com"]
        [[sites]]
        name = "Poki"
        category = "blocked"
        domains = ["poki.com"]
        [[sites]]
        name = "Maths practice"
        category = "learning"
        domains = ["learn.example"]
        [[sites]]
        name = "Games"
        category = "blocked"
        domains = ["games.example"]
        \(more)
        """
    }

    /// The sites' pages: each says its host in its title (so the window's title says which tab is
    /// shown), and the video page plays a tone, over and over.
    static func pages(in folder: String) throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let page = """
            <!DOCTYPE html><html><head><meta charset="utf-8"><title>page</title></head>
            <body><p>A page.</p><script>document.title = location.hostname + " page";</script></body></html>
            """
        try page.write(toFile: folder + "/index.html", atomically: true, encoding: .utf8)
        let video = """
            <!DOCTYPE html><html><head><meta charset="utf-8"><title>video</title></head>
            <body><audio src="tone.wav" autoplay loop></audio><script>document.title = location.hostname + " video";</script></body></html>
            """
        try video.write(toFile: folder + "/video.html", atomically: true, encoding: .utf8)
        // Two seconds of a 440 Hz tone: 8 kHz, 16-bit, mono PCM in a WAV file.
        let samples = (0..<16_000).map { Int16(8_000 * sin(2 * Double.pi * 440 * Double($0) / 8_000)) }
        var wav = Data("RIFF".utf8)
        func le<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { wav.append(contentsOf: $0) } }
        le(UInt32(36 + samples.count * 2)); wav.append(Data("WAVEfmt ".utf8))
        le(UInt32(16)); le(UInt16(1)); le(UInt16(1)); le(UInt32(8_000)); le(UInt32(16_000)); le(UInt16(2)); le(UInt16(16))
        wav.append(Data("data".utf8)); le(UInt32(samples.count * 2))
        for s in samples { le(s) }
        try wav.write(to: URL(fileURLWithPath: folder + "/tone.wav"))
    }

    /// The pages over TLS on 127.0.0.1 (a port the kernel chose), with a certificate made here;
    /// `plain`: over HTTP.
    final class PageServer {
        let process: Process
        let port: Int
        init(folder: String, plain: Bool = false) throws {
            var tls: [String] = []
            if !plain {
                let cert = folder + "/../cert.pem", key = folder + "/../key.pem"
                let made = try ReplayBinaryTests.runBinary("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                                                                                "-days", "2", "-subj", "/CN=screentime test"])
                try #require(made.status == 0, "\(made.stderr)")
                tls = [cert, key]
            }
            process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = ["-u", ReplayBinaryTests.root.appendingPathComponent("Tests/EndToEndTests/Scripts/site-server.py").path, folder] + tls
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
            port = try #require(Int(line.trimmingCharacters(in: .whitespacesAndNewlines)), "the page server said \"\(line)\"")
        }
        deinit {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// What the package installs for a browser, in a fresh folder of root's the child can read:
    /// PREFIX's files in `prefix`, as `make install` makes them (the packed extension, its policies
    /// and host manifests in `browser`; the host program). Each browser's files add copies of them
    /// where that browser reads them, and the folder goes with the object.
    class PackagedBrowserFiles {
        let base: String
        var prefix: String { base + "/prefix" }
        var browser: String { prefix + "/share/screentime/browser" }

        /// `folders`: the folders under `base` the browser's own files go in.
        init(_ name: String, folders: [String]) throws {
            let fm = FileManager.default
            base = fm.temporaryDirectory.appendingPathComponent("screentime-\(name)-\(UUID().uuidString)").path
            for folder in ["/prefix/bin"] + folders {
                try fm.createDirectory(atPath: base + folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            }
            try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: base)
            let packed = try ReplayBinaryTests.runBinary(ReplayBinaryTests.root.appendingPathComponent("tools/pack-browser-extension").path,
                                                         [browser, prefix])
            try #require(packed.status == 0, "\(packed.stderr)")
            try fm.copyItem(atPath: Readable.path(".build/debug/screentime-browser-host"), toPath: prefix + "/bin/screentime-browser-host")
        }

        deinit { try? FileManager.default.removeItem(atPath: base) }
    }

    /// What the package installs for Chromium: `etc`, what /etc/chromium holds once the package is
    /// installed (Chromium's own files, the package's policy and host manifest; here copies, where
    /// the package makes links). `bare`: /etc/chromium without them, for a browser without the
    /// extension.
    final class ChromiumFiles: PackagedBrowserFiles {
        var etc: String { base + "/etc-chromium" }
        var bare: String { base + "/etc-chromium-bare" }
        var policy: String { etc + "/policies/managed/screentime.json" }

        init() throws {
            try super.init("chromium", folders: ["/etc-chromium/policies/managed", "/etc-chromium/native-messaging-hosts", "/etc-chromium-bare"])
            let fm = FileManager.default
            for file in (try? fm.contentsOfDirectory(atPath: "/etc/chromium")) ?? [] where file != "policies" && file != "native-messaging-hosts" {
                try? fm.copyItem(atPath: "/etc/chromium/" + file, toPath: etc + "/" + file)
                try? fm.copyItem(atPath: "/etc/chromium/" + file, toPath: bare + "/" + file)
            }
            try fm.copyItem(atPath: browser + "/chromium-policy.json", toPath: policy)
            try fm.copyItem(atPath: browser + "/chromium-host.json", toPath: etc + "/native-messaging-hosts/org.screentime.browser.json")
        }

        /// A command that runs its arguments with `folder` (`etc` unless said) as /etc/chromium,
        /// in a mount namespace of their own: nothing of this machine's is changed.
        func seeing(_ folder: String? = nil) -> [String] {
            ["/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", "mount --bind \"$0\" /etc/chromium && exec \"$@\"", folder ?? etc]
        }
    }

    /// The child's Chromium, seeing `etc` (the package's files, or the bare folder) as /etc/chromium.
    final class Chromium {
        let process: Process
        let window: String
        let home: String

        /// `language`: the child's (LANGUAGE and LANG), which Chromium and the extension's page speak.
        init(_ x: X11Session, files: ChromiumFiles, etc: String? = nil, socket: String, port: Int, urls: [String], language: String? = nil) throws {
            let fm = FileManager.default
            home = files.base + "/home-\(UUID().uuidString)"
            try fm.createDirectory(atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            try fm.setAttributes([.ownerAccountID: child, .groupOwnerAccountID: child], ofItemAtPath: home)
            // --no-sandbox: this container gives the child no user namespaces for Chromium's
            // sandbox. --ignore-certificate-errors: the pages' certificate is the test's.
            // --alsa-output-device=null: no sound card here; sound still plays, into nothing.
            let args = ["--no-sandbox", "--user-data-dir=\(home)/profile", "--no-first-run", "--no-default-browser-check", "--password-store=basic",
                        "--ignore-certificate-errors", "--autoplay-policy=no-user-gesture-required", "--alsa-output-device=null",
                        "--host-resolver-rules=MAP * 127.0.0.1:\(port)", "--window-position=0,0", "--window-size=1200,760"] + urls
            let before = Set(x.output("/usr/bin/xdotool", ["search", "--onlyvisible", "--class", "chromium"]).split(separator: "\n").map(String.init))
            let command = files.seeing(etc) + ["/usr/bin/setpriv", "--reuid=\(child)", "--regid=\(child)", "--clear-groups", "/usr/bin/chromium"] + args
            var environment = ["HOME": home, "SCREENTIME_SOCKET": socket]
            if let language { environment["LANGUAGE"] = language; environment["LANG"] = language + ".UTF-8" }
            let started = try x.spawn(command[0], Array(command.dropFirst()), environment: environment)
            process = started
            var found = ""
            Wait.whether(within: 30) {
                found = x.output("/usr/bin/xdotool", ["search", "--onlyvisible", "--class", "chromium"]).split(separator: "\n").map(String.init)
                    .first { !before.contains($0) } ?? ""
                return !found.isEmpty || !started.isRunning
            }
            window = try #require(Optional(found).flatMap { $0.isEmpty ? nil : $0 }, "Chromium's window did not appear")
        }

        /// Ends Chromium, and with it its renderers and its host.
        func end() {
            if process.isRunning { kill(process.processIdentifier, SIGTERM) }
            Wait.whether(within: 10) { !process.isRunning }
        }
    }

    /// The child's own daemon (user mode, sampling every 250 ms, no logind) on `policy`, the sites'
    /// pages served, and the child's Chromium in Xvfb with the package's files, on `urls`. The
    /// test ends the browser (and the child's processes) itself; the page server and the files go
    /// with this value, which the test keeps until its end.
    struct UserModeChromium {
        let x: X11Session
        let d: LiveDaemon
        let server: PageServer
        let files: ChromiumFiles
        let browser: Chromium

        init(policy: String, urls: [String], language: String? = nil) throws {
            x = try X11Session()
            d = try LiveDaemon(policy: policy, arguments: ["--sample-every", "250ms", "--no-logind"], uid: child)
            _ = try d.waitFor("watching uid")
            try pages(in: d.base + "/www")
            server = try PageServer(folder: d.base + "/www")
            files = try ChromiumFiles()
            browser = try Chromium(x, files: files, socket: d.socket, port: server.port, urls: urls, language: language)
        }
    }

    /// Every process of the child's is gone (the renderers, the hosts; the daemon, when it runs
    /// as the child, is stopped first).
    static func noneLeft() {
        _ = try? ReplayBinaryTests.runBinary("/usr/bin/pkill", ["-KILL", "-U", "\(child)"])
        Wait.whether(within: 10) { (try? ReplayBinaryTests.runBinary("/usr/bin/pgrep", ["-U", "\(child)"]).status) == 1 }
    }

    /// The moment (seconds since 1970) the daemon's log gives the first line that says `text`:
    /// "<RFC 3339 time with microseconds> <text>…".
    static func loggedMoment(of text: String, in log: String) -> Double? {
        guard let line = log.split(separator: "\n").first(where: { $0.contains(" " + text) }),
              let stamp = line.split(separator: " ").first(where: { $0.contains("T") && $0.first?.isNumber == true }) else { return nil }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSSSSSxxx"
        return f.date(from: String(stamp))?.timeIntervalSince1970
    }

    /// The wall time (seconds) of the first site report about `host` logged after `seq`, and its
    /// seq; `audible`: with these hosts playing sound ([]: none).
    static func report(_ d: LiveDaemon, host: String, after seq: Int = 0, audible: [String]? = nil) throws -> (at: Double, seq: Int) {
        // The log leaves out an empty list.
        let shape = audible.map { $0.isEmpty ? "%' AND line NOT LIKE '%\"audible\"%" : "%\"audible\":[\($0.map { "\"\($0)\"" }.joined(separator: ","))]%" } ?? "%"
        let row = try d.poll("SELECT seq || ' ' || line FROM event WHERE seq > \(seq) AND line LIKE '%\"site_changed\"%\"host\":\"\(host)\"\(shape)' ORDER BY seq LIMIT 1") { !$0.isEmpty }
        guard let space = row.firstIndex(of: " "), let n = Int(row[..<space]) else { throw FixtureFailure("no site report about \(host) after \(seq)") }
        let event = try EventLog.decode(line: String(row[row.index(after: space)...]))
        return (Double(event.at.micros) / 1e6, n)
    }

    @Test("the package's files: the CRX is signed with the key of the id system mode asks for; its managed policies are what system mode asks; the host manifests name the host and the extension")
    func packaged() throws {
        let fm = FileManager.default
        let out = fm.temporaryDirectory.appendingPathComponent("screentime-packed-\(UUID().uuidString)").path
        defer { try? fm.removeItem(atPath: out) }
        let packed = try ReplayBinaryTests.runBinary(ReplayBinaryTests.root.appendingPathComponent("tools/pack-browser-extension").path, [out, "/usr"])
        try #require(packed.status == 0, "\(packed.stderr)")
        #expect(packed.stdout == ManagedBrowserPolicy.chromiumExtensionID + "\n")
        // The CRX's key: Chromium's id is its hash (the first 16 bytes of its SHA-256, as a-p).
        let crx = try Data(contentsOf: URL(fileURLWithPath: out + "/screentime.crx"))
        #expect(crx.prefix(4) == Data("Cr24".utf8))
        let child = try #require(UserAccount.lookup(name: "nobody"))
        try fm.createDirectory(atPath: out + "/managed", withIntermediateDirectories: true)
        try fm.copyItem(atPath: out + "/chromium-policy.json", toPath: out + "/managed/screentime.json")
        #expect(ManagedBrowserPolicy.check(browserExe: "/usr/lib/chromium/chromium", child: child, chromiumFolder: out + "/managed") == .forced)
        #expect(ManagedBrowserPolicy.check(browserExe: "/usr/lib/firefox-esr/firefox-esr", child: child, firefoxFiles: [out + "/firefox-policies.json"]) == .forced)
        let policy = try String(contentsOfFile: out + "/chromium-policy.json", encoding: .utf8)
        #expect(policy.contains("\"\(ManagedBrowserPolicy.chromiumExtensionID);file:///usr/share/screentime/browser/updates.xml\""))
        let chromiumHost = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/chromium-host.json"))) as? [String: Any])
        #expect(chromiumHost["name"] as? String == "org.screentime.browser")
        #expect(chromiumHost["path"] as? String == "/usr/bin/" + BrowserTrust.hostName)
        #expect(chromiumHost["allowed_origins"] as? [String] == ["chrome-extension://\(ManagedBrowserPolicy.chromiumExtensionID)/"])
        let mozillaHost = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/mozilla-host.json"))) as? [String: Any])
        #expect(mozillaHost["path"] as? String == "/usr/bin/" + BrowserTrust.hostName)
        #expect(mozillaHost["allowed_extensions"] as? [String] == [ManagedBrowserPolicy.firefoxExtensionID])
        // The extension's own name for its host is the manifests'.
        let background = try String(contentsOf: ReplayBinaryTests.root.appendingPathComponent("desktop/browser/background.js"), encoding: .utf8)
        #expect(background.contains("const HOST = 'org.screentime.browser';"))
    }

    @Test("system mode: the system's Chromium with the forced extension is believed; a report of the child's own, or from a Chromium whose policy lets developer tools in, is refused and logged; a second Chromium without the extension is a game, stopped with no game time left; a host's end is logged, and the extension reports again through a new one")
    func systemMode() throws {
        let files = try ChromiumFiles()
        // The daemon sees the package's files in /etc/chromium as the browser does. Yama's
        // ptrace_scope through its seam (this machine's kernel has no Yama): 1, as the package sets.
        try "1\n".write(toFile: files.base + "/ptrace_scope", atomically: true, encoding: .utf8)
        // report_within 15 s: a CI run with both cores busy once took longer than 3 s from
        // Chromium's start to its extension's first report, and the system's Chromium was closed
        // as one without the extension before it could speak.
        let policy = Self.sitesPolicy(browsers: "report_within = \"15s\"", more: "[enforcement]\naction = \"terminate\"\ngrace = \"2s\"")
        let logind = try MockLogind()
        let d = try SystemModeTests.SystemDaemon(policies: ["stweb65016": policy],
                                                 arguments: ["--ptrace-scope-file", files.base + "/ptrace_scope"], launcher: files.seeing(), logind: logind.address)
        defer { Self.noneLeft() }
        _ = try d.waitFor("watching")
        let database = d.base + "/state/stweb65016/screentime.sqlite"
        /// How many logged events are `like` that.
        func count(_ like: String) throws -> Int {
            Int(try ReplayBinaryTests.runBinary("/usr/bin/sqlite3", [database, "SELECT count(*) FROM event WHERE line LIKE '\(like)'"])
                .stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }
        func logged(_ host: String) throws -> Bool { try count("%\"site_changed\"%\"host\":\"\(host)\"%") > 0 }
        let x = try X11Session()
        let www = files.base + "/www"
        try Self.pages(in: www)
        let server = try PageServer(folder: www)

        // The system's Chromium, the extension forced by the package's policy: believed.
        let browser = try Chromium(x, files: files, socket: d.socket, port: server.port, urls: ["https://www.khanacademy.org/"])
        // The child's X11 session (logind's mock): the daemon runs its X11 hook itself, as root,
        // and so knows which window has the focus.
        try logind.addSession("c1", uid: Self.child, name: "stweb65016")
        try logind.setSession("c1", ["Type": .string("x11"), "Display": .string(x.display), "Leader": .uint32(UInt32(browser.process.processIdentifier))])
        _ = try d.waitFor("stweb65016: started the X11 hook of session c1 on \(x.display) (pid ")
        let believed = try Wait.whether(within: 20) { try logged("www.khanacademy.org") }
        #expect(believed, "\((try? String(contentsOfFile: d.log, encoding: .utf8)) ?? "")")

        // The host ended (as the child may end it): what it said no longer holds; the extension
        // says it again through a new one.
        let reports = try count("%\"site_changed\"%")
        // Waited for, not looked up once: under load a run once found none at one moment (a host
        // between two: the extension starts a new one a second after one ends).
        let hostEnds = "%\"site_report_ended\",\"pid\":\(browser.process.processIdentifier)}%"
        let endsBefore = try count(hostEnds)
        let hostPid = try Wait.for("a host of the child's to run", within: 20, every: 0.1) {
            let host = try ReplayBinaryTests.runBinary("/usr/bin/pgrep", ["-U", "\(Self.child)", "-f", "screentime-browser-host"]).stdout
            return Int32(host.split(separator: "\n").first ?? "")
        }
        kill(hostPid, SIGKILL)
        let ended = try Wait.whether(within: 10) { try count(hostEnds) > endsBefore }
        #expect(ended, "the host's end was not logged")
        let again = try Wait.whether(within: 15) { try count("%\"site_changed\"%") > reports }
        #expect(again, "the extension did not report again through a new host")

        // The child's own claim, through stctl: not the system's host, nor a browser's.
        let claim = try ReplayBinaryTests.runBinary("/usr/bin/setpriv", ["--reuid=\(Self.child)", "--regid=\(Self.child)", "--clear-groups", ControlSocketTests.stctl,
                                                                          "hook", "event", #"{"event": "site_changed", "pid": 1, "host": "scratch.mit.edu", "focused": true}"#,
                                                                          "--socket", d.socket])
        #expect(claim.status != 0, "\(claim.stdout)")
        _ = try d.waitFor("refused a site report from stweb65016's process (pid ")
        #expect(try String(contentsOfFile: d.log, encoding: .utf8).contains("the report did not come from a browser of the policy's [browsers] exe through its native messaging host"))
        #expect(try !logged("scratch.mit.edu"))

        // A second Chromium that sees no policy: no extension, no report. Focused for longer than
        // report_within it is a game, and with no game time it is stopped; the first one goes on.
        let other = try Chromium(x, files: files, etc: files.bare, socket: d.socket, port: server.port, urls: ["https://www.youtube.com/"])
        x.activate(other.window)
        let closed = Wait.whether(within: 60) { !other.process.isRunning }
        #expect(closed, "the browser without the extension still runs: \((try? String(contentsOfFile: d.log, encoding: .utf8)) ?? "")")
        #expect(try String(contentsOfFile: d.log, encoding: .utf8)
            .contains("stop a browser without screentime's extension (pid \(other.process.processIdentifier), /usr/lib/chromium/chromium): no_reward_time"))
        #expect(browser.process.isRunning)

        // The child rewrites the extension's copy in their profile (theirs to write, where Chromium
        // unpacked it): the next report is refused, and says which file; put back, believed again.
        let copies = browser.home + "/profile/Default/Extensions/\(ManagedBrowserPolicy.chromiumExtensionID)"
        let version = try #require(try FileManager.default.contentsOfDirectory(atPath: copies).first, "no copy of the extension in the profile")
        let script = copies + "/" + version + "/background.js"
        let original = try Data(contentsOf: URL(fileURLWithPath: script))
        try (original + Data("\n// the child's\n".utf8)).write(to: URL(fileURLWithPath: script))
        x.activate(browser.window)
        x.xdotool(["key", "--window", browser.window, "ctrl+t"])
        x.xdotool(["type", "--window", browser.window, "https://scratch.mit.edu/\n"])
        _ = try d.waitFor("the copy of screentime's extension in Chromium's profile (\(script)) is not the package's")
        #expect(try !logged("scratch.mit.edu"))
        try original.write(to: URL(fileURLWithPath: script))
        x.xdotool(["key", "--window", browser.window, "ctrl+1"])
        let again2 = try Wait.whether(within: 20) { try count("%\"site_changed\"%\"host\":\"www.khanacademy.org\"%") > 1 }
        #expect(again2, "the put-back copy was not believed again")

        // The policy loses a rule (the developer tools allowed): the next report is refused, and says which.
        try #"{"ExtensionInstallForcelist": ["\#(ManagedBrowserPolicy.chromiumExtensionID);file://\#(files.prefix)/share/screentime/browser/updates.xml"], "IncognitoModeAvailability": 1, "BrowserGuestModeEnabled": false, "DeveloperToolsAvailability": 1, "ExtensionDeveloperModeSettings": 1, "RemoteDebuggingAllowed": false}"#
            .write(toFile: files.policy + ".new", atomically: false, encoding: .utf8)
        #expect(rename(files.policy + ".new", files.policy) == 0)
        x.activate(browser.window)
        x.xdotool(["key", "--window", browser.window, "ctrl+t"])
        x.xdotool(["type", "--window", browser.window, "https://en.wikipedia.org/\n"])
        _ = try d.waitFor("lacks DeveloperToolsAvailability = 2")
        #expect(try !logged("en.wikipedia.org"))
        browser.end()
        other.end()
        kill(d.process.processIdentifier, SIGTERM)
        d.process.waitUntilExit()
        #expect(d.process.terminationStatus == 0)
    }

    @Test("privacy: a host no rule names is logged only as its domain, yet a stop of it reaches the very tab (unnamed_sites = \"blocked\"), its page in the child's German; a named host is logged as it is")
    func unnamedHostsKeptAsDomain() throws {
        let chromium = try UserModeChromium(policy: Self.sitesPolicy(browsers: "unnamed_sites = \"blocked\""),
                                       urls: ["https://play.arcade.test/", "https://www.khanacademy.org/"], language: "de_DE")
        let (x, d, browser) = (chromium.x, chromium.d, chromium.browser)
        defer { browser.end(); Self.noneLeft(); withExtendedLifetime(chromium) {} }   // the page server and the files until here
        func title() -> String { x.output("/usr/bin/xdotool", ["getwindowname", browser.window]) }

        // The active tab's host, play.arcade.test, is in the log as arcade.test (.test is no public
        // suffix: its last label is), and the tab shows the extension's page: the daemon told the
        // extension the host it said.
        let arcade = try Self.report(d, host: "arcade.test")
        // In the child's language (a Chromium in German: the extension's words from po/browser/de.po).
        #expect(Wait.whether(within: 10) { title().hasPrefix("Jetzt nicht: ") }, "the blocked tab shows \(title())")
        let log = try String(contentsOfFile: d.log, encoding: .utf8)
        #expect(log.contains("(arcade.test) in the browser (pid \(browser.process.processIdentifier)): blocked"), "\(log)")
        // Khan Academy, named by a rule, as it is.
        x.xdotool(["key", "--window", browser.window, "ctrl+2"])
        _ = try Self.report(d, host: "www.khanacademy.org", after: arcade.seq)
        try d.stop()
        #expect(try d.sql("SELECT count(*) FROM event WHERE line LIKE '%play.arcade%'") == "0", "the exact host is in the log")
        #expect(!(try String(contentsOfFile: d.log, encoding: .utf8)).contains("play.arcade"), "the exact host is in the journal's lines")
    }

    @Test("learning earns, neutral does not, tabs switch within a second, a video in a background tab uses game time and is stopped when it is gone while learning goes on, a blocked site at once")
    func sitesInChromium() throws {
        let chromium = try UserModeChromium(policy: Self.policy, urls: ["https://www.khanacademy.org/", "https://en.wikipedia.org/"])
        let (x, d, browser) = (chromium.x, chromium.d, chromium.browser)
        defer { browser.end(); Self.noneLeft(); withExtendedLifetime(chromium) {} }   // the page server and the files until here
        // The X11 hook, as the child.
        _ = try x.spawn("/usr/bin/setpriv", ["--reuid=\(Self.child)", "--regid=\(Self.child)", "--clear-groups", ControlSocketTests.stctl,
                                            "hook", "x11", "--socket", d.socket])
        try #require(try Wait.whether(within: 15) { (try d.status()["hooks"] as? [String]) == ["x11"] }, "the x11 hook never connected")
        x.activate(browser.window)
        func title() -> String { x.output("/usr/bin/xdotool", ["getwindowname", browser.window]) }
        var random = TestRandom("Chromium input rhythm")
        /// A person's use of the window for `seconds`: the mouse moved 0.3 to 2 s apart.
        func use(_ seconds: Double) {
            let start = Date()
            while Date().timeIntervalSince(start) < seconds {
                x.xdotool(["mousemove", "--window", browser.window, "\(100 + Int(random.next() % 900))", "\(200 + Int(random.next() % 400))"])
                usleep(useconds_t(300_000 + random.next() % 1_700_000))
            }
        }
        func learned() throws -> Int { try d.status()["learning_today_seconds"] as? Int ?? -1 }
        func learnedMore(than before: Int) throws -> Int {
            var now = before
            let grew = try Wait.whether(within: 30) { now = try learned(); return now > before }   // each look runs stctl
            #expect(grew, "no more learning than \(before) s")
            return now
        }

        // Khan Academy, focused, with input: learning.
        #expect(Wait.whether(within: 20) { title().hasPrefix("www.khanacademy.org") }, "the first tab shows \(title())")
        let khan = try Self.report(d, host: "www.khanacademy.org")
        use(15)
        // Wikipedia, a tab away: its report within a second of the keys.
        let pressed = Date().timeIntervalSince1970
        x.xdotool(["key", "--window", browser.window, "ctrl+2"])
        let wiki = try Self.report(d, host: "en.wikipedia.org", after: khan.seq)
        #expect(wiki.at - pressed < 1, "the tab switch was reported \(wiki.at - pressed) s after the keys")
        use(12)
        let khanLearned = try learnedMore(than: 0)
        let khanSpan = wiki.at - khan.at
        let khanQuiet = try d.idleSeconds(from: khan.at, to: wiki.at, idleAfter: 5)
        #expect(khanQuiet <= 6, "the inputs reached the daemon with \(khanQuiet) s of gaps longer than idle_after")
        #expect(Double(khanLearned) >= khanSpan - khanQuiet - 2, "\(khanLearned) s learned of \(khanSpan) s on Khan Academy (\(khanQuiet) s without input)")
        // Nothing of the time on Wikipedia: it is neutral.
        #expect(Double(khanLearned) <= khanSpan + 1, "\(khanLearned) s learned, but Khan Academy had the focus for \(khanSpan) s")

        // One minute of game time; a video on YouTube in a tab behind Khan Academy uses it.
        try EnforcementTests.parent(d, ["adjust", "10", "--reason", "chores"])
        try EnforcementTests.parent(d, ["redeem", "1"])
        x.xdotool(["key", "--window", browser.window, "ctrl+t"])
        x.xdotool(["type", "--window", browser.window, "https://www.youtube.com/video.html\n"])
        let playing = try Self.report(d, host: "www.youtube.com", after: wiki.seq, audible: ["www.youtube.com"])
        x.xdotool(["key", "--window", browser.window, "ctrl+1"])
        let back = try Self.report(d, host: "www.khanacademy.org", after: playing.seq, audible: ["www.youtube.com"])
        // Learning meanwhile; the minute runs out and the video's tab shows the extension's page.
        var stopped = false
        let start = Date()
        while !stopped, Date().timeIntervalSince(start) < 120 {
            use(3)
            stopped = try String(contentsOfFile: d.log, encoding: .utf8).contains("stop the site YouTube")
        }
        let log = try String(contentsOfFile: d.log, encoding: .utf8)
        #expect(log.contains("stop the site YouTube (www.youtube.com) in the browser (pid \(browser.process.processIdentifier)): no_reward_time"),
                "no stop of YouTube for want of game time: \(log)")
        let silent = try Self.report(d, host: "www.khanacademy.org", after: back.seq, audible: [])
        // The game time went in the minute YouTube played, not before.
        #expect(silent.at - playing.at >= 55, "the minute of game time went in \(silent.at - playing.at) s")
        // Learning on Khan Academy after the stop earns: 12 s more, then Wikipedia again to end it.
        use(12)
        x.xdotool(["key", "--window", browser.window, "ctrl+2"])
        let ended = try Self.report(d, host: "en.wikipedia.org", after: silent.seq).at
        // Judged once idle_after has passed after the last input (none now): the points paid.
        var balance = 0
        try Wait.whether(within: 30) { balance = try d.status()["balance"] as? Int ?? -1; return balance > khanLearned + 9 }
        let afterStop = try learned()
        // One point a second learned, less the one the minute of game time cost, plus the parent's ten.
        #expect(balance == afterStop + 9, "balance \(balance) after \(afterStop) s learned")
        let quietAfter = try d.idleSeconds(from: silent.at, to: ended, idleAfter: 5)
        #expect(quietAfter <= 6, "the inputs reached the daemon with \(quietAfter) s of gaps longer than idle_after")
        #expect(Double(afterStop - khanLearned) >= ended - silent.at - quietAfter - 2,
                "\(afterStop - khanLearned) s learned in the \(ended - silent.at) s after the stop was carried out (\(quietAfter) s without input)")
        // And none of the minute the video played behind it (that time is refused: a game ran):
        // at most the time since the daemon stopped it (its log says when; the extension's report
        // that the tab went quiet comes after, later on a loaded machine).
        let stopAt = try #require(Self.loggedMoment(of: "stop the site YouTube", in: log), "no time in the stop's line")
        #expect(Double(afterStop - khanLearned) <= ended - stopAt + 2, "\(afterStop - khanLearned) s learned in the \(ended - stopAt) s after the stop")

        // Poki is blocked: the tab shows the extension's page at once.
        x.xdotool(["key", "--window", browser.window, "ctrl+t"])
        let typed = Date()
        x.xdotool(["type", "--window", browser.window, "https://www.poki.com/\n"])
        #expect(Wait.whether(within: 10) { title().hasPrefix("Not now") }, "the blocked site's tab shows \(title())")
        #expect(Date().timeIntervalSince(typed) < 5, "the blocked site was shown for \(Date().timeIntervalSince(typed)) s")
        #expect(try String(contentsOfFile: d.log, encoding: .utf8).contains("stop the site Poki (www.poki.com) in the browser (pid \(browser.process.processIdentifier)): blocked"))
        // The blocked site's page offers no asking; YouTube's (game time gone) does: the child
        // types why and presses Enter, and the request is in the family loop, for a parent.
        x.xdotool(["key", "--window", browser.window, "ctrl+3"])
        #expect(Wait.whether(within: 10) { title().hasPrefix("Not now: YouTube") }, "the third tab shows \(title())")
        x.xdotool(["type", "--window", browser.window, "I did my homework\n"])
        var requests: [[String: Any]] = []
        let asked = try Wait.whether(within: 20) {   // each look runs stctl
            requests = try d.json(["requests"])["requests"] as? [[String: Any]] ?? []
            return !requests.isEmpty
        }
        #expect(asked, "no request reached the daemon: \((try? String(contentsOfFile: d.log, encoding: .utf8)) ?? "")")
        #expect(requests.count == 1 && requests.first?["minutes"] as? Int == 15 && requests.first?["reason"] as? String == "I did my homework"
                && requests.first?["state"] as? String == "pending", "\(requests)")
        // What the daemon did is what its own log replays to; the minute of game time was YouTube's.
        try d.stop()
        browser.end()
        Self.noneLeft()
        let (result, run) = try d.replayOwnLog()
        #expect(result["balance"] as? Int == balance, "\(run.stderr)")
        let days = result["days"] as? [[String: Any]] ?? []
        #expect(days.count == 1 && days.first?["reward_used_seconds"] as? Int == 60, "\(days) \(run.stderr)")
    }
}
