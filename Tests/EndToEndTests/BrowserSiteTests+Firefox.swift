import Foundation
import ScreenTimeCore
import ScreenTimeLinux
import TestSupport
import Testing

/// Websites in a real Firefox ESR (Debian's), with screentime's extension installed the way the
/// package installs it: forced by the policies.json that tools/pack-browser-extension makes, from
/// the XPI it makes, with the real screentime-browser-host as its native messaging host. Firefox
/// runs as the child in Xvfb; the package's files are put where Firefox reads them
/// (/usr/lib/firefox-esr/distribution for the policies, /usr/lib/mozilla for the host's manifest)
/// in a mount namespace of its own. The pages are served over plain HTTP on 127.0.0.1, under names
/// of the reserved `.example` domain that the profile resolves there (Firefox has no
/// --host-resolver-rules; `network.dns.forceResolve` does it). Part of BrowserSiteTests: the same
/// child, and one browser test at a time.
extension BrowserSiteTests {
    static let firefox = "/usr/lib/firefox-esr/firefox-esr"

    /// The sites' policy for Firefox (learning on learn.example, games.example blocked); its
    /// first report may take a while on a loaded machine (once over 30 s: Firefox was then closed
    /// as a browser without the extension before it could say anything).
    static func firefoxPolicy() -> String { sitesPolicy(exe: firefox, browsers: "report_within = \"120s\"") }

    /// What the package installs for Firefox ESR: `distribution` (Firefox's own distribution folder
    /// with the package's policies.json) and `mozilla` (/usr/lib/mozilla with the host's manifest).
    final class FirefoxFiles: PackagedBrowserFiles {
        var distribution: String { base + "/distribution" }
        var mozilla: String { base + "/mozilla" }
        var xpi: String { browser + "/screentime.xpi" }

        init() throws {
            try super.init("firefox", folders: ["/distribution", "/mozilla/native-messaging-hosts"])
            let fm = FileManager.default
            for (from, to) in [("/usr/lib/firefox-esr/distribution", distribution), ("/usr/lib/mozilla", mozilla)] {
                for file in (try? fm.contentsOfDirectory(atPath: from)) ?? [] where file != "native-messaging-hosts" {
                    try fm.copyItem(atPath: from + "/" + file, toPath: to + "/" + file)
                }
            }
            try fm.copyItem(atPath: browser + "/firefox-policies.json", toPath: distribution + "/policies.json")
            try fm.copyItem(atPath: browser + "/mozilla-host.json", toPath: mozilla + "/native-messaging-hosts/org.screentime.browser.json")
        }

        /// A command that runs its arguments seeing the package's files where Firefox reads them,
        /// in a mount namespace of their own: nothing of this machine's is changed.
        func seeing() -> [String] {
            ["/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c",
             "mount --bind \"$0\" /usr/lib/firefox-esr/distribution && mount --bind \"$1\" /usr/lib/mozilla && shift && exec \"$@\"",
             distribution, mozilla]
        }

        /// A profile of the child's, in a home of theirs: the test's names resolve to 127.0.0.1,
        /// no first-run pages, no HTTPS upgrade of the test's plain pages.
        func profile() throws -> (home: String, profile: String) {
            let fm = FileManager.default
            let home = base + "/home-\(UUID().uuidString)"
            let profile = home + "/profile"
            try fm.createDirectory(atPath: profile, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            let prefs = [("network.dns.forceResolve", "\"127.0.0.1\""), ("network.proxy.type", "0"), ("dom.security.https_first", "false"),
                         ("browser.shell.checkDefaultBrowser", "false"), ("browser.aboutwelcome.enabled", "false"),
                         ("datareporting.policy.dataSubmissionEnabled", "false"), ("browser.startup.homepage_override.mstone", "\"ignore\""),
                         ("toolkit.telemetry.reportingpolicy.firstRun", "false"), ("browser.tabs.warnOnClose", "false")]
            try prefs.map { "user_pref(\"\($0.0)\", \($0.1));\n" }.joined().write(toFile: profile + "/user.js", atomically: true, encoding: .utf8)
            for path in [home, profile, profile + "/user.js"] {
                try fm.setAttributes([.ownerAccountID: child, .groupOwnerAccountID: child], ofItemAtPath: path)
            }
            return (home, profile)
        }
    }

    /// The child's Firefox on `profile`, seeing the package's files.
    final class Firefox {
        let process: Process
        let window: String

        init(_ x: X11Session, files: FirefoxFiles, home: String, profile: String, socket: String, url: String) throws {
            let before = Set(x.output("/usr/bin/xdotool", ["search", "--onlyvisible", "--class", "firefox"]).split(separator: "\n").map(String.init))
            let command = files.seeing() + ["/usr/bin/setpriv", "--reuid=\(child)", "--regid=\(child)", "--clear-groups",
                                            "/usr/bin/firefox-esr", "--no-remote", "--profile", profile, url]
            let started = try x.spawn(command[0], Array(command.dropFirst()), environment: ["HOME": home, "SCREENTIME_SOCKET": socket])
            process = started
            var found = ""
            Wait.whether(within: 60) {
                found = x.output("/usr/bin/xdotool", ["search", "--onlyvisible", "--class", "firefox"]).split(separator: "\n").map(String.init)
                    .first { !before.contains($0) } ?? ""
                return !found.isEmpty || !started.isRunning
            }
            window = try #require(Optional(found).flatMap { $0.isEmpty ? nil : $0 }, "Firefox's window did not appear")
        }

        /// The pid of Firefox's main process: the one that starts the native messaging host. The
        /// spawned process is unshare's, which runs sh, which runs setpriv, which runs Firefox, each
        /// by exec: one pid.
        var pid: Int32 { process.processIdentifier }

        /// Ends Firefox: asked (SIGTERM), then made to (SIGKILL) if it has not ended within 30 s
        /// (a loaded machine); it has ended when this returns, and its profile is free again.
        func end() {
            if process.isRunning { kill(process.processIdentifier, SIGTERM) }
            if !Wait.whether(within: 30, { !process.isRunning }) { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    @Test("Firefox ESR with the extension forced by the package's policies.json: a learning site focused with input earns, a blocked site shows the extension's page at once")
    func sitesInFirefox() throws {
        let x = try X11Session()
        let d = try LiveDaemon(policy: Self.firefoxPolicy(), arguments: ["--sample-every", "250ms", "--no-logind"], uid: Self.child)
        _ = try d.waitFor("watching uid")
        let www = d.base + "/www"
        try Self.pages(in: www)
        let server = try PageServer(folder: www, plain: true)
        let files = try FirefoxFiles()
        let (home, profile) = try files.profile()
        let browser = try Firefox(x, files: files, home: home, profile: profile, socket: d.socket, url: "http://www.learn.example:\(server.port)/")
        defer { browser.end(); Self.noneLeft() }
        _ = try x.spawn("/usr/bin/setpriv", ["--reuid=\(Self.child)", "--regid=\(Self.child)", "--clear-groups", ControlSocketTests.stctl,
                                            "hook", "x11", "--socket", d.socket])
        try #require(try Wait.whether(within: 15) { (try d.status()["hooks"] as? [String]) == ["x11"] }, "the x11 hook never connected")
        x.activate(browser.window)
        func title() -> String { x.output("/usr/bin/xdotool", ["getwindowname", browser.window]).trimmingCharacters(in: .whitespacesAndNewlines) }
        var random = TestRandom("Firefox input rhythm")
        func use(_ seconds: Double) {
            let start = Date()
            while Date().timeIntervalSince(start) < seconds {
                x.xdotool(["mousemove", "--window", browser.window, "\(100 + Int(random.next() % 900))", "\(200 + Int(random.next() % 400))"])
                usleep(useconds_t(300_000 + random.next() % 1_700_000))
            }
        }

        // The learning site, focused, with input: the extension (installed by the policy alone)
        // reports it, and its time earns.
        #expect(Wait.whether(within: 30) { title().hasPrefix("www.learn.example") }, "the tab shows \(title())")
        let learn = try Self.report(d, host: "www.learn.example")
        use(15)
        // The blocked site in a new tab: the extension's page at once, and the stop is logged.
        // Keys through XTEST to the focused window, as a keyboard's: Firefox ignores keys sent to
        // a window (xdotool's --window), which X marks as sent.
        x.activate(browser.window)
        // The learning ends with the new tab (an empty tab is no site).
        let left = Date().timeIntervalSince1970
        x.xdotool(["key", "ctrl+t"])
        // The new tab is in front (its title is the browser's alone) before the address is typed:
        // keys typed sooner go to the page before it.
        #expect(Wait.whether(within: 10) { title() == "Mozilla Firefox" }, "after ctrl+t the window shows \(title())")
        let typed = Date()
        x.xdotool(["type", "http://www.games.example:\(server.port)/"])
        x.xdotool(["key", "Return"])
        #expect(Wait.whether(within: 10) { title().hasPrefix("Not now") }, "the blocked site's tab shows \(title())")
        let games = try Self.report(d, host: "www.games.example", after: learn.seq)
        #expect(Date().timeIntervalSince(typed) < 8, "the blocked site was shown for \(Date().timeIntervalSince(typed)) s")
        #expect(try String(contentsOfFile: d.log, encoding: .utf8)
            .contains("stop the site Games (www.games.example) in the browser (pid \(browser.pid)): blocked"))
        // The learning was paid: the time on the learning site, less its stretches without input.
        var learned = 0
        let grew = try Wait.whether(within: 30) { learned = try d.status()["learning_today_seconds"] as? Int ?? -1; return learned > 0 }
        #expect(grew, "nothing learned on the learning site")
        let span = left - learn.at
        let quiet = try d.idleSeconds(from: learn.at, to: left, idleAfter: 5)
        #expect(Double(learned) >= span - quiet - 2, "\(learned) s learned of \(span) s on the learning site (\(quiet) s without input)")
        // The new tab's report follows the keys within a second or so.
        #expect(Double(learned) <= span + 2, "\(learned) s learned, but the learning site had the focus for \(span) s")
        #expect(games.at > left)
        try d.stop()
    }

    @Test("system mode, Firefox ESR: with the package's policies and its copy of the extension it is believed; a copy of the child's put in the profile is refused, and says why")
    func firefoxSystemMode() throws {
        let files = try FirefoxFiles()
        try "1\n".write(toFile: files.base + "/ptrace_scope", atomically: true, encoding: .utf8)
        let logind = try MockLogind()
        let d = try SystemModeTests.SystemDaemon(policies: ["stweb65016": Self.firefoxPolicy()],
                                                 arguments: ["--ptrace-scope-file", files.base + "/ptrace_scope"], launcher: files.seeing(), logind: logind.address)
        defer { Self.noneLeft() }
        _ = try d.waitFor("watching")
        let database = d.base + "/state/stweb65016/screentime.sqlite"
        func logged(_ host: String, by pid: Int32) throws -> Bool {
            let query = "SELECT count(*) FROM event WHERE line LIKE '%\"site_changed\"%' AND line LIKE '%\"host\":\"\(host)\"%' AND line LIKE '%\"pid\":\(pid),%'"
            return try ReplayBinaryTests.runBinary("/usr/bin/sqlite3", [database, query])
                .stdout.trimmingCharacters(in: .whitespacesAndNewlines) != "0"
        }
        let x = try X11Session()
        let www = files.base + "/www"
        try Self.pages(in: www)
        let server = try PageServer(folder: www, plain: true)
        let (home, profile) = try files.profile()
        let url = "http://www.learn.example:\(server.port)/"

        // The system's Firefox, its extension forced by the package's policies: believed.
        let browser = try Firefox(x, files: files, home: home, profile: profile, socket: d.socket, url: url)
        try logind.addSession("c1", uid: Self.child, name: "stweb65016")
        try logind.setSession("c1", ["Type": .string("x11"), "Display": .string(x.display), "Leader": .uint32(UInt32(browser.pid))])
        _ = try d.waitFor("stweb65016: started the X11 hook of session c1 on \(x.display) (pid ")
        let believed = try Wait.whether(within: 30) { try logged("www.learn.example", by: browser.pid) }
        #expect(believed, "\((try? String(contentsOfFile: d.log, encoding: .utf8)) ?? "")")
        // Firefox's copy in the profile is the package's, byte for byte (what the daemon compares).
        let copy = profile + "/extensions/\(ManagedBrowserPolicy.firefoxExtensionID).xpi"
        #expect(FileManager.default.contentsEqual(atPath: copy, andPath: files.xpi))
        browser.end()
        // Its content processes and host too, before the next one starts on the same profile.
        #expect(Wait.whether(within: 20) { (try? ReplayBinaryTests.runBinary("/usr/bin/pgrep", ["-U", "\(Self.child)", "-f", "firefox-esr"]).status) == 1 },
                "Firefox's processes did not end")

        // The child puts a copy of its own in the profile (the package's, with a line added, as
        // the child's user could): Firefox runs it (its signature check is off for the
        // extension), and the daemon believes none of what it says.
        let edited = files.base + "/edited"
        let rezip = """
            import sys, zipfile
            src, dst = sys.argv[1:3]
            with zipfile.ZipFile(src) as a, zipfile.ZipFile(dst, "w") as b:
                for item in a.infolist():
                    data = a.read(item.filename)
                    if item.filename == "background.js":
                        data += b"\\n// the child's\\n"
                    b.writestr(item, data)
            """
        let made = try ReplayBinaryTests.runBinary("/usr/bin/python3", ["-c", rezip, files.xpi, edited])
        try #require(made.status == 0, "\(made.stderr)")
        try FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: edited, toPath: copy)
        try FileManager.default.setAttributes([.ownerAccountID: Self.child, .groupOwnerAccountID: Self.child], ofItemAtPath: copy)
        let again = try Firefox(x, files: files, home: home, profile: profile, socket: d.socket, url: url)
        defer { again.end() }
        _ = try d.waitFor("the copy of screentime's extension that Firefox runs (\(copy)) is not the package's (\(files.xpi))", within: 180)   // a second Firefox start on a loaded machine: up to minutes
        #expect(try !logged("www.learn.example", by: again.pid))
        again.end()
        kill(d.process.processIdentifier, SIGTERM)
        d.process.waitUntilExit()
        #expect(d.process.terminationStatus == 0)
    }
}
