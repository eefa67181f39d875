import CSignals
import Glibc

/// SIGTERM and SIGINT (stop) and SIGHUP (reload) for a run loop that polls: each arrival is noted
/// and pokes `wakeup`; the loop asks on its turn what arrived. No thread is involved: libdispatch's
/// signal sources handled a signal on a worker thread of theirs, and from the first one libdispatch
/// woke every second for the rest of the process's life to watch its workers (a sixth of the system
/// daemon's CPU; docs/benchmarks.md).
public enum StopSignals {
    public struct InstallError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Installs the handler for the three signals; each writes a byte to `wakeup`'s pipe.
    public static func install(waking wakeup: Wakeup) throws(InstallError) {
        guard screentime_stop_signals_install(wakeup.writeDescriptor) == 0 else {
            throw InstallError(description: "cannot handle SIGTERM, SIGINT and SIGHUP: \(String(cString: strerror(errno)))")
        }
    }

    /// SIGTERM or SIGINT arrived since the last call.
    public static func stopAsked() -> Bool {
        let term = screentime_stop_signals_take(SIGTERM) != 0
        let int = screentime_stop_signals_take(SIGINT) != 0
        return term || int
    }

    /// SIGHUP arrived since the last call.
    public static func reloadAsked() -> Bool { screentime_stop_signals_take(SIGHUP) != 0 }
}
