import ControlProtocol
import NIOPosix
import ScreenTimeLinux

/// The daemon's control socket: the page's only way to the family's state, as for any client.
/// One connection per request; the blocking socket calls run on NIO's thread pool, never on the
/// threads that serve pages.
struct DaemonLink: Sendable {
    let socket: String

    struct Unreachable: Error, CustomStringConvertible { var description: String }

    func send(_ request: ControlRequest) async throws -> ControlReply {
        let socket = socket
        return try await NIOThreadPool.singleton.runIfActive { try Self.exchange(request, socket: socket) }
    }

    private static func exchange(_ request: ControlRequest, socket: String) throws -> ControlReply {
        let connection: UnixConnection
        do { connection = try UnixConnection.connect(path: socket) } catch {
            throw Unreachable(description: "the screentime daemon cannot be reached at \(socket): \(error.description)")
        }
        connection.setTimeout(seconds: ControlProtocol.answerWithinSeconds)
        guard connection.write(request.line) else { throw Unreachable(description: "the screentime daemon closed the connection (\(socket))") }
        var reader = FrameReader(maxFrame: 16 << 20)
        while true {
            guard let bytes = connection.read() else { throw Unreachable(description: "no answer from the screentime daemon (\(socket))") }
            if let line = reader.append(bytes).first {
                guard let reply = try? ControlReply.read(line: line), reply.v == ControlProtocol.version else {
                    throw Unreachable(description: "the daemon's answer is not understood: install screentime-web and screentimed of one release")
                }
                return reply
            }
            if reader.overflowed { throw Unreachable(description: "the daemon's answer is too long") }
        }
    }
}
