import CShims
#if canImport(Glibc)
import Glibc
#endif

/// The signals the enforcer sends.
public enum StopSignal: Sendable {
    case terminate, kill, pause, resume

    /// The number, from the C library (SIGSTOP and SIGCONT differ between architectures).
    var number: Int32 {
        switch self {
        case .terminate: return SIGTERM
        case .kill: return SIGKILL
        case .pause: return SIGSTOP
        case .resume: return SIGCONT
        }
    }

    public var name: String {
        switch self {
        case .terminate: return "SIGTERM"
        case .kill: return "SIGKILL"
        case .pause: return "SIGSTOP"
        case .resume: return "SIGCONT"
        }
    }
}

/// One process held by a pidfd (`pidfd_open`): a signal reaches it, or nobody — never a process
/// that reused its pid after it exited.
public final class ProcessHandle: @unchecked Sendable {
    public let pid: Int32
    private let fd: Int32

    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The process has exited (or it is not the one that started then: its pid was reused).
        case gone
        case notPermitted
        case other(String)

        public var description: String {
            switch self {
            case .gone: return "it has exited"
            case .notPermitted: return "not permitted"
            case .other(let why): return why
            }
        }

        static func fromErrno() -> Failure {
            switch errno {
            case ESRCH: return .gone
            case EPERM, EACCES: return .notPermitted
            default: return .other(String(cString: strerror(errno)))
            }
        }
    }

    /// Opens the process `pid`; with `startTicks`, only if it is the process that started then
    /// (its stat is read after the pidfd is open, so the two cannot name different processes).
    public init(pid: Int32, startTicks: Int64? = nil) throws(Failure) {
        guard pid > 0 else { throw .gone }
        let fd = screentime_pidfd_open(pid)
        guard fd >= 0 else { throw .fromErrno() }
        self.pid = pid
        self.fd = fd
        if let startTicks {
            guard let stat = ProcessHandle.stat(of: pid), stat.startTicks == startTicks, isAlive else { throw .gone }
        }
    }

    deinit { close(fd) }

    public func send(_ signal: StopSignal) throws(Failure) {
        guard screentime_pidfd_send_signal(fd, signal.number) == 0 else { throw .fromErrno() }
    }

    /// False once the process has exited (a pidfd becomes readable then).
    public var isAlive: Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 0) == 0
    }

    /// Whether it runs (or could: sleeping, waiting), as opposed to stopped by a signal, traced,
    /// in uninterruptible sleep (a stop takes effect when it returns) or ended. Nil: gone.
    /// A process whose first thread ended while others run shows as a zombie (ProcFS.exe says
    /// more): then its other threads say whether it runs, or a game paused that way and sent
    /// SIGCONT by another of the child's processes would look paused still.
    public var runs: Bool? {
        guard let stat = ProcessHandle.stat(of: pid), isAlive else { return nil }
        guard stat.state == UInt8(ascii: "Z") else { return Self.running(stat.state) }
        return ProcFS.threads(of: pid).contains { tid in
            tid != pid && ProcFS.contents(of: "/proc/\(pid)/task/\(tid)/stat").flatMap(StatLine.init).map { Self.running($0.state) } == true
        }
    }

    private static func running(_ state: UInt8) -> Bool {
        switch state {
        case UInt8(ascii: "R"), UInt8(ascii: "S"), UInt8(ascii: "I"), UInt8(ascii: "W"): return true
        default: return false
        }
    }

    static func stat(of pid: Int32) -> StatLine? {
        ProcFS.contents(of: "/proc/\(pid)/stat").flatMap(StatLine.init)
    }
}

/// The processes that go with a game when it is stopped: the ones it started (its process tree),
/// and the others in its own app scope (`app-….scope`, as desktops and Flatpak start apps), all of
/// the watched uids — never this daemon, the processes it runs under, or pid 1.
public struct ProcessGroup {
    public let uids: Set<UInt32>
    private let protected: Set<Int32>
    private let cgroupRoot: String

    public init(uids: Set<UInt32>, cgroupRoot: String = "/sys/fs/cgroup") {
        self.uids = uids
        self.cgroupRoot = cgroupRoot
        var mine: Set<Int32> = [1, getpid()]
        var pid = getpid()
        while let parent = ProcessHandle.stat(of: pid)?.parent, parent > 1, !mine.contains(parent) {
            mine.insert(parent)
            pid = parent
        }
        protected = mine
    }

    /// Whether the enforcer may signal `pid` at all.
    public func mayTouch(_ pid: Int32) -> Bool { !protected.contains(pid) }

    /// The processes that go with `pid` (without it), found now, with their start times: its
    /// descendants, and the members of its app scope when `cgroup` is one. The caller opens each
    /// with its start time, so that a pid reused since is not taken for it.
    public func members(of pid: Int32, cgroup: String?) -> [(pid: Int32, startTicks: Int64)] {
        let fs = ProcFS()
        var pids: [Int32] = []
        fs.pids(into: &pids)
        var children: [Int32: [Int32]] = [:]
        var started: [Int32: Int64] = [:]
        for p in pids where p != pid {
            guard let stat = ProcessHandle.stat(of: p) else { continue }
            children[stat.parent, default: []].append(p)
            started[p] = stat.startTicks
        }
        var found: [Int32] = []
        var queue = children[pid] ?? []
        while let p = queue.popLast() {
            found.append(p)
            queue += children[p] ?? []
        }
        if let cgroup, let last = cgroup.split(separator: "/").last, last.hasPrefix("app-"), last.hasSuffix(".scope"),
           let procs = ProcFS.contents(of: cgroupRoot + cgroup + "/cgroup.procs") {
            found += String(decoding: procs, as: UTF8.self).split(separator: "\n").compactMap { Int32($0) }.filter { $0 != pid }
        }
        var seen: Set<Int32> = []
        return found.filter { mayTouch($0) && seen.insert($0).inserted && owner(of: $0).map(uids.contains) == true }
            .compactMap { p in started[p].map { (p, $0) } }
    }

    private func owner(of pid: Int32) -> UInt32? { ProcFS.mode(of: "/proc/\(pid)")?.uid }
}
