import CSystemd
import Glibc
import ScreenTimeLinux
import Logging

/// The systemd journal's native protocol (`sd_journal_sendv`): one entry is a list of
/// `FIELD=value` strings. The one place that calls it.
public enum Journal {
    /// Where journald listens for native entries.
    static let socket = "/run/systemd/journal/socket"

    /// Sends one entry; false when the journal cannot be reached. (`sd_journal_sendv` itself says
    /// it worked when there is no journal socket at all: "fail silently", so that is looked at first.)
    public static func send(_ fields: [String]) -> Bool {
        guard access(socket, W_OK) == 0 else { return false }
        // One buffer for every field, so that the iovecs point into memory that stays put.
        var bytes: [UInt8] = []
        var spans: [(start: Int, count: Int)] = []
        for field in fields {
            spans.append((bytes.count, field.utf8.count))
            bytes += field.utf8
        }
        return bytes.withUnsafeMutableBytes { buffer in
            let iovecs = spans.map { iovec(iov_base: buffer.baseAddress! + $0.start, iov_len: $0.count) }
            return iovecs.withUnsafeBufferPointer { sd_journal_sendv($0.baseAddress, Int32($0.count)) } >= 0
        }
    }

    /// Whether standard error goes to the journal: systemd sets `JOURNAL_STREAM=DEVICE:INODE` for
    /// the stream it connects, and a process that still has that stream as its stderr should log
    /// natively instead (sd_journal_print(3), "JOURNAL_STREAM").
    public static var receivesStandardError: Bool {
        guard let value = getenv("JOURNAL_STREAM").map({ String(cString: $0) }) else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var s = stat()
        guard fstat(2, &s) == 0 else { return false }
        return UInt64(s.st_dev) == device && UInt64(s.st_ino) == inode
    }

    /// syslog(3) priorities for swift-log's levels.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// A journal field name for a metadata key: "app" is `SCREENTIME_APP`, "refused_seconds"
    /// `SCREENTIME_REFUSED_SECONDS` (upper case letters, digits and underscores only).
    static func fieldName(_ key: String) -> String { "SCREENTIME_" + upperCased(key) }

    private static func upperCased(_ key: String) -> String {
        String(key.uppercased().unicodeScalars.map { scalar -> Character in
            ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) ? Character(scalar) : "_"
        })
    }

    /// A metadata value as journal fields: a list gives the field once per element.
    static func fields(_ name: String, _ value: Logger.MetadataValue) -> [String] {
        switch value {
        case .string(let s): ["\(name)=\(s)"]
        case .stringConvertible(let s): ["\(name)=\(s.description)"]
        case .array(let values): values.flatMap { fields(name, $0) }
        case .dictionary(let d): d.sorted { $0.key < $1.key }.flatMap { fields(name + "_" + upperCased($0.key), $0.value) }
        }
    }
}

/// swift-log to the journal: the message, its priority, `SYSLOG_IDENTIFIER`, where in the code,
/// and each metadata key as a `SCREENTIME_*` field. When the journal cannot be reached, the
/// entry goes to standard error instead (nothing is lost).
public struct JournalLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    let identifier: String
    let fallback: StandardErrorLogHandler

    public init(identifier: String) {
        self.identifier = identifier
        fallback = StandardErrorLogHandler(identifier: identifier)
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var entry = [
            "MESSAGE=\(event.message)", "PRIORITY=\(Journal.priority(event.level))", "SYSLOG_IDENTIFIER=\(identifier)",
            "CODE_FILE=\(event.file)", "CODE_LINE=\(event.line)", "CODE_FUNC=\(event.function)",
        ]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }).sorted(by: { $0.key < $1.key }) {
            entry += Journal.fields(Journal.fieldName(key), value)
        }
        if !Journal.send(entry) { fallback.log(event: event) }
    }
}

/// swift-log to standard error, one line per entry, as a person reads it in a terminal:
/// "screentimed: message" ("screentimed: warning: message" from warnings up). The metadata is left
/// out: the message says it in words.
public struct StandardErrorLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    let identifier: String

    public init(identifier: String) { self.identifier = identifier }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let level = event.level >= .warning ? "\(event.level): " : ""
        let line = Array("\(identifier): \(level)\(event.message)\n".utf8)
        // One write(2), so that lines from two threads never interleave.
        line.withUnsafeBytes { _ = Glibc.write(2, $0.baseAddress, $0.count) }
    }
}
