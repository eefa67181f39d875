import ControlProtocol
import Foundation
import Testing

@Suite("Control protocol")
struct ControlProtocolTests {
    static let replies: [ControlReply] = [
        ControlReply(ok: true, status: .init(balance: 12, rewardAvailableSeconds: 600, rewardRemainingSeconds: 900, rewardTodayRemainingSeconds: 700,
                                             rewardUsedTodaySeconds: 60, learningTodaySeconds: 3725, pointsToday: 62, pointsPerRewardMinute: 2,
                                             currentApp: "gcompris", currentCategory: "learning", currentCounts: "learning: earns points",
                                             observers: .init(proc: true, logind: false, focusHook: true, notifications: false),
                                             hooks: ["x11"], blindSpots: ["a \"quoted\" note", "é"])),
        ControlReply(ok: true, status: {
            var s = ControlReply.Status(balance: 3, rewardAvailableSeconds: 60, rewardRemainingSeconds: 60, rewardTodayRemainingSeconds: 60,
                                        rewardUsedTodaySeconds: 0, learningTodaySeconds: 0, pointsToday: 0, pointsPerRewardMinute: 1,
                                        currentApp: nil, currentCategory: nil, currentCounts: nil,
                                        observers: .init(proc: true, logind: true, focusHook: true, notifications: false), hooks: ["gnome-shell"], blindSpots: [])
            s.notices = [.init(id: 4, summary: "1 min of game time left", body: "Save your \"game\".", urgency: "critical", shown: false)]
            return s
        }()),
        ControlReply(ok: true, status: .init(balance: 0, rewardAvailableSeconds: 0, rewardRemainingSeconds: 0, rewardTodayRemainingSeconds: 0,
                                             rewardUsedTodaySeconds: 0, learningTodaySeconds: 0, pointsToday: 0, pointsPerRewardMinute: 1,
                                             currentApp: nil, currentCategory: nil, currentCounts: nil,
                                             observers: .init(proc: true, logind: true, focusHook: false, notifications: true),
                                             hooks: [], blindSpots: [])),
        ControlReply(ok: true, status: {
            // The allowance and the schedule of the day (the fast writer puts each key in its sorted place).
            var s = ControlReply.Status(balance: 3, rewardAvailableSeconds: 60, rewardRemainingSeconds: 0, rewardTodayRemainingSeconds: 60,
                                        rewardUsedTodaySeconds: 0, learningTodaySeconds: 0, pointsToday: 0, pointsPerRewardMinute: 2,
                                        currentApp: nil, currentCategory: nil, currentCounts: nil,
                                        observers: .init(proc: true, logind: false, focusHook: false, notifications: false), hooks: [], blindSpots: [])
            s.allowanceLeftSeconds = 60
            s.allowanceTodaySeconds = 1800
            s.schedule = "weekend"
            return s
        }()),
        ControlReply(ok: true, status: {
            // What the daemon cannot see, as codes: one with figures, one without.
            var s = ControlReply.Status(balance: 3, rewardAvailableSeconds: 60, rewardRemainingSeconds: 0, rewardTodayRemainingSeconds: 60,
                                        rewardUsedTodaySeconds: 0, learningTodaySeconds: 0, pointsToday: 0, pointsPerRewardMinute: 2,
                                        currentApp: nil, currentCategory: nil, currentCounts: nil,
                                        observers: .init(proc: true, logind: false, focusHook: false, notifications: false), hooks: [],
                                        blindSpots: ["no desktop session bus (/run/user/1001/bus): notices go to the journal only", "logind is not asked"])
            s.blindSpotCodes = [BlindSpot(.noSessionBus, ["path": "/run/user/1001/bus"]), BlindSpot(.logindNotAsked)]
            return s
        }()),
        ControlReply(ok: true, status: {
            var s = ControlReply.Status(balance: 3, rewardAvailableSeconds: 60, rewardRemainingSeconds: 0, rewardTodayRemainingSeconds: 60,
                                        rewardUsedTodaySeconds: 0, learningTodaySeconds: 0, pointsToday: 0, pointsPerRewardMinute: 2,
                                        currentApp: nil, currentCategory: nil, currentCounts: nil,
                                        observers: .init(proc: true, logind: false, focusHook: false, notifications: false), hooks: [], blindSpots: [])
            s.requests = [.init(child: nil, id: "1", at: "2026-11-23T16:00:00+01:00", minutes: 10, reason: "a race", state: "pending",
                                expiresAt: "2026-11-23T17:00:00+01:00", pay: nil, minutesGranted: nil, decidedAt: nil, by: nil, answer: nil)]
            return s
        }()),
        ControlReply(ok: true, balance: 8, request: .init(child: "emma", id: "emma-1", at: "2026-11-23T16:00:00+01:00", minutes: 10, reason: nil,
                                                         state: "approved", expiresAt: nil, pay: "points", minutesGranted: 5,
                                                         decidedAt: "2026-11-23T16:01:00+01:00", by: "mum", answer: nil)),
        ControlReply(ok: true, chores: [.init(child: nil, chore: "Dishes", points: 20, every: "every day", state: "open", note: nil,
                                              claimedAt: nil, decidedAt: nil, by: nil, answer: nil)]),
        ControlReply(ok: true, balance: 10, cost: 20),
        ControlReply(ok: true, apps: [
            .init(exe: "/usr/bin/gcompris-qt", flatpak: nil, comm: "gcompris-qt", starts: 3, lastStarted: "2026-11-23T15:00:00+01:00",
                  app: "GCompris", category: "learning", trusted: true),
            .init(exe: "/app/bin/x", flatpak: "org.example.X", comm: "x", starts: 1, lastStarted: "2026-11-23T15:00:00+01:00",
                  app: nil, category: nil, trusted: false),
        ]),
        .refused(.asSaid, ["detail": "redeem is for parents\nreally"]),
        .refused(Why(.notRedeemed, because: Why(.insufficientPoints, ["cost": "40", "balance": "10"]))),
    ]

    @Test("the daemon's reply writer gives the same bytes as the Codable encoder stctl reads", arguments: replies)
    func replyBytes(_ reply: ControlReply) throws {
        #expect(reply.line == ControlProtocol.encode(reply))
        #expect(try ControlProtocol.decode(ControlReply.self, from: Array(reply.line.dropLast())) == reply)
    }

    @Test("the daemon's request reader reads what stctl writes")
    func requestRoundTrip() throws {
        var approve = ControlRequest(.approve, minutes: 5, reason: "ok")
        approve.requestID = "emma-3"
        approve.gift = true
        var chore = ControlRequest(.choreDone)
        chore.chore = "Feed the cat"
        for request in [approve, chore, ControlRequest(.status), ControlRequest(.redeem, minutes: 15),
                        ControlRequest(.adjust, points: -3, reason: "rude"), ControlRequest(.hookEvent, event: #"{"event":"input"}"#),
                        ControlRequest(.hookEvent, event: #"{"event":"input"}"#, hook: "x11")] {
            #expect(try ControlRequest.read(line: Array(ControlProtocol.encode(request).dropLast())) == request)
        }
    }

    /// Foundation's decoder, as stctl read replies before `JSONTreeDecoder`: the reference.
    static func foundationDecode<T: Decodable>(_ type: T.Type, _ line: [UInt8]) throws -> T {
        let d = JSONDecoder()
        d.keyDecodingStrategy = .convertFromSnakeCase
        return try d.decode(type, from: Data(line))
    }

    @Test("replies read through the project's JSON reader as Foundation's decoder reads them", arguments: replies)
    func replyDecoding(_ reply: ControlReply) throws {
        let line = ControlProtocol.encode(reply)
        let ours = try ControlProtocol.decode(ControlReply.self, from: line)
        #expect(ours == reply)
        #expect(ours == (try Self.foundationDecode(ControlReply.self, line)))
        #expect(try ControlReply.read(line: line) == reply)
        #expect(try ControlReply.read(line: reply.line) == reply)
    }

    @Test("the hand reader of common replies gives what Codable gives, for every field null, absent, of another type, or unknown")
    func handReader() throws {
        var full = Self.replies[0]
        full.status?.notices = [.init(id: 3, summary: "5 min", body: "Game time ends", urgency: "critical", shown: false)]
        full.status?.goalSeconds = 1800; full.status?.streakDays = 2; full.status?.schedule = "school day"
        full.status?.currentSite = "www.khanacademy.org"
        full.status?.currentTrusted = false
        full.status?.allowanceLeftSeconds = 60; full.status?.allowanceTodaySeconds = 600
        full.status?.appTimeLeft = [.init(app: "Minecraft", seconds: 300)]
        full.note = "n"; full.balance = 3; full.cost = 4; full.error = "e"
        let text = String(decoding: ControlProtocol.encode(full).dropLast(), as: UTF8.self)
        var variants = [text]
        // Each value in turn replaced: by null, by a string, by a fraction, by an object; and an unknown key added.
        for key in ["\"v\"", "\"ok\"", "\"status\"", "\"balance\"", "\"observers\"", "\"hooks\"", "\"current_app\"", "\"notices\"",
                    "\"goal_seconds\"", "\"app_time_left\"", "\"shown\"", "\"seconds\"", "\"focus_hook\"", "\"schedule\"", "\"current_site\"", "\"current_trusted\""] {
            for replacement in ["null", "\"x\"", "1.5", "2.0", "{}", "[]", "true"] {
                guard let r = text.range(of: key + ":") else { Issue.record("\(key) is not in \(text)"); continue }
                let rest = text[r.upperBound...]
                // The value's end: the next comma or closing bracket at its depth.
                var depth = 0, inString = false, end = rest.startIndex
                for i in rest.indices {
                    let c = rest[i]
                    if inString { if c == "\"" { inString = false }; continue }
                    if c == "\"" { inString = true } else if c == "{" || c == "[" { depth += 1 } else if c == "}" || c == "]" {
                        if depth == 0 { end = i; break }
                        depth -= 1
                    } else if c == ",", depth == 0 { end = i; break }
                }
                variants.append(String(text[..<r.upperBound]) + replacement + String(text[end...]))
            }
            variants.append(text.replacingOccurrences(of: key + ":", with: "\"newer_field\":1," + key + ":"))
            variants.append(text.replacingOccurrences(of: key + ":", with: "\"x\":"))    // the key gone
        }
        for v in variants {
            let line = Array(v.utf8)
            switch (Result { try ControlReply.read(line: line) }, Result { try Self.foundationDecode(ControlReply.self, line) }) {
            case (.success(let a), .success(let b)): #expect(a == b, "\(v)")
            case (.failure, .failure): break
            case (let a, let b): Issue.record("\(v): hand \(a), Foundation's \(b)")
            }
        }
        #expect(variants.count > 100)
    }

    @Test("what Foundation's decoder refuses, the project's reader refuses too: wrong types, missing keys, fractions for integers, keys in another case",
          arguments: [#"{"ok":"yes","v":1}"#, #"{"v":1}"#, #"{"ok":true,"v":1.5}"#, #"{"ok":true,"v":1,"balance":"3"}"#,
                      #"{"ok":true,"v":1,"status":[]}"#, #"{"ok":true,"v":1,"apps":{}}"#, #"{"ok":true,"v":1,"balance":1e40}"#,
                      #"{"ok":true,"v":1,"history":[{"at":1}]}"#, #"{"ok":null,"v":1}"#, #"[1]"#])
    func replyRefusals(_ text: String) {
        #expect(throws: (any Error).self) { try Self.foundationDecode(ControlReply.self, Array(text.utf8)) }
        #expect(throws: (any Error).self) { try ControlProtocol.decode(ControlReply.self, from: Array(text.utf8)) }
    }

    @Test("snake_case keys become the same Swift names as with Foundation's .convertFromSnakeCase, odd ones too",
          arguments: ["ok", "request_id", "reward_available_seconds", "_private", "trailing_", "__both__", "a__b", "ALL_CAPS", "x_y_z", "é_b"])
    func camelCase(_ key: String) throws {
        struct Probe: Decodable {
            let name: String
            struct AnyKey: CodingKey {
                var stringValue: String
                var intValue: Int? { nil }
                init?(stringValue: String) { self.stringValue = stringValue }
                init?(intValue: Int) { nil }
            }
            init(from decoder: any Decoder) throws {
                name = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue).joined()
            }
        }
        let line = Array("{\"\(key)\":1}".utf8)
        #expect(try ControlProtocol.decode(Probe.self, from: line).name == (try Self.foundationDecode(Probe.self, line)).name)
    }

    @Test("the request line stctl writes by hand is the bytes Foundation's encoder wrote, every field and awkward characters")
    func requestBytes() throws {
        var all = ControlRequest(.approve, minutes: 5, points: -3, reason: "a \"quoted\" / back\\slash\n\t\u{01}\u{1f}\u{7f} é 🎮 \u{2028}", event: "{}", hook: "x11")
        all.days = 7; all.day = "2026-11-25"; all.passphrase = "pass"; all.user = "emma"; all.id = "id-1"
        all.requestID = "emma-3"; all.chore = "Feed the cat"; all.gift = false; all.policy = "version = 1\n"; all.token = "0f"
        var requests = ControlRequest.Command.allCases.map { ControlRequest($0) }
        requests += [all, ControlRequest(.redeem, minutes: 15), ControlRequest(.report, days: 30, day: nil)]
        for request in requests {
            #expect(request.line == ControlProtocol.encode(request), "\(String(decoding: request.line, as: UTF8.self))")
        }
    }

    @Test("malformed requests are refused", arguments: [
        #"{"command": "status"}"#, #"{"v": 1}"#, #"{"v": 1, "command": "fly"}"#, #"{"v": "1", "command": "status"}"#,
        #"{"v": 1, "command": "redeem", "minutes": "5"}"#, "[1]", String(repeating: "[", count: 100),
    ])
    func malformed(_ text: String) {
        #expect(throws: (any Error).self) { try ControlRequest.read(line: Array(text.utf8)) }
    }

    @Test("unknown fields are ignored")
    func unknownFields() throws {
        #expect(try ControlRequest.read(line: Array(#"{"v": 1, "command": "status", "from": "mom"}"#.utf8)) == ControlRequest(.status))
    }

    @Test("frames: lines split across reads; a line over 64 KiB overflows")
    func frames() {
        var r = FrameReader()
        #expect(r.append(Array("{\"a\"".utf8)).isEmpty)
        #expect(r.append(Array(":1}\n{}\n{".utf8)) == [Array("{\"a\":1}".utf8), Array("{}".utf8)])
        #expect(r.append([UInt8](repeating: 32, count: 70_000)).isEmpty)
        #expect(r.overflowed)
    }
}
