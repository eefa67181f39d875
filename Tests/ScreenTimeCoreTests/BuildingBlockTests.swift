@testable import ScreenTimeCore
import Testing

@Suite("Building blocks")
struct BuildingBlockTests {
    @Test("RFC 3339: offsets, fractions and leap seconds")
    func rfc3339() {
        let a = RFC3339.parse("2026-11-23T15:00:00+01:00")!
        #expect(a.micros == 1_795_442_400_000_000)
        #expect(a.utcOffsetSeconds == 3600)
        #expect(RFC3339.parse("2026-11-23T14:00:00Z")!.micros == a.micros)
        #expect(RFC3339.parse("2026-11-23t14:00:00.5z")!.micros == a.micros + 500_000)
        #expect(RFC3339.parse("2026-11-23T15:00:00.000001+01:00")!.micros == a.micros + 1)
        #expect(RFC3339.parse("2016-12-31T23:59:60Z")!.micros == RFC3339.parse("2016-12-31T23:59:59.999999Z")!.micros)
        #expect(RFC3339.format(micros: a.micros, utcOffsetSeconds: 3600) == "2026-11-23T15:00:00+01:00")
        #expect(RFC3339.format(micros: a.micros + 250_000, utcOffsetSeconds: -18_000) == "2026-11-23T09:00:00.25-05:00")
        #expect(RFC3339.format(micros: 0, utcOffsetSeconds: 0) == "1970-01-01T00:00:00Z")
        #expect(RFC3339.format(micros: -1, utcOffsetSeconds: 0) == "1969-12-31T23:59:59.999999Z")
    }

    @Test("not RFC 3339", arguments: ["2026-11-23 15:00", "2026-11-23T15:00:00", "2026-02-30T10:00:00Z", "2026-11-23T24:00:00Z",
                                      "2026-11-23T15:00:00+1:00", "2026-11-23T15:00:00.Z", "26-11-23T15:00:00Z", "2026-11-23T15:00:00Zjunk"])
    func notRFC3339(_ text: String) {
        #expect(RFC3339.parse(text) == nil)
    }

    @Test("JSON lines: strings with escapes, exact numbers, nesting")
    func jsonLines() throws {
        let v = try JSONLineReader.parse(#"{"a": "tab\there \"q\" \u00e9 \ud83d\ude00", "n": 1732370400.123456, "e": 15e-1, "x": [true, null, {"k": -0.5}]}"#)
        guard case .object(let f) = v else { Issue.record("not an object"); return }
        #expect(f[0].1 == .string("tab\there \"q\" é 😀"))
        guard case .number(let n) = f[1].1, case .number(let e) = f[2].1 else { Issue.record("not numbers"); return }
        #expect(n.micros == 1_732_370_400_123_456)
        #expect(n.int64 == nil)
        #expect(e.micros == 1_500_000)
        #expect(f[3].1 == .array([.bool(true), .null, .object([("k", .number(JSONNumber(mantissa: -5, exponent: -1, exact: true, double: -0.5)))])]))
        for bad in [#"{"a": 1,}"#, #"{"a" 1}"#, #"{"a": 01}"#, #"{"a": "x"#, "{\"a\": \"\u{01}\"}", #"{"a": 1} x"#, #"{"a": 1, "a": 2}"#] {
            #expect(throws: JSONLineError.self) { try JSONLineReader.parse(bad) }
        }
    }

    @Test("interval sets: merge, intersect, subtract, prefix")
    func intervals() {
        var s = IntervalSet([(10, 20), (30, 40)])
        s.insert(18, 32)
        #expect(s.spans.map { [$0.start, $0.end] } == [[10, 40]])
        s.insert(0, 5)
        s.insert(50, 60)
        #expect(s.measure == 45)
        let other = IntervalSet([(3, 12), (55, 70)])
        #expect(s.intersection(other).spans.map { [$0.start, $0.end] } == [[3, 5], [10, 12], [55, 60]])
        #expect(s.subtracting(other).spans.map { [$0.start, $0.end] } == [[0, 3], [12, 40], [50, 55]])
        #expect(s.prefix(measure: 20).spans.map { [$0.start, $0.end] } == [[0, 5], [10, 25]])
        s.forget(before: 12)
        #expect(s.spans.first?.start == 10)
        s.forget(before: 45)
        #expect(s.spans.map { [$0.start, $0.end] } == [[50, 60]])
    }

    @Test("exe patterns", arguments: [
        ("/usr/bin/gcompris-qt", "/usr/bin/gcompris-qt", true),
        ("/usr/bin/gcompris-qt", "/usr/bin/gcompris-qt5", false),
        ("/usr/games/xonotic-*", "/usr/games/xonotic-sdl", true),
        ("/usr/games/*", "/usr/games/sub/dir", false),
        ("/home/*/.local/share/Steam/**", "/home/kid/.local/share/Steam/ubuntu12_32/steam", true),
        ("/opt/game[0-9]", "/opt/game7", true),
        ("/opt/game[!0-9]", "/opt/game7", false),
        ("/opt/gam?", "/opt/game", true),
    ])
    func exePatterns(_ pattern: String, _ path: String, _ matches: Bool) {
        #expect(ExePattern(pattern).matches(path) == matches)
    }

    @Test("the trusted clock: a wall step forward is seen once, moves the calendar and not engine time; a new boot passes the time it was off")
    func trustedClock() {
        var c = TrustedClock()
        let w0: Microseconds = 1_000_000_000_000
        #expect(c.observe(wall: w0, mono: 5_000_000) == .steady)
        #expect(c.observe(wall: w0 + 1_000_000 + 500_000, mono: 6_000_000) == .steady)   // 0.5 s of jitter
        #expect(c.observe(wall: w0 + 3_602_000_000, mono: 7_000_000) == .jumped(by: 3_600_000_000))
        #expect(c.now == 7_000_000)
        #expect(c.observe(wall: w0 + 3_603_000_000, mono: 8_000_000) == .steady)
        #expect(c.now == 8_000_000)
        #expect(c.wall(at: c.now) == w0 + 3_603_000_000)
        // Before the step, the calendar was where it was then.
        #expect(c.wall(at: 6_000_000) == w0 + 1_000_000)
        // Off for 97 s by the wall clock: that much engine time passes, and the calendar is the new wall's.
        #expect(c.observe(wall: w0 + 3_700_000_000, mono: 1_000_000, boot: "b") == .rebooted(offFor: 97_000_000))
        #expect(c.now == 8_000_000 + 97_000_000)
        #expect(c.wall(at: c.now) == w0 + 3_700_000_000)
    }

    @Test("the trusted clock: a wall step back holds the calendar until the wall catches up; engine time runs on")
    func trustedClockHolds() {
        var c = TrustedClock()
        let w0: Microseconds = 1_000_000_000_000
        let s = Seconds.micro
        _ = c.observe(wall: w0, mono: 10 * s, boot: "b")
        // NTP steps the wall clock back an hour, 10 s later.
        #expect(c.observe(wall: w0 + 10 * s - 3_600 * s, mono: 20 * s) == .jumped(by: -3_600 * s))
        #expect(c.now == 20 * s)
        #expect(c.wall(at: c.now) == w0 + 10 * s)
        _ = c.observe(wall: w0 + 1_800 * s - 3_600 * s + 10 * s, mono: 1_810 * s)
        #expect(c.now == 1_810 * s)
        #expect(c.wall(at: c.now) == w0 + 10 * s, "held: the wall is still behind where the calendar was")
        // Caught up an hour after the step: from then on the calendar is the wall's again.
        #expect(c.time(atWall: w0 + 10 * s) <= 20 * s)
        // The wall line (w0 - 3590 s at 20 s) reaches w0 + 11 s at 3611 s.
        #expect(c.time(atWall: w0 + 11 * s) == 3_611 * s)
        _ = c.observe(wall: w0 + 100 * s, mono: 3_700 * s)
        #expect(c.wall(at: c.now) == w0 + 100 * s)
        // The same boot id with a clock that went back: no reboot, nothing passes.
        #expect(c.observe(wall: w0 + 101 * s, mono: 5 * s, boot: "b") == .bootClockAhead(by: -3_695 * s))
        #expect(c.now == 3_700 * s)
    }

    @Test("without a monotonic clock the wall clock may not run backwards")
    func wallOnlyClock() {
        var c = TrustedClock()
        _ = c.observe(wall: 100_000_000, mono: nil)
        #expect(c.observe(wall: 50_000_000, mono: nil) == .jumped(by: -50_000_000))
        #expect(c.now == 100_000_000)
        #expect(c.observe(wall: 60_000_000, mono: nil) == .steady)
        #expect(c.now == 110_000_000)
    }

    @Test("periodic input: 20 regular intervals are machine-like, human ones are not")
    func periodic() {
        var machine = PeriodicInputDetector(threshold: 0.10, maxGap: 180_000_000)
        var found: (Microseconds, Microseconds)? = nil
        for k in 0...20 { if let r = machine.input(at: Int64(k) * 30_000_000 + Int64(k % 3) * 100_000) { found = (r.start, r.end) } }
        #expect(found?.0 == 0)
        #expect(found?.1 == 600_200_000)

        var human = PeriodicInputDetector(threshold: 0.10, maxGap: 180_000_000)
        var rng = SplitMix(seed: 3)
        var t: Microseconds = 0
        var flagged = false
        for _ in 0..<200 { t += Microseconds(3_000_000 + rng.nextUnit() * 30_000_000); flagged = flagged || human.input(at: t) != nil }
        #expect(!flagged)
    }

    @Test("did you mean")
    func didYouMean() {
        #expect(suggestion(for: "daily_limt", among: ["daily_limit", "weekly_limit"]) == " (did you mean 'daily_limit'?)")
        #expect(suggestion(for: "zzz", among: ["daily_limit"]) == "")
    }
}

@Test("indented JSON keeps key order and strings as they are")
func indentedJSON() {
    #expect(JSONWriter.indented(#"{"b":1,"a":[],"s":"x,{y}:\"z\"","o":{"k":[1,2]}}"#) == """
        {
          "b": 1,
          "a": [],
          "s": "x,{y}:\\"z\\"",
          "o": {
            "k": [
              1,
              2
            ]
          }
        }
        """)
}
