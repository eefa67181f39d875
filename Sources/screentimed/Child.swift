import ControlProtocol
import Foundation
import Logging
import ScreenTimeCore
import ScreenTimeDaemon
import ScreenTimeLinux
import ScreenTimeSystemd
import ScreenTimePolicy
import ScreenTimeStore
import ScreenTimeWords

/// One watched child: their engine and state, their policy, who their parents are, how their games
/// are stopped, their logind session and desktop. User mode has one; system mode one per user with
/// a policy in /etc/screentime. Everything a child's events cause happens here; the daemon only
/// routes observations and requests to the right child.
struct Child {
    let uid: UInt32
    let name: String
    var live: LiveState
    let policyPath: String
    /// The child's own lines: each carries `SCREENTIME_USER`; in system mode the message starts
    /// with the child's name.
    let logger: Logger
    /// System mode: the daemon is root's and runs the desktop hooks; this child's own processes
    /// may only make accounting stricter.
    let system: Bool
    private var prefix: String { system ? "\(name): " : "" }
    /// Signals stop and resume orders (only this child's processes).
    var enforcer: Enforcer
    /// The child's logind session: idle, lock, sleep (nil: not watched, `--no-logind`).
    var logind: LogindObserver? = nil
    /// Locks and ends the child's login sessions when screen time is up, and lists them for screen
    /// time (nil: not watched, `--no-logind`).
    var loginSessions: LoginSessions? = nil
    /// The child's login sessions as last told to the engine, and when logind is next asked (nil:
    /// the policy has no `[screen]`, so they are not followed).
    var knownSessions: Set<String> = []
    var nextSessionLook: Microseconds? = nil
    var sessionsProblem: String? = nil
    /// Tells the child on the desktop (nil: not asked).
    var notifier: Notifier? = nil
    /// The "Ask for 15 more minutes" buttons on the notifications shown, by notification id (the
    /// last few): pressed, the child's ask is sent.
    var askButtons: [UInt32: Notice.Ask] = [:]
    /// System mode: the same, through the relay, which keeps the ids: how many buttons of each
    /// key were shown and not pressed yet.
    var relayButtons: [String: (ask: Notice.Ask, count: Int)] = [:]
    /// System mode: tells the child and their parents on their desktops, through relays (nil: not asked).
    var relay: NotificationRelay? = nil
    /// Whose language notices are told in (the child's; a parent's own); nil: English.
    var languages: UserLanguages? = nil
    /// Why notifications are off, when they are (`status` lists it as a blind spot).
    var notificationsOff = "desktop notifications are off (--no-notifications)"
    /// Removes old events from the log (nil: keep them all), at start and then every hour.
    var retention: Retention? = nil
    /// When old events are next removed (monotonic).
    var retentionSchedule = RetentionSchedule(now: SystemClock.monoMicros())
    var nextRetention: Microseconds { retentionSchedule.next }
    /// Wrong parent passphrases lock the passphrase path for a while, for the caller (uid) who
    /// typed them only; kept in the state, so that a restart does not open the lock.
    var passphraseGates: [UInt32: PassphraseGate] = [:]
    /// `report` replies of the last second.
    var reports = ReportCache()
    /// Who is a parent, from the policy in force (nil: to be worked out again).
    var authority: Authority? = nil
    /// Paused games, and when each was last seen stopped (wall clock): a game found running again
    /// has been played since then.
    var pausedSeen: [Int32: WallTime] = [:]
    /// Monotonic time of the last event logged.
    var lastMono = SystemClock.monoMicros()
    /// When the state is next saved, and why saving fails while it does.
    var saving = SaveSchedule(now: SystemClock.monoMicros())
    var saveFailure: String? { saving.failure }
    /// The last notices told (for `status`), and how many were told since the start.
    var recentNotices: [ControlReply.Status.Notice] = []
    /// Why the last session was ended, to say in the next one.
    var sessionEnded = SessionEndedNotice()
    var noticesTold: Int64 = 0
    /// System mode: the compositor whose reports are believed (GNOME Shell with the extension).
    var compositor = BelievedCompositor()
    /// System mode: the processes of the child's whose focus and input were refused, and why
    /// (each is logged once; forgotten past 1,000).
    var refusedReporters: [Int32: String] = [:]
    /// Each browser's last believed site report as its extension said it, exact hosts and all
    /// (the log keeps hosts no rule names only as their domain: `SitePrivacy`). In memory only,
    /// to tell the extension which of its tabs a stop is for; gone with the browser's report.
    var reportedSites: [Int32: SiteReport] = [:]
    /// System mode: the compositor of the child's last refused as not sealed, and why (for status).
    var refusedCompositor: (pid: Int32, name: String, why: String)? = nil
    /// System mode: where Yama's `ptrace_scope` is read (`--ptrace-scope-file`, a seam for tests).
    var yamaFile = CompositorFacts.yamaPtraceScope
    /// The child's account (uid, groups, home), for what they can change; nil: not in the user database.
    let account: UserAccount?
    /// What the journal's chain heads said of this state when the daemon started (user mode): a
    /// rollback or a replaced state, in words, for `status` (nil: none seen).
    var rollback: String? = nil
    /// What requests caused (a redemption that lets a paused game go on, a hook's focus on a game
    /// with no time left), carried out after the requests are answered.
    var pending: [Effect] = []
    /// What the child's own side may claim (idle, a lock), the idleness it claimed, and the day's
    /// allowance of their requests and claims (`ChildClaims`).
    var claims: ChildClaims
    /// System mode: what is missing of the seat's input, for status (nil: nothing; the daemon sets it).
    var seatBlindSpot: String? = nil
    /// System mode: the root-run hooks whose input was said not to count (said once each).
    var inputNotCountedSaid: Set<String> = []
    /// The family database the child's ledger is shared through (`[household]`; nil: none).
    var household: HouseholdShare? = nil

    init(uid: UInt32, name: String, live: LiveState, policyPath: String, logger: Logger, system: Bool) {
        self.uid = uid
        self.name = name
        self.live = live
        self.policyPath = policyPath
        var logger = logger
        logger[metadataKey: "user"] = "\(name)"
        self.logger = logger
        self.system = system
        claims = ChildClaims(system: system)
        account = system ? UserAccount.lookup(uid: uid) : nil
        enforcer = Enforcer(group: ProcessGroup(uids: [uid]))
        let prefix = system ? "\(name): " : ""
        self.live.onChainHead = { [logger] seq, hash in
            logger.info("\(prefix)the ledger's chain head is entry \(seq), \(hash.prefix(12))…",
                        metadata: ["event": "chain_head", "chain_seq": "\(seq)", "chain_head": "\(hash)"])
        }
    }

    /// Who may do what for this child, from the policy in force.
    mutating func currentAuthority() -> Authority {
        if let authority { return authority }
        let a = Authority(childUID: uid, policy: live.engine.policy, users: SystemUsers())
        authority = a
        return a
    }

    // MARK: The journal's witness

    /// The state against the chain heads the journal saw (`heads`, or why they could not be read),
    /// at start: a rollback or a replaced state is logged as an error (SCREENTIME_EVENT=rollback)
    /// and kept for `status`; the daemon goes on counting from the state it has.
    mutating func heed(witness heads: Result<[ChainHead], JournalReadError>, query: String) {
        let found: [ChainHead]
        switch heads {
        case .failure(let e):
            log("the state was not compared with the journal's chain heads: \(e.description)", level: .notice)
            return
        case .success(let h): found = h
        }
        let ledger: [(seq: Int64, hash: String)]
        do { ledger = try live.store.ledger().map { (seq: $0.seq, hash: $0.hash) } } catch {
            log("the state was not compared with the journal's chain heads: \(error.description)", level: .warning)
            return
        }
        let verdict = ChainWitness.judge(heads: found, ledger: ledger)
        let words = ChainWitness.words(verdict, journalQuery: query)
        switch verdict {
        case .noHeads, .holds:
            log(words, level: .debug)
        case .rolledBack(let head, _), .replaced(let head, _):
            let kind = if case .rolledBack = verdict { "rolled_back" } else { "replaced" }
            rollback = words
            log("the state is not the one this daemon wrote: \(words)", level: .error,
                ["event": "rollback", "reason": "\(kind)", "chain_seq": "\(head.seq)", "chain_head": "\(head.hash)",
                 "ledger_seq": "\(ledger.map(\.seq).max() ?? 0)"])
        }
    }

    // MARK: Events

    /// Both clocks, now, for the next event logged: every event the daemon logs is stamped here.
    mutating func clocks() -> (wall: WallTime, mono: Microseconds) {
        lastMono = SystemClock.monoMicros()
        return (WallTime(micros: SystemClock.wallMicros()), lastMono)
    }

    mutating func stamp(_ kind: Event.Kind) -> Event {
        let now = clocks()
        return Event(at: now.wall, mono: now.mono, kind)
    }

    /// Logs an observation, applies it, and carries out what it causes.
    mutating func observe(_ kind: Event.Kind) {
        for a in live.ingest(stamp(kind)) { carryOut(a) }
    }

    /// Paused games that run again (someone sent them SIGCONT) are told to the engine, which
    /// counts the time as played and pauses them again. Looked at before each sample.
    mutating func checkPausedGames() {
        let games = live.engine.pausedGames
        pausedSeen = pausedSeen.filter { games.contains($0.key) }
        guard !games.isEmpty else { return }
        let now = WallTime(micros: SystemClock.wallMicros())
        let engine = live.engine
        let running = enforcer.runningAgain(games, process: { engine.process($0) })
        for pid in running {
            let since = pausedSeen[pid]
            log("\(engine.process(pid).map { $0.exe } ?? "pid \(pid)") (pid \(pid)) was paused but runs again: something sent it SIGCONT;"
                + " it is paused again and the time counts as played", level: .warning,
                ["event": "game_continued", "pid": "\(pid)"])
            observe(.gameContinued(pid: pid, since: since))
        }
        for pid in games where !running.contains(pid) { pausedSeen[pid] = now }
    }

    /// The engine's next deadline is due: a tick. Returns how long until the one after (nil: none).
    mutating func tickIfDue(now: Microseconds) -> Microseconds? {
        guard let due = live.engine.timeToNextDeadline else { return nil }
        guard now - lastMono >= due else { return lastMono + due }
        observe(.tick)
        return live.engine.timeToNextDeadline.map { lastMono + $0 }
    }

    /// What logind says: events, and the session found or lost, and sleep.
    mutating func followLogind(now: Microseconds, into kinds: inout [Event.Kind]) {
        guard let logind else { return }
        kinds.removeAll(keepingCapacity: true)
        let notices = logind.update(now: now, into: &kinds)
        for k in kinds {
            guard let said = claims.logindIdle(k) else { continue }
            observe(said)
        }
        for notice in notices { heed(notice) }
    }

    /// System mode, at the start: idle until input shows someone at the keys. (A log without
    /// input relies on `idle_changed` alone, docs/spec/replay.md; in system mode only the seat's input,
    /// root's X11 hook or root itself say input, and without this a focused learning app would
    /// earn with nobody there until the first of them.)
    mutating func idleUntilFirstInput() {
        // (Claimed: it is the daemon's caution for learning, and must not make screen time free
        // on a seat whose input it cannot see.)
        if claims.startIdle() { observe(.idleChanged(idle: true, since: nil, claimed: true)) }
    }

    /// System mode: a person at the seat's keyboard or pointer while this child's session is the
    /// active one there (`SeatInput`): input, which also ends an idleness the child's side claimed.
    mutating func seatInput(count: Int) {
        let event = stamp(.input(count: Int64(count)))
        if let why = claims.trustedInput() { endIdle(why, before: event, from: "the keyboard and pointer of \(SeatInput.seat)") }
        for a in live.ingest(event) { carryOut(a) }
    }

    /// Input from a trusted source (a hook the daemon runs as root, a compositor proven sealed)
    /// while the child's side says the session is idle: the idleness is over, as the spec has it
    /// end, with an `idle_changed` of `idle: false` before the input (issue 35: one `idle: true`
    /// from a child's process made twelve minutes of real typing count as idle).
    mutating func endIdle(_ why: ChildClaims.IdleEnd, before input: Event, from hook: String) {
        log(why == .claimed ? "input from \(hook) while \(name)'s own side said idle: the idleness is over"
                            : "input from \(hook), the first since the daemon started: the idleness is over", level: .notice,
            ["event": "idle_claim_ended", "hook": "\(hook)"])
        pending += live.ingest(Event(at: input.at, mono: input.mono, .idleChanged(idle: false, since: nil)))
    }

    mutating func carryOutPending() {
        guard !pending.isEmpty else { return }
        let caused = pending
        pending.removeAll()
        for a in caused { carryOut(a) }
    }

    /// How often the child's login sessions are listed (logind's `ListSessions`): at once when
    /// logind says a session began or ended, and besides every minute (a session's state, a signal
    /// missed); every 5 s while logind's signals cannot be heard. A session begun after bedtime is
    /// ended within the grace, so this is well inside it. (Listing every 5 s, always, cost the daemon
    /// twice its CPU beside Timekpr-nExT: docs/benchmarks.md.)
    static let sessionLookEvery = Seconds.of(60)
    static let sessionLookWithoutSignals = Seconds.of(5)

    /// Screen time (docs/spec/screen.md): the child's login sessions, from logind, as
    /// `session_started` and `session_ended` events. Only with a `[screen]` table.
    mutating func followLoginSessions(now: Microseconds) {
        guard live.engine.policy.screen.configured, let loginSessions else { nextSessionLook = nil; return }
        let signalled = logind?.takeSessionsChanged() ?? false
        if !signalled, let next = nextSessionLook, now < next { return }
        nextSessionLook = now + (logind?.hearsSignals == true ? Self.sessionLookEvery : Self.sessionLookWithoutSignals)
        let sessions: [LoginSession]
        do throws(BusError) { sessions = try loginSessions.sessions(of: uid) } catch {
            if sessionsProblem == nil {
                log("the login sessions are not known (\(error)): screen time is not counted until logind answers", level: .warning,
                    ["event": "sessions_unknown"])
            }
            sessionsProblem = "\(error)"
            return
        }
        sessionsProblem = nil
        let present = sessions.filter { $0.state != "closing" }
        for s in present where !knownSessions.contains(s.id) {
            knownSessions.insert(s.id)
            observe(.sessionStarted(session: s.id, tty: s.type == "tty", remote: s.remote))
        }
        for id in knownSessions.subtracting(present.map(\.id)).sorted() {
            knownSessions.remove(id)
            observe(.sessionEnded(session: id))
        }
        // Why the last session was ended, said in the next one.
        switch sessionEnded.step(sessions: present.map(\.id), now: now) {
        case .send(let notice)?:
            if show(notice).shown {
                keep(notice, shown: true)
                sessionEnded.done()
                log("told at login why the last session was ended: \(notice.summary)", ["event": "session_end_told"])
            }
        case .keep(let notice)?:
            keep(notice, shown: false)
            log("kept for status why the last session was ended (no desktop took notifications): \(notice.summary)", ["event": "session_end_told"])
        case nil:
            break
        }
        // While it waits for the new session's desktop: tried again every few seconds.
        if sessionEnded.pending != nil, let next = nextSessionLook { nextSessionLook = min(next, now + Self.sessionLookWithoutSignals) }
    }

    // MARK: The journal

    /// One line for the journal: the message in words, and the same facts as fields
    /// (`SCREENTIME_EVENT`, `SCREENTIME_APP`, …, docs/journal.md).
    func log(_ message: String, level: Logger.Level = .info, _ fields: Logger.Metadata = [:]) {
        logger.log(level: level, "\(prefix)\(message)", metadata: fields.isEmpty ? nil : fields)
    }

    /// Carries out what the engine said (stops and resumes through the enforcer, notices through
    /// the notifier), and logs it.
    mutating func carryOut(_ e: Effect) {
        let engine = live.engine
        func at(_ w: Microseconds) -> String { RFC3339.format(micros: w, utcOffsetSeconds: engine.utcOffset(at: w)) }
        func seconds(_ us: Microseconds) -> Logger.MetadataValue { "\(us / Seconds.micro)" }
        let told = Notice.about(e, policy: engine.policy, words(for: uid)).map { tell($0) } ?? ""
        switch e {
        case .warn(let w):
            var fields: Logger.Metadata = ["event": "warn", "remaining_seconds": seconds(w.remaining), "reason": "\(w.limit.rawValue)"]
            fields["app"] = w.app.map { "\($0)" }
            let what = w.limit.isScreen ? "screen" : w.app.map { $0 + "'s" } ?? "game"
            log("\(at(w.at)) warn: \(DurationText.words(w.remaining)) of \(what) time left (\(w.limit.rawValue))" + told, fields)
        case .lockSession(let o), .endSession(let o):
            let end = if case .endSession = e { true } else { false }
            var outcome = "not done: logind is not asked (--no-logind)"
            if let loginSessions {
                do throws(BusError) {
                    if end { try loginSessions.terminate(session: o.session) } else { try loginSessions.lock(session: o.session) }
                    outcome = "logind was asked"
                } catch {
                    outcome = "logind refused: \(error)"
                }
            }
            if end { sessionEnded.ended(o, time: String(at(o.at).dropFirst(11).prefix(5)), words(for: uid)) }
            log("\(at(o.at)) \(end ? "ending" : "locking") session \(o.session) (\(o.reason.rawValue)): \(outcome)" + told, level: .notice,
                ["event": end ? "end_session" : "lock_session", "session": "\(o.session)", "reason": "\(o.reason.rawValue)"])
        case .stop(let s):
            let facts = engine.process(s.pid)
            let done = enforcer.stop(s, process: facts)
            if s.action == .pause { pausedSeen[s.pid] = WallTime(micros: SystemClock.wallMicros()) }
            let left = "game time left now \(DurationText.words(engine.reward.availableNow)), today \(DurationText.words(engine.rewardAvailableToday))"
            var fields: Logger.Metadata = ["event": "stop", "app": "\(s.app)", "reason": "\(s.reason.rawValue)", "action": "\(s.action.rawValue)",
                                           "pid": "\(s.pid)", "told_before": "\(s.repeatCount)", "signalled": "\(done)"]
            fields["exe"] = facts.map { "\($0.exe)" }
            log("\(at(s.at)) stop \(s.app) (pid \(s.pid)\(facts.map { ", " + $0.exe } ?? "")): \(s.reason.rawValue)"
                + (s.repeatCount > 0 ? ", told again (\(s.repeatCount))" : "") + "; \(done); \(left)" + told, level: .notice, fields)
        case .sessionClosed(let r):
            let refused = r.refused.filter { $0.seconds > 0 }
            var fields: Logger.Metadata = ["event": "session", "app": "\(r.app)", "category": "\(r.category.rawValue)", "pid": "\(r.pid)",
                                           "seconds": seconds(r.seconds)]
            guard r.category == .learning else {
                log("\(at(r.end)) session \(r.app) \(DurationText.words(r.seconds)) (\(r.category.rawValue))", fields)
                return
            }
            fields["credited_seconds"] = seconds(r.creditedSeconds)
            fields["points"] = "\(r.points)"
            fields["verdict"] = "\(r.verdict.rawValue)"
            if !refused.isEmpty {
                fields["reason"] = .array(refused.map { "\($0.reason.rawValue)" })
                fields["refused_seconds"] = .array(refused.map { seconds($0.seconds) })
            }
            let why = refused.map { "\(DurationText.words($0.seconds)) \($0.reason.rawValue)" }
            log("\(at(r.end)) session \(r.app) \(DurationText.words(r.seconds)): \(DurationText.words(r.creditedSeconds)) counted, \(r.points) points"
                + (why.isEmpty ? "" : "; not counted: " + why.joined(separator: ", ")) + told,
                level: refused.isEmpty ? .info : .notice, fields)
        case .resume(let pid, let w):
            let done = enforcer.resume(pid, process: engine.process(pid))
            log("\(at(w)) resume pid \(pid): \(done)", ["event": "resume", "pid": "\(pid)", "signalled": "\(done)"])
        case .refused(let r):
            log("\(at(r.at)) refused \(r.request): \(r.reason)", level: .notice,
                ["event": "refused", "request": "\(r.request)", "reason": "\(r.code.rawValue)"])
        case .request(let r):
            var fields: Logger.Metadata = ["event": "time_request", "request_id": "\(r.id)", "state": "\(r.state.rawValue)", "minutes": "\(r.minutes)"]
            fields["by"] = r.by.map { "\($0)" }
            let what: String
            switch r.state {
            case .pending: what = "asks for \(r.minutes) min of game time" + (r.reason.map { " (\"\($0)\")" } ?? "")
            case .approved: what = "was given \(r.minutesGranted ?? r.minutes) min (\(r.pay?.rawValue ?? "points"))" + (r.by.map { " by \($0)" } ?? "")
            case .denied: what = "was denied" + (r.by.map { " by \($0)" } ?? "") + (r.answer.map { ": \($0)" } ?? "")
            case .expired: what = "expired: nobody answered"
            case .refused: what = "was refused: too many requests today"
            }
            let parents = r.state == .pending ? tellParents { [name, system] in Notice.forParents(e, child: name, system: system, $0)! } : ""
            log("\(at(r.decidedAt ?? r.at)) request \(r.id) \(what)" + told + parents, level: .notice, fields)
        case .chore(let c):
            var fields: Logger.Metadata = ["event": "chore", "chore": "\(c.chore)", "state": "\(c.state.rawValue)"]
            fields["by"] = c.by.map { "\($0)" }
            let what: String
            switch c.state {
            case .pending: what = "claimed as done; waits for a parent"
            case .approved: what = "approved" + (c.by.map { " by \($0)" } ?? "") + ": \(c.points ?? 0) points"
            case .rejected: what = "rejected" + (c.by.map { " by \($0)" } ?? "") + (c.answer.map { ": \($0)" } ?? "")
            }
            let parents = c.state == .pending ? tellParents { [name, system] in Notice.forParents(e, child: name, system: system, $0)! } : ""
            log("\(at(c.decidedAt ?? c.at)) chore \(c.chore) \(what)" + told + parents, level: .notice, fields)
        case .clockFault(let f):
            log("\(at(f.at)) a clock that cannot be true: \(f.words); nothing was counted by it", level: .error,
                ["event": "clock_fault", "reason": "\(f.kind.rawValue)", "boot_ahead_seconds": seconds(f.bootAhead)])
        case .clockJumped(let w, let by):
            // To the nearest second: the two clocks are read a moment apart, so a jump of a day is 86399.99… s or 86400.00… s.
            let jump = (by + (by < 0 ? -Seconds.micro : Seconds.micro) / 2) / Seconds.micro
            log("\(at(w)) the wall clock jumped by \(jump) s; "
                + (jump > 0 ? "the calendar followed it (no time was counted by the step, and a day it reached is spent)"
                            : "the calendar waits until the clock has caught up (no time was lost)"), level: .warning,
                ["event": "clock_jump", "reason": "clock_jump", "jump_seconds": "\(jump)"])
        case .ledger(let entry):
            logLedger(entry, at: at(entry.at))
        case .dayEnded:
            break
        case .siteStop(let stop):
            log("\(at(stop.at)) stop the site \(stop.site) (\(stop.host)) in the browser (pid \(stop.pid)): \(stop.reason.rawValue)" + told, level: .notice,
                ["event": "site_stop", "app": "\(stop.site)", "host": "\(stop.host)", "pid": "\(stop.pid)", "reason": "\(stop.reason.rawValue)"])
        case .gamesStopped(let w, let until, let by):
            var fields: Logger.Metadata = ["event": "games_stopped"]
            fields["until"] = until.map { "\(at($0))" }
            fields["by"] = by.map { "\($0)" }
            log("\(at(w)) " + (until.map { "games stopped until \(at($0))" } ?? "games may be played again") + (by.map { " (\($0))" } ?? "") + told,
                level: .notice, fields)
        }
    }

    /// Redemptions, adjustments and expired game time (points earned are told with their session).
    private func logLedger(_ entry: LedgerEntry, at: String) {
        var fields: Logger.Metadata = ["points": "\(entry.points)", "balance": "\(entry.balanceAfter)"]
        switch entry.kind {
        case .earned:
            return
        case .redeemed:
            let minutes = (entry.rewardSeconds ?? 0) / 60 / Seconds.micro
            fields["event"] = "redeem"
            fields["reward_seconds"] = "\((entry.rewardSeconds ?? 0) / Seconds.micro)"
            fields["by"] = entry.note.map { "\($0)" }
            log("\(at) redeemed \(minutes) min of game time for \(-entry.points) points" + (entry.note.map { " (\($0))" } ?? "")
                + "; balance \(entry.balanceAfter)", level: .notice, fields)
        case .adjusted:
            fields["event"] = "adjust"
            fields["note"] = entry.note.map { "\($0)" }
            log("\(at) points adjusted by \(entry.points > 0 ? "+" : "")\(entry.points)" + (entry.note.map { " (\($0))" } ?? "")
                + "; balance \(entry.balanceAfter)", level: .notice, fields)
        case .chore:
            return      // told with the chore's approval
        case .bonus:
            fields["event"] = "bonus"
            fields["streak_days"] = entry.note.map { "\($0)" }
            log("\(at) streak bonus: \(entry.note ?? "?") days in a row with the learning goal met, +\(entry.points) points; balance \(entry.balanceAfter)",
                level: .notice, fields)
        case .gifted:
            fields["event"] = "gift"
            fields["reward_seconds"] = "\((entry.rewardSeconds ?? 0) / Seconds.micro)"
            fields["by"] = entry.note.map { "\($0)" }
            log("\(at) \(DurationText.words(entry.rewardSeconds ?? 0)) of game time given" + (entry.note.map { " by \($0)" } ?? "")
                + " without points", level: .notice, fields)
        case .expired:
            fields["event"] = "expire"
            fields["reward_seconds"] = "\((entry.rewardSeconds ?? 0) / Seconds.micro)"
            log("\(at) \(DurationText.words(entry.rewardSeconds ?? 0)) of redeemed game time expired unused", fields)
        case .bonusTime:
            fields["event"] = "bonus_time"
            fields["reward_seconds"] = "\((entry.rewardSeconds ?? 0) / Seconds.micro)"
            fields["note"] = entry.note.map { "\($0)" }
            log("\(at) \(DurationText.words(entry.rewardSeconds ?? 0)) of bonus time for today" + (entry.note.map { " (\($0))" } ?? ""),
                level: .notice, fields)
        case .revoked:
            fields["event"] = "revoke"
            fields["reward_seconds"] = "\((entry.rewardSeconds ?? 0) / Seconds.micro)"
            fields["note"] = entry.note.map { "\($0)" }
            log("\(at) \(DurationText.words(entry.rewardSeconds ?? 0)) of game time taken back" + (entry.note.map { " (\($0))" } ?? "")
                + (entry.points > 0 ? ", \(entry.points) points refunded" : "") + "; balance \(entry.balanceAfter)", level: .notice, fields)
        }
    }

    /// Shows a notice on the child's desktop, and keeps it for `status` (the GNOME Shell extension
    /// shows those not shown here); returns what the journal line adds about it.
    private mutating func tell(_ notice: Notice) -> String {
        let (shown, words) = show(notice)
        keep(notice, shown: shown)
        return words
    }

    /// The words a user reads notices in (the child, a parent): `UserLanguages`.
    func words(for user: UInt32) -> Translator {
        languages?.translator(for: user, now: SystemClock.monoMicros()) ?? .english
    }

    /// The words of the language a request names, for what the daemon words inside a refusal's
    /// figures (the policy's problems); English without one.
    func words(forLanguage name: String?) -> Translator {
        languages?.translator(forLanguage: name) ?? .english
    }

    /// Sends a notice to the child's desktop: whether it got there, and what the journal line adds.
    private mutating func show(_ notice: Notice) -> (shown: Bool, words: String) {
        let actions = notice.ask.map { [(key: $0.key, label: $0.label(words(for: uid)))] } ?? []
        if let relay {
            let shown = relay.tell(uid, summary: notice.summary, body: notice.body, urgency: notice.urgency.desktop, actions: actions)
            if shown, let ask = notice.ask { relayButtons[ask.key] = (ask, min(20, (relayButtons[ask.key]?.count ?? 0) + 1)) }
            return (shown, shown ? "; notified" : "; not notified (\(relay.problem[uid] ?? "no relay"))")
        }
        guard let notifier else { return (false, "") }
        let id = notifier.show(summary: notice.summary, body: notice.body, urgency: notice.urgency.desktop, actions: actions, now: SystemClock.monoMicros())
        if let id, let ask = notice.ask {
            if askButtons.count >= 20, let oldest = askButtons.keys.min() { askButtons[oldest] = nil }
            askButtons[id] = ask
        }
        return (id != nil, id != nil ? "; notified" : "; not notified (\(notifier.problem ?? "no notification service"))")
    }

    /// "you have asked 20 times today…" as a sentence: "You have asked 20 times today…."
    static func sentence(_ words: String) -> String {
        let text = words.hasPrefix("not asked: ") ? String(words.dropFirst("not asked: ".count)) : words
        return text.prefix(1).uppercased() + text.dropFirst() + (text.hasSuffix(".") ? "" : ".")
    }

    /// The buttons pressed on the child's notifications: an "Ask for 15 more minutes" is the
    /// child's `ask`, with the same checks and daily quota as `stctl ask`; what came of it is told.
    mutating func followNotifications() {
        guard let notifier else { return }
        notifier.process()
        for press in notifier.takePressed() {
            guard let ask = askButtons[press.id], press.key == ask.key else { continue }
            askButtons[press.id] = nil      // one request per button
            askFromButton(ask)
        }
    }

    /// System mode: a button pressed on a notice the relay showed this child (the relay sends each
    /// button's press once); taken only while a button of that key was shown and not pressed.
    mutating func pressedThroughRelay(_ key: String) {
        guard let shown = relayButtons[key], shown.count > 0 else { return }
        relayButtons[key] = shown.count > 1 ? (shown.ask, shown.count - 1) : nil
        askFromButton(shown.ask)
    }

    /// A button's ask: the child's `ask`, with the same checks and daily quota as `stctl ask`;
    /// what came of it is told.
    private mutating func askFromButton(_ ask: Notice.Ask) {
        var request = ControlRequest(.ask, minutes: ask.minutes, reason: "asked from a warning's button")
        request.screen = ask.screen ? true : nil
        let caller = ControlServer.Caller(credentials: PeerCredentials(pid: 0, uid: uid, gid: 0), name: name)
        let reply: ControlReply
        do { reply = try answerFamily(request, from: caller, role: .child, strangerRefused: .refused(.stranger, ["who": name])) }
        catch { reply = .refused(.notSaved, ["detail": "\(error)"]) }
        let what = ask.screen ? "screen time" : "game time"
        let tr = words(for: uid)
        if reply.ok {
            log("asked for \(ask.minutes) more minutes of \(what) from a notification's button" + tell(Notice(
                summary: tr.plural("You asked for {minutes} more minute", "You asked for {minutes} more minutes", Int(ask.minutes), ["minutes": "\(ask.minutes)"]),
                body: tr("A parent will answer; you will see the answer here."), urgency: .normal)),
                level: .notice, ["event": "ask_button", "minutes": "\(ask.minutes)"])
        } else {
            // "Not asked" is the summary: the body says why.
            var why = reply
            if reply.code == Why.Code.notAsked.rawValue, let inner = reply.figures?["because"] { why.code = inner }
            log("a notification's button asked for \(ask.minutes) more minutes of \(what), refused: \(reply.error ?? "")" + tell(Notice(
                summary: tr("Not asked"), body: Self.sentence(why.refusalWords(tr)), urgency: .normal)),
                level: .notice, ["event": "ask_button", "minutes": "\(ask.minutes)"])
        }
    }

    /// Keeps a notice for `status` (the last five).
    private mutating func keep(_ notice: Notice, shown: Bool) {
        noticesTold += 1
        recentNotices.append(.init(id: noticesTold, summary: notice.summary, body: notice.body, urgency: "\(notice.urgency)", shown: shown,
                                   ask: notice.ask.map { .init(minutes: $0.minutes, screen: $0.screen) }))
        if recentNotices.count > 5 { recentNotices.removeFirst(recentNotices.count - 5) }
    }

    /// System mode: tells the child's parents who have a desktop session now (a new request, a
    /// chore claimed); returns what the journal line adds about it.
    private mutating func tellParents(_ notice: (Translator) -> Notice) -> String {
        guard let relay else { return "" }
        let parents = currentAuthority().parentsWithSessions(NotificationRelay.usersWithSessionBus()).filter { $0 != uid }
        guard !parents.isEmpty else { return "; no parent has a desktop session" }
        let told = parents.filter { parent in
            let said = notice(words(for: parent))
            return relay.tell(parent, summary: said.summary, body: said.body, urgency: said.urgency.desktop)
        }
        return "; parents notified: \(told.map { UserAccount.name(of: $0) ?? "uid \($0)" }.joined(separator: ", "))"
            + (told.count < parents.count ? " (not: \(parents.filter { !told.contains($0) }.map { UserAccount.name(of: $0) ?? "uid \($0)" }.joined(separator: ", ")))" : "")
    }

    // MARK: Saving

    /// Saves in batches, at least every second (redemptions, adjustments and the start at once, in
    /// `ingest`). When saving fails, the engine goes on with what it knows, and it is tried again
    /// every second until it works: nothing unsaved is dropped.
    mutating func saveIfDue() {
        guard saving.due(now: SystemClock.monoMicros(), unsaved: live.unsavedEvents) else { return }
        save()
    }

    /// What this child waits for in the run loop: its next tick (`tick`, from `tickIfDue`), save,
    /// removal of old events and household turn, and logind's and the family database's sockets.
    func waitsFor(tick: Microseconds?) -> LoopWait {
        var wait = LoopWait(due: [tick, nextSave, logind?.nextRetry, householdDue, nextRetention, nextSessionLook].compactMap { $0 }.min())
        // (The household link's socket is read by the child, as the bus is: not the server's.)
        if let fd = householdDescriptor { wait.reads.append(fd) }
        if let fd = logind?.descriptor {
            wait.reads.append(fd)
            if logind?.wantsWrite == true { wait.writes.append(fd) }
        }
        if let fd = notifier?.descriptor {
            wait.reads.append(fd)
            if notifier?.wantsWrite == true { wait.writes.append(fd) }
        }
        return wait
    }

    /// When the next save is due (nil: nothing to save).
    var nextSave: Microseconds? { saving.next(unsaved: live.unsavedEvents) }

    mutating func save(checkpoint: Bool = false) {
        let started = SystemClock.monoMicros()
        var failure: String? = nil
        do { try live.flush(checkpoint: checkpoint) } catch { failure = "\(error)" }
        switch saving.tried(at: started, failure: failure) {
        case .none: break
        case .worksAgain: log("saving works again", level: .notice, ["event": "save_works"])
        case .fails(let message): log("cannot save (will retry every second): \(message)", level: .error, ["event": "save_failed"])
        }
    }

    /// A boot clock this process is given that is not the kernel's (an LD_PRELOAD such as
    /// libfaketime) is logged as an event, once while it lasts, so that `check` reports it. Events
    /// carry the kernel's boot clock whatever the process is given. Looked at when the daemon
    /// starts and with each retention run.
    mutating func checkClocks() {
        guard let f = ClockWitness.faked() else { clockFaked = false; return }
        guard !clockFaked else { return }
        clockFaked = true
        observe(.clockFaked(bootAhead: f.bootAhead, wallAhead: f.wallAhead))
    }
    var clockFaked = false

    /// Retention, in short runs: another run follows soon while old events remain, else in an hour.
    mutating func removeOldEventsIfDue() {
        guard retentionSchedule.due(now: SystemClock.monoMicros()) else { return }
        checkClocks()
        guard let retention else { retentionSchedule.ran(at: SystemClock.monoMicros(), removed: 0, most: nil); return }
        guard saveFailure == nil else { return }
        var removed = 0
        do {
            // The engine's trusted calendar time, not the wall clock: setting the clock ahead must
            // not make recent events look old enough to remove.
            removed = try retention.run(on: live.store, now: live.engine.clock.wall(at: live.engine.now))
            if removed > 0 { log("removed \(removed) events older than \(retention.keep / 86_400 / Seconds.micro) days from the event log; the ledger and sessions are unchanged") }
        } catch {
            log("old events were not removed: \(error)", level: .error)
        }
        retentionSchedule.ran(at: SystemClock.monoMicros(), removed: removed, most: retention.maxEventsPerRun)
    }

    // MARK: What else happens to a child

    /// The child's desktop hooks went away. Once none is left, the focused window is unknown: the
    /// engine hears that nothing is focused (so nothing is credited for focus) until one is back.
    mutating func hooksLost(_ lost: [String], remaining: [String]) {
        guard remaining.isEmpty else {
            log("the \(lost.joined(separator: ", ")) desktop hook disconnected; still connected: \(remaining.joined(separator: ", "))",
                level: .warning, ["event": "hook_lost", "hook": .array(lost.map { "\($0)" })])
            return
        }
        log("the \(lost.joined(separator: ", ")) desktop hook disconnected, and no other is connected: nothing counts as focused until one is back",
            level: .warning, ["event": "hook_lost", "hook": .array(lost.map { "\($0)" })])
        observe(.focusChanged(FocusedWindow(pid: nil, hookLost: true)))
    }

    /// A browser's native messaging host went away: what it reported no longer holds (the engine
    /// gives the browser `report_within` to report again through a new one).
    mutating func siteReportsEnded(browser: Int32) {
        guard live.engine.siteReport(of: browser) != nil else { return }
        observe(.siteReportEnded(pid: browser))
    }

    /// What logind says besides events: the session found or lost, and sleep (saved before it).
    private mutating func heed(_ notice: LogindObserver.Notice) {
        switch notice {
        case .watching(let session): log("following logind session \(session) for idle and lock")
        case .lost(let why): log("logind: \(why)", level: .warning, ["event": "logind_lost"])
        case .preparingForSleep(true):
            save(checkpoint: true)
            log(saveFailure == nil ? "the machine is going to sleep: everything is saved" : "the machine is going to sleep, but saving fails: \(saveFailure!)",
                level: saveFailure == nil ? .info : .error)
        case .preparingForSleep(false): log("the machine woke up")
        }
    }

    /// Reads the policy file again (SIGHUP, `stctl policy reload`): what happened, or why not.
    /// `service` is told around it (RELOADING=1, then READY=1 with `status()`).
    @discardableResult
    mutating func reloadPolicy(announce: (Bool) -> Void = { _ in }) -> Result<Told, PolicyNotReloaded> {
        do {
            let text = try PolicyLoader.loadWithText(path: policyPath).text
            guard text != live.policyText else { return .success(Told(.policyUnchanged, ["path": policyPath])) }
            announce(true)
            defer { announce(false) }
            pending += try live.adopt(policyText: text, file: policyPath)
            authority = nil
            if live.engine.policy.household != household?.settings { joinHousehold() }
            log("policy reloaded from \(policyPath)", level: .notice, ["event": "policy_reloaded"])
            return .success(Told(.policyReloaded, ["path": policyPath]))
        } catch {
            log("policy not reloaded, the old one stays in force: \(error)", level: .error, ["event": "policy_refused"])
            return .failure(PolicyNotReloaded(description: "policy not reloaded, the old one stays in force: \(error)"))
        }
    }
}

struct PolicyNotReloaded: Error, CustomStringConvertible { var description: String }
