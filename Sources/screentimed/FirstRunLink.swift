import ControlProtocol
import Foundation
import ScreenTimeLinux
import ScreenTimePolicy

/// `screentime-setup --web`: the same questions on a first-run page in a browser on this
/// computer. Setup (root) starts the page (`screentime-web --first-run`, as `--web-user`, on a free
/// port of 127.0.0.1) with what it found and a new key; the address it prints carries the key, so
/// only who can read this terminal opens it (root's consent). Each answer comes back to setup,
/// which checks it and does what it says; the page only asks. Ends when the page has shown what
/// was done.
enum FirstRunLink {
    static func run(_ setup: SetupOptions, _ found: SetupOptions.Found) throws -> [String] {
        let installed = setup.installedApps()
        let context = FirstRun.Context(token: RandomToken.hex(), people: found.people, children: found.existing, parents: found.parentsNow,
                                       apps: installed.map { .init(name: $0.name, category: $0.category) },
                                       passphraseRequired: found.existing.isEmpty)
        guard let account = UserAccount.lookup(name: setup.webUser) else {
            throw SetupOptions.Refusal(description: tr("--web-user {name}: no such account to run the page as", ["name": setup.webUser]))
        }
        let program = setup.webProgram ?? InstalledFiles.beside("screentime-web")
        let page = Process()
        page.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        let gid = Privileges.primaryGroup(of: account.uid) ?? 65534
        page.arguments = ["--reuid=\(account.uid)", "--regid=\(gid)", "--clear-groups", program, "--first-run", "--listen", "127.0.0.1:0"]
        page.environment = ["PATH": "/usr/bin:/bin"]
        let toPage = Pipe(), fromPage = Pipe()
        page.standardInput = toPage
        page.standardOutput = fromPage
        do { try page.run() } catch {
            throw SetupOptions.Refusal(description: tr("the first-run page ({program}) cannot start: {error}", ["program": program, "error": "\(error)"]))
        }
        defer { end(page, input: toPage) }
        let lines = LineReader(fromPage.fileHandleForReading)
        func send<T: Encodable>(_ value: T) {
            guard let data = try? JSONEncoder().encode(value) else { return }
            toPage.fileHandleForWriting.write(data + Data("\n".utf8))
        }
        send(context)
        // (The page ends when its input does: the pipe's end of ours is closed on any way out.)
        // not shown: what the page prints (in every language) before its address, read here
        guard let first = lines.next(), let at = first.range(of: "listening on ") else {
            throw SetupOptions.Refusal(description: tr("the first-run page did not start ({program})", ["program": program]))
        }
        print(tr("Open this address in a browser on this computer (it opens the setup once, for this run):"))
        print("  \(first[at.upperBound...])/setup?token=\(context.token)")
        fflush(nil)
        while let line = lines.next() {
            guard let answers = try? JSONDecoder().decode(FirstRun.Answers.self, from: Data(line.utf8)) else { continue }
            do {
                let choice = try choice(answers, context: context, installed: installed, setup: setup, found: found)
                let done = try setup.apply(choice, found)
                send(FirstRun.Reply(ok: true, lines: done))
                // Until the page has shown it.
                while let said = lines.next(), said != "{\"shown\":true}" {}
                return done
            } catch {
                send(FirstRun.Reply(ok: false, error: "\(error)"))
            }
        }
        throw SetupOptions.Refusal(description: tr("the first-run page ended before the setup was done; nothing was changed"))
    }

    /// The page ends by itself once it has shown what was done, or when its standard input ends
    /// (setup has no more to say); one that has not within 5 s is killed.
    static func end(_ page: Process, input: Pipe) {
        try? input.fileHandleForWriting.close()
        for _ in 0..<100 where page.isRunning { usleep(50_000) }
        if page.isRunning { kill(page.processIdentifier, SIGKILL) }
        page.waitUntilExit()
    }

    /// The answers as setup takes them; a refusal in a parent's words.
    static func choice(_ a: FirstRun.Answers, context: FirstRun.Context, installed: [SetupPolicy.InstalledApp], setup: SetupOptions,
                       found: SetupOptions.Found) throws -> SetupOptions.Choice {
        var apps: [SetupPolicy.InstalledApp] = []
        for (app, category) in zip(installed, a.apps) where category == "learning" || category == "reward" {
            var sorted = app
            sorted.category = category
            apps.append(sorted)
        }
        var hash: String? = nil
        if !a.passphrase.isEmpty || setup.passphraseRequired(a.children, found) {
            guard a.passphrase.count >= 8 else { throw SetupOptions.Refusal(description: tr("The passphrase needs at least 8 letters: a child must not guess it.")) }
            guard a.passphrase == a.again else { throw SetupOptions.Refusal(description: tr("The two passphrases were not the same; type them again.")) }
            guard let h = Passphrase.hash(a.passphrase) else { throw SetupOptions.Refusal(description: tr("libcrypt could not hash the passphrase")) }
            hash = h
        }
        return SetupOptions.Choice(children: a.children, parents: a.parents.isEmpty || a.parents == found.parentsNow ? nil : a.parents,
                                   apps: apps, hash: hash)
    }
}

/// Lines from a pipe, as they come.
final class LineReader {
    private let handle: FileHandle
    private var buffer = Data()
    init(_ handle: FileHandle) { self.handle = handle }

    func next() -> String? {
        while true {
            if let nl = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[buffer.startIndex..<nl], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...nl)
                return line
            }
            let more = handle.availableData
            guard !more.isEmpty else { return nil }
            buffer.append(more)
        }
    }
}
