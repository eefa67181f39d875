@testable import DesktopHooks
import ScreenTimeCore
import Testing

/// When a hook reports input, from the desktop's idle counter read every 200 ms.
@Suite("InputThrottle")
struct InputThrottleTests {
    /// A small deterministic generator, so the keep-alive draws are the same every run.
    struct Counter: RandomNumberGenerator {
        var state: UInt64 = 0x1234_5678
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Polls every 200 ms from 0 to `until`; `inputs` are the true input times. Returns the
    /// times reports went out.
    static func run(inputs: [Microseconds], until end: Microseconds) -> [Microseconds] {
        var throttle = InputThrottle()
        var random = Counter()
        var reports: [Microseconds] = []
        var t: Microseconds = 0
        let start: Microseconds = -3_600 * Seconds.micro   // the last input before the test: an hour ago
        while t <= end {
            let last = inputs.last { $0 <= t } ?? start
            if throttle.observe(idle: t - last, now: t, random: &random) { reports.append(t) }
            t += 200_000
        }
        return reports
    }

    @Test("no input: nothing is reported")
    func quiet() {
        #expect(Self.run(inputs: [], until: 60 * Seconds.micro).isEmpty)
    }

    @Test("input after a pause is reported at the next poll")
    func burstStart() {
        #expect(Self.run(inputs: [10_050_000], until: 20 * Seconds.micro) == [10_200_000])
    }

    @Test("steady typing for a minute: reports every 1.5 to 4.5 s, and not at a regular rhythm")
    func steady() {
        // A key every 100 ms from 5 s to 65 s.
        let inputs = Array(stride(from: 5 * Seconds.micro, to: 65 * Seconds.micro, by: 100_000))
        let reports = Self.run(inputs: inputs, until: 65 * Seconds.micro)
        #expect(reports.first == 5 * Seconds.micro)
        let gaps = zip(reports.dropFirst(), reports).map { $0 - $1 }
        #expect(gaps.allSatisfy { (1_400_000...4_800_000).contains($0) }, "\(gaps)")
        let mean = Double(gaps.reduce(0, +)) / Double(gaps.count)
        let sd = (gaps.map { Self.pow2(Double($0) - mean) }.reduce(0, +) / Double(gaps.count)).squareRoot()
        // The moderate policy calls input periodic below 10 %.
        #expect(sd / mean > 0.15, "spread \(sd / mean)")
    }

    @Test("a jiggler's lone nudge every 30 s is reported every time, keeping its rhythm")
    func jiggler() {
        let period: Microseconds = 30_000_000
        let nudges: [Microseconds] = (1...10).map { Microseconds($0) * period + 7_000 }
        let reports = Self.run(inputs: nudges, until: 301_000_000)
        #expect(reports.count == nudges.count)
        #expect(Set(zip(reports.dropFirst(), reports).map { $0 - $1 }) == [period])
    }

    static func pow2(_ x: Double) -> Double { x * x }
}
