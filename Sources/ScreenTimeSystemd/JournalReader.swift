import CSystemd
import Glibc
import ScreenTimeLinux
import ScreenTimeCore

/// Why the journal could not be read, in words (the sd-journal call, its errno as text).
public struct JournalReadError: Error, CustomStringConvertible, Sendable {
    public var description: String
}

/// Reads the systemd journal (sd-journal): entries that match fields, newest first. The one place
/// that calls `sd_journal_*` to read; callers see no C types and no errno.
public final class JournalReader {
    public enum Source: Sendable, Equatable {
        /// This machine's journal files, as many as the caller may read: a user their own
        /// (`user-UID.journal`), root or the `systemd-journal` group every one.
        case local
        /// The journal files in one folder (and its machine-id subfolders), as `journalctl -D`.
        case directory(String)
    }

    /// One entry: the fields asked for (first value of each) and when the journal received it.
    public struct Entry: Sendable, Equatable {
        public var fields: [String: String]
        public var realtime: Microseconds
    }

    private let handle: OpaquePointer
    private let source: Source

    public init(_ source: Source) throws(JournalReadError) {
        self.source = source
        var j: OpaquePointer?
        let r: Int32
        switch source {
        case .local: r = sd_journal_open(&j, Int32(SD_JOURNAL_LOCAL_ONLY))
        case .directory(let path): r = sd_journal_open_directory(&j, path, 0)
        }
        guard r >= 0, let j else { throw JournalReadError(description: "\(JournalReader.name(source)): cannot open the journal: \(JournalReader.text(r))") }
        handle = j
    }

    deinit { sd_journal_close(handle) }

    /// Only entries with `field=value` (several matches on different fields must all hold).
    public func match(_ field: String, _ value: String) throws(JournalReadError) {
        let pair = Array("\(field)=\(value)".utf8)
        let r = pair.withUnsafeBytes { sd_journal_add_match(handle, $0.baseAddress, $0.count) }
        guard r >= 0 else { throw failure("cannot match \(field)=\(value)", r) }
    }

    /// The matching entries from the newest back, at most `limit`, with the `fields` asked for.
    public func newestFirst(fields: [String], limit: Int) throws(JournalReadError) -> [Entry] {
        var r = sd_journal_seek_tail(handle)
        guard r >= 0 else { throw failure("cannot seek to the end", r) }
        var entries: [Entry] = []
        while entries.count < limit {
            r = sd_journal_previous(handle)
            guard r >= 0 else { throw failure("cannot read the previous entry", r) }
            if r == 0 { break }
            var usec: UInt64 = 0
            r = sd_journal_get_realtime_usec(handle, &usec)
            guard r >= 0 else { throw failure("cannot read an entry's time", r) }
            var values: [String: String] = [:]
            for field in fields {
                var data: UnsafeRawPointer?
                var length = 0
                guard sd_journal_get_data(handle, field, &data, &length) >= 0, let data else { continue }
                let bytes = UnsafeRawBufferPointer(start: data, count: length)
                let text = String(decoding: bytes, as: UTF8.self)
                values[field] = String(text.dropFirst(field.utf8.count + 1))   // "FIELD=value"
            }
            entries.append(Entry(fields: values, realtime: Microseconds(usec)))
        }
        return entries
    }

    private func failure(_ what: String, _ r: Int32) -> JournalReadError {
        JournalReadError(description: "\(JournalReader.name(source)): \(what): \(JournalReader.text(r))")
    }

    static func name(_ source: Source) -> String {
        switch source {
        case .local: "the journal"
        case .directory(let path): "the journal in \(path)"
        }
    }

    static func text(_ r: Int32) -> String { String(cString: strerror(-r)) }
}

/// The ledger's chain heads the daemon logged (`SCREENTIME_EVENT=chain_head`, docs/journal.md),
/// as the journal recorded them for one uid: `_UID` is the journal's own field, from the sender's
/// credentials, which a process cannot choose.
public enum ChainHeadJournal {
    /// How many heads are read at most, newest first.
    public static let limit = 10_000

    /// The heads logged by processes of `uid`, newest first; `since`: only those logged from then on.
    public static func heads(uid: UInt32, from source: JournalReader.Source, since: Microseconds? = nil) throws(JournalReadError) -> [ChainHead] {
        let reader = try JournalReader(source)
        try reader.match("SCREENTIME_EVENT", "chain_head")
        try reader.match("_UID", "\(uid)")
        return try reader.newestFirst(fields: ["SCREENTIME_CHAIN_SEQ", "SCREENTIME_CHAIN_HEAD"], limit: limit).compactMap { e in
            guard let seq = e.fields["SCREENTIME_CHAIN_SEQ"].flatMap({ Int64($0) }), let hash = e.fields["SCREENTIME_CHAIN_HEAD"],
                  e.realtime >= since ?? .min else { return nil }
            return ChainHead(seq: seq, hash: hash, loggedAt: e.realtime)
        }
    }

    /// The journalctl command that shows the same heads, for a person.
    public static func query(uid: UInt32, from source: JournalReader.Source) -> String {
        switch source {
        case .local: "journalctl _UID=\(uid) SCREENTIME_EVENT=chain_head"
        case .directory(let path): "journalctl -D \(path) _UID=\(uid) SCREENTIME_EVENT=chain_head"
        }
    }
}
