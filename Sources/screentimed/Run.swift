import ArgumentParser
import ControlProtocol
import Foundation
import Logging
import ScreenTimeCore
import ScreenTimeLinux
import ScreenTimeSystemd
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

    @Flag(name: .long, help: "System mode: run as root for every child (each user with a policy in --policy-dir), state in /var/lib/screentime/USER, socket /run/screentime/control.sock for every local user.")
    var system = false

    @Option(name: .long, help: "The policy (default: /etc/screentime/USER.toml, else $XDG_CONFIG_HOME/screentime/policy.toml). User mode only.")
    var policy: String?

    @Option(name: .long, help: "System mode: the folder of the children's policies, one USER.toml each.")
    var policyDir = SystemPaths.policyDir

    @OptionGroup var state: StateOptions

    @Option(name: .long, help: "The control socket (default: $XDG_RUNTIME_DIR/screentime/control.sock).")
    var socket: String?

    @Option(name: .long, help: "How often /proc is sampled: a duration such as \"1s\" or \"200ms\". With the kernel's process events, at most this often, when the kernel names a process, and every 5 s otherwise (docs/observing.md).")
    var sampleEvery: String = "1s"

    @Option(name: .long, help: "How often each process's CPU time is reported (\"60s\").")
    var cpuEvery: String = "60s"

    @Option(name: .long, help: "How long a client (not a desktop hook) may stay silent before it is disconnected.")
    var clientTimeout = "30s"

    @Flag(name: .long, help: "Do not show desktop notifications (warnings, stops, points), only log them.")
    var noNotifications = false

    @Option(name: .long, help: "Where the log goes: journal (native, with SCREENTIME_* fields), stderr, or auto (the journal when systemd connected standard error to it).")
    var log: LogDestination = .auto

    @Flag(name: .long, help: "System mode: do not start the children's desktop hooks (they are started, as root, for each X11 session logind knows).")
    var noDesktopHooks = false

    @Flag(name: .long, help: "Do not ask logind for idle, lock and sleep (desktop hooks only).")
    var noLogind = false

    @Flag(name: .long, inversion: .prefixedNo, help: "Hear of execs and ends from the kernel's process events where it allows (Linux 6.6, or CAP_NET_ADMIN), rather than looking at every watched process each sample (docs/observing.md).")
    var processEvents = true

    @Option(name: .long, help: "Events older than this many days are removed from the event log; the ledger and sessions stay whole (0 keeps every event).")
    var keepLogDays: Int = Retention.defaultKeepDays

    @Option(name: .long, help: "System mode: the user the parents' page runs as (its unit's User=); its logins count wrong passphrases per browser.")
    var webUser = "screentime-web"

    @Option(name: .long, help: ArgumentHelp("System mode: the folder under which the input devices are (dev/input, sys/class/input, run/udev/data; tests: this machine's kernel has none).", visibility: .hidden))
    var inputRoot: String = ""

    @Option(name: .long, help: ArgumentHelp("System mode: where Yama's ptrace_scope is read (tests: this machine's kernel has no Yama).", visibility: .hidden))
    var ptraceScopeFile: String = CompositorFacts.yamaPtraceScope

    @Option(name: .long, help: ArgumentHelp("Where system-wide Flatpak apps are installed (tests).", visibility: .hidden))
    var flatpakRoot: String = "/var/lib/flatpak"

    func run() throws {
        // Before any state is opened, while the daemon has one thread.
        Store.configureSQLiteForDaemon()
        let uid = UInt32(getuid())
        guard let every = DurationText.parse(sampleEvery), every > 0 else { throw fail("--sample-every: not a duration: \"\(sampleEvery)\"", code: 2) }
        guard let cpu = DurationText.parse(cpuEvery), cpu > 0 else { throw fail("--cpu-every: not a duration: \"\(cpuEvery)\"", code: 2) }
        guard let quiet = DurationText.parse(clientTimeout), quiet > 0 else { throw fail("--client-timeout: not a duration: \"\(clientTimeout)\"", code: 2) }
        guard (0...100_000).contains(keepLogDays) else { throw fail("--keep-log-days: a number of days from 0 (keep every event) to 100000, not \(keepLogDays)", code: 2) }
        let logger = log.logger(label: "screentimed")
        if system { return try runSystem(every: every, cpu: cpu, quiet: quiet, logger: logger) }
        let path = try policy ?? Run.defaultPolicyPath(uid: uid)
        let text = try policyText(at: path)
        try sayingStateProblems {
            let store = try state.open(create: true)
            let lock = try state.lockForWriting()
            defer { withExtendedLifetime(lock) {} }
            let live = try LiveState(store: store, policyText: text, policyFile: path)
            let listener = try listen(at: try socketPath(), mode: 0o600)
            var child = Child(uid: uid, name: UserAccount.name(of: uid) ?? "uid \(uid)", live: live, policyPath: path, logger: logger, system: false)
            // User mode: the child owns the state and could put an older copy back; the journal saw its heads.
            child.heed(witness: Result { () throws(JournalReadError) in try ChainHeadJournal.heads(uid: uid, from: .local) },
                       query: ChainHeadJournal.query(uid: uid, from: .local))
            watch(&child)
            child.joinHousehold()
            if !noNotifications { child.notifier = Notifier() }
            child.languages = UserLanguages(system: false)
            try serve([child], listener: listener, every: every, cpu: cpu, quiet: quiet, logger: logger)
        }
    }

    /// The policy file's text; a policy with a problem is exit status 2, with the problem and its line.
    func policyText(at path: String) throws -> String {
        do throws(PolicyError) { return try PolicyLoader.loadWithText(path: path).text } catch {
            throw fail(error.description, code: 2)
        }
    }

    /// The control socket; one that cannot be made is exit status 1.
    func listen(at path: String, mode: mode_t) throws -> UnixListener {
        do throws(SocketError) { return try UnixListener(path: path, mode: mode) } catch {
            throw fail("screentimed: \(error.description)", code: 1)
        }
    }

    /// Runs `body`; a state or policy it cannot use is exit status 1 (systemd does not retry it).
    func sayingStateProblems(_ body: () throws -> Void) throws {
        do { try body() } catch let e as StoreError {
            throw fail("screentimed: \(e.description)", code: 1)
        } catch let e as PolicyError {
            throw fail("screentimed: \(e.description)", code: 1)
        }
    }

    /// What every child gets from the options: logind, retention.
    func watch(_ child: inout Child) {
        if !noLogind {
            child.logind = LogindObserver(uid: child.uid)
            child.loginSessions = LoginSessions()
        }
        if keepLogDays > 0 { child.retention = Retention(keep: Int64(keepLogDays) * 86_400 * Seconds.micro) }
    }

    /// Runs the daemon for `children` until SIGTERM or SIGINT.
    func serve(_ children: [Child], listener: UnixListener, every: Microseconds, cpu: Microseconds, quiet: Microseconds, logger: Logger,
               hooks: HookSupervisor? = nil, seatInput: SeatInput? = nil) throws {
        ProcFS.raiseOpenFileLimit()
        var server = ControlServer(listener: listener, idleTimeout: quiet)
        if system { server.perUser = 8 }
        // Only a hint of where to look: silenced or lost, every process is looked at (docs/observing.md).
        let events = processEvents ? ProcessEvents.listen() : .failure(ProcessEvents.ListenError("--no-process-events"))
        var daemon = Daemon(children: children, sampler: ProcSampler(uids: Set(children.map(\.uid)), cpuEvery: cpu,
                                                                     flatpakApps: FlatpakApps(root: flatpakRoot), kernelEvents: events),
                            server: server, sampleEvery: every, system: system, logger: logger)
        daemon.hooks = hooks
        daemon.seatInput = seatInput
        if system { daemon.webUser = webUser }
        let requests = Requests()
        do { try StopSignals.install(waking: requests.wakeup) } catch { throw fail("screentimed: \(error.description)", code: 1) }
        try daemon.run(requests: requests)
    }

    /// System mode (docs/architecture.md §1): root, every user with a policy in --policy-dir is a child, each
    /// with their own state folder under --state-dir; one socket for every local user.
    func runSystem(every: Microseconds, cpu: Microseconds, quiet: Microseconds, logger: Logger) throws {
        guard geteuid() == 0 else { throw fail("screentimed --system runs as root (it watches and stops other users' processes); without --system it runs for you", code: 2) }
        guard policy == nil else { throw fail("--policy is for user mode; in system mode each child's policy is --policy-dir/USER.toml", code: 2) }
        let policies = SystemPaths.children(policyDir: policyDir)
        for problem in policies.problems { logger.warning("\(problem)", metadata: ["event": "policy_skipped"]) }
        guard !policies.children.isEmpty else {
            throw fail("screentimed: no child to watch: write \(policyDir)/USER.toml for each child (start from policies/default.toml)", code: 2)
        }
        let stateRoot = state.stateDir ?? SystemPaths.stateRoot
        try sayingStateProblems {
            try SystemPaths.makeFolder(stateRoot, mode: 0o700)
            var children: [Child] = []
            var locks: [FileLock] = []
            let relay = noNotifications ? nil : NotificationRelay()
            let languages = UserLanguages(system: true)
            defer { withExtendedLifetime(locks) {} }
            for (account, path) in policies.children {
                let text = try policyText(at: path)
                var options = StateOptions()
                options.stateDir = stateRoot + "/" + account.name
                let store = try options.open(create: true)
                locks.append(try options.lockForWriting())
                let live = try LiveState(store: store, policyText: text, policyFile: path)
                var child = Child(uid: account.uid, name: account.name, live: live, policyPath: path, logger: logger, system: true)
                child.yamaFile = ptraceScopeFile
                watch(&child)
                child.joinHousehold()
                child.relay = relay
                child.languages = languages
                children.append(child)
            }
            let path = socket ?? ControlProtocol.systemSocketPath
            try SystemPaths.makeFolder((path as NSString).deletingLastPathComponent, mode: 0o755)
            let listener = try listen(at: path, mode: 0o666)
            let hooks = noLogind || noDesktopHooks ? nil
                : HookSupervisor(hookPath: InstalledFiles.beside("screentime-hook-x11"), stctlPath: InstalledFiles.beside("stctl"),
                                 socketPath: path, sessions: LoginSessions())
            // Input from the seat's own devices, for the child whose session is active there (logind says which).
            let folders = PhysicalInput.Folders(devices: inputRoot + "/dev/input", sysfs: inputRoot + "/sys/class/input", udev: inputRoot + "/run/udev/data")
            let seatInput = noLogind ? nil : SeatInput(folders: folders, sessions: LoginSessions())
            if let seatInput {
                logger.log(level: seatInput.devices.reading.isEmpty ? .warning : .info, "\(seatInput.startLine)", metadata: ["event": "seat_input"])
            }
            defer { relay?.stopAll() }
            try serve(children, listener: listener, every: every, cpu: cpu, quiet: quiet, logger: logger, hooks: hooks, seatInput: seatInput)
        }
    }

    /// docs/architecture.md §1, user mode: `$XDG_RUNTIME_DIR/screentime/control.sock`, its folder 0700.
    func socketPath() throws -> String {
        if let socket { return socket }
        guard let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else {
            throw fail("screentimed: XDG_RUNTIME_DIR is not set, so there is no place for the control socket; pass --socket PATH", code: 2)
        }
        let dir = runtime + "/screentime"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return dir + "/control.sock"
    }

    /// docs/architecture.md §1, user mode: the parent's file in /etc wins over the child's own.
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
