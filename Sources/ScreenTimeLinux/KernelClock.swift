import CShims
#if canImport(Glibc)
import Glibc
#endif

/// The clocks as the kernel tells them, not as this process is told them: glibc's clock_gettime
/// can be replaced by an LD_PRELOAD (libfaketime read CLOCK_BOOTTIME 57 years ahead), the system
/// call and /proc/uptime cannot be by one. The one place that reads them.
public enum KernelClock {
    /// CLOCK_BOOTTIME through the system call (µs).
    public static func bootMicros() -> Int64 { read(CLOCK_BOOTTIME) }
    /// CLOCK_REALTIME through the system call (µs since the epoch).
    public static func wallMicros() -> Int64 { read(CLOCK_REALTIME) }

    private static func read(_ clock: clockid_t) -> Int64 {
        var ts = timespec()
        guard screentime_kernel_clock_gettime(clock, &ts) == 0 else { return 0 }
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }

    /// The kernel's boot id (/proc/sys/kernel/random/boot_id): new at every boot, the same for
    /// every process of one. Nil when it cannot be read.
    public static func bootID() -> String? {
        guard let bytes = smallFile("/proc/sys/kernel/random/boot_id") else { return nil }
        let id = String(decoding: bytes, as: UTF8.self).trimmingWhitespace
        return id.isEmpty ? nil : id
    }

    /// The first 64 bytes of a small /proc file (nil: it cannot be read, or is empty).
    private static func smallFile(_ path: String) -> ArraySlice<UInt8>? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        return n > 0 ? buffer[0..<n] : nil
    }

    /// /proc/uptime's first number (seconds since boot, counting suspend: the boot clock), in µs;
    /// nil when it cannot be read.
    public static func uptimeMicros() -> Int64? {
        guard let bytes = smallFile("/proc/uptime") else { return nil }
        var seconds: Int64 = 0, fraction: Int64 = 0, scale: Int64 = 100_000, inFraction = false, digits = 0
        for c in bytes {
            if c == UInt8(ascii: "."), !inFraction { inFraction = true; continue }
            guard c >= 48, c <= 57 else { break }
            digits += 1
            if inFraction { fraction += Int64(c - 48) * scale; scale /= 10 } else { seconds = seconds * 10 + Int64(c - 48) }
        }
        return digits > 0 ? seconds * 1_000_000 + fraction : nil
    }
}

/// Whether the clocks this process is given are the kernel's: the boot clock glibc returns against
/// /proc/uptime (and the system call's), and glibc's wall clock against the system call's.
public enum ClockWitness {
    /// A boot clock further than this from the kernel's is faked (/proc/uptime has 10 ms steps).
    public static let slack: Int64 = 1_000_000

    public struct Faked: Sendable, Equatable {
        /// How far the boot clock the process is given stands ahead of the kernel's (µs; negative: behind).
        public var bootAhead: Int64
        /// The same for the wall clock.
        public var wallAhead: Int64
    }

    /// Nil when the process's boot clock is the kernel's.
    public static func faked() -> Faked? {
        var ts = timespec()
        clock_gettime(CLOCK_BOOTTIME, &ts)
        let given = Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
        clock_gettime(CLOCK_REALTIME, &ts)
        let givenWall = Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
        let kernel = KernelClock.bootMicros()
        let wall = KernelClock.wallMicros()
        let uptime = KernelClock.uptimeMicros() ?? kernel
        // Against /proc/uptime first: the system call itself could be interposed (syscall(2) is a
        // library function too); glibc's answer against the system call's catches the rest.
        let ahead = abs(given - uptime) > slack ? given - uptime : given - kernel
        guard abs(ahead) > slack else { return nil }
        return Faked(bootAhead: ahead, wallAhead: givenWall - wall)
    }
}

private extension String {
    var trimmingWhitespace: String {
        var s = Substring(self)
        while let c = s.last, c == "\n" || c == " " { s = s.dropLast() }
        return String(s)
    }
}
