#if canImport(Glibc)
import Glibc
#endif
import ScreenTimeLinux

/// Desktop notifications on the child's session bus (`org.freedesktop.Notifications`, the
/// interface every Linux desktop's notification daemon serves), through sd-bus.
public final class Notifier {
    public enum Urgency: UInt8, Sendable { case low = 0, normal = 1, critical = 2 }

    private var bus: Bus?
    /// Why notifications are not shown now (nil: the last one was).
    public private(set) var problem: String?
    /// When to try connecting again after the bus was not there (monotonic µs).
    private var retryAt: Int64 = 0

    private let address: String?

    /// On the session bus at `address`; without one, that of `DBUS_SESSION_BUS_ADDRESS`, else
    /// `$XDG_RUNTIME_DIR/bus`.
    public init(address: String? = nil) {
        self.address = address
        connect(now: 0)
    }

    /// The notifications reach the desktop, as far as the daemon knows.
    public var available: Bool { bus != nil && problem == nil }

    private func connect(now: Int64) {
        do {
            bus = try Bus(.user, address: address)
            problem = nil
        } catch {
            bus = nil
            problem = "no session bus (\(error.description)): notifications go to the journal only"
            retryAt = now + 60_000_000
        }
    }

    /// Shows a notification; false (and `problem` says why) when it could not be.
    @discardableResult
    public func notify(summary: String, body: String, urgency: Urgency, now: Int64) -> Bool {
        if bus == nil, now >= retryAt { connect(now: now) }
        guard let bus else { return false }
        do {
            _ = try bus.call("org.freedesktop.Notifications", "/org/freedesktop/Notifications", "org.freedesktop.Notifications", "Notify", [
                .string("screentime"), .uint32(0), .string("screentime"), .string(summary), .string(body),
                .array(element: "s", []),
                .array(element: "{sv}", [.dictEntry(.string("urgency"), .variant(.byte(urgency.rawValue)))]),
                .int32(-1),
            ], timeout: 500_000)
            problem = nil
            return true
        } catch {
            problem = "the desktop's notification service did not answer (\(error.description)): notifications go to the journal only"
            if (try? bus.process()) == nil { self.bus = nil; retryAt = now + 60_000_000 }
            return false
        }
    }
}
