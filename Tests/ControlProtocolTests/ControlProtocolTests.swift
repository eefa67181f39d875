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
        .refused("redeem is for parents\nreally"),
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
