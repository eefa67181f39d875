import ArgumentParser
import ControlProtocol
import Foundation
import ScreenTimeCore
import ScreenTimeLinux
import ScreenTimePolicy
import ScreenTimeWords

/// Setup's words (its --help, questions, answers and errors) in the caller's language (their
/// `LANGUAGE`, `LC_ALL`, `LC_MESSAGES`, `LANG`, which sudo keeps; docs/translating.md). For the
/// setup only: the daemon says what it says to each person in that person's language.
let tr = Translator.forLanguages(Translator.languages(environment: ProcessInfo.processInfo.environment), folder: Translator.catalogFolder())

/// `screentimed setup` (installed as `screentime-setup`): system mode for a family without an
/// editor (issue 40). It asks which accounts are children and which are parents, sorts the apps
/// installed here by their menus' categories (Education: learning, Game: a game) for the parent
/// to confirm, asks for the parent passphrase (never shown; only its hash is written), writes each
/// child's policy from the default, turns on the daemon and the parents' page, and says where the
/// page is. Run again, it changes only what is answered: an empty answer keeps what is there.
struct Setup: ParsableCommand {
    static var configuration: CommandConfiguration { CommandConfiguration(abstract: SetupOptions.abstract, discussion: SetupOptions.discussion) }
    @OptionGroup var options: SetupOptions
    func run() throws { try options.run() }
}

/// The same, run by the name `screentime-setup` (a link to screentimed).
struct StandaloneSetup: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "screentime-setup", abstract: SetupOptions.abstract, discussion: SetupOptions.discussion, version: ControlProtocol.release)
    }
    @OptionGroup var options: SetupOptions
    func run() throws { try options.run() }
}

struct SetupOptions: ParsableArguments {
    static var abstract: String { tr("Set up system mode: the children, the parents, the apps, the parent passphrase, and the parents' page (as root).") }
    static var discussion: String {
        tr("Answers are read from the terminal (or from standard input, one a line, the passphrase twice). A child's policy that exists is kept; only its parents and passphrase change when new ones are given.")
    }

    @Option(name: .long, help: ArgumentHelp(tr("Where the children's policies go.")))
    var policyDir = SystemPaths.policyDir

    @Option(name: .long, help: ArgumentHelp(tr("The policy each child's starts from (default: the installed one).")))
    var defaultPolicy: String?

    @Option(name: .long, help: ArgumentHelp(tr("A folder of desktop files to sort (default: the system's and Flatpak's).")))
    var applications: [String] = []

    @Flag(name: .long, help: ArgumentHelp(tr("Do not turn on the services (systemctl enable --now); say what to run instead.")))
    var noSystemctl = false

    static let defaultPolicies = ["/usr/share/screentime/policies/default.toml", "/usr/local/share/screentime/policies/default.toml"]
    static let applicationFolders = ["/usr/share/applications", "/usr/local/share/applications", "/var/lib/flatpak/exports/share/applications"]
    static let pageAddress = "http://127.0.0.1:8470/"

    @Flag(name: .long, help: ArgumentHelp(tr("Ask in a browser instead: a first-run page on this computer, at an address with a key printed here.")))
    var web = false

    @Option(name: .long, help: ArgumentHelp(tr("With --web: the page's program (default: screentime-web beside screentimed).")))
    var webProgram: String?

    @Option(name: .long, help: ArgumentHelp(tr("With --web: the user the page runs as (it writes nothing; setup does).")))
    var webUser = "nobody"

    /// What was found before asking: the default policy, the children and parents set up already,
    /// the people of this computer.
    struct Found {
        var defaultText: String
        var existing: [String]
        var parentsNow: [String]
        var people: [String]
    }

    /// What the parent answered: the children, the parents (nil: as they are), the apps for new
    /// children's policies, the passphrase's hash (nil: as it is).
    struct Choice {
        var children: [String]
        var parents: [String]?
        var apps: [SetupPolicy.InstalledApp]
        var hash: String?
    }

    struct Refusal: Error, CustomStringConvertible { var description: String }

    func run() throws {
        // not shown: a command, the same in every language
        guard getuid() == 0 else { throw fail("screentime-setup: " + tr("run it as root: {command}", ["command": "sudo screentime-setup"]), code: 2) }
        let defaultPath = defaultPolicy ?? Self.defaultPolicies.first { FileManager.default.fileExists(atPath: $0) }
        guard let defaultPath, let defaultText = try? String(contentsOfFile: defaultPath, encoding: .utf8) else {
            throw fail("screentime-setup: " + tr("the default policy is not installed ({file} or {other}): install screentime again, or give --default-policy FILE",
                                                ["file": Self.defaultPolicies[0], "other": Self.defaultPolicies[1]]), code: 2)
        }
        let existing = SystemPaths.children(policyDir: policyDir).children.map(\.account.name)
        let found = Found(defaultText: defaultText, existing: existing,
                          parentsNow: existing.first.flatMap { Self.parents(in: "\(policyDir)/\($0).toml") } ?? [], people: Self.people())
        print(tr("screentime setup: each child gets a policy in {folder}; the daemon and the parents' page are turned on.", ["folder": policyDir]))
        let lines: [String]
        do {
            lines = web ? try FirstRunLink.run(self, found) : try apply(askAtTerminal(found), found)
        } catch let r as Refusal {
            throw fail("screentime-setup: \(r.description)", code: 1)
        }
        for line in lines { print(line) }
    }

    /// The questions, at the terminal (or one answer a line on standard input).
    func askAtTerminal(_ found: Found) throws -> Choice {
        var input = Answers()
        print(tr("Run it again any time: an empty answer keeps what is there.") + "\n")
        if !found.people.isEmpty { print(tr("Accounts on this computer: {names}", ["names": found.people.joined(separator: ", ")])) }
        let children = try input.names(tr("Which accounts are children? (names, separated by spaces)"), now: found.existing)
        let parentsAnswer = try input.names(tr("Which accounts are parents? (names, separated by spaces)"), now: found.parentsNow)
        var choice = Choice(children: children, parents: parentsAnswer == found.parentsNow ? nil : parentsAnswer, apps: [], hash: nil)
        try check(choice, found)
        if children.contains(where: { !found.existing.contains($0) }) {
            choice.apps = try input.confirm(installedApps())
        }
        choice.hash = try input.passphrase(required: passphraseRequired(children, found))
        return choice
    }

    /// A passphrase must be given for a new child, or when none is set yet.
    func passphraseRequired(_ children: [String], _ found: Found) -> Bool {
        found.existing.isEmpty || children.contains { !found.existing.contains($0) }
    }

    func installedApps() -> [SetupPolicy.InstalledApp] {
        Self.installedApps(in: applications.isEmpty ? Self.applicationFolders : applications)
    }

    /// Children and parents: accounts of this computer, never root, never both.
    func check(_ choice: Choice, _ found: Found) throws {
        guard !choice.children.isEmpty else { throw Refusal(description: tr("no child named, so nothing to set up")) }
        let parents = choice.parents ?? found.parentsNow
        for name in choice.children + parents {
            guard let account = UserAccount.lookup(name: name) else { throw Refusal(description: tr("there is no account {name} on this computer", ["name": name])) }
            guard account.uid != 0 else { throw Refusal(description: tr("root cannot be a child or a parent here (root is always a parent)")) }
        }
        if let both = choice.children.first(where: parents.contains) { throw Refusal(description: tr("{name} cannot be a child and a parent", ["name": both])) }
    }

    /// The policies written (new ones from the default, the others with only what was answered)
    /// and the services turned on; what was done, in lines.
    func apply(_ choice: Choice, _ found: Found) throws -> [String] {
        try check(choice, found)
        let parents = choice.parents ?? found.parentsNow
        let known = (try? PolicyLoader.parse(found.defaultText).apps.map(\.name)) ?? []
        var texts: [(String, String)] = []
        for child in choice.children {
            let path = "\(policyDir)/\(child).toml"
            let text: String
            if let old = try? String(contentsOfFile: path, encoding: .utf8) {
                text = try SetupPolicy.withParents(old, parents: choice.parents, passphraseHash: choice.hash)
                if text == old { continue }
            } else {
                guard choice.hash != nil || !found.existing.isEmpty else { throw Refusal(description: tr("a new child needs the parent passphrase")) }
                text = try SetupPolicy.childPolicy(from: found.defaultText, parents: parents, passphraseHash: choice.hash, apps: choice.apps, knownNames: known)
            }
            do { _ = try PolicyLoader.parse(text, file: path) } catch {
                throw Refusal(description: tr("{child}'s policy would have a problem, so nothing was written:\n{problem}", ["child": child, "problem": "\(error)"]))
            }
            texts.append((path, text))
        }
        // Every policy checked before the first is written.
        for (path, text) in texts { try Self.write(text, to: path) }
        let wrote = texts.isEmpty ? tr("Nothing to change in {folder}.", ["folder": policyDir])
            : tr("Wrote {files} (each passes stctl policy check).", ["files": texts.map(\.0).joined(separator: ", ")])
        var lines = [wrote]
        lines.append(turnOn(newChild: choice.children.contains { !found.existing.contains($0) }, changed: !texts.isEmpty))
        lines.append(tr("The parents' page: {address} on this computer (docs/web.md says how to open it from a phone).", ["address": Self.pageAddress]))
        return lines
    }

    /// The people of this computer: /etc/passwd's accounts with a uid from 1000 and a login shell.
    static func people() -> [String] {
        guard let text = try? String(contentsOfFile: "/etc/passwd", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: ":", omittingEmptySubsequences: false)
            guard f.count >= 7, let uid = UInt32(f[2]), (1000..<60000).contains(uid),
                  !f[6].hasSuffix("nologin"), !f[6].hasSuffix("false") else { return nil }
            return String(f[0])
        }
    }

    static func parents(in path: String) -> [String]? {
        (try? PolicyLoader.load(path: path)).map(\.parents.users)
    }

    /// The apps of the desktop files in `folders` that a menu calls Education or Game, each once.
    static func installedApps(in folders: [String]) -> [SetupPolicy.InstalledApp] {
        var apps: [SetupPolicy.InstalledApp] = []
        for folder in folders {
            let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".desktop") }.sorted()
            for file in files {
                guard let text = try? String(contentsOfFile: "\(folder)/\(file)", encoding: .utf8),
                      let app = SetupPolicy.app(desktopFile: text, resolve: resolve) else { continue }
                if !apps.contains(where: { ($0.exe != nil && $0.exe == app.exe) || ($0.flatpak != nil && $0.flatpak == app.flatpak) }) { apps.append(app) }
            }
        }
        return apps
    }

    /// A program as the kernel names the running one: an absolute path, or found on the system's
    /// PATH, with its links followed.
    static func resolve(_ program: String) -> String? {
        let candidates = program.hasPrefix("/") ? [program] : ["/usr/local/bin", "/usr/bin", "/bin", "/usr/games", "/usr/local/games"].map { "\($0)/\(program)" }
        for path in candidates where FileManager.default.isExecutableFile(atPath: path) {
            return URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        }
        return nil
    }

    /// Root's file, readable only by root (it holds the passphrase's hash), written at once.
    static func write(_ text: String, to path: String) throws {
        let fm = FileManager.default
        let folder = (path as NSString).deletingLastPathComponent
        try fm.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        if !fm.fileExists(atPath: path) {
            guard fm.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw Refusal(description: tr("{file} cannot be made", ["file": path]))
            }
        }
        do { try FileReplacement.replace(path, with: text) } catch { throw Refusal(description: error.description) }
        // (A policy copied by hand may be readable by all: not once it holds the passphrase's hash.)
        try? fm.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }

    /// The daemon and the page on, now and at every start, and what was written in force (a
    /// running daemon reads a changed policy again; a new child needs it started again); what was
    /// done, in words.
    func turnOn(newChild: Bool, changed: Bool) -> String {
        let units = ["screentimed-system.service", "screentime-web.service"]
        let again = newChild ? ["restart", units[0]] : changed ? ["reload-or-restart", units[0]] : nil
        let how = "systemctl enable --now \(units.joined(separator: " "))" + (again.map { "; systemctl \($0.joined(separator: " "))" } ?? "")  // not shown: a command
        guard !noSystemctl else { return tr("Turn them on with: {command}", ["command": how]) }
        func systemctl(_ arguments: [String]) -> Bool {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/systemctl")
            p.arguments = arguments
            guard (try? p.run()) != nil else { return false }
            p.waitUntilExit()
            return p.terminationStatus == 0
        }
        if systemctl(["enable", "--now"] + units), again.map(systemctl) ?? true {
            return tr("The daemon and the parents' page are on ({units}), with what was written in force.", ["units": units.joined(separator: ", ")])
        }
        return tr("Could not turn on the services; run: {command}", ["command": how])
    }
}

/// The answers, from the terminal or standard input, one a line.
struct Answers {
    let terminal = isatty(0) == 1

    /// One answer; from standard input that is not a terminal, said again after the question (a
    /// secret only as "(given)").
    mutating func line(_ question: String, secret: Bool = false) -> String? {
        print(question, terminator: ": ")
        fflush(nil)
        let answer = readLine(strippingNewline: true)
        if !terminal { print(answer.map { secret && !$0.isEmpty ? tr("(given)", context: "a secret answer") : $0 } ?? "") }
        return answer
    }

    /// Names separated by spaces or commas; empty: those there are now.
    mutating func names(_ question: String, now: [String]) throws -> [String] {
        let shown = now.isEmpty ? question : tr("{question} [now: {names}]", ["question": question, "names": now.joined(separator: " ")])
        guard let answer = line(shown) else { throw fail("screentime-setup: " + tr("no answer (the input ended)"), code: 1) }
        let names = answer.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        return names.isEmpty ? now : names
    }

    /// The apps as sorted, or as the parent sorts them one by one.
    mutating func confirm(_ apps: [SetupPolicy.InstalledApp]) throws -> [SetupPolicy.InstalledApp] {
        guard !apps.isEmpty else { print(tr("No learning apps or games were found among the installed apps' menus.")); return [] }
        print(tr("Installed apps, sorted by their menus' categories:"))
        for kind in ["learning", "reward"] {
            let these = apps.filter { $0.category == kind }.map(\.name).joined(separator: ", ")
            if !these.isEmpty { print("  " + (kind == "learning" ? tr("Learning: {apps}", ["apps": these]) : tr("Games: {apps}", ["apps": these]))) }
        }
        guard let answer = line(tr("Sort them so? [Y/n]")) else { throw fail("screentime-setup: " + tr("no answer (the input ended)"), code: 1) }
        // English's y is taken in every language, beside the language's own.
        let yes = answer.lowercased()
        if yes.isEmpty || yes.hasPrefix("y") || yes.hasPrefix(tr("y", context: "answer")) { return apps }
        // The letters the question names, in the caller's language (each a message of its own).
        let learning = tr("l", context: "answer: learning"), game = tr("g", context: "answer: game")
        var sorted: [SetupPolicy.InstalledApp] = []
        for var app in apps {
            let choice = (line(tr("{app}: learning, game, or leave it out? [l/g/o]", ["app": app.name])) ?? "").lowercased()
            if !choice.isEmpty && choice.hasPrefix(learning) { app.category = "learning"; sorted.append(app) }
            else if !choice.isEmpty && choice.hasPrefix(game) { app.category = "reward"; sorted.append(app) }
        }
        return sorted
    }

    /// The parent passphrase, twice, hashed; nil when kept (an empty answer where one is set).
    mutating func passphrase(required: Bool) throws -> String? {
        for _ in 0..<3 {
            let first = ask(required ? tr("Parent passphrase (for the parents' page and at a child's keyboard; not shown)")
                                     : tr("Parent passphrase (for the parents' page and at a child's keyboard; not shown; empty: keep it)"))
            guard let first else { throw fail("screentime-setup: " + tr("no answer (the input ended)"), code: 1) }
            if first.isEmpty && !required { return nil }
            guard first.count >= 8 else { print(tr("At least 8 letters, please: a child must not guess it.")); continue }
            guard let again = ask(tr("The same again")), again == first else { print(tr("The two were not the same; once more.")); continue }
            guard let hash = Passphrase.hash(first) else { throw fail("screentime-setup: " + tr("libcrypt could not hash the passphrase"), code: 1) }
            return hash
        }
        throw fail("screentime-setup: " + tr("no passphrase was set; nothing was written"), code: 1)
    }

    private mutating func ask(_ question: String) -> String? {
        terminal ? Terminal.readHidden(prompt: question + ": ") : line(question, secret: true)
    }
}
