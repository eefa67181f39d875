import ControlProtocol
import Foundation
import Logging
import ScreenTimeCore
import ScreenTimeLinux
import ScreenTimeStore

/// The control socket: accepts connections, reads one request per line, and answers each with
/// what `answer` says. It never waits for a client: replies wait in a small outbox, and a client
/// that does not read them, sends a frame over 64 KiB, stays silent 30 s or is one too many is
/// closed. Root's connections (parents with sudo, the system daemon's own desktop hooks) do not
/// count against the others' limit, so that no one can crowd them out; in system mode each other
/// user may hold only `perUser` at once, so that one child cannot crowd out everyone else.
///
/// Nor can a client hold up the run loop (sampling, enforcement, the watchdog): each turn answers
/// at most `perTurn` requests of each client, in turn from where the last turn stopped, and starts
/// none once `turnBudget` is spent; the rest wait for the next turn. A client's requests are not
/// read while earlier ones wait, or while its replies (more than `outboxHighWater`) are unread:
/// the socket's buffer fills and the client waits, not the daemon.
struct ControlServer {
    static let maxClients = 32
    static let maxRootClients = 64
    /// System mode: how many connections one user (not root) may hold at once (nil: no such limit).
    var perUser: Int? = nil
    /// How long a client that is not a hook may stay silent (30 s unless `--client-timeout`).
    let idleTimeout: Microseconds
    static let maxOutbox = 256 * 1024
    /// A client's next request waits while this much of its replies is unread.
    static let outboxHighWater = 64 * 1024
    /// At most this many requests of one client are answered in one turn of the run loop.
    static let perTurn = 16
    /// No request is started once a turn has spent this long answering (one is always answered).
    static let turnBudget: Microseconds = 20_000
    /// At most this many connections are accepted in one turn.
    static let acceptsPerTurn = 64

    let listener: UnixListener
    private var clients: [Int32: Client] = [:]
    /// Where the next turn starts answering: the client after this descriptor.
    private var lastServed: Int32 = -1

    /// Who is calling: the kernel's credentials, and the user's name for messages and the ledger.
    struct Caller {
        var credentials: PeerCredentials
        var name: String
        /// The request carried a parent session's token (`login`) for the child it is about: a
        /// parent by the passphrase given then.
        var parentSession = false
        /// That session's parent, by name (nil: the policy names none).
        var sessionParent: String? = nil
    }

    /// An answer: the reply line to send, whether it was a success, and for a hook event taken, the
    /// child it was for.
    struct Answer {
        var line: [UInt8]
        var ok: Bool
        var child: UInt32?
        /// A hook event taken as what a desktop reports (false: only a child's own claim, idle or
        /// a lock, which does not make the connection a desktop hook).
        var reporter = true
        /// A site report taken: the browser it was about (its native messaging host's parent),
        /// whose reports end when this connection does.
        var siteBrowser: Int32? = nil
    }

    private struct Client {
        let connection: UnixConnection
        let caller: Caller?
        var reader = FrameReader()
        /// Requests read and not answered yet, oldest first (from `next` on).
        var waiting: [[UInt8]] = []
        var next = 0
        var lastHeard: Microseconds
        var outbox: [UInt8] = []
        /// Closed once the outbox is sent (after a frame that was too long).
        var closing = false
        /// A desktop hook ("x11", "sway"), or a browser's native messaging host: kept however long
        /// it is quiet.
        var hook: Hook? = nil

        var hasWaiting: Bool { next < waiting.count }
        /// Ready for its next request: nothing it sent waits, its replies are being read.
        var mayRead: Bool { !closing && !hasWaiting && outbox.count < ControlServer.outboxHighWater }
        /// Has a request to answer now.
        var due: Bool { !closing && hasWaiting && outbox.count < ControlServer.outboxHighWater }
    }

    /// A desktop hook's connection: its name, and the uid of the child whose desktop it reports.
    /// `browser`: not a desktop hook but a browser's native messaging host, bringing the site
    /// reports of that browser (its pid).
    struct Hook: Equatable {
        var name: String
        var child: UInt32
        var browser: Int32? = nil
    }

    private var rootClients: Int { clients.values.lazy.filter { $0.caller?.credentials.uid == 0 }.count }

    /// The desktop hooks connected now, by name.
    var hooks: [String] { clients.values.compactMap(\.hook).filter { $0.browser == nil }.map(\.name).sorted() }

    /// The desktop hooks of one child connected now, by name.
    func hooks(of child: UInt32) -> [String] {
        clients.values.compactMap(\.hook).filter { $0.child == child && $0.browser == nil }.map(\.name).sorted()
    }

    init(listener: UnixListener, idleTimeout: Microseconds = Seconds.of(30)) {
        self.listener = listener
        self.idleTimeout = idleTimeout
    }

    /// What to wait for: the listener and every client ready for more, to read; clients with
    /// replies waiting, to write.
    var readDescriptors: [Int32] { [listener.fd] + clients.filter { $0.value.mayRead }.keys.sorted() }
    var writeDescriptors: [Int32] { clients.filter { !$0.value.outbox.isEmpty }.keys.sorted() }
    /// Requests read and not answered yet: the run loop comes back at once, without waiting.
    var hasWork: Bool { clients.values.contains { $0.due } }

    /// Serves what is ready (and what earlier turns left), within the turn's budget; returns the
    /// hooks whose connection closed. `answer` gives the reply.
    @discardableResult
    mutating func serve(_ ready: Poll.Ready, now: Microseconds, answer: (ControlRequest, Caller) -> Answer) -> [Hook] {
        var lost: [Hook] = []
        func drop(_ fd: Int32) {
            if let h = clients[fd]?.hook { lost.append(h) }
            clients[fd] = nil
        }
        if ready.readable.contains(listener.fd) { accept(now: now) }
        for fd in ready.readable.sorted() where fd != listener.fd {
            guard var client = clients[fd], client.mayRead else { continue }
            guard let bytes = client.connection.read() else { drop(fd); continue }
            client.lastHeard = now
            client.waiting = client.reader.append(bytes)
            client.next = 0
            clients[fd] = client
        }
        answerWaiting(answer)
        // Send what the sockets take; drop clients that do not read their replies.
        for fd in clients.keys.sorted() {
            guard var client = clients[fd] else { continue }
            if !client.outbox.isEmpty {
                guard let sent = client.connection.trySend(client.outbox[...]) else { drop(fd); continue }
                client.outbox.removeFirst(sent)
                if sent > 0 { client.lastHeard = now }
            }
            if client.outbox.count > ControlServer.maxOutbox || (client.closing && client.outbox.isEmpty) {
                clients[fd] = client
                drop(fd)
            } else {
                clients[fd] = client
            }
        }
        return lost
    }

    private mutating func accept(now: Microseconds) {
        for _ in 0..<ControlServer.acceptsPerTurn {
            guard let c = listener.accept() else { return }
            c.setNonBlocking()
            let caller = c.peer().map { Caller(credentials: $0, name: UserAccount.name(of: $0.uid) ?? "uid \($0.uid)") }
            let uid = caller?.credentials.uid
            let theirs = clients.values.lazy.filter { $0.caller?.credentials.uid == uid }.count
            if uid == 0 ? theirs >= ControlServer.maxRootClients : (clients.count - rootClients >= ControlServer.maxClients) {
                _ = c.trySend(ControlReply.refused(.tooManyConnections).line[...])
                continue
            }
            if uid != 0, let perUser, theirs >= perUser {
                _ = c.trySend(ControlReply.refused(.tooManyOfYours, ["most": "\(perUser)"]).line[...])
                continue
            }
            clients[c.fd] = Client(connection: c, caller: caller, lastHeard: now)
        }
    }

    /// Answers waiting requests, client after client from where the last turn stopped, at most
    /// `perTurn` of each, until none is due or the budget is spent.
    private mutating func answerWaiting(_ answer: (ControlRequest, Caller) -> Answer) {
        let order = clients.keys.sorted()
        guard !order.isEmpty else { return }
        let first = order.firstIndex { $0 > lastServed } ?? 0
        let start = SystemClock.monoMicros()
        var answered = 0
        for k in 0..<order.count {
            let fd = order[(first + k) % order.count]
            guard var client = clients[fd] else { continue }
            var taken = 0
            while client.due, taken < ControlServer.perTurn {
                if answered > 0, SystemClock.monoMicros() - start >= ControlServer.turnBudget {
                    clients[fd] = client
                    return
                }
                let line = client.waiting[client.next]
                client.next += 1
                client.outbox += reply(to: line, for: &client, answer)
                taken += 1
                answered += 1
                lastServed = fd
            }
            if !client.hasWaiting {
                client.waiting.removeAll()
                client.next = 0
                if client.reader.overflowed, !client.closing {
                    client.outbox += ControlReply.refused(.requestTooLong, ["most": "\(ControlProtocol.maxFrame)"]).line
                    client.closing = true
                }
            }
            if taken > 0 { client.lastHeard = SystemClock.monoMicros() }
            clients[fd] = client
        }
    }

    private func reply(to line: [UInt8], for client: inout Client, _ answer: (ControlRequest, Caller) -> Answer) -> [UInt8] {
        guard let caller = client.caller, let request = try? ControlRequest.read(line: line) else {
            return ControlReply.refused(.notARequest, ["version": "\(ControlProtocol.version)"]).line
        }
        guard request.v == ControlProtocol.version else {
            return ControlReply.refused(.otherVersion, ["version": "\(ControlProtocol.version)", "asked": "\(request.v)"]).line
        }
        let answered = answer(request, caller)
        if answered.ok, answered.reporter, request.command == .hookEvent, let hook = request.hook, let child = answered.child {
            client.hook = Hook(name: String(hook.prefix(32)), child: child)
        } else if answered.ok, let browser = answered.siteBrowser, let child = answered.child {
            client.hook = Hook(name: "browser", child: child, browser: browser)
        }
        return answered.line
    }

    /// Closes the clients silent for longer than `idleTimeout` (desktop hooks are kept however
    /// quiet they are; a client whose requests wait for their turn is not silent). Called every
    /// turn of the run loop, whether or not a socket is ready.
    mutating func closeSilent(now: Microseconds) {
        for (fd, client) in clients where client.hook == nil && !client.due && now - client.lastHeard > idleTimeout {
            clients[fd] = nil
        }
    }

    /// When the next silent client is due to be closed.
    var nextTimeout: Microseconds? {
        clients.values.lazy.filter { $0.hook == nil }.map { $0.lastHeard + idleTimeout + 1 }.min()
    }
}
