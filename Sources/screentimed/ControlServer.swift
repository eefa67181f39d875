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
struct ControlServer {
    static let maxClients = 32
    static let maxRootClients = 64
    /// System mode: how many connections one user (not root) may hold at once (nil: no such limit).
    var perUser: Int? = nil
    /// How long a client that is not a hook may stay silent (30 s unless `--client-timeout`).
    let idleTimeout: Microseconds
    static let maxOutbox = 256 * 1024

    let listener: UnixListener
    private var clients: [Int32: Client] = [:]

    /// Who is calling: the kernel's credentials, and the user's name for messages and the ledger.
    struct Caller {
        var credentials: PeerCredentials
        var name: String
    }

    private struct Client {
        let connection: UnixConnection
        let caller: Caller?
        var reader = FrameReader()
        var lastHeard: Microseconds
        var outbox: [UInt8] = []
        /// Closed once the outbox is sent (after a frame that was too long).
        var closing = false
        /// A desktop hook ("x11", "sway"): kept however long it is quiet.
        var hook: Hook? = nil
    }

    /// A desktop hook's connection: its name, and the uid of the child whose desktop it reports.
    struct Hook: Equatable {
        var name: String
        var child: UInt32
    }

    private var rootClients: Int { clients.values.lazy.filter { $0.caller?.credentials.uid == 0 }.count }

    /// The desktop hooks connected now, by name.
    var hooks: [String] { clients.values.compactMap(\.hook?.name).sorted() }

    /// The desktop hooks of one child connected now, by name.
    func hooks(of child: UInt32) -> [String] { clients.values.compactMap(\.hook).filter { $0.child == child }.map(\.name).sorted() }

    init(listener: UnixListener, idleTimeout: Microseconds = Seconds.of(30)) {
        self.listener = listener
        self.idleTimeout = idleTimeout
    }

    /// What to wait for: the listener and every client to read; clients with replies waiting, to write.
    var readDescriptors: [Int32] { [listener.fd] + clients.filter { !$0.value.closing }.keys.sorted() }
    var writeDescriptors: [Int32] { clients.filter { !$0.value.outbox.isEmpty }.keys.sorted() }

    /// Serves what is ready; returns the hooks whose connection closed. `answer` gives the reply,
    /// and for a hook event taken, the child it was for.
    @discardableResult
    mutating func serve(_ ready: Poll.Ready, now: Microseconds, answer: (ControlRequest, Caller) -> (reply: ControlReply, child: UInt32?)) -> [Hook] {
        var lost: [Hook] = []
        func drop(_ fd: Int32) {
            if let h = clients[fd]?.hook { lost.append(h) }
            clients[fd] = nil
        }
        if ready.readable.contains(listener.fd) {
            while let c = listener.accept() {
                c.setNonBlocking()
                let caller = c.peer().map { Caller(credentials: $0, name: UserAccount.name(of: $0.uid) ?? "uid \($0.uid)") }
                let uid = caller?.credentials.uid
                let theirs = clients.values.lazy.filter { $0.caller?.credentials.uid == uid }.count
                if uid == 0 ? theirs >= ControlServer.maxRootClients : (clients.count - rootClients >= ControlServer.maxClients) {
                    _ = c.trySend(ControlReply.refused("too many connections; try again").line[...])
                    continue
                }
                if uid != 0, let perUser, theirs >= perUser {
                    _ = c.trySend(ControlReply.refused("too many connections from you (\(perUser) at once); close one and try again").line[...])
                    continue
                }
                clients[c.fd] = Client(connection: c, caller: caller, lastHeard: now)
            }
        }
        for fd in ready.readable.sorted() where fd != listener.fd {
            guard var client = clients[fd], !client.closing else { continue }
            guard let bytes = client.connection.read() else { drop(fd); continue }
            client.lastHeard = now
            for line in client.reader.append(bytes) {
                let reply: ControlReply
                if let caller = client.caller, let request = try? ControlRequest.read(line: line) {
                    if request.v == ControlProtocol.version {
                        let answered = answer(request, caller)
                        reply = answered.reply
                        if reply.ok, request.command == .hookEvent, let hook = request.hook, let child = answered.child {
                            client.hook = Hook(name: String(hook.prefix(32)), child: child)
                        }
                    } else {
                        reply = .refused("this screentimed speaks protocol version \(ControlProtocol.version), not \(request.v)")
                    }
                } else {
                    reply = .refused("not a request: one JSON object per line, with \"v\": \(ControlProtocol.version) and a \"command\" (\(ControlRequest.Command.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                client.outbox += reply.line
            }
            if client.reader.overflowed {
                client.outbox += ControlReply.refused("a request may be at most \(ControlProtocol.maxFrame) bytes").line
                client.closing = true
            }
            clients[fd] = client
        }
        // Send what the sockets take; drop clients that do not read their replies.
        for fd in clients.keys.sorted() {
            guard var client = clients[fd] else { continue }
            if !client.outbox.isEmpty {
                guard let sent = client.connection.trySend(client.outbox[...]) else { drop(fd); continue }
                client.outbox.removeFirst(sent)
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

    /// Closes the clients silent for longer than `idleTimeout` (desktop hooks are kept however
    /// quiet they are). Called every turn of the run loop, whether or not a socket is ready.
    mutating func closeSilent(now: Microseconds) {
        for (fd, client) in clients where client.hook == nil && now - client.lastHeard > idleTimeout {
            clients[fd] = nil
        }
    }

    /// When the next silent client is due to be closed.
    var nextTimeout: Microseconds? {
        clients.values.lazy.filter { $0.hook == nil }.map { $0.lastHeard + idleTimeout + 1 }.min()
    }
}

