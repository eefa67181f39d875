import FoundationEssentials
import Glibc
import ScreenTimeCore
import ScreenTimeLinux

/// Input as a Wayland compositor tells it to its clients: an idle notification with a short
/// timeout (`ext_idle_notifier_v1`, else KDE's `org_kde_kwin_idle`), whose `idled` and `resumed`
/// events mark when input stopped and started again. Where no D-Bus service says the time since
/// the last input (KWin on Wayland answers `GetSessionIdleTime` with NotSupported), this is the
/// compositor's own word for it, and it is what KIdleTime itself uses there.
///
/// The Wayland wire protocol is spoken directly on `$XDG_RUNTIME_DIR/$WAYLAND_DISPLAY` (four
/// requests, four events): no libwayland, no generated code. One connection, one thread.
public final class WaylandIdle {
    /// How long without input before the compositor says `idled`: short, so that the time since
    /// the last input is known to within this much (`idle(at:)`).
    public static let timeout: Microseconds = 100_000
    /// How long input is taken to go on after a `resumed` while no `idled` comes. A person's input
    /// has pauses longer than `timeout` (each one an `idled` and a `resumed`) well within this;
    /// an idle inhibitor (a video player's) silences `idled` for good, and must not make the time
    /// after the last input look like use.
    public static let goesOnFor: Microseconds = 5_000_000

    public struct Failure: Error, CustomStringConvertible { public var description: String }

    public private(set) var protocolName = ""
    private let connection: UnixConnection
    private var buffer: [UInt8] = []
    private var lastInput: Microseconds
    private var active = false
    private static let display: UInt32 = 1, registry: UInt32 = 2, sync: UInt32 = 3, seat: UInt32 = 4, notifier: UInt32 = 5, notification: UInt32 = 6,
                       notificationMade: UInt32 = 7

    /// The descriptor to poll for reading.
    public var descriptor: Int32 { connection.fd }

    /// Connects to the compositor at `socketPath` and asks for an idle notification.
    public init(socketPath: String, now: Microseconds) throws(Failure) {
        do { connection = try UnixConnection.connect(path: socketPath) } catch {
            throw Failure(description: "cannot reach the Wayland compositor at \(socketPath): \(error.description)")
        }
        // No input seen yet: the first `resumed` is a start after a quiet time.
        lastInput = now - Seconds.of(3600)
        send(Self.display, 1, [.newID(Self.registry)])   // wl_display.get_registry
        var globals: [String: UInt32] = [:]
        try roundtrip(Self.sync, socketPath: socketPath, now: now) { m in   // done once every global was told
            if m.object == Self.registry, m.opcode == 0, let name = m.uint(0), let interface = m.string(4),
               globals[interface] == nil {
                globals[interface] = name                                       // wl_registry.global
            }
        }
        guard let seat = globals["wl_seat"] else { throw Failure(description: "the Wayland compositor at \(socketPath) has no seat") }
        bind(seat, "wl_seat", version: 1, as: Self.seat)
        if let notifier = globals["ext_idle_notifier_v1"] {
            protocolName = "ext_idle_notifier_v1"
            bind(notifier, protocolName, version: 1, as: Self.notifier)
            send(Self.notifier, 1, [.newID(Self.notification), .uint(UInt32(Self.timeout / 1000)), .object(Self.seat)])   // get_idle_notification
        } else if let idle = globals["org_kde_kwin_idle"] {
            protocolName = "org_kde_kwin_idle"
            bind(idle, protocolName, version: 1, as: Self.notifier)
            send(Self.notifier, 0, [.newID(Self.notification), .object(Self.seat), .uint(UInt32(Self.timeout / 1000))])   // get_idle_timeout
        } else {
            throw Failure(description: "the Wayland compositor at \(socketPath) offers no idle notification (ext_idle_notifier_v1 or org_kde_kwin_idle)")
        }
        // Once this is done, the compositor has made the notification (it handles a client's
        // requests in order), so input from here on is told; a refusal is said here.
        try roundtrip(Self.notificationMade, socketPath: socketPath, now: now) { _ in }
    }

    /// Asks for a `wl_display.sync` as object `callback` and reads until it is done. Every other
    /// message read meanwhile goes to `other` and is then handled as `read` would (a notification's
    /// change, a refusal).
    private func roundtrip(_ callback: UInt32, socketPath: String, now: Microseconds,
                           other: (Message) -> Void) throws(Failure) {
        send(Self.display, 0, [.newID(callback)])
        var done = false
        while !done {
            guard let bytes = connection.read() else { throw Failure(description: "the Wayland compositor at \(socketPath) closed the connection") }
            buffer += bytes
            while let m = nextMessage() {
                if m.object == callback { done = true; continue }               // wl_callback.done
                other(m)
                _ = try handle(m, now: now)
            }
        }
    }

    public enum Change: Sendable, Equatable { case idled, resumed }

    /// Reads what the compositor sent (call when `descriptor` is readable); the changes, in order,
    /// each taken at `now`. Throws when the compositor closed the connection or refused.
    public func read(now: Microseconds) throws(Failure) -> [Change] {
        guard let bytes = connection.read() else { throw Failure(description: "the Wayland compositor closed the connection") }
        buffer += bytes
        var changes: [Change] = []
        while let m = nextMessage() {
            if let change = try handle(m, now: now) { changes.append(change) }
        }
        return changes
    }

    /// One message from the compositor, taken at `now`: a change of the notification's, or a refusal.
    private func handle(_ m: Message, now: Microseconds) throws(Failure) -> Change? {
        if m.object == Self.notification {
            // idled (0): no input for `timeout`; resumed (1): input again (both protocols).
            if m.opcode == 0 {
                // No input for `timeout`, counted from the last input, or (before any
                // `resumed`) from when the notification was made: that says no input came.
                if active { lastInput = max(lastInput, now - Self.timeout) }
                active = false
                return .idled
            } else if m.opcode == 1 {
                active = true
                lastInput = now
                return .resumed
            }
        } else if m.object == Self.display, m.opcode == 0 {
            throw Failure(description: "the Wayland compositor refused: \(m.string(8) ?? "an error")")
        }
        return nil
    }

    /// The time since the last input at `now`, as far as the notifications tell it: nothing while
    /// input goes on (no `idled` yet, so the last input is less than `timeout` ago), for at most
    /// `goesOnFor` after it started.
    public func idle(at now: Microseconds) -> Microseconds {
        active ? max(0, now - lastInput - Self.goesOnFor) : max(0, now - lastInput)
    }

    // MARK: The wire format: 32-bit words in the host's order; a header (object id, then size << 16 | opcode).

    private enum Argument {
        case uint(UInt32), newID(UInt32), object(UInt32), string(String)
    }

    private func bind(_ name: UInt32, _ interface: String, version: UInt32, as id: UInt32) {
        send(Self.registry, 0, [.uint(name), .string(interface), .uint(version), .newID(id)])   // wl_registry.bind
    }

    private func send(_ object: UInt32, _ opcode: UInt16, _ arguments: [Argument]) {
        var body: [UInt32] = []
        for a in arguments {
            switch a {
            case .uint(let v), .newID(let v), .object(let v): body.append(v)
            case .string(let s):
                let bytes = Array(s.utf8) + [0]
                body.append(UInt32(bytes.count))
                let padded = bytes + [UInt8](repeating: 0, count: (4 - bytes.count % 4) % 4)
                for k in stride(from: 0, to: padded.count, by: 4) {
                    body.append(padded[k..<(k + 4)].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
                }
            }
        }
        let words = [object, UInt32(8 + 4 * body.count) << 16 | UInt32(opcode)] + body
        connection.write(words.withUnsafeBytes { Array($0) })
    }

    private struct Message {
        var object: UInt32
        var opcode: UInt16
        var body: [UInt8]

        func uint(_ at: Int) -> UInt32? {
            guard at + 4 <= body.count else { return nil }
            return body[at..<(at + 4)].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        }

        func string(_ at: Int) -> String? {
            guard let length = uint(at), length > 0, at + 4 + Int(length) <= body.count else { return nil }
            return String(decoding: body[(at + 4)..<(at + 4 + Int(length) - 1)], as: UTF8.self)
        }
    }

    private func nextMessage() -> Message? {
        guard buffer.count >= 8 else { return nil }
        let header = buffer[0..<8].withUnsafeBytes { ($0.loadUnaligned(fromByteOffset: 0, as: UInt32.self), $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self)) }
        let size = Int(header.1 >> 16)
        guard size >= 8, buffer.count >= size else { return nil }
        let m = Message(object: header.0, opcode: UInt16(header.1 & 0xFFFF), body: Array(buffer[8..<size]))
        buffer.removeFirst(size)
        return m
    }
}
