import HummingbirdCore
import NIOCore
import Synchronization

/// What one client may hold of the page (issue #36: 1,200 half-open connections from one local
/// user stopped it for everyone). Each client address may keep `perClient` connections open at
/// once (a browser opens six or so); a connection must send its first request's head within
/// `headerTimeout` (a client that sends a header a byte at a time is closed). Hummingbird has
/// neither, so this handler sits in each connection's pipeline, after the HTTP decoder.
final class ConnectionGuard: Sendable {
    static let perClient = 32
    static let headerTimeout: TimeAmount = .seconds(10)

    private let open = Mutex<[String: Int]>([:])

    /// The handlers for one new connection.
    func handlers() -> [any RemovableChannelHandler] { [Handler(guard: self)] }

    /// Counts a connection of `client`; false (not counted) when it holds `perClient` already.
    func admit(_ client: String) -> Bool {
        open.withLock { counts in
            guard counts[client, default: 0] < Self.perClient else { return false }
            counts[client, default: 0] += 1
            return true
        }
    }

    func release(_ client: String) {
        open.withLock { counts in
            let left = counts[client, default: 1] - 1
            counts[client] = left > 0 ? left : nil
        }
    }

    /// One connection: admitted or closed at once; closed if no request head comes in time.
    final class Handler: ChannelInboundHandler, RemovableChannelHandler {
        // Past the HTTP decoder, the first thing read is a request's head (it emits nothing
        // before the head is whole); what is read is passed on untouched, so its type is not named.
        typealias InboundIn = NIOAny
        typealias InboundOut = NIOAny

        private let owner: ConnectionGuard
        private var client: String? = nil
        private var headerDeadline: Scheduled<Void>? = nil

        init(guard owner: ConnectionGuard) { self.owner = owner }

        func handlerAdded(context: ChannelHandlerContext) {
            let address = context.channel.remoteAddress?.ipAddress ?? "unknown"
            guard owner.admit(address) else {
                context.close(promise: nil)
                return
            }
            client = address
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            headerDeadline = context.eventLoop.scheduleTask(in: ConnectionGuard.headerTimeout) { bound.value.close(promise: nil) }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            headerDeadline?.cancel()
            headerDeadline = nil
            context.fireChannelRead(data)
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            headerDeadline?.cancel()
            if let client { owner.release(client) }
            client = nil
        }
    }
}
