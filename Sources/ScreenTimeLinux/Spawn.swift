import Glibc

/// A program started by the daemon (system mode's desktop hooks), and its end. The one place that
/// calls posix_spawn and waitpid.
public enum Spawn {
    public struct Failure: Error, CustomStringConvertible { public var description: String }

    /// Starts `path` with `arguments` and exactly `environment`, its own process group, every
    /// signal at its default action and none blocked (the daemon ignores and blocks some; its
    /// children must not inherit that). Standard error is the daemon's (the journal); standard
    /// input is `stdin` when given, else /dev/null.
    public static func start(_ path: String, _ arguments: [String], environment: [String: String], stdin: Int32? = nil) throws(Failure) -> Int32 {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t(), none = sigset_t()
        sigfillset(&all)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin {
            posix_spawn_file_actions_adddup2(&actions, stdin, 0)      // dup2 clears close-on-exec
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let r = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard r == 0 else { throw Failure(description: "\(path): cannot start it: \(String(cString: strerror(r)))") }
        return pid
    }

    /// How a program this process started ended ("exit 1", "signal 9"), once it has (it is then
    /// reaped); nil while it runs.
    public static func ended(_ pid: Int32) -> String? {
        var status: Int32 = 0
        let r = waitpid(pid, &status, WNOHANG)
        guard r == pid else { return r < 0 ? "gone" : nil }
        let signal = status & 0x7f
        return signal == 0 ? "exit \((status >> 8) & 0xff)" : "signal \(signal)"
    }

    /// Asks a program this process started (and has not reaped) to stop.
    public static func terminate(_ pid: Int32) { _ = kill(pid, SIGTERM) }
}
