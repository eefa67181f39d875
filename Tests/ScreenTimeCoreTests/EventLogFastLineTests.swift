@testable import ScreenTimeCore
import Testing

/// `EventLogFastLines` reads the commonest lines without a JSON tree. It must never read a line
/// to another event than the general reader does, nor accept a line the general reader refuses.
@Suite("The event log's fast lines")
struct EventLogFastLineTests {
    /// What each reader makes of `line`: the event, or nil when it refuses it (the fast reader:
    /// when it leaves the line to the general one).
    static func read(_ line: String) -> (fast: Event?, tree: Event?) {
        var s = line
        return s.withUTF8 { b in (EventLogFastLines.decode(b), try? EventLog.decodeTree(bytes: b)) }
    }

    @Test("the lines the daemon writes are read fast, to the same event")
    func written() {
        var rng = SplitMix(seed: 37)
        var fast = 0
        for k in 0..<5_000 {
            let micros = 1_764_000_000_000_000 + Int64(rng.below(1_000_000_000)) * 1_000 + Int64(rng.below(1_000_000))
            let at = WallTime(micros: micros, utcOffsetSeconds: Int32([0, 3600, 7200, -18000, 19800][rng.below(5)]))
            let mono: Microseconds? = rng.below(10) == 0 ? nil : Int64(rng.below(1_000_000_000)) * [1, 1_000, 1_000_000][rng.below(3)]
            let kind: Event.Kind = k % 2 == 0
                ? .input(count: Int64(rng.below(3) == 0 ? 0 : rng.below(100_000)))
                : .processCPU(pid: Int32(rng.below(4_000_000)), cpuMillis: Int64(rng.below(1_000_000_000)))
            let event = Event(at: at, mono: mono, kind)
            let line = EventLog.encode(event)
            let (f, t) = Self.read(line)
            #expect(t == event, "the general reader: \(line)")
            if mono != nil {
                #expect(f == event, "the fast reader: \(line)")
                fast += 1
            } else {
                #expect(f == nil, "a line without mono is the general reader's: \(line)")
            }
        }
        #expect(fast > 4_000)
    }

    /// Lines near the fast shapes: each is left to the general reader or read to the same event.
    @Test("a line the fast reader takes, the general one reads the same; anything else is left to it",
          arguments: [
              #"{"at":"2026-11-23T14:00:10.5+01:00","mono":1000.5,"event":"input","count":3}"#,
              #"{"at":"2026-11-23T14:00:10.5+01:00","mono":1000.5,"event":"input","count":3} "#,
              #"{"at":"2026-11-23T14:00:10.5+01:00","mono":1000.5,"event":"input","count":03}"#,
              #"{"at":"2026-11-23T14:00:10.5+01:00","mono":1000.5,"event":"input","count":-3}"#,
              #"{"at":"2026-11-23T14:00:10.5+01:00","mono":1000.5,"event":"input","count":3.0}"#,
              #"{"at":"2026-11-23T14:00:10.5+01:00","mono":1000.5,"event":"input","count":3e2}"#,
              #"{"at":"2026-11-23T14:00:10.5+01:00","mono":1000.5,"event":"input","count":3,"count":4}"#,
              #"{"at":"2026-11-23T14:00:10.5+01:00","mono":1000.5,"event":"input","count":3,"x":1}"#,
              #"{"at":"2026-11-23T14:00:10.5+01:00","mono":01000.5,"event":"input","count":3}"#,
              #"{"at":"2026-11-23T14:00:10.5+01:00","mono":1000.,"event":"input","count":3}"#,
              #"{"at":"2026-11-23T14:00:10.5+01:00","mono":1000.1234567,"event":"input","count":3}"#,
              #"{"at":"2026-11-23T14:00:10.5+01:00","mono":-1000,"event":"input","count":3}"#,
              #"{"at":"2026-11-23T14:00:10.5+01:00","mono":1e3,"event":"input","count":3}"#,
              #"{"at":"2026-11-23T14:00:10.5+01:00","mono":99999999999999999999,"event":"input","count":3}"#,
              #"{"at":"2026-11-23T14:00:10.5+01:00","mono":1000,"event":"input","count":99999999999999999999}"#,
              #"{"at":"2026-11-23T14:00:10.5\u002B01:00","mono":1000,"event":"input","count":3}"#,
              #"{"at":"2026-11-23T14:00:10.5+01:00","mono":1000,"event":"inputs","count":3}"#,
              #"{"at":"2026-13-23T14:00:10.5+01:00","mono":1000,"event":"input","count":3}"#,
              #"{"at":"2026-11-23T14:00:10.5+01:00" ,"mono":1000,"event":"input","count":3}"#,
              #"{"at":"2026-11-23T14:00:10.5+01:00","mono":1000,"event":"process_cpu","pid":12,"cpu_ms":300}"#,
              #"{"at":"2026-11-23T14:00:10.5+01:00","mono":1000,"event":"process_cpu","pid":0,"cpu_ms":0}"#,
              #"{"at":"2026-11-23T14:00:10.5+01:00","mono":1000,"event":"process_cpu","pid":4294967296,"cpu_ms":300}"#,
              #"{"at":"2026-11-23T14:00:10.5+01:00","mono":1000,"event":"process_cpu","pid":-1,"cpu_ms":300}"#,
              #"{"at":"2026-11-23T14:00:10.5+01:00","mono":1000,"event":"process_cpu","pid":12,"cpu_ms":-300}"#,
              #"{"at":"2026-11-23T14:00:10.5+01:00","mono":1000,"event":"process_cpu","cpu_ms":300,"pid":12}"#,
              #"{"at":"2026-11-23T14:00:10.5+01:00","mono":1000,"event":"process_cpu","pid":12,"cpu_ms":300"#,
              #"{"at":"2026-11-23T14:00:10.5+01:00","mono":1000,"event":"process_cpu","pid":12,"cpu_ms":300}}"#,
              #"{"at":"2026-11-23T14:00:10.5+01:00","mono":1000,"event":"input","count":3"#,
              #"{"at":"2026-11-23T14:00:10.5+01:00"#,
          ])
    func nearby(_ line: String) {
        let (f, t) = Self.read(line)
        if let f { #expect(f == t, "read fast to another event than the general reader's") }
    }

    /// Every line the fast reader takes from damaged copies of a written line is read the same by
    /// the general one: bytes dropped, doubled or changed anywhere.
    @Test("damaged lines: the fast reader takes none the general one reads differently")
    func damaged() {
        let lines = [
            EventLog.encode(Event(at: WallTime(micros: 1_764_000_123_456_789, utcOffsetSeconds: 3600), mono: 86_400_250_000, .input(count: 12))),
            EventLog.encode(Event(at: WallTime(micros: 1_764_000_000_000_000, utcOffsetSeconds: 0), mono: 5_000_000, .processCPU(pid: 4321, cpuMillis: 98_765))),
        ]
        var rng = SplitMix(seed: 3_7)
        var taken = 0
        for line in lines {
            let bytes = Array(line.utf8)
            for _ in 0..<4_000 {
                var b = bytes
                let k = rng.below(b.count)
                switch rng.below(3) {
                case 0: b.remove(at: k)
                case 1: b.insert(b[k], at: k)
                default: b[k] = Array(#"0123456789.-+e"{}:,\ "#.utf8)[rng.below(18)]
                }
                let (f, t) = Self.read(String(decoding: b, as: UTF8.self))
                if let f { taken += 1; #expect(f == t, "\(String(decoding: b, as: UTF8.self))") }
            }
        }
        // Changing a digit keeps the line readable: some must have been taken, and checked.
        #expect(taken > 500)
    }
}
