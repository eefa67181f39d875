import ControlProtocol
import Foundation
import ScreenTimeCore
import ScreenTimeLinux
import ScreenTimeSystemd

/// System mode: desktop notifications for the children and their parents. The root daemon never
/// talks to a user's session bus itself (the user owns it, and could make it slow or lie): for
/// each user with a session bus (`/run/user/UID/bus`) it starts one relay, `screentimed
/// notify-relay`, which acts as that user toward the bus but keeps root as its real user, so that
/// the user can neither signal nor trace it. The daemon hands it each notice as a line on a
/// socket, without waiting: a relay that is stuck loses notices, never the daemon's time. A relay
/// that ended is started again with the next notice; closing the socket ends it. A button pressed
/// on a notice (a warning's "Ask for 15 more minutes") comes back on the same socket
/// (`presses(readable:)`), as that user's press: the daemon reads it in its loop, and takes it
/// only for the child whose relay it is.
final class NotificationRelay {
    private struct Relay {
        var pid: Int32
        var connection: UnixConnection
        var lines = FrameReader(maxFrame: 4096)
    }

    let executable: String
    private var relays: [UInt32: Relay] = [:]
    /// Why the last notice to a user was not handed on (nil: it was).
    private(set) var problem: [UInt32: String] = [:]

    init(executable: String = InstalledFiles.beside("screentimed")) {
        self.executable = executable
    }

    /// Users with a session bus now (their folder under /run/user has one).
    static func usersWithSessionBus() -> [UInt32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/run/user")) ?? []
        return names.compactMap { UInt32($0) }.filter { Privileges.sessionBus(of: $0) != nil }.sorted()
    }

    /// Hands a notice on to `uid`'s relay (started when needed); false, with `problem[uid]`, when
    /// it could not be (no session bus, the relay cannot start, its queue is full).
    @discardableResult
    func tell(_ uid: UInt32, summary: String, body: String, urgency: Notifier.Urgency, actions: [(key: String, label: String)] = []) -> Bool {
        var w = JSONWriter()
        w.beginObject()
        w.key("summary"); w.string(summary)
        w.key("body"); w.string(body)
        w.key("urgency"); w.int(Int64(urgency.rawValue))
        if !actions.isEmpty {
            w.key("actions"); w.beginArray(); for a in actions { w.string(a.key); w.string(a.label) }; w.endArray()
        }
        w.endObject()
        let line = Array((w.output + "\n").utf8)
        for _ in 0..<2 {
            guard let relay = relay(for: uid) else { return false }
            switch relay.connection.trySend(line[...]) {
            case .some(let n) where n == line.count:
                problem[uid] = nil
                return true
            case .some:
                // A stuck relay (its bus does not answer): this notice is lost, later ones may pass.
                problem[uid] = "the notification relay is behind (the session bus does not answer): notices are dropped"
                return false
            case .none:
                end(uid)        // it ended: start it again, once
            }
        }
        return false
    }

    /// The relays' sockets, for the daemon's loop to wait on.
    var descriptors: [Int32] { relays.values.map(\.connection.fd) }

    /// The buttons pressed, as the relays whose sockets are readable say: each with the user whose
    /// relay said it. A relay that ended is let go (it starts again with the next notice).
    func presses(readable: Set<Int32>) -> [(uid: UInt32, key: String)] {
        var out: [(uid: UInt32, key: String)] = []
        for uid in relays.keys.sorted() where readable.contains(relays[uid]!.connection.fd) {
            guard let bytes = relays[uid]!.connection.read(max: 4096) else { end(uid); continue }
            for line in relays[uid]!.lines.append(bytes) {
                guard case .object(let fields)? = try? line.withUnsafeBufferPointer({ buf throws(JSONLineError) in try JSONLineReader.parse(buf) }),
                      fields.count == 1, fields[0].0 == "pressed", case .string(let key) = fields[0].1 else { continue }
                out.append((uid, key))
            }
        }
        return out
    }

    /// The running relay of `uid`, started when there is none and the user has a session bus.
    private func relay(for uid: UInt32) -> Relay? {
        if let r = relays[uid] {
            if Spawn.ended(r.pid) == nil { return r }
            relays[uid] = nil
        }
        guard let bus = Privileges.sessionBus(of: uid) else {
            problem[uid] = "no desktop session bus (/run/user/\(uid)/bus): notices go to the journal only"
            return nil
        }
        guard let gid = Privileges.primaryGroup(of: uid) else {
            problem[uid] = "uid \(uid) is not in the user database"
            return nil
        }
        do {
            let (mine, theirs) = try UnixConnection.pair()
            let pid = try Spawn.start(executable, ["notify-relay", "--uid", "\(uid)", "--gid", "\(gid)", "--bus", bus],
                                      environment: ["PATH": "/usr/bin:/bin"], stdin: theirs.fd)
            mine.setNonBlocking()
            let r = Relay(pid: pid, connection: mine)
            relays[uid] = r
            return r
        } catch {
            problem[uid] = "the notification relay cannot start: \(error)"
            return nil
        }
    }

    private func end(_ uid: UInt32) {
        guard let r = relays.removeValue(forKey: uid) else { return }
        Spawn.terminate(r.pid)
        for _ in 0..<50 where Spawn.ended(r.pid) == nil { usleep(10_000) }
    }

    /// Closes every relay's socket (each ends at once) and reaps them.
    func stopAll() {
        let pids = relays.values.map(\.pid)
        relays.removeAll()      // closing the sockets: each relay reads the end and exits
        for pid in pids {
            for _ in 0..<100 where Spawn.ended(pid) == nil { usleep(10_000) }
            if Spawn.ended(pid) == nil { Spawn.terminate(pid) }
        }
    }
}
