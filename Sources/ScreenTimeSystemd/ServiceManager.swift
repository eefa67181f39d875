import CSystemd
#if canImport(Glibc)
import Glibc
import ScreenTimeLinux
#endif

/// Tells systemd how the service is (`sd_notify`): ready, reloading, stopping, a one-line status,
/// and the watchdog's keep-alive. Outside systemd (no `NOTIFY_SOCKET`) every call does nothing.
public struct ServiceManager: Sendable {
    /// How often to send WATCHDOG=1: half of `WATCHDOG_USEC` (nil: no watchdog asked for).
    public let watchdogEvery: Int64?
    /// Whether systemd listens (NOTIFY_SOCKET): only then is a status line worth a wake-up.
    public let notifying = getenv("NOTIFY_SOCKET") != nil

    public init() {
        var usec: UInt64 = 0
        watchdogEvery = sd_watchdog_enabled(0, &usec) > 0 && usec > 0 ? Int64(usec / 2) : nil
    }

    /// The policy is loaded, the state recovered, the socket listening.
    public func ready(status: String) { send("READY=1\nSTATUS=\(status)") }
    public func status(_ text: String) { send("STATUS=\(text)") }
    public func watchdog() { send("WATCHDOG=1") }
    /// Before a reload (systemd wants the monotonic time with it); `ready` after it.
    public func reloading() { send("RELOADING=1\nMONOTONIC_USEC=\(SystemClock.monotonicMicros())") }
    public func stopping() { send("STOPPING=1") }

    private func send(_ state: String) { _ = sd_notify(0, state) }
}
