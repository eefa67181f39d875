import CProcessEvents
import Glibc

/// The kernel's own word, as it happens, of every exec and every end of a process in the system
/// (its process events, the "proc connector"). With them the sampler need not look at each watched
/// process every sample to learn whether it exec'd: the kernel says so before the new program runs
/// its first instruction. They are only a hint of where to look: the sampler reads /proc as before
/// for every process named, and for all of them when events were lost (the socket's buffer ran
/// over, as a child starting thousands of programs at once can make it), so a flood hides nothing.
/// But the kernel's silence is not proof: any user can make it stop sending these events to
/// everyone, with no error to anyone (its count of listeners can be talked down), and nothing here
/// tells that silence from a quiet machine yet. So the daemon uses them only when asked
/// (`screentimed --process-events`).
///
/// Listening needs CAP_NET_ADMIN before Linux 6.6; a user-mode daemon on an older kernel (Debian
/// 12's 6.1) looks at every process instead, as it did before.
public final class ProcessEvents {
    /// What was heard since the last read.
    public struct News: Sendable {
        /// Processes that exec'd a program (by process id).
        public private(set) var execd: Set<Int32> = []
        /// Processes that ended (the whole process, not one of its threads).
        public private(set) var ended: Set<Int32> = []
        /// Some events were lost: any process may have exec'd or ended.
        public private(set) var lost = false

        public init() {}

        /// Whether the process may have exec'd or ended since the last read.
        public func names(_ pid: Int32) -> Bool { lost || execd.contains(pid) || ended.contains(pid) }

        mutating func clear() {
            execd.removeAll(keepingCapacity: true)
            ended.removeAll(keepingCapacity: true)
            lost = false
        }
        mutating func heard(execd pid: Int32) { execd.insert(pid) }
        mutating func heard(ended pid: Int32) { ended.insert(pid) }
        mutating func loseSome() { lost = true }
    }

    public enum Outcome: Equatable, Sendable {
        /// Every event since the last read is in the news.
        case heard
        /// Some were lost (the news says `lost`).
        case lost
        /// The socket failed: no more events will come (why, in words).
        case broken(String)
    }

    /// Why the kernel's events cannot be had, in words; `code` is the system's error number.
    public struct ListenError: Error, Equatable, Sendable, CustomStringConvertible {
        public let code: Int32
        public let description: String

        init(code: Int32, _ what: String) {
            self.code = code
            switch code {
            case EPERM, EACCES:
                description = "\(what): this kernel lets only a process with CAP_NET_ADMIN hear of processes (Linux 6.6 lets anyone)"
            case EPROTONOSUPPORT, ENOENT:
                description = "\(what): this kernel has no process events (CONFIG_PROC_EVENTS)"
            default:
                description = "\(what): \(String(cString: strerror(code)))"
            }
        }

        /// Not listening, for a reason of the caller's (process events are off by default).
        public init(_ description: String) {
            code = 0
            self.description = description
        }
    }

    private let fd: Int32
    private let nonce: UInt32

    /// More messages than this in one read: the rest are left for the next, and this read counts as lost.
    static let readLimit = 8192

    private init(fd: Int32, nonce: UInt32) {
        self.fd = fd
        self.nonce = nonce
    }

    deinit { screentime_process_events_close(fd, nonce) }

    /// Starts listening, with a receive buffer of about `receiveBuffer` bytes (a message is about
    /// 100 bytes with its overhead), and waits up to `wait` milliseconds for the kernel's answer.
    public static func listen(receiveBuffer: Int = 1 << 20, wait: Int32 = 1000) -> Result<ProcessEvents, ListenError> {
        let nonce = UInt32.random(in: 1..<UInt32.max)
        let fd = screentime_process_events_open(Int32(clamping: receiveBuffer), nonce)
        guard fd >= 0 else { return .failure(ListenError(code: errno, "process events")) }
        let events = ProcessEvents(fd: fd, nonce: nonce)
        // Events of other processes may come before the answer; they are no news yet.
        let deadline = SystemClock.monoMicros() + Int64(wait) * 1000
        while SystemClock.monoMicros() <= deadline {
            var kind: Int32 = 0, value: Int32 = 0
            switch screentime_process_events_next(fd, nonce, &kind, &value) {
            case 1 where kind == SCREENTIME_KERNEL_ANSWER:
                return value == 0 ? .success(events) : .failure(ListenError(code: value, "process events: the kernel refused"))
            case 1:
                continue
            case 0:
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                _ = poll(&p, 1, 50)
            default:
                if errno == ENOBUFS { continue }
                return .failure(ListenError(code: errno, "process events"))
            }
        }
        return .failure(ListenError("process events: the kernel did not answer within \(wait) ms"))
    }

    /// Reads what the kernel said since the last read into `news` (cleared first).
    public func read(into news: inout News) -> Outcome {
        news.clear()
        var kind: Int32 = 0, pid: Int32 = 0
        for _ in 0..<Self.readLimit {
            switch screentime_process_events_next(fd, nonce, &kind, &pid) {
            case 0:
                return news.lost ? .lost : .heard
            case 1:
                if kind == SCREENTIME_PROCESS_EXECD { news.heard(execd: pid) }
                else if kind == SCREENTIME_PROCESS_ENDED { news.heard(ended: pid) }
            default:
                // The buffer ran over: what came after is still to be read.
                guard errno == ENOBUFS else { return .broken("process events: \(String(cString: strerror(errno)))") }
                news.loseSome()
            }
        }
        news.loseSome()
        return .lost
    }
}
