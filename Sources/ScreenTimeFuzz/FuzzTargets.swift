import ControlProtocol
import Foundation
import ScreenTimeCore
import ScreenTimePolicy

/// The readers that take input a child can shape, and the engine, as coverage-guided fuzz targets
/// (docs/fuzzing.md). Each target takes any bytes and returns nil, or the invariant they broke; a
/// crash is a finding too. `screentime-fuzz` runs them under libFuzzer (`make fuzz`) and, built
/// without it, over saved inputs; the FuzzCorpusTests run every saved input through them.
public enum FuzzTargets {
    public typealias Target = @Sendable ([UInt8]) -> String?

    public static let all: [(name: String, run: Target)] = [
        ("event-log", eventLog),
        ("control", control),
        ("hook-event", hookEvent),
        ("policy", policy),
        ("engine", engine),
    ]

    public static func named(_ name: String) -> Target? { all.first { $0.name == name }?.run }

    /// The event log (`docs/spec/replay.md`): a file of lines, each a JSON event. `screentimed import`
    /// and `replay` read files a child may have written. A decoded event written again reads back
    /// the same, and the line splitter yields exactly the file's non-blank lines.
    @Sendable public static func eventLog(_ bytes: [UInt8]) -> String? {
        var finding: String? = nil
        var seen: [[UInt8]] = []
        bytes.withUnsafeBufferPointer { buf in
            EventLogLines.forEach(in: buf) { number, line in
                seen.append(Array(line))
                guard let event = try? EventLog.decode(bytes: line) else { return true }
                let text = EventLog.encode(event)
                do throws(EventLog.LineError) {
                    let again = try EventLog.decode(line: text)
                    if again != event { finding = "line \(number): written again as \(text), it reads back as another event" }
                } catch {
                    finding = "line \(number): written again as \(text), it cannot be read: \(error.reason)"
                }
                return finding == nil
            }
        }
        if finding == nil {
            // The oracle: split at \n, drop one trailing \r, keep lines with more than blanks.
            let expected = bytes.split(separator: 10, omittingEmptySubsequences: false).map { line -> [UInt8] in
                line.last == 13 ? Array(line.dropLast()) : Array(line)
            }.filter { $0.contains { $0 != 32 && $0 != 9 } }
            if expected != seen { finding = "the line splitter yielded \(seen.count) lines, not the file's \(expected.count)" }
        }
        return finding
    }

    /// The control socket: bytes arrive in pieces (the first byte chooses their size); the frame
    /// reader must cut exactly the lines a plain split gives, up to the frame limit; a request it
    /// reads, written again, reads back the same.
    @Sendable public static func control(_ bytes: [UInt8]) -> String? {
        guard let first = bytes.first else { return nil }
        let piece = Int(first) + 1
        let stream = Array(bytes.dropFirst())
        var reader = FrameReader()
        var lines: [[UInt8]] = []
        var start = 0
        while start < stream.count {
            let end = min(stream.count, start + piece)
            lines += reader.append(Array(stream[start..<end]))
            start = end
        }
        var expected = stream.split(separator: 10, omittingEmptySubsequences: false).dropLast().map(Array.init)
        if let long = expected.firstIndex(where: { $0.count > ControlProtocol.maxFrame }) {
            expected = Array(expected[..<long])
            if !reader.overflowed { return "a line of \(stream.split(separator: 10, omittingEmptySubsequences: false)[long].count) bytes did not overflow the frame reader" }
        }
        if lines != expected { return "the frame reader cut \(lines.count) lines, not \(expected.count)" }
        for line in lines {
            guard let request = try? ControlRequest.read(line: line) else { continue }
            let written = ControlProtocol.encode(request).dropLast()
            guard let again = try? ControlRequest.read(line: Array(written)) else {
                return "a request written again cannot be read: \(String(decoding: written, as: UTF8.self))"
            }
            if again != request { return "a request written again reads back as another: \(String(decoding: written, as: UTF8.self))" }
        }
        return nil
    }

    /// What a desktop hook sends in a request's `event`: only hook events, stamped with the
    /// daemon's clocks whatever the text says, and the same when written to the log and read back.
    @Sendable public static func hookEvent(_ bytes: [UInt8]) -> String? {
        let at = WallTime(micros: 1_795_000_000_000_000, utcOffsetSeconds: 3600)
        let mono: Microseconds = 123_456_789
        guard let event = try? EventLog.decode(hookEvent: String(decoding: bytes, as: UTF8.self), at: at, mono: mono) else { return nil }
        if event.at != at || event.mono != mono { return "a hook chose the event's time" }
        guard EventLog.hookEvents.contains(event.name) else { return "a hook sent a \(event.name) event" }
        let text = EventLog.encode(event)
        guard let again = try? EventLog.decode(line: text), again == event else { return "a hook's event written to the log reads back otherwise: \(text)" }
        return nil
    }

    /// The policy file: any text is a policy or a list of problems, each on a line of the file
    /// (line 0 only for the file itself); a policy read twice is read the same.
    @Sendable public static func policy(_ bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        // By bytes: a line ends at "\n", "\r\n" (one Character, one line end) or a lone "\r", as
        // the loader reads it (PolicyLoader.unixLineEnds).
        var lines = 1, afterCR = false
        for b in text.utf8 {
            if b == 13 || (b == 10 && !afterCR) { lines += 1 }
            afterCR = b == 13
        }
        do {
            let policy = try PolicyLoader.parse(text, systemZone: .utc)
            let again = try PolicyLoader.parse(text, systemZone: .utc)
            if again.points != policy.points || again.rewards != policy.rewards || again.validation != policy.validation
                || again.apps.map(\.name) != policy.apps.map(\.name) {
                return "the same text read twice gave two policies"
            }
        } catch {
            if error.problems.isEmpty { return "a refused policy with no problem named" }
            for p in error.problems where p.line < 1 || p.line > lines {
                return "a problem on line \(p.line) of a \(lines)-line file: \(p.message)"
            }
            for p in error.problems where p.message.isEmpty { return "a problem on line \(p.line) without a message" }
        }
        return nil
    }

    /// The engine: the bytes choose a policy and a timeline of valid events (`EngineInput`); what
    /// the property tests check of random timelines must hold for this one too.
    @Sendable public static func engine(_ bytes: [UInt8]) -> String? {
        let input = EngineInput(bytes)
        return EngineInvariants.check(events: input.events, policy: input.policy)
    }
}
