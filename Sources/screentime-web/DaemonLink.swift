import ControlProtocol
import NIOPosix
import ScreenTimeLinux
import ScreenTimeWords

/// The daemon's control socket: the page's only way to the family's state, as for any client.
/// One connection per request; the blocking socket calls run on NIO's thread pool, never on the
/// threads that serve pages.
struct DaemonLink: Sendable {
    let socket: String

    /// Why the daemon gave no answer: said in a parent's language with `words(_:)`.
    struct Unreachable: Error, CustomStringConvertible {
        enum Kind: Sendable { case cannotConnect(String), closed, noAnswer, notUnderstood, tooLong }
        let kind: Kind
        let socket: String

        func words(_ tr: Translator) -> String {
            switch kind {
            case .cannotConnect(let error):
                return tr("the screentime daemon cannot be reached at {socket}: {error}", ["socket": socket, "error": error])
            case .closed: return tr("the screentime daemon closed the connection ({socket})", ["socket": socket])
            case .noAnswer: return tr("no answer from the screentime daemon ({socket})", ["socket": socket])
            case .notUnderstood: return tr("the daemon's answer is not understood: install screentime-web and screentimed of one release")
            case .tooLong: return tr("the daemon's answer is too long")
            }
        }

        var description: String { words(.english) }
    }

    func send(_ request: ControlRequest) async throws -> ControlReply {
        let socket = socket
        return try await NIOThreadPool.singleton.runIfActive { try Self.exchange(request, socket: socket) }
    }

    private static func exchange(_ request: ControlRequest, socket: String) throws -> ControlReply {
        let connection: UnixConnection
        do { connection = try UnixConnection.connect(path: socket) } catch {
            throw Unreachable(kind: .cannotConnect(error.description), socket: socket)
        }
        connection.setTimeout(seconds: ControlProtocol.answerWithinSeconds)
        guard connection.write(request.line) else { throw Unreachable(kind: .closed, socket: socket) }
        var reader = FrameReader(maxFrame: 16 << 20)
        while true {
            guard let bytes = connection.read() else { throw Unreachable(kind: .noAnswer, socket: socket) }
            if let line = reader.append(bytes).first {
                guard let reply = try? ControlReply.read(line: line), reply.v == ControlProtocol.version else {
                    throw Unreachable(kind: .notUnderstood, socket: socket)
                }
                return reply
            }
            if reader.overflowed { throw Unreachable(kind: .tooLong, socket: socket) }
        }
    }
}
