import CCrypt
import Glibc

/// The parent passphrase, checked against a hash in the `crypt` format of /etc/shadow (yescrypt:
/// `mkpasswd -m yescrypt`), through libcrypt's `crypt_r`.
public enum Passphrase {
    /// True when `phrase` gives `hash`. Compared without an early exit.
    public static func matches(_ phrase: String, hash: String) -> Bool {
        guard !phrase.isEmpty, phrase.utf8.count <= 1024, hash.hasPrefix("$") else { return false }
        // crypt_data is about 32 KiB: on the heap, zeroed as crypt_r asks.
        let data = UnsafeMutablePointer<crypt_data>.allocate(capacity: 1)
        defer { data.deallocate() }
        memset(data, 0, MemoryLayout<crypt_data>.size)
        guard let out = crypt_r(phrase, hash, data) else { return false }
        let got = Array(String(cString: out).utf8), want = Array(hash.utf8)
        // crypt_r answers "*0"/"*1" for a setting it cannot use.
        guard got.count == want.count, got.first == UInt8(ascii: "$") else { return false }
        var diff: UInt8 = 0
        for k in 0..<got.count { diff |= got[k] ^ want[k] }
        return diff == 0
    }
}

extension Passphrase {
    /// The yescrypt hash of `phrase` with a new random salt (libcrypt's own, from the kernel), as
    /// `mkpasswd -m yescrypt` makes it; nil when libcrypt cannot.
    public static func hash(_ phrase: String) -> String? {
        guard !phrase.isEmpty, phrase.utf8.count <= 1024 else { return nil }
        var setting = [CChar](repeating: 0, count: Int(CRYPT_GENSALT_OUTPUT_SIZE))
        guard crypt_gensalt_rn("$y$", 0, nil, 0, &setting, Int32(setting.count)) != nil else { return nil }
        let data = UnsafeMutablePointer<crypt_data>.allocate(capacity: 1)
        defer { data.deallocate() }
        memset(data, 0, MemoryLayout<crypt_data>.size)
        guard let out = crypt_r(phrase, setting, data) else { return nil }
        let hash = String(cString: out)
        return hash.hasPrefix("$y$") ? hash : nil
    }
}

/// Five wrong passphrases lock parent commands by passphrase for 15 minutes. The daemon keeps one
/// gate for each caller (uid), in the state, and gives it the wall clock: a lock saved before a
/// restart holds after it. A clock set back does not make a lock longer than 15 minutes.
public struct PassphraseGate: Sendable, Equatable {
    public static let maxFailures = 5
    public static let lockFor: Int64 = 15 * 60 * 1_000_000
    public private(set) var failures = 0
    public private(set) var lockedUntil: Int64? = nil

    public init() {}

    /// A gate as saved.
    public init(failures: Int, lockedUntil: Int64?) {
        self.failures = max(0, failures)
        self.lockedUntil = lockedUntil
    }

    public enum Outcome: Equatable, Sendable {
        case accepted
        /// Wrong: how many tries are left before the lock (0: locked now).
        case wrong(triesLeft: Int)
        /// Locked: microseconds until it opens; the passphrase was not even checked.
        case locked(remaining: Int64)
    }

    public mutating func attempt(at now: Int64, check: () -> Bool) -> Outcome {
        if var until = lockedUntil {
            if until - now > Self.lockFor { until = now + Self.lockFor; lockedUntil = until }
            if now < until { return .locked(remaining: until - now) }
            lockedUntil = nil
            failures = 0
        }
        if check() {
            failures = 0
            return .accepted
        }
        failures += 1
        if failures >= Self.maxFailures { lockedUntil = now + Self.lockFor }
        return .wrong(triesLeft: max(0, Self.maxFailures - failures))
    }
}

/// The controlling terminal, for a passphrase typed without echo.
public enum Terminal {
    /// Prompts on the terminal and reads one line with echo off; nil without a terminal.
    public static func readHidden(prompt: String) -> String? {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else { return nil }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        _ = prompt.withCString { write(fd, $0, strlen($0)) }
        guard tcsetattr(fd, TCSAFLUSH, &quiet) == 0 else { return nil }
        defer {
            _ = tcsetattr(fd, TCSAFLUSH, &saved)
            _ = write(fd, "\n", 1)
        }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(fd, &byte, 1) == 1, byte != 10, line.count < 1024 { line.append(byte) }
        return String(decoding: line, as: UTF8.self)
    }
}
