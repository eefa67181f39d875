import Foundation
import TestSupport
import Testing

/// `screentimed setup` (installed as `screentime-setup`, issue 40): a family set up without an
/// editor, by answers on its input as a parent types them. The daemon and the parents' page then
/// start on what it wrote. systemd is not PID 1 here: the test runs setup with --no-systemctl and
/// starts the daemon and the page itself, as the units would.
///
/// Test users, which no other test uses: 65021 and 65022 (children), 65023 (their parent).
@Suite("Setup without an editor", .ownThread)
struct SetupTests {
    static let children = ["stsetup65021", "stsetup65022"]
    static let parent = "stsetup65023"
    static let passphrase = "the owl sleeps at noon"

    /// A folder of desktop files as Debian installs them: a learning app and a game (programs of
    /// root's), a tool in neither category, a hidden game.
    static func applications(_ apps: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("screentime-apps-menu-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let files = [
            "maths.desktop": "[Desktop Entry]\nType=Application\nName=Maths Forest\nExec=\(apps)/gcompris-qt %U\nCategories=Education;Math;Game;\n",
            "kart.desktop": "[Desktop Entry]\nType=Application\nName=Kart Race\nExec=env SDL_AUDIO=1 \(apps)/supertuxkart\nCategories=Game;ArcadeGame;\n",
            "calc.desktop": "[Desktop Entry]\nType=Application\nName=Calculator\nExec=/usr/bin/bc\nCategories=Utility;\n",
            "hidden.desktop": "[Desktop Entry]\nType=Application\nName=Hidden Game\nExec=\(apps)/mystery\nCategories=Game;\nNoDisplay=true\n",
        ]
        for (name, text) in files { try text.write(toFile: "\(dir)/\(name)", atomically: true, encoding: .utf8) }
        return dir
    }

    static func setup(_ dir: String, applications: String, answers: String) throws -> ReplayBinaryTests.Run {
        try ReplayBinaryTests.runBinary(ReplayBinaryTests.binary, ["setup", "--policy-dir", dir, "--default-policy", Readable.path("policies/default.toml"),
                                                                    "--applications", applications, "--no-systemctl"], stdin: answers)
    }

    @Test("two children and a parent from answers: policies that pass policy check with the menus' learning app and game, the parent and a working passphrase; the daemon and the page start on them; run again, only what is answered changes")
    func family() throws {
        for (uid, name) in [(UInt32(65021), Self.children[0]), (65022, Self.children[1]), (65023, Self.parent)] { _ = TestUser.ensure(uid: uid, name: name) }
        let apps = try AppCopies.folder()
        let menus = try Self.applications(apps)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("screentime-setup-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(atPath: dir) }

        let r = try Self.setup(dir, applications: menus, answers: "\(Self.children.joined(separator: " "))\n\(Self.parent)\ny\n\(Self.passphrase)\n\(Self.passphrase)\n")
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("Learning: Maths Forest") && r.stdout.contains("Games: Kart Race") && !r.stdout.contains("Calculator")
                && !r.stdout.contains("Hidden Game"), "\(r.stdout)")
        #expect(!r.stdout.contains(Self.passphrase) && !r.stderr.contains(Self.passphrase), "the passphrase was shown")
        #expect(r.stdout.contains("The parents' page: http://127.0.0.1:8470/"), "\(r.stdout)")
        var texts: [String: String] = [:]
        for child in Self.children {
            let path = "\(dir)/\(child).toml"
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? Int) == 0o600, "\(path) is readable by others (it holds the passphrase's hash)")
            let text = try String(contentsOfFile: path, encoding: .utf8)
            texts[child] = text
            #expect(text.contains("users = [\"\(Self.parent)\"]") && text.contains("passphrase_hash = \"$y$") && !text.contains(Self.passphrase))
            #expect(text.contains("name = \"Maths Forest\"\ncategory = \"learning\"\nexe = [\"\(apps)/gcompris-qt\"]"), "\(text.suffix(600))")
            #expect(text.contains("name = \"Kart Race\"\ncategory = \"reward\"\nexe = [\"\(apps)/supertuxkart\"]"), "\(text.suffix(600))")
            let check = try ReplayBinaryTests.runBinary(ControlSocketTests.stctl, ["policy", "check", path])
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        }

        // The daemon on what setup wrote, and the page: the parent's passphrase works at a child's account.
        let d = try SystemModeTests.SystemDaemon(policies: texts, arguments: ["--web-user", "stweb65071"])
        defer { try? d.stop() }
        _ = try d.waitFor("screentimed: watching uid 65021, 65022")
        let asParent = try ReplayBinaryTests.runBinary("/usr/bin/setpriv", ["--reuid=65021", "--regid=65021", "--clear-groups", ControlSocketTests.stctl,
                                                                             "adjust", "5", "--reason", "setup works", "--passphrase-stdin", "--socket", d.socket],
                                                       stdin: Self.passphrase + "\n")
        #expect(asParent.status == 0, "\(asParent.stdout)\(asParent.stderr)")
        let page = try WebPageTests.Page(socket: d.socket, lifetime: "5m")
        defer { page.stop() }
        let login = try ReplayBinaryTests.runBinary("/usr/bin/python3", ["-c", "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).status)",
                                                                          page.url + "/login"])
        #expect(login.stdout == "200\n", "the page answered \(login.stdout)\(login.stderr)")

        // Run again with every answer empty: nothing changes.
        let again = try Self.setup(dir, applications: menus, answers: "\n\n\n")
        #expect(again.status == 0 && again.stdout.contains("Nothing to change"), "\(again.stdout)\(again.stderr)")
        for child in Self.children { #expect(try String(contentsOfFile: "\(dir)/\(child).toml", encoding: .utf8) == texts[child]) }

        // Another parent: only [parents] users changes, the passphrase kept.
        let second = try Self.setup(dir, applications: menus, answers: "\n\(Self.parent) stweb65071\n\n")
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        for child in Self.children {
            let now = try String(contentsOfFile: "\(dir)/\(child).toml", encoding: .utf8)
            #expect(now == texts[child]?.replacingOccurrences(of: "users = [\"\(Self.parent)\"]", with: "users = [\"\(Self.parent)\", \"stweb65071\"]"))
        }

        // A child who is also named a parent, and an account that does not exist: refused, nothing written.
        let both = try Self.setup(dir, applications: menus, answers: "\(Self.children[0])\n\(Self.children[0])\n")
        #expect(both.status == 1 && both.stderr.contains("cannot be a child and a parent"), "\(both.stdout)\(both.stderr)")
        let nobody = try Self.setup(dir, applications: menus, answers: "nobody-here-65099\n\n")
        #expect(nobody.status == 1 && nobody.stderr.contains("there is no account nobody-here-65099"), "\(nobody.stdout)\(nobody.stderr)")
        try? FileManager.default.removeItem(atPath: menus)
    }

    @Test("the first-run page (screentime-setup --web): only from the printed address; in Chromium the parent picks the children and the parent, leaves a game out, is told two passphrases differ, then sets up; the same policies as from the terminal")
    func web() throws {
        for (uid, name) in [(UInt32(65021), Self.children[0]), (65022, Self.children[1]), (65023, Self.parent)] { _ = TestUser.ensure(uid: uid, name: name) }
        _ = TestUser.ensure(uid: 65071, name: "stweb65071")
        let apps = try AppCopies.folder()
        let menus = try Self.applications(apps)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("screentime-setup-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // The page runs as a user of its own (the setup command writes; the page only asks).
        let setup = Process()
        setup.executableURL = URL(fileURLWithPath: ReplayBinaryTests.binary)
        setup.arguments = ["setup", "--web", "--web-program", Readable.path(".build/debug/screentime-web"), "--web-user", "stweb65071",
                           "--policy-dir", dir, "--default-policy", Readable.path("policies/default.toml"), "--applications", menus, "--no-systemctl"]
        // Its words on a pipe; its and the page's log in a file (the page, its child, would hold a pipe open).
        let out = Pipe()
        setup.standardOutput = out
        let log = dir + "/setup.log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        setup.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        try setup.run()
        defer { if setup.isRunning { kill(setup.processIdentifier, SIGKILL); setup.waitUntilExit() } }
        // Its address, as it prints it for the parent.
        // (Its whole line: a read may end inside it.)
        var said = ""
        func addressLine() -> String? {
            said.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { $0.trimmingCharacters(in: .whitespaces) }
                .first { $0.contains("/setup?token=") }
        }
        while addressLine() == nil, case let more = out.fileHandleForReading.availableData, !more.isEmpty {
            said += String(decoding: more, as: UTF8.self)
        }
        let url = try #require(addressLine(), "\(said)")
        let shots = ReplayBinaryTests.root.appendingPathComponent(".build/web-screenshots-setup").path
        try? FileManager.default.removeItem(atPath: shots)
        try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
        let r = try WebPageTests.script("web-setup.py", ["URL": url, "CHILD": Self.children[0], "CHILDREN": Self.children.joined(separator: " "), "PARENT": Self.parent,
                                                         "PASSPHRASE": Self.passphrase, "SHOTS": shots])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        // Done once the page showed what was done; a page that failed leaves it waiting: ended here.
        // (SIGKILL: the test runner's children may have inherited SIGTERM ignored.)
        if !Wait.whether(within: 60, { !setup.isRunning }) { kill(setup.processIdentifier, SIGKILL) }
        setup.waitUntilExit()
        said += String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(setup.terminationStatus == 0, "\(said)\((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        #expect(!said.contains(Self.passphrase), "the passphrase was shown: \(said)")
        for child in Self.children {
            let text = try String(contentsOfFile: "\(dir)/\(child).toml", encoding: .utf8)
            #expect(text.contains("users = [\"\(Self.parent)\"]") && text.contains("passphrase_hash = \"$y$"))
            #expect(text.contains("name = \"Maths Forest\"\ncategory = \"learning\"") && !text.contains("Kart Race"), "\(text.suffix(500))")
            let check = try ReplayBinaryTests.runBinary(ControlSocketTests.stctl, ["policy", "check", "\(dir)/\(child).toml"])
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        }
        try? FileManager.default.removeItem(atPath: shots + "/profile")
        try? FileManager.default.removeItem(atPath: menus)
    }
}
