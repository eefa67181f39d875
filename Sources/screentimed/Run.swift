import ArgumentParser
import Foundation
import Logging
import ScreenTimeCore
import ScreenTimeLinux
import ScreenTimePolicy
import ScreenTimeStore

/// `screentimed`: the daemon, in the foreground, for the user running it (user mode).
struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the daemon in the foreground for the user running it (the default command).",
        discussion: """
            Watches the user's processes in /proc and keeps their state. Stops (saving everything) on \
            SIGTERM or Ctrl-C; SIGHUP reloads the policy, keeping the old one if the new one is bad. \
            Serves stctl on the control socket. Follows the user's logind session on the system bus \
            ($DBUS_SYSTEM_BUS_ADDRESS, else the standard socket) for idle, lock and sleep, and stops or pauses \
            games when their time is gone (docs/enforcement.md). Logs to the journal under systemd, else \
            to standard error (docs/journal.md).
            """)

    @Option(name: .long, help: "The policy (default: /etc/screentime/USER.toml, else $XDG_CONFIG_HOME/screentime/policy.toml).")
    var policy: String?

    @OptionGroup var state: StateOptions

    @Option(name: .long, help: "The control socket (default: $XDG_RUNTIME_DIR/screentime/control.sock).")
    var socket: String?

    @Option(name: .long, help: "How often /proc is sampled: a duration such as \"1s\" or \"200ms\".")
    var sampleEvery: String = "1s"

    @Option(name: .long, help: "How often each process's CPU time is reported (\"60s\").")
    var cpuEvery: String = "60s"

    @Option(name: .long, help: "How long a client (not a desktop hook) may stay silent before it is disconnected.")
    var clientTimeout = "30s"

    @Flag(name: .long, help: "Do not show desktop notifications (warnings, stops, points), only log them.")
    var noNotifications = false

    @Option(name: .long, help: "Where the log goes: journal (native, with SCREENTIME_* fields), stderr, or auto (the journal when systemd connected standard error to it).")
    var log: LogDestination = .auto

    @Flag(name: .long, help: "Do not ask logind for idle, lock and sleep (desktop hooks only).")
    var noLogind = false

    @Option(name: .long, help: "Events older than this many days are removed from the event log; the ledger and sessions stay whole (0 keeps every event).")
    var keepLogDays: Int = Retention.defaultKeepDays

    func run() throws {
        let uid = UInt32(getuid())
        let path = try policy ?? Run.defaultPolicyPath(uid: uid)
        guard let every = DurationText.parse(sampleEvery), every > 0 else { throw fail("--sample-every: not a duration: \"\(sampleEvery)\"", code: 2) }
        guard let cpu = DurationText.parse(cpuEvery), cpu > 0 else { throw fail("--cpu-every: not a duration: \"\(cpuEvery)\"", code: 2) }
        guard let quiet = DurationText.parse(clientTimeout), quiet > 0 else { throw fail("--client-timeout: not a duration: \"\(clientTimeout)\"", code: 2) }
        guard (0...100_000).contains(keepLogDays) else { throw fail("--keep-log-days: a number of days from 0 (keep every event) to 100000, not \(keepLogDays)", code: 2) }
        let text: String
        do throws(PolicyError) { text = try PolicyLoader.loadWithText(path: path).text } catch {
            throw fail(error.description, code: 2)
        }
        let logger = log.logger(label: "screentimed")
        do {
            let store = try state.open(create: true)
            let lock = try state.lockForWriting()
            defer { withExtendedLifetime(lock) {} }
            let live = try LiveState(store: store, policyText: text, policyFile: path)
            let listener: UnixListener
            do { listener = try UnixListener(path: try socketPath(), mode: 0o600) } catch let e as SocketError {
                throw fail("screentimed: \(e.description)", code: 1)
            }
            ProcFS.raiseOpenFileLimit()
            var daemon = Daemon(live: live, sampler: ProcSampler(uids: [uid], cpuEvery: cpu),
                                server: ControlServer(listener: listener, idleTimeout: quiet), policyPath: path, sampleEvery: every, logger: logger,
                                enforcer: Enforcer(group: ProcessGroup(uids: [uid])))
            if !noLogind { daemon.logind = LogindObserver(uid: uid) }
            if !noNotifications { daemon.notifier = Notifier() }
            if keepLogDays > 0 { daemon.retention = Retention(keep: Int64(keepLogDays) * 86_400 * Seconds.micro) }
            let requests = Requests()
            let sources = handleSignals(requests)
            try daemon.run(requests: requests, childUID: uid)
            sources.forEach { $0.cancel() }
        } catch let e as StoreError {
            throw fail("screentimed: \(e.description)", code: 1)
        } catch let e as PolicyError {
            throw fail("screentimed: \(e.description)", code: 1)
        }
    }

    /// DESIGN.md §1, user mode: `$XDG_RUNTIME_DIR/screentime/control.sock`, its folder 0700.
    func socketPath() throws -> String {
        if let socket { return socket }
        guard let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else {
            throw fail("screentimed: XDG_RUNTIME_DIR is not set, so there is no place for the control socket; pass --socket PATH", code: 2)
        }
        let dir = runtime + "/screentime"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return dir + "/control.sock"
    }

    /// DESIGN.md §1, user mode: the parent's file in /etc wins over the child's own.
    static func defaultPolicyPath(uid: UInt32) throws -> String {
        let env = ProcessInfo.processInfo.environment
        if let name = UserAccount.lookup(uid: uid)?.name, FileManager.default.fileExists(atPath: "/etc/screentime/\(name).toml") {
            return "/etc/screentime/\(name).toml"
        }
        let config = env["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? ((env["HOME"] ?? NSHomeDirectory()) + "/.config")
        let own = config + "/screentime/policy.toml"
        if FileManager.default.fileExists(atPath: own) { return own }
        throw fail("no policy: write /etc/screentime/USER.toml or \(own) (start from policies/default.toml), or pass --policy FILE", code: 2)
    }
}

/// `--log`: where the daemon's log goes.
enum LogDestination: String, ExpressibleByArgument, CaseIterable {
    case auto, journal, stderr

    func logger(label: String) -> Logger {
        let journal = self == .journal || (self == .auto && Journal.receivesStandardError)
        return Logger(label: label) { _ in
            journal ? JournalLogHandler(identifier: label) as LogHandler : StandardErrorLogHandler(identifier: label)
        }
    }
}
