import Foundation
import Logging
import ScreenTimeCore
import ScreenTimeLinux

/// System mode's trusted observation: the daemon runs the X11 desktop hook itself, as root, for
/// each local X11 session of each child that logind knows (its `DISPLAY`, and the `XAUTHORITY` of
/// the session's processes). The child can neither kill nor impersonate it. A hook that ends while
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
        var display: String
        var started: Microseconds
    }

    let hookPath: String
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

    init(hookPath: String, socketPath: String, sessions: LoginSessions) {
        self.hookPath = hookPath
        self.socketPath = socketPath
        self.sessions = sessions
    }

    /// The X11 hook installed next to this screentimed.
    static var installedHook: String {
        let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: own).deletingLastPathComponent().appendingPathComponent("screentime-hook-x11").path
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
                              message: "the X11 hook of session \(id) on \(hook.display) (pid \(hook.pid)) ended (\(how)); it is started again in \(wait / Seconds.micro) s, and nothing counts as focused until then",
                              fields: ["event": "hook_ended", "session": "\(id)", "pid": "\(hook.pid)"]))
            nextLook = min(nextLook, now + wait)
        }
        guard now >= nextDue else { return out }
        nextLook = now + Self.lookEvery
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
            let wanted = list.filter(\.wantsX11Hook)
            for s in wanted where running[s.id] == nil {
                if let r = retry[s.id], now < r.at { continue }
                var environment = ["DISPLAY": s.display, "PATH": "/usr/bin:/bin"]
                if let cookie = Self.xauthority(leader: s.leader, uid: child.uid, display: s.display) { environment["XAUTHORITY"] = cookie }
                do {
                    let pid = try Spawn.start(hookPath, ["--socket", socketPath, "--user", child.name], environment: environment)
                    running[s.id] = Running(pid: pid, child: child.uid, display: s.display, started: now)
                    out.append(Notice(child: child.uid, level: .info, message: "started the X11 hook for session \(s.id) on \(s.display) (pid \(pid), as root)",
                                      fields: ["event": "hook_started", "session": "\(s.id)", "pid": "\(pid)"]))
                } catch {
                    retry[s.id] = (now + Seconds.of(30), (retry[s.id]?.times ?? 0) + 1)
                    out.append(Notice(child: child.uid, level: .error, message: "cannot start the X11 hook for session \(s.id): \(error.description)",
                                      fields: ["event": "hook_failed", "session": "\(s.id)"]))
                }
            }
            for (id, hook) in running where hook.child == child.uid && !wanted.contains(where: { $0.id == id }) {
                Spawn.terminate(hook.pid)
                stopping.append(hook.pid)
                running[id] = nil
                retry[id] = nil
                out.append(Notice(child: child.uid, level: .info, message: "session \(id) ended: its X11 hook (pid \(hook.pid)) is stopped",
                                  fields: ["event": "hook_stopped", "session": "\(id)", "pid": "\(hook.pid)"]))
            }
        }
        return out
    }

    /// Stops every hook (the daemon is stopping).
    mutating func stopAll() {
        for hook in running.values { Spawn.terminate(hook.pid) }
        running.removeAll()
    }

    /// The session's X cookie file: from its leader's environment, else from a process of the
    /// child's on that display (nil: none is needed, or none was found).
    static func xauthority(leader: Int32, uid: UInt32, display: String) -> String? {
        if leader > 0, let cookie = ProcFS.environment(of: leader)["XAUTHORITY"] { return cookie }
        let fs = ProcFS()
        var pids: [Int32] = []
        fs.pids(into: &pids)
        for pid in pids {
            guard let folder = fs.open(pid) else { continue }
            let owner = fs.owner(of: folder)
            fs.release(folder)
            guard owner == uid else { continue }
            let environment = ProcFS.environment(of: pid)
            if environment["DISPLAY"] == display, let cookie = environment["XAUTHORITY"] { return cookie }
        }
        return nil
    }
}
