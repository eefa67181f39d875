import CProcessEvents
import Glibc

/// The kernel's own word, as it happens, of every exec and every end of a process in the system
/// (its process events, the "proc connector"). With them the sampler need not look at each watched
/// process every sample to learn whether it exec'd: the kernel says so before the new program runs
/// its first instruction. They are only a hint of where to look: the sampler reads /proc as before
/// for every process named, and for all of them when events were lost (the socket's buffer ran
/// over, as a child starting thousands of programs at once can make it), so a flood hides nothing.
///
/// The kernel's silence is not proof either. It sends events only while its count of listeners is
/// above zero, and from Linux 6.6 any user can talk that count down (an invalid request, then an
/// "ignore", counted once more each time), with no error to anyone. So
/// - each read asks the kernel again whether it still sends events: it answers only while it
///   does. A read whose question went unanswered, and the read after it (the events may have come
///   back just before it), count as silenced: every process is looked at, as when events were lost.
/// - the kernel answers every request to every listener, and talking the count down takes an
///   invalid request at each step, answered while the count is still above zero: this listener
///   hears the first one. No program has a reason to send one; the count may be held up by the
///   one who did and dropped again at will, so from then on the events are not used at all.
/// What is left: an invalid request hidden in a flood that runs the socket's buffer over (that
/// read counts as lost), then a count held up by a listener of the child's own, dropped and raised
/// again between two samples around an `exec` of a process that already ran. That `exec` is seen
/// at the process's 30-second look (`ProcSampler.exeLookEvery`), as a process sharing its memory is.
///
/// Listening needs CAP_NET_ADMIN before Linux 6.6 (and only such a process can change the count);
/// a user-mode daemon on an older kernel (Debian 12's 6.1) looks at every process instead.
public final class ProcessEvents {
    /// What was heard since the last read.
    public struct News: Sendable {
        /// Processes that exec'd a program (by process id).
        public private(set) var execd: Set<Int32> = []
        /// Processes that ended (the whole process, not one of its threads).
        public private(set) var ended: Set<Int32> = []
        /// Some events were lost (the buffer ran over): any process may have exec'd or ended.
        public private(set) var lost = false
        /// The kernel may have stopped sending events for a while (its count of listeners was
        /// talked down): any process may have exec'd or ended unheard.
        public private(set) var silenced = false
        /// Someone's request was refused as invalid (with this error): the way to talk it down.
        public private(set) var invalidRequest: Int32?

        public init() {}

        /// Whether the process may have exec'd or ended since the last read.
        public func names(_ pid: Int32) -> Bool { lost || silenced || execd.contains(pid) || ended.contains(pid) }

        mutating func clear() {
            execd.removeAll(keepingCapacity: true)
            ended.removeAll(keepingCapacity: true)
            lost = false
            silenced = false
            invalidRequest = nil
        }
        mutating func heard(execd pid: Int32) { execd.insert(pid) }
        mutating func heard(ended pid: Int32) { ended.insert(pid) }
        mutating func loseSome() { lost = true }
        mutating func silence() { silenced = true }
        mutating func heard(invalidRequest code: Int32) { if invalidRequest == nil { invalidRequest = code } }
    }

    public enum Outcome: Equatable, Sendable {
        /// Every event since the last read is in the news.
        case heard
        /// Some were lost (the news says `lost`).
        case lost
        /// The kernel may have stopped sending them for a while (the news says `silenced`).
        case silenced
        /// The socket failed, or someone tried to silence the events: none are to be used any
        /// more (why, in words).
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

        /// Not listening, for a reason of the caller's (`--no-process-events`).
        public init(_ description: String) {
            code = 0
            self.description = description
        }
    }

    private let fd: Int32
    private let nonce: UInt32
    /// The question of the last read (its nonce), asked again at each read.
    private var question: UInt32
    /// The last read's question went unanswered: the next read counts as silenced too, whatever it hears.
    public private(set) var lastUnanswered = false
    /// The socket: readable when the kernel has said something since the last read.
    public var descriptor: Int32 { fd }
    /// How a question is sent (a seam for tests: the kernel's silence, without silencing it for everyone).
    var ask: (Int32, UInt32) -> Int32 = screentime_process_events_ask_again

    /// More messages than this in one read: the rest are left for the next, and this read counts as lost.
    static let readLimit = 8192

    /// Whether a process without CAP_NET_ADMIN may send the kernel requests (Linux 6.6 and later),
    /// and so talk its count of listeners down. Before, only such a process could, and asking again
    /// would count this listener once more each time: then the kernel is not asked again.
    static let othersMayAsk: Bool = {
        guard let release = ProcFS.contents(of: "/proc/sys/kernel/osrelease") else { return true }
        let numbers = String(decoding: release, as: UTF8.self).split(whereSeparator: { !$0.isNumber }).prefix(2).compactMap { Int($0) }
        guard numbers.count == 2 else { return true }
        return (numbers[0], numbers[1]) >= (6, 6)
    }()

    private init(fd: Int32, nonce: UInt32) {
        self.fd = fd
        self.nonce = nonce
        question = nonce
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
            var kind: Int32 = 0, value: Int32 = 0, request: UInt32 = 0
            switch screentime_process_events_next(fd, &kind, &value, &request) {
            case 1 where kind == SCREENTIME_KERNEL_ANSWER && request == nonce:
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

    /// Reads what the kernel said since the last read into `news` (cleared first), then asks the
    /// kernel again whether it still sends events (see the type's comment).
    public func read(into news: inout News) -> Outcome {
        news.clear()
        var unanswered = false, answered = false
        if let failure = drain(into: &news, awaiting: nil, answered: &answered) { return failure }
        if Self.othersMayAsk {
            // The kernel answers at once, in the sender's own call: the answer is queued before
            // the call returns. A question the kernel did not take (a full queue) is not proof of silence.
            question = question &+ 1
            if question == nonce { question = question &+ 1 }
            if ask(fd, question) == 0 {
                if let failure = drain(into: &news, awaiting: question, answered: &answered) { return failure }
                unanswered = !answered && !news.lost
            } else if errno == ENOBUFS || errno == EAGAIN {
                news.loseSome()
            } else {
                return .broken("process events: \(String(cString: strerror(errno)))")
            }
        }
        if let code = news.invalidRequest {
            return .broken("someone sent the kernel an invalid request about process events (\(String(cString: strerror(code)))), "
                           + "the way to silence them, so they are no longer used")
        }
        defer { lastUnanswered = unanswered }
        if unanswered || lastUnanswered {
            news.silence()
            return .silenced
        }
        return news.lost ? .lost : .heard
    }

    /// Reads every message waiting; `answered` says whether the answer to `awaiting` was among them.
    /// Returns an outcome only when the socket failed.
    private func drain(into news: inout News, awaiting: UInt32?, answered: inout Bool) -> Outcome? {
        var kind: Int32 = 0, value: Int32 = 0, request: UInt32 = 0
        for _ in 0..<Self.readLimit {
            switch screentime_process_events_next(fd, &kind, &value, &request) {
            case 0:
                return nil
            case 1:
                if kind == SCREENTIME_PROCESS_EXECD { news.heard(execd: value) }
                else if kind == SCREENTIME_PROCESS_ENDED { news.heard(ended: value) }
                else if kind == SCREENTIME_KERNEL_ANSWER {
                    if let awaiting, request == awaiting { answered = true }
                    // A request refused for want of the right to ask (before Linux 6.6) changes nothing.
                    else if value != 0, value != EPERM { news.heard(invalidRequest: value) }
                }
            default:
                // The buffer ran over: what came after is still to be read.
                guard errno == ENOBUFS else { return .broken("process events: \(String(cString: strerror(errno)))") }
                news.loseSome()
            }
        }
        news.loseSome()
        return nil
    }
}
