import ScreenTimeCore
import Testing

/// Scenarios of honest and dishonest learning. Every expected number is worked out from the
/// timeline and the policy by hand, in the comment beside it.
@Suite("Learning scenarios")
struct LearningScenarioTests {
    @Test("30 focused, active minutes at 60 points/hour earn 30 points")
    func honestHalfHour() {
        var tl = Timeline()
        tl.start(0, pid: 4242, exe: gcompris)
        tl.focus(0, pid: 4242, appID: "gcompris-qt", title: "GCompris")
        tl.typing(from: 0, to: 30 * M)
        tl.exit(30 * M, pid: 4242)
        let r = tl.replay(testPolicy())
        #expect(r.balance == 30)
        #expect(r.learningSessions.count == 1)
        let s = r.learningSessions[0]
        #expect(s.seconds == sec(1800))
        #expect(s.creditedSeconds == sec(1800))
        #expect(s.verdict == .credited)
        #expect(s.reasons.isEmpty)
        #expect(s.start == wall(0) && s.end == wall(30 * M))
        #expect(r.ledger.map(\.balanceAfter) == [30])
    }

    @Test("six sessions of about 5 minutes at 12 points/hour earn 6 points: no rounding loss")
    func noRoundingLoss() {
        var tl = Timeline()
        // Lengths alternate 299.5 s and 300.5 s: 1800 s in all, 6 points at 12/hour.
        var t = 0.3
        for k in 0..<6 {
            let length = k % 2 == 0 ? 299.5 : 300.5
            tl.start(t, pid: Int32(100 + k), exe: gcompris)
            tl.focus(t, pid: Int32(100 + k))
            tl.exit(t + length, pid: Int32(100 + k))
            t += 600.25
        }
        let r = tl.replay(testPolicy(["points.learning_per_hour": "12", "validation.min_session": "\"1m\""]))
        #expect(r.learningSessions.count == 6)
        #expect(r.learningSessions.reduce(0) { $0 + $1.creditedSeconds } == sec(1800))
        #expect(r.learningPoints == 6)
        #expect(r.balance == 6)
    }

    @Test("an app's own rate: TuxMath at 30 points/hour for 40 minutes earns 20")
    func perAppRate() {
        var tl = Timeline()
        tl.start(0, pid: 7, exe: tuxmath)
        tl.focus(0, pid: 7)
        tl.typing(from: 0, to: 40 * M)
        tl.exit(40 * M, pid: 7)
        let r = tl.replay(testPolicy())
        #expect(r.balance == 20)
        #expect(r.learningSessions.first?.app == "TuxMath")
    }

    @Test("idle from logind, back-dated to 'since': 10 of 40 minutes refused as idle")
    func logindIdle() {
        var tl = Timeline()
        tl.start(0, pid: 1, exe: gcompris)
        tl.focus(0, pid: 1)
        tl.idle(23 * M, true, since: 20 * M)
        tl.idle(30 * M, false)
        tl.exit(40 * M, pid: 1)
        let r = tl.replay(testPolicy())
        let s = r.learningSessions[0]
        #expect(s.creditedSeconds == sec(30 * M))
        #expect(s.refused.map(\.reason) == [.idle])
        #expect(s.refused[0].seconds == sec(10 * M))
        #expect(s.verdict == .partial)
        #expect(r.balance == 30)
    }

    @Test("walking away: idleness is back-dated to the last input")
    func walkAway() {
        var tl = Timeline()
        tl.start(0, pid: 1, exe: gcompris)
        tl.focus(0, pid: 1)
        tl.typing(from: 0, to: 12 * M)
        tl.exit(32 * M, pid: 1)
        let lastInput = tl.events.compactMap { e -> Int64? in if case .input = e.kind { return e.at.micros } else { return nil } }.max()!
        let expected = lastInput - wall(0)
        let r = tl.replay(testPolicy())
        let s = r.learningSessions[0]
        #expect(s.creditedSeconds == expected)
        #expect(s.refused.map(\.reason) == [.idle])
        #expect(s.refused[0].seconds == sec(32 * M) - expected)
        #expect(r.balance == expected / sec(60))
    }

    @Test("a locked screen earns nothing while locked")
    func locked() {
        var tl = Timeline()
        tl.start(0, pid: 1, exe: gcompris)
        tl.focus(0, pid: 1)
        tl.lock(10 * M, true)
        tl.lock(20 * M, false)
        tl.exit(40 * M, pid: 1)
        let r = tl.replay(testPolicy())
        let s = r.learningSessions[0]
        #expect(s.creditedSeconds == sec(30 * M))
        #expect(s.refused.map(\.reason) == [.locked])
        #expect(s.refused[0].seconds == sec(10 * M))
    }

    @Test("a switch away longer than idle_after splits the session; the time away is its own unfocused session")
    func longSwitchSplits() {
        var tl = Timeline()
        tl.start(0, pid: 1, exe: gcompris)
        tl.start(0, pid: 2, exe: xterm)
        tl.focus(0, pid: 1)
        tl.focus(15 * M, pid: 2)
        tl.focus(25 * M, pid: 1)
        tl.exit(40 * M, pid: 1)
        let r = tl.replay(testPolicy())
        let s = r.learningSessions
        #expect(s.count == 3)
        #expect(s.map(\.start) == [wall(0), wall(15 * M), wall(25 * M)])
        #expect(s.map(\.end) == [wall(15 * M), wall(25 * M), wall(40 * M)])
        #expect(s.map(\.creditedSeconds) == [sec(900), 0, sec(900)])
        #expect(s.map(\.verdict) == [.credited, .rejected, .credited])
        #expect(s[1].reasons == [.unfocused])
        #expect(r.balance == 30)
    }

    @Test("a switch away shorter than idle_after does not split the session")
    func shortSwitchKeepsSession() {
        var tl = Timeline()
        tl.start(0, pid: 1, exe: gcompris)
        tl.start(0, pid: 2, exe: xterm)
        tl.focus(0, pid: 1)
        tl.focus(15 * M, pid: 2)
        tl.focus(16 * M, pid: 1)
        tl.exit(31 * M, pid: 1)
        let r = tl.replay(testPolicy())
        #expect(r.learningSessions.count == 1)
        let s = r.learningSessions[0]
        #expect(s.seconds == sec(31 * M))
        #expect(s.creditedSeconds == sec(30 * M))
        #expect(s.refused.map(\.reason) == [.unfocused])
        #expect(s.refused[0].seconds == sec(60))
        #expect(r.balance == 30)
    }

    @Test("the minimum session: 9:59 earns nothing, 10:00 earns 10 points")
    func minimumSession() {
        var tl = Timeline()
        tl.start(0, pid: 1, exe: gcompris)
        tl.focus(0, pid: 1)
        tl.exit(599, pid: 1)
        tl.start(20 * M, pid: 2, exe: gcompris)
        tl.focus(20 * M, pid: 2)
        tl.exit(30 * M, pid: 2)
        let r = tl.replay(testPolicy())
        #expect(r.learningSessions.map(\.verdict) == [.rejected, .credited])
        #expect(r.learningSessions[0].reasons == [.tooShort])
        #expect(r.balance == 10)
    }

    @Test("the daily learning cap: 2 h 30 of work earns 2 h of credit")
    func dailyCap() {
        var tl = Timeline("2026-11-23T09:00:00+01:00")
        tl.start(0, pid: 1, exe: gcompris)
        tl.focus(0, pid: 1)
        tl.exit(150 * M, pid: 1)
        let r = tl.replay(testPolicy())
        let s = r.learningSessions[0]
        #expect(s.creditedSeconds == sec(2 * H))
        #expect(s.refused.map(\.reason) == [.dailyCap])
        #expect(s.refused[0].seconds == sec(30 * M))
        #expect(r.balance == 120)
    }

    @Test("the cap is per calendar day in the policy's zone: a session over midnight fills both days")
    func capAcrossMidnight() {
        var tl = Timeline("2026-11-23T22:30:00+01:00")
        tl.start(0, pid: 1, exe: gcompris)
        tl.focus(0, pid: 1)
        tl.exit(3 * H, pid: 1)              // 22:30 to 01:30: 1.5 h on each day
        tl.start(3.5 * H, pid: 2, exe: gcompris)
        tl.focus(3.5 * H, pid: 2)
        tl.exit(4.5 * H, pid: 2)            // 02:00 to 03:00: only 0.5 h left on the second day
        let r = tl.replay(testPolicy())
        #expect(r.learningSessions.map(\.creditedSeconds) == [sec(3 * H), sec(0.5 * H)])
        #expect(r.learningSessions[0].reasons.isEmpty)
        #expect(r.learningSessions[1].reasons == [.dailyCap])
        #expect(r.balance == 210)
    }

    @Test("a GCompris copied into the home folder earns nothing (untrusted_exe)")
    func copiedBinary() {
        var tl = Timeline()
        tl.start(0, pid: 1, exe: "/home/kid/gcompris-qt")
        tl.focus(0, pid: 1, appID: "gcompris-qt", title: "GCompris")
        tl.typing(from: 0, to: 30 * M)
        tl.exit(30 * M, pid: 1)
        let r = tl.replay(testPolicy())
        #expect(r.learningSessions.count == 1)
        #expect(r.learningSessions[0].reasons == [.untrustedExe])
        #expect(r.learningSessions[0].refused[0].seconds == sec(30 * M))
        #expect(r.balance == 0)
    }

    @Test("a trusted path the child can write is not trusted")
    func writableExe() {
        var tl = Timeline()
        tl.start(0, pid: 1, exe: gcompris, writable: true)
        tl.focus(0, pid: 1)
        tl.exit(30 * M, pid: 1)
        let r = tl.replay(testPolicy())
        #expect(r.learningSessions[0].reasons == [.untrustedExe])
        #expect(r.balance == 0)
    }

    @Test("a Flatpak id identifies a learning app; a renamed program with GCompris' title does not")
    func flatpakAndTitle() {
        var tl = Timeline()
        tl.start(0, pid: 1, exe: "/var/lib/flatpak/app/org.kde.gcompris/x86_64/stable/abc/files/bin/gcompris-qt", flatpak: "org.kde.gcompris")
        tl.focus(0, pid: 1)
        tl.exit(20 * M, pid: 1)
        tl.start(30 * M, pid: 2, exe: "/usr/bin/sleep")
        tl.focus(30 * M, pid: 2, appID: "XTerm", title: "GCompris")
        tl.exit(50 * M, pid: 2)
        let r = tl.replay(testPolicy())
        #expect(r.learningSessions.map(\.verdict) == [.credited, .rejected])
        #expect(r.learningSessions[1].reasons == [.untrustedExe])
        #expect(r.balance == 20)
    }

    @Test("a learning entry matched only by window (app id, title) earns nothing")
    func windowOnlyLearning() {
        let policy = testPolicy(apps: """
            [[apps]]
            name = "Khan Academy"
            category = "learning"
            app_id = "firefox"
            title = "(?i)khan academy"
            """)
        var tl = Timeline()
        tl.start(0, pid: 1, exe: "/usr/lib/firefox-esr/firefox-esr")
        tl.focus(0, pid: 1, appID: "firefox", title: "Khan Academy | Fractions — Mozilla Firefox")
        tl.typing(from: 0, to: 30 * M)
        tl.focus(30 * M, pid: nil)
        tl.tick(31 * M)
        let r = tl.replay(policy)
        #expect(r.learningSessions.map(\.app) == ["Khan Academy"])
        #expect(r.learningSessions[0].reasons == [.untrustedExe])
        #expect(r.learningSessions[0].seconds == sec(30 * M))
        #expect(r.balance == 0)
    }

    @Test("learning while a game runs in the background: that time is refused (concurrent_reward)")
    func concurrentReward() {
        var tl = Timeline()
        tl.adjust(0, points: 200)
        tl.redeem(0, minutes: 60)
        tl.start(0, pid: 9, exe: kart)
        tl.start(0, pid: 1, exe: gcompris)
        tl.focus(0, pid: 1)
        tl.exit(10 * M, pid: 9)
        tl.exit(30 * M, pid: 1)
        let r = tl.replay(testPolicy())
        let s = r.learningSessions[0]
        #expect(s.creditedSeconds == sec(20 * M))
        #expect(s.refused.map(\.reason) == [.concurrentReward])
        #expect(s.refused[0].seconds == sec(10 * M))
        #expect(r.reward.used == sec(10 * M))
        #expect(r.balance == 200 - 120 + 20)
    }

    @Test("a mouse jiggler every 30 s: moderate refuses the time, strict the session, lenient flags it")
    func jiggler() {
        var tl = Timeline()
        tl.start(0, pid: 1, exe: gcompris)
        tl.focus(0, pid: 1)
        tl.jiggle(from: 0, to: 40 * M, every: 30)     // inputs at 0, 30, ..., 2370
        tl.exit(40 * M, pid: 1)

        // Every second of it is the jiggler's: the 30 s after its last input count as active only
        // because of that input.
        let moderate = tl.replay(testPolicy()).learningSessions[0]
        #expect(moderate.refused.map(\.reason) == [.periodicInput])
        #expect(moderate.refused[0].seconds == sec(40 * M))
        #expect(moderate.creditedSeconds == 0)

        let strict = tl.replay(testPolicy(["validation.strictness": "\"strict\""])).learningSessions[0]
        #expect(strict.reasons == [.periodicInput])
        #expect(strict.creditedSeconds == 0)

        let lenient = tl.replay(testPolicy(["validation.strictness": "\"lenient\""]))
        #expect(lenient.learningSessions[0].creditedSeconds == sec(40 * M))
        #expect(lenient.learningSessions[0].reasons.isEmpty)
        #expect(lenient.learningSessions[0].flags == [.periodicInput])
        #expect(lenient.balance == 40)
    }

    @Test("an hour of input exactly every 60 s earns nothing on moderate and strict, not even the minute after its last input")
    func hourOfJiggling() {
        var tl = Timeline()
        tl.start(0, pid: 1, exe: gcompris)
        tl.focus(0, pid: 1)
        tl.jiggle(from: 0, to: 60 * M, every: 60)     // inputs at 0, 60, ..., 3540
        tl.exit(60 * M, pid: 1)                      // its last minute was paid: 1 point
        for strictness in ["moderate", "strict"] {
            let r = tl.replay(testPolicy(["validation.strictness": "\"\(strictness)\""]))
            #expect(r.balance == 0, "\(strictness): \(r.learningSessions)")
            #expect(r.learningSessions.map(\.creditedSeconds) == [0], "\(strictness)")
            #expect(r.learningSessions.first?.reasons.contains(.periodicInput) == true, "\(strictness)")
        }
    }

    @Test("a person taking over from a jiggler is paid from their first input on")
    func personAfterJiggler() {
        var tl = Timeline()
        tl.start(0, pid: 1, exe: gcompris)
        tl.focus(0, pid: 1)
        tl.jiggle(from: 0, to: 30 * M, every: 60)     // inputs at 0, 60, ..., 1740
        tl.typing(from: 1770, to: 60 * M)             // a person from 1770.5 on
        tl.exit(60 * M, pid: 1)
        let s = tl.replay(testPolicy()).learningSessions[0]
        // The jiggler's 1770.5 s are refused (its last input made the 30.5 s after it count as
        // active); the person's 1829.5 s are paid.
        #expect(s.refused.first { $0.reason == .periodicInput }?.seconds == sec(1770.5))
        #expect(s.creditedSeconds == sec(1829.5))
    }

    @Test("focus flicking to the learning app for 20 s at a time earns nothing (focus_flicker)")
    func focusFlicker() {
        var tl = Timeline()
        tl.start(0, pid: 1, exe: gcompris)
        tl.start(0, pid: 2, exe: xterm)
        for k in 0..<20 {
            tl.focus(Double(k) * 60, pid: 1)
            tl.focus(Double(k) * 60 + 20, pid: 2)
        }
        tl.exit(20 * M, pid: 1)
        let r = tl.replay(testPolicy())
        #expect(r.learningSessions.count == 1)
        let s = r.learningSessions[0]
        #expect(s.creditedSeconds == 0)
        #expect(s.reasons == [.unfocused, .focusFlicker])
        #expect(s.refused.map(\.seconds) == [sec(800), sec(400)])
    }

    @Test("a wall-clock step of +1 h mid-session creates no time, costs none, and the calendar follows it")
    func clockJumpForward() {
        var tl = Timeline(mono: 1000)
        tl.start(0, pid: 1, exe: gcompris)
        tl.focus(0, pid: 1)
        tl.tick(10 * M)
        tl.add(10 * M + 1, .tick, wallSkew: 3600)
        tl.add(30 * M, .processExited(pid: 1), wallSkew: 3600)
        let r = tl.replay(testPolicy())
        let s = r.learningSessions[0]
        #expect(s.seconds == sec(30 * M))
        #expect(s.creditedSeconds == sec(30 * M))
        // The calendar is the wall clock's from the step on: the session ends at 16:30 by it.
        #expect(s.end == wall(30 * M + 3600))
        #expect(s.reasons == [])
        #expect(r.balance == 30)
        #expect(r.clockJumps.map(\.at) == [wall(10 * M + 1 + 3600)])
        #expect(r.clockJumps.map(\.by) == [sec(3600)])
    }

    @Test("exec: a shell that exec's GCompris starts counting at the exec")
    func execIntoLearning() {
        var tl = Timeline()
        tl.start(0, pid: 5, exe: "/usr/bin/bash", ticks: 77)
        tl.focus(0, pid: 5)
        tl.start(5 * M, pid: 5, exe: gcompris, ticks: 77)
        tl.exit(35 * M, pid: 5)
        let r = tl.replay(testPolicy())
        #expect(r.learningSessions.count == 1)
        #expect(r.learningSessions[0].start == wall(5 * M))
        #expect(r.learningSessions[0].creditedSeconds == sec(30 * M))
        #expect(r.balance == 30)
    }

    @Test("exec: GCompris that exec's a game ends its session and the game is stopped")
    func execIntoGame() {
        var tl = Timeline()
        tl.start(0, pid: 5, exe: gcompris, ticks: 77)
        tl.focus(0, pid: 5)
        tl.start(15 * M, pid: 5, exe: kart, ticks: 77)
        tl.exit(15 * M + 5, pid: 5)
        let r = tl.replay(testPolicy())
        #expect(r.learningSessions.map(\.creditedSeconds) == [sec(15 * M)])
        #expect(r.stops.map(\.pid) == [5])
        #expect(r.stops.first?.reason == .noRewardTime)
        #expect(r.stops.first?.at == wall(15 * M))
        #expect(r.balance == 15)
    }

    @Test("a pid reused by a new process (other start time) is a new process")
    func pidReuse() {
        var tl = Timeline()
        tl.start(0, pid: 4242, exe: gcompris, ticks: 1)
        tl.focus(0, pid: 4242)
        tl.start(20 * M, pid: 4242, exe: kart, ticks: 2)
        tl.tick(20 * M + 1)
        let r = tl.replay(testPolicy())
        #expect(r.learningSessions.map(\.end) == [wall(20 * M)])
        #expect(r.stops.first?.reason == .noRewardTime)
        #expect(r.balance == 20)
    }

    @Test("two instances of one app are one session")
    func multipleInstances() {
        var tl = Timeline()
        tl.start(0, pid: 1, exe: gcompris)
        tl.start(5 * M, pid: 2, exe: gcompris)
        tl.focus(0, pid: 1)
        tl.exit(20 * M, pid: 1)
        tl.focus(20 * M, pid: 2)
        tl.exit(40 * M, pid: 2)
        let r = tl.replay(testPolicy())
        #expect(r.learningSessions.count == 1)
        #expect(r.learningSessions[0].pid == 1)
        #expect(r.learningSessions[0].creditedSeconds == sec(40 * M))
        #expect(r.balance == 40)
    }

    @Test("lenient without a focus hook: CPU activity counts; moderate needs the hook")
    func cpuActivity() {
        var tl = Timeline()
        tl.start(0, pid: 1, exe: gcompris)
        for k in 0...30 {
            // Busy for 20 minutes (half a core), then quiet.
            tl.cpu(Double(k) * 60, pid: 1, ms: Int64(min(k, 20)) * 30_000)
        }
        tl.exit(30 * M, pid: 1)
        // The quiet last 10 minutes are longer than lenient's idle_after (5 min): a session of their own.
        let lenient = tl.replay(testPolicy(["validation.strictness": "\"lenient\""]))
        #expect(lenient.learningSessions.map(\.creditedSeconds) == [sec(20 * M), 0])
        #expect(lenient.learningSessions.map(\.reasons) == [[], [.unfocused]])
        #expect(lenient.balance == 20)

        let moderate = tl.replay(testPolicy())
        #expect(moderate.learningSessions[0].reasons == [.noFocusHook])
        #expect(moderate.balance == 0)
    }

    @Test("the desktop hook goes away for a minute: that minute is hook_gap, not credited even on a lenient policy; the rest is")
    func hookGap() {
        var tl = Timeline()
        tl.start(0, pid: 4242, exe: gcompris)
        tl.focus(0, pid: 4242, appID: "gcompris-qt", title: "GCompris")
        tl.typing(from: 0, to: 10 * M)
        // The hook is killed at 10 min; a new one reports the focus at 11 min.
        tl.add(10 * M, .focusChanged(FocusedWindow(pid: nil, hookLost: true)))
        tl.focus(11 * M, pid: 4242, appID: "gcompris-qt", title: "GCompris")
        tl.typing(from: 11 * M, to: 20 * M)
        tl.exit(20 * M, pid: 4242)
        for strictness in ["lenient", "moderate", "strict"] {
            let r = tl.replay(testPolicy(["validation.strictness": "\"\(strictness)\""]))
            let s = r.learningSessions[0]
            // 20 minutes, of which 10 + 9 focused with input: 19 points at 60/hour; the minute between is the gap.
            #expect(r.learningSessions.count == 1, "\(strictness)")
            #expect(s.creditedSeconds == sec(19 * M), "\(strictness)")
            #expect(s.refused.map(\.reason) == [.hookGap] && s.refused.map(\.seconds) == [sec(60)], "\(strictness): \(s.refused)")
            #expect(r.balance == 19, "\(strictness)")
        }
        // Without `hook_lost`, the same minute is merely unfocused.
        var plain = Timeline()
        plain.start(0, pid: 4242, exe: gcompris)
        plain.focus(0, pid: 4242)
        plain.typing(from: 0, to: 10 * M)
        plain.focus(10 * M, pid: nil)
        plain.focus(11 * M, pid: 4242)
        plain.typing(from: 11 * M, to: 20 * M)
        plain.exit(20 * M, pid: 4242)
        #expect(plain.replay(testPolicy()).learningSessions[0].refused.map(\.reason) == [.unfocused])
    }

    @Test("a reboot (the monotonic clock restarts) ends every process at the last event before it")
    func reboot() {
        var tl = Timeline(mono: 1000)
        tl.start(0, pid: 4242, exe: gcompris, ticks: 1)
        tl.focus(0, pid: 4242)
        tl.tick(20 * M)
        // After the reboot: monotonic time 5 s, wall clock an hour later.
        tl.monoOrigin = 5 - 80 * M
        tl.start(80 * M, pid: 4242, exe: gcompris, ticks: 9)
        tl.focus(80 * M, pid: 4242)
        tl.exit(95 * M, pid: 4242)
        let r = tl.replay(testPolicy())
        #expect(r.learningSessions.map(\.start) == [wall(0), wall(80 * M)])
        #expect(r.learningSessions.map(\.creditedSeconds) == [sec(20 * M), sec(15 * M)])
        #expect(r.balance == 35)
    }
}

@Suite("Daemon restarts")
struct DaemonRestartTests {
    @Test("a session open when the daemon died ends at the last event it logged, not at the restart")
    func restartEndsSessions() {
        var tl = Timeline()
        tl.start(0, pid: 1, exe: gcompris)
        tl.focus(0, pid: 1)
        tl.tick(15 * M)                      // the last event logged before the crash
        tl.add(25 * M, .daemonStarted(boot: nil))       // ten minutes later
        tl.start(25 * M, pid: 1, exe: gcompris)
        tl.focus(25 * M, pid: 1)
        tl.exit(40 * M, pid: 1)
        let r = tl.replay(testPolicy())
        #expect(r.learningSessions.map(\.start) == [wall(0), wall(25 * M)])
        #expect(r.learningSessions.map(\.end) == [wall(15 * M), wall(40 * M)])
        #expect(r.learningSessions.map(\.creditedSeconds) == [sec(15 * M), sec(15 * M)])
        #expect(r.balance == 30)
    }
}
