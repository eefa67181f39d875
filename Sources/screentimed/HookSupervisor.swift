import Foundation
import Logging
import ScreenTimeCore
import ScreenTimeDaemon
import ScreenTimeLinux
import ScreenTimeSystemd

/// System mode's trusted observation: the daemon runs the desktop hook itself, as root, for each
/// local session of each child that logind knows: the X11 hook for an X11 session (its `DISPLAY`,
/// and the `XAUTHORITY` of the session's processes), the sway hook for a sway session (its IPC
/// socket, `SWAYSOCK`). The child can neither kill nor impersonate it. A hook that ends while
/// its session lasts is started again (after 1 s, then longer if it keeps ending); meanwhile
/// nothing counts as focused (the daemon hears the hook go). Hooks of sessions that ended are
/// stopped.
struct HookSupervisor {
    /// What the daemon logs about a child's hooks.
    struct Notice {
        var child: UInt32
        var level: Logger.Level
        var message: String
        var fields: Logger.Metadata
    }

    private struct Running {
        var pid: Int32
        var child: UInt32
        /// "X11 hook … on :0", "sway hook … at /run/user/1000/sway-ipc.….sock"
        var what: String
        var started: Microseconds
    }

    /// How to start the hook of one session.
    private struct Plan {
        var path: String
        var arguments: [String]
        var environment: [String: String]
        var what: String
    }

    let hookPath: String
    /// stctl, which runs the sway hook (`stctl hook sway`).
    let stctlPath: String
    let socketPath: String
    let sessions: LoginSessions
    /// How often logind is asked for the children's sessions.
    static let lookEvery = Seconds.of(2)
    /// By logind session id.
    private var running: [String: Running] = [:]
    /// When a session's hook may be started again, and how many times in a row it ended early.
    private var retry: [String: (at: Microseconds, times: Int)] = [:]
    /// Hooks asked to stop (their session ended), reaped when they have.
    private var stopping: [Int32] = []
    private var nextLook: Microseconds = 0
    /// Why logind could not be asked, for each child (said once, not every 2 s).
    private var problem: [UInt32: String] = [:]

    init(hookPath: String, stctlPath: String, socketPath: String, sessions: LoginSessions) {
        self.hookPath = hookPath
        self.stctlPath = stctlPath
        self.socketPath = socketPath
        self.sessions = sessions
    }

    /// When this wants to run again.
    var nextDue: Microseconds { min(nextLook, retry.values.map(\.at).min() ?? .max) }

    /// Notices hooks that ended, asks logind for the sessions (every 2 s), starts the hooks that
    /// are missing and stops those whose session is gone.
    mutating func supervise(_ children: [(uid: UInt32, name: String)], now: Microseconds) -> [Notice] {
        var out: [Notice] = []
        stopping.removeAll { Spawn.ended($0) != nil }
        for (id, hook) in running {
            guard let how = Spawn.ended(hook.pid) else { continue }
            running[id] = nil
            let times = now - hook.started > Seconds.of(60) ? 1 : (retry[id]?.times ?? 0) + 1
            let wait = Seconds.of(Int64(min(30, 1 << min(times - 1, 5))))
            retry[id] = (now + wait, times)
            out.append(Notice(child: hook.child, level: .warning,
                              message: "the \(hook.what) (pid \(hook.pid)) ended (\(how)); it is started again in \(wait / Seconds.micro) s, and nothing counts as focused until then",
                              fields: ["event": "hook_ended", "session": "\(id)", "pid": "\(hook.pid)"]))
            nextLook = min(nextLook, now + wait)
        }
        guard now >= nextDue else { return out }
        nextLook = now + Self.lookEvery
        var sessionsNow: Set<String> = []
        for child in children {
            let list: [LoginSession]
            do { list = try sessions.sessions(of: child.uid) } catch {
                if problem[child.uid] != error.description {
                    out.append(Notice(child: child.uid, level: .warning, message: "cannot ask logind for the sessions: \(error.description); no desktop hook is started until it answers",
                                      fields: ["event": "hook_sessions_unknown"]))
                }
                problem[child.uid] = error.description
                continue
            }
            problem[child.uid] = nil
            let wanted = list.filter { $0.wantsX11Hook || $0.isLocalWayland }
            sessionsNow.formUnion(wanted.map(\.id))
            for s in wanted where running[s.id] == nil {
                if let r = retry[s.id], now < r.at { continue }
                guard let plan = plan(for: s, child: child) else { continue }
                do {
                    let pid = try Spawn.start(plan.path, plan.arguments, environment: plan.environment)
                    running[s.id] = Running(pid: pid, child: child.uid, what: plan.what, started: now)
                    out.append(Notice(child: child.uid, level: .info, message: "started the \(plan.what) (pid \(pid), as root)",
                                      fields: ["event": "hook_started", "session": "\(s.id)", "pid": "\(pid)"]))
                } catch {
                    retry[s.id] = (now + Seconds.of(30), (retry[s.id]?.times ?? 0) + 1)
                    out.append(Notice(child: child.uid, level: .error, message: "cannot start the \(plan.what): \(error.description)",
                                      fields: ["event": "hook_failed", "session": "\(s.id)"]))
                }
            }
            for (id, hook) in running where hook.child == child.uid && !wanted.contains(where: { $0.id == id }) {
                Spawn.terminate(hook.pid)
                stopping.append(hook.pid)
                running[id] = nil
                retry[id] = nil
                out.append(Notice(child: child.uid, level: .info, message: "session \(id) ended: its hook (pid \(hook.pid)) is stopped",
                                  fields: ["event": "hook_stopped", "session": "\(id)", "pid": "\(hook.pid)"]))
            }
        }
        // What is known of sessions that are gone is forgotten (when every child's were read).
        if problem.isEmpty { retry = retry.filter { sessionsNow.contains($0.key) } }
        return out
    }

    /// Stops every hook (the daemon is stopping).
    mutating func stopAll() {
        for hook in running.values { Spawn.terminate(hook.pid) }
        running.removeAll()
    }

    /// The hook for a session: X11 with its display and cookie; sway with its IPC socket (nil: a
    /// Wayland session that is not sway's, for which there is no hook yet).
    private func plan(for s: LoginSession, child: (uid: UInt32, name: String)) -> Plan? {
        if s.wantsX11Hook {
            var environment = ["DISPLAY": s.display, "PATH": "/usr/bin:/bin"]
            let cookie = SessionEnvironment.first(leader: s.leader, uid: child.uid) { $0["DISPLAY"] == s.display ? $0["XAUTHORITY"] : nil }
            if let cookie { environment["XAUTHORITY"] = cookie }
            return Plan(path: hookPath, arguments: ["--socket", socketPath, "--user", child.name, "--leave-out-xtest"], environment: environment,
                        what: "X11 hook of session \(s.id) on \(s.display)")
        }
        let sway = SessionEnvironment.first(leader: s.leader, uid: child.uid) { env in
            env["SWAYSOCK"].flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil }
        }
        guard let sway else { return nil }
        return Plan(path: stctlPath, arguments: ["hook", "sway", "--socket", socketPath, "--user", child.name, "--swaysock", sway],
                    environment: ["PATH": "/usr/bin:/bin"], what: "sway hook of session \(s.id) at \(sway)")
    }
}
