import ControlProtocol
import ScreenTimeCore
import Glibc
import ScreenTimeLinux

/// The household link of one child (`screentime-household link`, a process of its own; docs/household.md):
/// started with the family database's address and password, then asked one request at a time
/// over a socket pair. Replies come back in order; the daemon's run loop reads them as they come
/// (`descriptor` in its poll) or, for a redemption a parent waits for, waits for one (`call`).
final class HouseholdLink {
    let pid: Int32
    private let connection: UnixConnection
    private var buffer: [UInt8] = []
    private var replies: [HouseholdMessage.Reply] = []
    private var nextID: Int64 = 1
    /// The link ended (its socket closed): a new one is started later.
    private(set) var gone = false

    var descriptor: Int32 { connection.fd }

    init(executable: String, hello: HouseholdMessage.Hello) throws {
        let (mine, theirs) = try UnixConnection.pair()
        pid = try Spawn.start(executable, ["link"], environment: ["PATH": "/usr/bin:/bin"], stdin: theirs.fd)
        connection = mine
        connection.write(ControlProtocol.encode(hello))
    }

    deinit {
        Spawn.terminate(pid)
        // Reaped when it has ended; a link that does not stop is killed (it holds nothing to save).
        for _ in 0..<50 where Spawn.ended(pid) == nil { usleep(10_000) }
        if Spawn.ended(pid) == nil { kill(pid, SIGKILL); _ = Spawn.ended(pid) }
    }

    /// Sends a request; its id, to find the reply by.
    @discardableResult
    func send(_ op: HouseholdMessage.Request.Op, child: String, machine: String, entries: [HouseholdMessage.Entry]? = nil,
              after: Int64? = nil, limit: Int? = nil, lease: HouseholdMessage.Request.Lease? = nil,
              appTime: HouseholdMessage.Request.AppTime? = nil) -> Int64 {
        let id = nextID
        nextID += 1
        if !connection.write(ControlProtocol.encode(HouseholdMessage.Request(id: id, op: op, child: child, machine: machine, entries: entries,
                                                                             after: after, limit: limit, lease: lease, appTime: appTime))) {
            gone = true
        }
        return id
    }

    /// The replies that have come (reads what the socket holds now: call when poll says it is readable).
    func receive() -> [HouseholdMessage.Reply] {
        readAvailable(waitMillis: 0)
        defer { replies.removeAll() }
        return replies
    }

    /// Waits for the reply to request `id`, at most `timeoutMillis`; replies to others that come
    /// first are kept for `receive`. Nil when none came in time or the link is gone.
    func wait(for id: Int64, timeoutMillis: Int32) -> HouseholdMessage.Reply? {
        let deadline = SystemClock.monoMicros() + Int64(timeoutMillis) * 1000
        while !gone {
            if let i = replies.firstIndex(where: { $0.id == id }) { return replies.remove(at: i) }
            let left = (deadline - SystemClock.monoMicros()) / 1000
            guard left > 0 else { return nil }
            readAvailable(waitMillis: Int32(left))
        }
        return replies.firstIndex(where: { $0.id == id }).map { replies.remove(at: $0) }
    }

    private func readAvailable(waitMillis: Int32) {
        let ready = Poll.wait(read: [connection.fd], timeoutMillis: waitMillis)
        guard ready.readable.contains(connection.fd) else { return }
        guard let bytes = connection.read() else { gone = true; return }
        buffer += bytes
        while let end = buffer.firstIndex(of: 10) {
            if let reply = try? ControlProtocol.decode(HouseholdMessage.Reply.self, from: Array(buffer[..<end])) { replies.append(reply) }
            buffer.removeSubrange(...end)
        }
    }
}
