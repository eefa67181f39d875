import ControlProtocol
import Foundation
import Logging
import ScreenTimeCore
import ScreenTimeDaemon
import ScreenTimeLinux
import ScreenTimePolicy
import ScreenTimeSystemd
import ScreenTimeStore

/// What a child's daemon answers: the control socket's requests, for one child.
extension Child {
    /// Answers one request about this child; what changes state goes through the event log like
    /// everything else. `hooks`: the child's desktop hooks connected now; `announce`: told before
    /// and after a policy reload (systemd's RELOADING=1 and READY=1).
    mutating func answer(_ request: ControlRequest, from caller: ControlServer.Caller, hooks: [String],
                         announce: (Bool) -> Void) -> ControlReply {
        let peer = caller.credentials
        let role = role(of: caller)
        let who = caller.name
        let strangerRefused = ControlReply.refused(system ? .strangerOf : .stranger, system ? ["child": name, "who": who] : ["who": who])
        do {
            switch request.command {
            case .status:
                guard role != .stranger else { return strangerRefused }
                return ControlReply(ok: true, status: status(hooks: hooks))
            case .redeem:
                guard let minutes = request.minutes, (1...100_000).contains(minutes) else { return .refused(.redeemMinutes) }
                let ownPoints = role == .child && request.passphrase == nil
                if ownPoints, live.engine.policy.rewards.childMayRedeem { return try childRedeem(request, minutes: minutes, caller: caller) }
                if let no = refuseUnlessParent("redeem", request, caller: caller, role: role) {
                    // (Still "… is for parents: …": stctl then asks a parent at the keyboard for the passphrase.)
                    guard ownPoints, let code = no.code, let why = Why(code: code, figures: no.figures ?? [:]) else { return no }
                    return .refused(Why(.forParentsChildMayAsk, because: why, ["minutes": "\(minutes)"]))
                }
                if let no = beyondToday(minutes, request, doing: .redeemed) { return no }
                let before = live.engine.ledger.balance
                return try saveAndAnswer(.redeem(minutes: minutes, by: parentName(caller, role)), request, asked: "redeem \(minutes)", caller: caller) { effects, engine in
                    if let r = Self.refusal(in: effects) { return .refused(Why(.notRedeemed, because: Self.why(r))) }
                    return ControlReply(ok: true, balance: engine.ledger.balance, cost: before - engine.ledger.balance)
                }
            case .adjust:
                if let no = refuseUnlessParent("adjust", request, caller: caller, role: role) { return no }
                guard let points = request.points, points != 0, abs(points) <= 1_000_000_000 else { return .refused(.adjustPoints) }
                guard let reason = request.reason, !reason.trimmingCharacters(in: .whitespaces).isEmpty else { return .refused(.adjustReason) }
                return try saveAndAnswer(.adjust(points: points, reason: "\(reason) (\(parentName(caller, role)))"), request, asked: "adjust \(points) \(reason)",
                                         caller: caller) { _, engine in ControlReply(ok: true, balance: engine.ledger.balance) }
            case .apps:
                guard role != .stranger else { return strangerRefused }
                let days = request.days ?? 7
                guard (1...3660).contains(days) else { return .refused(.daysRange, ["command": "apps", "most": "3660"]) }
                var reply = ControlReply(ok: true, apps: try seenApps(days: days))
                if live.engine.policy.browsers != nil { reply.sites = try seenSites(days: days) }
                return reply
            case .history:
                guard role != .stranger else { return strangerRefused }
                let days = request.days ?? 7
                guard (1...3660).contains(days) else { return .refused(.daysRange, ["command": "history", "most": "3660"]) }
                let engine = live.engine
                let from = engine.day(containing: engine.today.start - (days - 1) * 86_400 * Seconds.micro + 12 * 3600 * Seconds.micro).start
                return ControlReply(ok: true, history: try live.ledger(from: from).map { e in
                    ControlReply.LedgerLine(at: RFC3339.format(micros: e.at, utcOffsetSeconds: engine.utcOffset(at: e.at)), kind: e.kind.rawValue,
                                            points: e.points, balanceAfter: e.balanceAfter, note: e.note, rewardSeconds: e.rewardSeconds.map { $0 / Seconds.micro })
                })
            case .sessions:
                guard role != .stranger else { return strangerRefused }
                let engine = live.engine
                var bounds = engine.today
                if let day = request.day {
                    guard let b = dayBounds(day) else { return .refused(.dayAsDate, ["command": "sessions", "day": String(day.prefix(40))]) }
                    bounds = b
                }
                func at(_ w: Microseconds) -> String { RFC3339.format(micros: w, utcOffsetSeconds: engine.utcOffset(at: w)) }
                return ControlReply(ok: true, sessions: try live.sessions(from: bounds.start, to: bounds.end).map { s in
                    ControlReply.SessionLine(app: s.app, category: s.category.rawValue, start: at(s.start), end: at(s.end),
                                             seconds: s.seconds / Seconds.micro, creditedSeconds: s.creditedSeconds / Seconds.micro,
                                             points: s.points, verdict: s.verdict.rawValue,
                                             refused: s.refused.map { .init(reason: $0.reason.rawValue, seconds: $0.seconds / Seconds.micro) },
                                             flags: s.flags.map(\.rawValue))
                })
            case .report:
                guard role != .stranger else { return strangerRefused }
                let days = request.days ?? 7
                guard (1...366).contains(days) else { return .refused(.daysRange, ["command": "report", "most": "366"]) }
                var last = live.engine.today
                if let day = request.day {
                    guard let b = dayBounds(day) else { return .refused(.dayAsDate, ["command": "report", "day": String(day.prefix(40))]) }
                    last = b
                }
                return ControlReply(ok: true, report: try report(days: Int(days), last: last))
            case .reload:
                if let no = refuseUnlessParent("policy reload", request, caller: caller, role: role) { return no }
                switch reloadPolicy(announce: announce) {
                case .success(let told): return .done(told)
                case .failure(let why): return .refused(.asSaid, ["detail": why.description])
                }
            case .export:
                if let no = refuseUnlessParent("export", request, caller: caller, role: role) { return no }
                var reply = ControlReply(ok: true)
                reply.export = try exportAll()
                return reply
            case .forget:
                if let no = refuseUnlessParent("forget", request, caller: caller, role: role) { return no }
                guard let day = request.day, let bounds = dayBounds(day) else { return .refused(.forgetNeedsDay) }
                guard bounds.start <= live.engine.today.start else { return .refused(.forgetLater, ["day": day]) }
                return try forget(before: bounds.start, day: day, by: parentName(caller, role))
            case .simulate:
                if let no = refuseUnlessParent("simulate", request, caller: caller, role: role) { return no }
                return try simulate(request)
            case .bonus, .stopGames, .revoke, .bedtime, .freeDay:
                return try answerParentsSay(request, from: caller, role: role)
            case .ask, .requests, .approve, .deny, .chores, .choreDone, .choreApprove, .choreReject:
                return try answerFamily(request, from: caller, role: role, strangerRefused: strangerRefused)
            case .policy:
                if let no = refuseUnlessParent("policy", request, caller: caller, role: role) { return no }
                var reply = ControlReply(ok: true)
                reply.policy = live.policyText
                reply.policySummary = PolicySummaries.of(live.engine.policy, from: live.engine.todayKey)
                reply.policySummary?.settings = PolicySettings.of(live.engine.policy, text: live.policyText)
                return reply
            case .policyChange, .policyHistory, .policyUndo:
                return try answerPolicyChange(request, from: caller, role: role, announce: announce)
            case .login, .logout, .family:
                // The daemon answers these itself: they are about every child at once.
                return .refused(.notForOneChild, ["command": request.command.rawValue])
            case .hookEvent:
                guard peer.uid == uid || peer.uid == 0 else {
                    return .refused(.asSaid, ["detail": "hook events are taken only from \(system ? name + "'s" : "the watched child's") session; you are \(who)"])
                }
                guard let text = request.event else { return .refused(.asSaid, ["detail": "hook_event needs an event"]) }
                let now = clocks()
                var event = try EventLog.decode(hookEvent: text, at: now.wall, mono: now.mono)
                if case .siteChanged(let said) = event.kind { return try answerSiteReport(event, said, from: peer, who: who) }
                // Titles are kept only as far as the policy needs them ([privacy], docs/state.md).
                if case .focusChanged(let w) = event.kind { event.kind = .focusChanged(Privacy.redact(w, policy: live.engine.policy)) }
                // What the child's own side may say, and what counts (`ChildClaims`, docs/security.md).
                let sender = ChildClaims.Sender(uid: peer.uid, pid: peer.pid, hook: request.hook)
                var judged = claims      // (judged apart: the compositor's check changes the child too)
                let verdict = judged.judge(event.kind, from: sender, lockClaimed: live.engine.lockClaimed, today: live.engine.today.start,
                                           compositorPID: compositor.pid) { compositorRefusal(event, from: peer, who: who) }
                claims = judged
                switch verdict {
                case .alreadySaid: return ControlReply(ok: true)
                case .refused(let why): return .refused(.asSaid, ["detail": why])
                case .notCounted(let source): return inputNotCounted(source: source, hook: request.hook)
                case .take(let kind, let endingIdle):
                    event.kind = kind
                    if let endingIdle {
                        endIdle(endingIdle, before: event, from: request.hook ?? (peer.uid == 0 ? "a hook of root's" : "the session's compositor"))
                    }
                }
                pending += live.ingest(event)
                return ControlReply(ok: true)
            }
        } catch let e as EventLog.LineError {
            return .refused(.asSaid, ["detail": "not an event: \(e.reason)"])
        } catch {
            return .refused(.notSaved, ["detail": "\(error)"])
        }
    }

    /// Who a parent's action is recorded as done by: their user name, or, for the parent
    /// passphrase typed at someone's account, that (the account is not the parent's).
    func parentName(_ caller: ControlServer.Caller, _ role: Authority.Role) -> String {
        // ("child" marks the child's own redemption in the log: a parent by that name is not one.)
        if caller.parentSession {
            return caller.sessionParent.map { $0 == RequestDecision.child ? "\($0) (a parent, on the parents' page)" : "\($0) (on the parents' page)" }
                ?? "a parent on the parents' page"
        }
        return role != .parent ? "the parent passphrase at \(caller.name)'s account"
            : caller.name == RequestDecision.child ? "\(caller.name) (a parent)" : caller.name
    }

    /// Who the caller is to this child: a parent by uid or group, or by a parent session's token;
    /// the child; or a stranger.
    mutating func role(of caller: ControlServer.Caller) -> Authority.Role {
        caller.parentSession ? .parent : currentAuthority().role(of: caller.credentials.uid)
    }

    /// Whether `phrase` is this child's parent passphrase (false when the policy sets none). Not
    /// counted: `countPassphrase` counts it (the daemon's `login` checks several children first).
    func passphraseMatches(_ phrase: String) -> Bool {
        live.engine.policy.parents.passphraseHash.map { Passphrase.matches(phrase, hash: $0) } ?? false
    }

    var hasPassphrase: Bool { live.engine.policy.parents.passphraseHash != nil }

    /// Microseconds until a caller's lock after five wrong passphrases opens; nil when not locked.
    mutating func passphraseLock(of caller: UInt32, now: Microseconds) -> Microseconds? {
        let gate = passphraseGate(of: caller)
        guard let until = gate.lockedUntil, now < until else { return nil }
        return min(until - now, PassphraseGate.lockFor)
    }

    /// Counts a passphrase checked for `what` (right or wrong) against the caller's lock, and logs it.
    /// `check` is not run while the caller is locked out.
    mutating func countPassphrase(what: String, caller: ControlServer.Caller, check: () -> Bool) -> PassphraseGate.Outcome {
        var gate = passphraseGate(of: caller.credentials.uid)
        let outcome = gate.attempt(at: SystemClock.wallMicros(), check: check)
        keep(gate, of: caller.credentials.uid)
        let who = caller.name
        switch outcome {
        case .accepted:
            log("parent passphrase accepted from \(who) for \(what)", level: .notice, ["event": "passphrase_accepted", "request": "\(what)"])
        case .wrong(let left):
            log("wrong parent passphrase from \(who) for \(what)" + (left == 0 ? "; parent commands by passphrase are locked for 15 minutes for \(who)" : " (\(left) more before a 15-minute lock for \(who))"),
                level: .warning, ["event": "passphrase_wrong", "request": "\(what)"])
        case .locked:
            log("parent passphrase from \(who) for \(what) not checked: locked after 5 wrong ones", level: .warning, ["event": "passphrase_locked", "request": "\(what)"])
        }
        return outcome
    }

    /// Nil when the caller is a parent (by uid, by group, by a parent session, or by the parent
    /// passphrase in the request); else the refusal, saying how to be one.
    mutating func refuseUnlessParent(_ what: String, _ request: ControlRequest, caller: ControlServer.Caller, role: Authority.Role) -> ControlReply? {
        let who = caller.name
        if role == .parent { return nil }
        guard let phrase = request.passphrase else {
            return .refused(.forParents, ["command": what, "who": who])
        }
        guard let hash = live.engine.policy.parents.passphraseHash else {
            return .refused(.forParentsNoPassphrase, ["command": what, "who": who])
        }
        switch countPassphrase(what: what, caller: caller, check: { Passphrase.matches(phrase, hash: hash) }) {
        case .accepted:
            return nil
        case .wrong(let left):
            return .refused(Self.wrongPassphrase(triesLeft: left))
        case .locked(let remaining):
            return .refused(Self.lockedPassphrase(remaining: remaining))
        }
    }

    static func wrongPassphrase(triesLeft left: Int) -> Why { Why(.wrongPassphrase, ["tries": "\(left)"]) }

    static func lockedPassphrase(remaining: Microseconds) -> Why { Why(.passphraseLocked, ["minutes": "\((remaining + 59_999_999) / 60_000_000)"]) }

    /// Answers one request as the line to send, and whether it was a success: `answer`, but a
    /// `report` asked again within a second is the same bytes again (`ReportCache`).
    mutating func answerLine(_ request: ControlRequest, from caller: ControlServer.Caller, hooks: [String],
                             announce: (Bool) -> Void) -> (line: [UInt8], ok: Bool) {
        let key = request.command == .report ? "\(request.days ?? 7) \(request.day ?? "")" : nil
        let now = SystemClock.monoMicros()
        if let key, role(of: caller) != .stranger, let line = reports.line(for: key, now: now) {
            return (line, true)
        }
        let reply = answer(request, from: caller, hooks: hooks, announce: announce)
        let line = reply.line
        if let key, reply.ok { reports.keep(line, for: key, now: now) }
        if [.redeem, .adjust, .reload, .approve, .choreApprove].contains(request.command) { reports.forget() }
        return (line, reply.ok)
    }

    /// A request whose id (`request.id`) this caller sent before: the reply it got then (it is
    /// not carried out again); nil when the id is new, or there is none (an older client).
    func answeredBefore(_ request: ControlRequest, asked: String, caller: ControlServer.Caller) throws -> ControlReply? {
        let verdict = try RequestRepeat.judge(id: request.id, asked: asked) { id in
            try live.store.answered(id: id, caller: caller.credentials.uid).map { (request: $0.request, reply: $0.reply) }
        }
        switch verdict {
        case .new: return nil
        case .refused(let why): return .refused(why)
        case .again(let reply):
            log("\(asked) from \(caller.name) (request \(request.id ?? "")) was carried out before: answered again, not carried out again",
                level: .notice, ["event": "request_repeated", "request": "\(asked)"])
            return reply
        }
    }

    /// What the state keeps of a parent request carried out, so that a retry with the same id is
    /// answered, not carried out again; nil without an id.
    static func answering(_ request: ControlRequest, asked: String, caller: UInt32,
                          reply: @escaping ([Effect], Engine) -> ControlReply) -> (([Effect], Engine) -> Store.AnsweredRequest)? {
        guard let id = request.id else { return nil }
        return { effects, engine in
            Store.AnsweredRequest(caller: caller, id: id, request: asked, reply: String(decoding: reply(effects, engine).line.dropLast(), as: UTF8.self),
                                  at: SystemClock.wallMicros())
        }
    }

    /// The wrong passphrases of one caller: as kept in memory, else as saved.
    mutating func passphraseGate(of caller: UInt32) -> PassphraseGate {
        if let gate = passphraseGates[caller] { return gate }
        let saved = (try? live.store.passphraseFailures(caller: caller)) ?? (failures: 0, lockedUntil: nil)
        let gate = PassphraseGate(failures: saved.failures, lockedUntil: saved.lockedUntil)
        passphraseGates[caller] = gate
        return gate
    }

    /// Keeps a caller's wrong passphrases, in memory and in the state (a restart does not open the lock).
    mutating func keep(_ gate: PassphraseGate, of caller: UInt32) {
        let before = passphraseGate(of: caller)
        passphraseGates[caller] = gate
        guard before.failures != gate.failures || before.lockedUntil != gate.lockedUntil else { return }
        do { try live.store.savePassphraseFailures(caller: caller, failures: gate.failures, lockedUntil: gate.lockedUntil) } catch {
            log("the wrong passphrases of uid \(caller) are counted, but not saved (a restart forgets them): \(error)", level: .error)
        }
    }

    /// System mode: input from a hook of root's other than the X11 one, or from the session's
    /// compositor: answered, not counted (`SeatInput` counts input); said once for each source.
    private mutating func inputNotCounted(source: String, hook: String?) -> ControlReply {
        if !inputNotCountedSaid.contains(source) {
            inputNotCountedSaid.insert(source)
            log("input reported by \(source) is not counted: in system mode input comes from the seat's keyboards and pointers (a compositor counts software input too)",
                level: .notice, ["event": "hook_input_not_counted", "hook": "\(hook ?? "")"])
        }
        return ControlReply(ok: true, note: "not counted: in system mode input comes from the seat's keyboards and pointers")
    }

    /// System mode: focus or input from one of the child's own processes is believed only from the
    /// session's own compositor (`CompositorTrust`); nil: believe it. Everything else is refused
    /// and logged.
    private mutating func compositorRefusal(_ event: Event, from peer: PeerCredentials, who: String) -> String? {
        let facts = account.map { CompositorFacts.read(pid: peer.pid, child: $0, extensionUUID: CompositorTrust.gnomeExtension, yamaFile: yamaFile) }
        if let why = facts.map({ CompositorTrust.distrust($0, child: uid) }) ?? "\(name) is not in the user database" {
            // A compositor screentime knows, not sealed: status says why (an impostor is only logged).
            if let exe = facts?.exe, let compositorName = CompositorTrust.compositors[exe] { refusedCompositor = (peer.pid, compositorName, why) }
            // Said once for each process and reason: a shell that is not believed sends input every few seconds.
            if refusedReporters[peer.pid] != why {
                if refusedReporters.count >= 1000 { refusedReporters.removeAll() }
                refusedReporters[peer.pid] = why
                log("refused a \(event.name) hook event from \(who)'s own process (pid \(peer.pid), \(facts?.exe ?? "gone")): in system mode only the daemon's own hooks and the session's compositor may report focus and input, and this is neither: \(why)",
                    level: .warning, ["event": "hook_event_refused", "pid": "\(peer.pid)", "reason": "\(why)"])
            }
            return "in system mode, \(name)'s own processes may report only idle and locked (the daemon runs the desktop hooks itself, and believes only the session's compositor: \(why))"
        }
        if refusedCompositor?.pid == peer.pid { refusedCompositor = nil }
        switch compositor.claim(peer.pid, alive: { ProcFS.contents(of: "/proc/\($0)/stat") != nil }) {
        case .believed:
            return nil
        case .newlyContested(let other):
            log("two compositors claim \(name)'s session (pids \(other) and \(peer.pid)): neither is believed until one of them is gone, and nothing counts as focused meanwhile",
                level: .warning, ["event": "compositor_contested", "pid": "\(peer.pid)", "other_pid": "\(other)"])
            pending += live.ingest(stamp(.focusChanged(FocusedWindow(pid: nil, hookLost: true))))
            return "another compositor (pid \(other)) reports \(name)'s session too: neither is believed until one of them is gone"
        case .contested(let other):
            return "another compositor (pid \(other)) reports \(name)'s session too: neither is believed until one of them is gone"
        }
    }

    /// The bounds of a day named `YYYY-MM-DD` in the policy's time zone.
    func dayBounds(_ text: String) -> (start: Microseconds, end: Microseconds)? {
        guard text.count == 10, let noon = RFC3339.parse("\(text)T12:00:00Z") else { return nil }
        let engine = live.engine
        return engine.day(containing: noon.micros - Microseconds(engine.utcOffset(at: noon.micros)) * Seconds.micro)
    }

    /// `days` days up to the one of `last`, each at a glance (`DayReports`), from the saved
    /// sessions, the ledger and each day's game time.
    func report(days: Int, last: (start: Microseconds, end: Microseconds)) throws -> [ControlReply.ReportDay] {
        let engine = live.engine
        let from = DayReports.days(days, endingWith: last, engine: engine)[0].start
        return DayReports.build(days: days, last: last, engine: engine, sessions: try live.sessions(from: from, to: last.end),
                                ledger: try live.ledger(from: from), rewardUsed: try live.rewardUsed(from: from, to: last.end),
                                screenUsed: try live.screenUsed(from: from, to: last.end))
    }

    /// The programs the child started in the last `days` days (as saved), most started first.
    func seenApps(days: Int64) throws -> [ControlReply.SeenApp] {
        let engine = live.engine
        var seen: [String: (facts: ProcessFacts, starts: Int64, last: WallTime)] = [:]
        for line in try live.store.eventLines(of: "process_started", from: SystemClock.wallMicros() - days * 86_400 * Seconds.micro) {
            guard let e = try? EventLog.decode(line: line), case .processStarted(let f) = e.kind else { continue }
            let key = f.exe + "\u{0}" + (f.flatpak ?? "")
            let before = seen[key]
            seen[key] = (f, (before?.starts ?? 0) + 1, e.at)
        }
        return seen.values.sorted { ($1.starts, $0.facts.exe) < ($0.starts, $1.facts.exe) }.map { s in
            let c = engine.classify(s.facts)
            return ControlReply.SeenApp(exe: s.facts.exe, flatpak: s.facts.flatpak, comm: s.facts.comm ?? "", starts: s.starts,
                                        lastStarted: RFC3339.format(micros: s.last.micros, utcOffsetSeconds: engine.utcOffset(at: s.last.micros)),
                                        app: c?.name, category: c?.category.rawValue,
                                        // (A program no entry names: whether its identity is beyond the child's reach.)
                                        trusted: c?.trusted ?? (s.facts.flatpak != nil || s.facts.exeWritable == false))
        }
    }

    /// The websites the child's browsers reported in the last `days` days, by registrable domain
    /// (Debian's public suffix list; the host itself when it cannot be read), most reported first,
    /// with the `[[sites]]` entry that names each (the last host seen of it decides).
    func seenSites(days: Int64) throws -> [ControlReply.SeenSite] {
        let engine = live.engine
        let suffixes = PublicSuffixList()
        var seen: [String: (reports: Int64, last: WallTime, host: String)] = [:]
        for line in try live.store.eventLines(of: "site_changed", from: SystemClock.wallMicros() - days * 86_400 * Seconds.micro) {
            guard let e = try? EventLog.decode(line: line), case .siteChanged(let report) = e.kind, let host = report.host?.lowercased(), !host.isEmpty else { continue }
            let domain = suffixes?.registrableDomain(of: host) ?? host
            seen[domain] = ((seen[domain]?.reports ?? 0) + 1, e.at, host)
        }
        return seen.sorted { ($1.value.reports, $0.key) < ($0.value.reports, $1.key) }.map { domain, s in
            let named = engine.siteNaming(host: s.host)
            return ControlReply.SeenSite(domain: domain, reports: s.reports,
                                         lastSeen: RFC3339.format(micros: s.last.micros, utcOffsetSeconds: engine.utcOffset(at: s.last.micros)),
                                         site: named?.name, category: named?.category.rawValue)
        }
    }

    func status(hooks: [String]) -> ControlReply.Status {
        // As of this moment, not of the last event: game time counts down, learning up, between events.
        let engine = live.engine.asOf(mono: SystemClock.monoMicros())
        let notices: BlindSpots.Notices =
            if let relay { .relay(sessionBus: Privileges.sessionBus(of: uid) != nil, problem: relay.problem[uid], uid: uid) }
            else if let notifier { .notifier(available: notifier.available, problem: notifier.problem) }
            else { .off(notificationsOff) }
        var blind = BlindSpots(notices: notices, hooks: hooks,
                               logind: logind.map { $0.watching ? .watching : .notWatching(problem: $0.problem) } ?? .notAsked)
        blind.rollback = rollback
        blind.seat = seatBlindSpot
        if let r = refusedCompositor, ProcFS.contents(of: "/proc/\(r.pid)/stat") != nil { blind.refusedCompositor = (r.name, r.pid, r.why) }
        blind.household = householdStatus()
        blind.loginSessions = sessionsProblem
        var status = StatusFigures.of(
            engine, pointsToday: (try? live.pointsEarned(from: engine.today.start, to: engine.today.end)) ?? 0, hooks: hooks,
            observers: .init(proc: true, logind: logind?.watching ?? false, focusHook: !hooks.isEmpty, notifications: blind.notifying),
            blindSpots: blind.spots(engine: engine), notices: recentNotices)
        (status.requests, status.chores) = familyStatus()
        status.household = blind.household
        return status
    }
}
