#if canImport(Glibc)
import Glibc
#endif
import ScreenTimeLinux

/// Desktop notifications on the child's session bus (`org.freedesktop.Notifications`, the
/// interface every Linux desktop's notification daemon serves), through sd-bus; and the buttons
/// pressed on them (`ActionInvoked`), which `process()` collects for `takePressed()`.
public final class Notifier {
    public enum Urgency: UInt8, Sendable { case low = 0, normal = 1, critical = 2 }

    private var bus: Bus?
    /// Why notifications are not shown now (nil: the last one was).
    public private(set) var problem: String?
    /// When to try connecting again after the bus was not there (monotonic µs).
    private var retryAt: Int64 = 0
    /// Buttons pressed since the last `takePressed()`: the notification's id and the action's key.
    private var pressed: [(id: UInt32, key: String)] = []

    private let address: String?

    /// On the session bus at `address`; without one, that of `DBUS_SESSION_BUS_ADDRESS`, else
    /// `$XDG_RUNTIME_DIR/bus`.
    public init(address: String? = nil) {
        self.address = address
        connect(now: 0)
    }

    /// The notifications reach the desktop, as far as the daemon knows.
    public var available: Bool { bus != nil && problem == nil }

    /// The bus's socket, for the daemon's loop to wait on (nil: not connected).
    public var descriptor: Int32? { bus?.descriptor }
    public var wantsWrite: Bool { bus?.wantsWrite ?? false }

    private func connect(now: Int64) {
        do {
            let bus = try Bus(.user, address: address)
            // Whoever sends it, a press only ever asks for what the child may ask for anyway.
            try bus.onMessages(matching: "type='signal',interface='org.freedesktop.Notifications',member='ActionInvoked'") { [weak self] m in
                guard let self, m.arguments.count == 2, let id = m.arguments[0].uint32, let key = m.arguments[1].string,
                      self.pressed.count < 100 else { return }
                self.pressed.append((id, key))
            }
            self.bus = bus
            problem = nil
        } catch {
            bus = nil
            problem = "no session bus (\(error.description)): notifications go to the journal only"
            retryAt = now + 60_000_000
        }
    }

    /// Reads what the bus has for the daemon (signals of buttons pressed), without waiting.
    public func process() {
        guard let bus else { return }
        if (try? bus.process()) == nil { self.bus = nil; problem = "the session bus closed: notifications go to the journal only" }
    }

    /// The buttons pressed since the last call, oldest first.
    public func takePressed() -> [(id: UInt32, key: String)] {
        defer { pressed.removeAll() }
        return pressed
    }

    /// Shows a notification; false (and `problem` says why) when it could not be.
    @discardableResult
    public func notify(summary: String, body: String, urgency: Urgency, now: Int64) -> Bool {
        show(summary: summary, body: body, urgency: urgency, actions: [], now: now) != nil
    }

    /// Shows a notification with buttons (`actions`: each a key and its words); its id, or nil
    /// (and `problem` says why) when it could not be shown.
    public func show(summary: String, body: String, urgency: Urgency, actions: [(key: String, label: String)], now: Int64) -> UInt32? {
        if bus == nil, now >= retryAt { connect(now: now) }
        guard let bus else { return nil }
        do {
            let reply = try bus.call("org.freedesktop.Notifications", "/org/freedesktop/Notifications", "org.freedesktop.Notifications", "Notify", [
                .string("screentime"), .uint32(0), .string("screentime"), .string(summary), .string(body),
                .array(element: "s", actions.flatMap { [BusValue.string($0.key), .string($0.label)] }),
                .array(element: "{sv}", [.dictEntry(.string("urgency"), .variant(.byte(urgency.rawValue)))]),
                .int32(-1),
            ], timeout: 500_000)
            problem = nil
            return reply.arguments.first?.uint32 ?? 0
        } catch {
            problem = "the desktop's notification service did not answer (\(error.description)): notifications go to the journal only"
            if (try? bus.process()) == nil { self.bus = nil; retryAt = now + 60_000_000 }
            return nil
        }
    }
}
