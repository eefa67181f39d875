import Foundation
import ScreenTimeCore
import ScreenTimePolicy
import Testing

/// screentime's own time zones (`Zone`, read from the system's zoneinfo), against Python's
/// `zoneinfo`: another implementation of the same files, run as a real process.
@Suite("Time zones from the system's zoneinfo")
struct ZoneTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/zone-transitions.py").path

    /// Every change of offset from 1960 to 2100, looked for as the script does (weekly, then to
    /// the second), so that both sides are asked the same questions.
    static func transitions(of zone: Zone, from start: Int64, to end: Int64, step: Int64) -> [String] {
        var before = zone.offset(at: start)
        var out = ["\(zone.identifier) \(start) \(before)"]
        var t = start
        while t < end {
            let next = min(t + step, end)
            let after = zone.offset(at: next)
            if after != before {
                var low = t, high = next
                while high - low > 1 {
                    let mid = (low + high) / 2
                    if zone.offset(at: mid) == before { low = mid } else { high = mid }
                }
                out.append("\(zone.identifier) \(high) \(after)")
            }
            t = next
            before = after
        }
        return out
    }

    @Test("every zone of the system's zoneinfo changes its offset at the same moments, to the same offsets, as Python's zoneinfo says, 1960 to 2100")
    func everyZoneAgreesWithPython() throws {
        let names = ZoneInfo.names().filter { $0.contains("/") }
        // Debian's tzdata has some 600 zones (links among them); fewer would mean the walk missed folders.
        #expect(names.count > 300)
        #expect(names.contains("Europe/Berlin") && names.contains("America/Argentina/Buenos_Aires") && names.contains("Etc/GMT+5"))
        let (start, end, step): (Int64, Int64, Int64) = (-315_619_200, 4_102_444_800, 604_800)
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        python.arguments = [Self.script, "\(start)", "\(end)", "\(step)"]
        let input = Pipe(), output = Pipe()
        python.standardInput = input
        python.standardOutput = output
        try python.run()
        input.fileHandleForWriting.write(Data(names.joined(separator: "\n").utf8))
        try input.fileHandleForWriting.close()
        let theirs = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n").map(String.init)
        python.waitUntilExit()
        #expect(python.terminationStatus == 0)

        var ours: [String] = []
        for name in names {
            let zone = try ZoneInfo.zone(named: name).get()
            ours += Self.transitions(of: zone, from: start, to: end, step: step)
        }
        #expect(theirs.count > 10_000)
        #expect(ours.count == theirs.count)
        let differing = zip(ours, theirs).filter { $0 != $1 }.prefix(10).map { "ours \($0.0), Python's \($0.1)" }
        #expect(differing.isEmpty, "\(differing.joined(separator: "\n"))")
    }

    @Test("offsets at known moments: Berlin's summer and winter, Dublin's negative summer time, Lord Howe's half hour, Apia's lost day, Kathmandu's 5:45, a rule after the last transition")
    func knownOffsets() throws {
        func offset(_ zone: String, _ rfc3339: String) throws -> Int32 {
            let t = try #require(RFC3339.parse(rfc3339)).micros / 1_000_000
            return try ZoneInfo.zone(named: zone).get().offset(at: t)
        }
        #expect(try offset("Europe/Berlin", "2026-01-15T12:00:00Z") == 3_600)
        #expect(try offset("Europe/Berlin", "2026-07-15T12:00:00Z") == 7_200)
        // Summer time begins 2026-03-29 at 01:00 UTC; ends 2026-10-25 at 01:00 UTC.
        #expect(try offset("Europe/Berlin", "2026-03-29T00:59:59Z") == 3_600)
        #expect(try offset("Europe/Berlin", "2026-03-29T01:00:00Z") == 7_200)
        #expect(try offset("Europe/Berlin", "2026-10-25T00:59:59Z") == 7_200)
        #expect(try offset("Europe/Berlin", "2026-10-25T01:00:00Z") == 3_600)
        // Far after the table: the TZ string's rule (last Sunday of March, 2187).
        #expect(try offset("Europe/Berlin", "2187-03-30T12:00:00Z") == 7_200)
        #expect(try offset("Europe/Dublin", "2026-01-15T12:00:00Z") == 0)
        #expect(try offset("Europe/Dublin", "2026-07-15T12:00:00Z") == 3_600)
        #expect(try offset("Australia/Lord_Howe", "2026-01-15T12:00:00Z") == 39_600)
        #expect(try offset("Australia/Lord_Howe", "2026-07-15T12:00:00Z") == 37_800)
        #expect(try offset("Asia/Kathmandu", "2026-07-15T12:00:00Z") == 20_700)
        #expect(try offset("America/New_York", "2026-03-08T06:59:59Z") == -18_000)
        #expect(try offset("America/New_York", "2026-03-08T07:00:00Z") == -14_400)
        // Apia left 2011-12-30 out: 2011-12-29 24:00 at -10 became 2011-12-31 00:00 at +14.
        #expect(try offset("Pacific/Apia", "2011-12-30T09:59:59Z") == -36_000)
        #expect(try offset("Pacific/Apia", "2011-12-30T10:00:00Z") == 50_400)
        #expect(try offset("Etc/GMT+5", "2026-07-15T12:00:00Z") == -18_000)
        #expect(ZoneInfo.zone(named: "UTC") == .success(.utc))
        #expect(try ZoneInfo.zone(named: "GMT").get().offset(at: 0) == 0)
    }

    @Test("the TZ string's forms: quoted names, minutes, negative and late times, Julian days, daylight time all year")
    func tzStrings() throws {
        func zone(_ tz: String) throws -> Zone {
            // A TZif file of version 2 with no transitions: only its TZ string speaks.
            var header = Array("TZif2".utf8) + [UInt8](repeating: 0, count: 15)
            let counts: [UInt32] = [0, 0, 0, 0, 1, 4]
            for c in counts { header += withUnsafeBytes(of: c.bigEndian, Array.init) }
            let block = [0, 0, 0, 0, 0, 0] + Array("UTC\0".utf8)
            return try Zone(identifier: "Test/Zone", tzif: header + block + header + block + Array("\n\(tz)\n".utf8))
        }
        func at(_ rfc3339: String) throws -> Int64 { try #require(RFC3339.parse(rfc3339)).micros / 1_000_000 }
        #expect(try zone("<+0330>-3:30").offset(at: at("2026-07-01T00:00:00Z")) == 12_600)
        let nuuk = try zone("<-02>2<-01>,M3.5.0/-1,M10.5.0/0")
        #expect(try nuuk.offset(at: at("2026-03-29T00:59:59Z")) == -7_200)
        #expect(try nuuk.offset(at: at("2026-03-29T01:00:00Z")) == -3_600)
        #expect(try nuuk.offset(at: at("2026-10-25T00:59:59Z")) == -3_600)
        #expect(try nuuk.offset(at: at("2026-10-25T01:00:00Z")) == -7_200)
        let dublin = try zone("IST-1GMT0,M10.5.0,M3.5.0/1")     // "winter time" is the daylight one
        #expect(try dublin.offset(at: at("2026-01-15T12:00:00Z")) == 0)
        #expect(try dublin.offset(at: at("2026-07-15T12:00:00Z")) == 3_600)
        let allYear = try zone("EST5EDT,0/0,J365/25")
        #expect(try allYear.offset(at: at("2026-01-01T12:00:00Z")) == -14_400)
        #expect(try allYear.offset(at: at("2026-12-31T23:00:00Z")) == -14_400)
        let sydney = try zone("AEST-10AEDT,M10.1.0,M4.1.0/3")
        #expect(try sydney.offset(at: at("2026-01-15T00:00:00Z")) == 39_600)
        #expect(try sydney.offset(at: at("2026-07-15T00:00:00Z")) == 36_000)
        #expect(try zone("UTC0").offset(at: 0) == 0)
        // No TZ string: the last offset holds.
        #expect(try zone("").offset(at: 0) == 0)
        for bad in ["A1", "CET-1CEST,M13.5.0,M10.5.0", "CET-1CEST,M3.5.0", "CET-1CEST,J0,J10", "CET-1CEST,M3.5.0/200,M10.5.0", "<+03-3"] {
            #expect(throws: ZoneError.self, "\(bad)") { _ = try zone(bad) }
        }
    }

    @Test("names outside the zoneinfo folder, or not zones, are refused; a misspelt one gets a suggestion")
    func refusals() throws {
        for name in ["../../etc/passwd", "Europe/../../../etc/shadow", "/etc/localtime", "Europe/", "Europe//Berlin", "Berlin", "zone1970.tab",
                     "Europe/Berlin\0x", ".hidden/x", "America/Argentina", "America"] {
            #expect(ZoneInfo.zone(named: name) == .failure(.unknown), "\(name)")
        }
        let error = try #require(throws: PolicyError.self) { try PolicyLoader.parse("version = 1\ntimezone = \"Europe/Berln\"\n") }
        #expect(error.description == "policy.toml:2: unknown time zone \"Europe/Berln\" (did you mean 'Europe/Berlin'?)")
        let folder = try #require(throws: PolicyError.self) { try PolicyLoader.parse("version = 1\ntimezone = \"America/Argentina\"\n") }
        #expect(folder.description == "policy.toml:2: unknown time zone \"America/Argentina\": it is a folder of zones (use one inside it, such as \"America/Argentina/Buenos_Aires\")")
        let cut = try #require(throws: ZoneError.self) { try Zone(identifier: "x/y", tzif: Array("TZif2".utf8) + [0, 0, 0]) }
        #expect(cut.description == "not a zoneinfo (TZif) file")
        let notZone = try #require(throws: ZoneError.self) { try Zone(identifier: "x/y", tzif: Array("# tzdb data\n".utf8)) }
        #expect(notZone.description == "not a zoneinfo (TZif) file")
    }
}
