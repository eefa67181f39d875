import ControlProtocol
import Foundation
import Logging
import ScreenTimeCore
import ScreenTimeDaemon
import ScreenTimeLinux
import ScreenTimeSystemd
import ScreenTimePolicy
import ScreenTimeStore
import Synchronization

/// Signals turned into requests the run loop reads; `wakeup` interrupts its wait.
final class Requests: Sendable {
    let stop = Atomic<Bool>(false)
    let reload = Atomic<Bool>(false)
    let wakeup = Wakeup()
}

/// The live daemon: samples /proc for every watched child, follows their logind sessions, serves
/// the control socket in between, and hands each observation and request to the child it is about
/// (`Child` stamps, logs, applies, enforces and saves). User mode watches one child, system mode
/// every user with a policy. SIGTERM/SIGINT: save and stop; SIGHUP: reload the policies (a bad one
/// is refused, the old one kept).
struct Daemon {
    /// By uid, in uid order.
    var children: [Child]
    /// Parents logged in by passphrase (the parents' page): their tokens.
    var parentSessions = ParentSessions()
    /// The user the parents' page runs as (`--web-user`; nil: none). Its logins say which browser
    /// they come from (`client`), and their wrong passphrases are counted per browser.
    var webUser: String? = nil
    /// The parents' page's wrong passphrases, by the browser they came from (in memory: the page
    /// keeps its own count too, and only root can restart the daemon).
    var pageGates: [String: PassphraseGate] = [:]
    var sampler: ProcSampler
    var server: ControlServer?
    let sampleEvery: Microseconds
    /// With the kernel's process events, how often the processes are looked at while the kernel
    /// names none and nothing else asks for the usual cadence (`ProcSampler.wantsSteadySamples`,
    /// a paused game): what does not wait for the kernel's word (each process's exe link every
    /// 30 s, a process that only forked, the question whether the kernel still sends events, the
    /// CPU times each minute) comes at least this often. docs/observing.md.
    static let quietSampleEvery = Seconds.of(5)
    var quietEvery: Microseconds { max(sampleEvery, Self.quietSampleEvery) }
    /// System mode: root, several children, hooks of the child's own processes only stricter.
    let system: Bool
    /// The daemon's own lines (a child's carry the child's name).
    let logger: Logger
    /// Which child a watched process belongs to (the sampler says it when the process starts).
    var owner: [Int32: Int] = [:]
    /// System mode: the desktop hooks the daemon runs itself (nil: none, user mode or no logind).
    var hooks: HookSupervisor? = nil
    /// System mode: the seat's keyboards and pointers, read by root (nil: user mode).
    var seatInput: SeatInput? = nil
    /// systemd: ready, status, watchdog, reloading, stopping (nothing outside systemd).
    let service = ServiceManager()
    var nextWatchdog: Int64 = 0
    /// Silenced process events are said in the journal at most once in this while (with how many samples).
    static let silenceLogEvery = Seconds.of(600)
    var silenceLoggedAt: Int64? = nil
    var silencedSamplesLogged = 0
    var nextStatus: Int64 = 0
    /// When the pages of code and data that only start-up used are next let go (ResidentMemory):
    /// once the first samples are taken, then hourly, for what a day's rare paths mapped.
    var nextMemoryRelease: Int64 = SystemClock.monoMicros() + Seconds.of(15)
    /// A test-only fault (`SCREENTIME_TEST_WEDGE_AFTER=SECONDS`, debug builds only): the run loop
    /// stops turning that long after the start, as a hung daemon would, so that a test sees the
    /// watchdog go quiet.
    #if TEST_FAULTS
    let wedgeAt: Int64? = ProcessInfo.processInfo.environment["SCREENTIME_TEST_WEDGE_AFTER"].flatMap(Int64.init)
        .map { SystemClock.monoMicros() + $0 * Seconds.micro }
    #else
    let wedgeAt: Int64? = nil
    #endif

    init(children: [Child], sampler: ProcSampler, server: ControlServer?, sampleEvery: Microseconds, system: Bool, logger: Logger) {
        self.children = children.sorted { $0.uid < $1.uid }
        self.sampler = sampler
        self.server = server
        self.sampleEvery = sampleEvery
        self.system = system
        self.logger = logger
    }

    func log(_ message: String, level: Logger.Level = .info, _ fields: Logger.Metadata = [:]) {
        logger.log(level: level, "\(message)", metadata: fields.isEmpty ? nil : fields)
    }

    func index(ofChild uid: UInt32?) -> Int? { uid.flatMap { u in children.firstIndex { $0.uid == u } } }

    /// The programs the policies name by path, for the sampler to recognise under other names.
    mutating func knowPrograms() {
        sampler.programs = KnownPrograms(paths: children.flatMap { $0.live.engine.policy.apps.flatMap { $0.exe.compactMap(\.literalPath) } })
    }

    /// Whether the kernel's process events say when a watched process execs, or each one is looked at every sample.
    func logHowProcessesAreFollowed(level: Logger.Level = .info) {
        if sampler.hearsKernel {
            log("processes: the kernel tells of execs and ends (process events)", level: level, ["event": "process_events"])
        } else {
            log("processes: each watched one looked at every sample (\(sampler.kernelEventsFailure ?? "no process events"))", level: level, ["event": "process_events"])
        }
    }

    /// A warning when the kernel's process events may have been silenced (someone talked its count
    /// of listeners down): every process was looked at in those samples, so nothing was missed, but
    /// a parent may want to know that someone tried.
    mutating func logSilencedEvents() {
        let silenced = sampler.samplesWithEventsSilenced
        guard silenced > silencedSamplesLogged else { return }
        let now = SystemClock.monoMicros()
        if let at = silenceLoggedAt, now - at < Self.silenceLogEvery { return }
        log("processes: the kernel stopped sending its process events (someone talked its count of listeners down); "
            + "every watched process was looked at meanwhile (\(silenced - silencedSamplesLogged) sample(s) since the last warning)",
            level: .warning, ["event": "process_events_silenced"])
        silenceLoggedAt = now
        silencedSamplesLogged = silenced
    }

    /// When the next sample is due (mono): `sampleEvery` after the last one once the kernel has
    /// named a process, or while the sampler or a paused game (its SIGCONT is looked for at each
    /// sample) wants the usual cadence; else `quietEvery` after it, or when a process's CPU time
    /// is due to be read if that is sooner. At once when there was none.
    func nextSample(after last: Microseconds?, kernelSpoke: Bool) -> Microseconds {
        guard let last else { return 0 }
        let steady = kernelSpoke || sampler.wantsSteadySamples(at: SystemClock.monoMicros())
            || children.contains { !$0.live.engine.pausedGames.isEmpty }
        let next = last + (steady ? sampleEvery : quietEvery)
        guard let cpu = sampler.nextCPURead else { return next }
        return min(next, max(cpu, last + sampleEvery))
    }

    /// Hands what the sampler saw to the child whose process it is.
    mutating func route(_ kind: Event.Kind) {
        let i: Int?
        switch kind {
        case .processStarted(let f):
            i = index(ofChild: f.uid)
            if let i { owner[f.pid] = i }
        case .processExited(let pid): i = owner.removeValue(forKey: pid)
        case .processCPU(let pid, _): i = owner[pid]
        default: i = children.count == 1 ? 0 : nil
        }
        if let i { children[i].observe(kind) }
    }

    mutating func run(requests: Requests) throws {
        var kinds: [Event.Kind] = []
        var lastSample: Microseconds? = nil
        // The kernel's events socket was readable: something exec'd or ended (anyone's), so the
        // next sample comes at the usual cadence. Not polled again until that sample.
        var kernelSpoke = false
        let boot = KernelClock.bootID()
        for i in children.indices {
            children[i].observe(.daemonStarted(boot: boot))
            children[i].checkClocks()
            children[i].save()
        }
        log("watching uid \(sampler.uids.sorted().map(String.init).joined(separator: ", ")); "
            + children.map { "\(system ? $0.name + ": " : "")state in \($0.live.store.path); policy \($0.policyPath)" }.joined(separator: "; ")
            + (server.map { "; socket \($0.listener.path)" } ?? ""), ["event": "started"])
        knowPrograms()
        logHowProcessesAreFollowed()
        for i in children.indices { children[i].idleUntilFirstInput() }
        service.ready(status: summary())
        while !requests.stop.load(ordering: .relaxed) {
            keepServiceInformed()
            letGoOfUnusedMemory()
            if requests.reload.exchange(false, ordering: .relaxed) {
                for i in children.indices { children[i].reloadPolicy(announce: announcer()) }
                knowPrograms()
            }
            if SystemClock.monoMicros() >= nextSample(after: lastSample, kernelSpoke: kernelSpoke) {
                for i in children.indices { children[i].checkPausedGames() }
                kinds.removeAll(keepingCapacity: true)
                let heard = sampler.hearsKernel
                // (A look at every process of a busy machine can take seconds: the watchdog hears
                // from the sampler meanwhile, as long as it makes progress.)
                let service = service, every = service.watchdogEvery
                var next = nextWatchdog
                sampler.sample(at: SystemClock.monoMicros(), into: &kinds) {
                    let now = SystemClock.monoMicros()
                    if let every, now >= next { service.watchdog(); next = now + every }
                }
                nextWatchdog = next
                if heard, !sampler.hearsKernel { logHowProcessesAreFollowed(level: .warning) }
                logSilencedEvents()
                for k in kinds { route(k) }
                lastSample = SystemClock.monoMicros()
                kernelSpoke = false
                keepServiceInformed()
            }
            superviseHooks()
            // Wait for the next sample, a request, a signal, the kernel's word of an exec or an
            // end, or what a child needs next: each part says what it waits for (`LoopWait`), and
            // one plan waits for them all.
            var waits: [LoopWait] = [
                LoopWait(reads: [requests.wakeup.fd]),
                LoopWait(reads: !kernelSpoke ? sampler.kernelEventsDescriptor.map { [$0] } ?? [] : [],
                         due: nextSample(after: lastSample, kernelSpoke: kernelSpoke)),
            ]
            for i in children.indices {
                children[i].followLogind(now: SystemClock.monoMicros(), into: &kinds)
                children[i].followHousehold(now: SystemClock.monoMicros())
                children[i].followLoginSessions(now: SystemClock.monoMicros())
                children[i].followNotifications()
                let due = children[i].tickIfDue(now: SystemClock.monoMicros())
                children[i].saveIfDue()
                children[i].removeOldEventsIfDue()
                waits.append(children[i].waitsFor(tick: due))
            }
            if let plugged = seatInput?.rescanIfDue(now: SystemClock.monoMicros()), !plugged.isEmpty {
                log("input is counted from \(plugged.joined(separator: ", ")) of \(SeatInput.seat) too (plugged in)", ["event": "seat_input"])
            }
            let devices = seatInput?.descriptors ?? []
            waits.append(LoopWait(reads: devices, due: seatInput?.nextRescan))
            // System mode: the notification relays (one instance, shared by the children) say
            // which buttons were pressed.
            let relay = children.first?.relay
            let relays = relay?.descriptors ?? []
            waits.append(LoopWait(reads: relays))
            if service.watchdogEvery != nil { waits.append(LoopWait(due: nextWatchdog)) }
            waits.append(LoopWait(due: nextMemoryRelease))
            if service.notifying { waits.append(LoopWait(due: nextStatus)) }
            if let due = hooks?.nextDue { waits.append(LoopWait(due: due)) }
            // What is not the control server's: a descriptor ready among these is not a request.
            let busy = Set(waits.flatMap { $0.reads + $0.writes })
            if let server {
                // Requests left from the last turn: answered in this one, after a look at the sockets.
                waits.append(LoopWait(reads: server.readDescriptors, writes: server.writeDescriptors,
                                      due: server.hasWork ? SystemClock.monoMicros() : server.nextTimeout))
            }
            let plan = LoopPlan(waits, now: SystemClock.monoMicros(), longest: Self.quietSampleEvery)
            let ready = Poll.wait(read: plan.reads, write: plan.writes, timeoutMillis: plan.timeoutMillis)
            if ready.readable.contains(requests.wakeup.fd) { requests.wakeup.drain() }
            if let fd = sampler.kernelEventsDescriptor, ready.readable.contains(fd) { kernelSpoke = true }
            if !devices.isEmpty, !ready.readable.isDisjoint(with: devices),
               let input = seatInput?.read(ready: ready.readable, children: children.map(\.uid), now: SystemClock.monoMicros()),
               let i = index(ofChild: input.child) {
                children[i].seatInput(count: input.count)
            }
            if let relay, !ready.readable.isDisjoint(with: relays) {
                for press in relay.presses(readable: ready.readable) {
                    if let i = index(ofChild: press.uid) { children[i].pressedThroughRelay(press.key) }   // a parent's relay: no button of theirs
                }
            }
            requests.takeSignals()
            if var s = server, s.hasWork || !ready.readable.subtracting(busy).isEmpty || !ready.writable.subtracting(busy).isEmpty {
                let lost = s.serve(ready, now: SystemClock.monoMicros()) { request, caller in answer(request, from: caller) }
                server = s
                for hook in lost {
                    guard let i = index(ofChild: hook.child) else { continue }
                    if let browser = hook.browser {
                        children[i].siteReportsEnded(browser: browser)
                    } else {
                        children[i].hooksLost([hook.name], remaining: s.hooks(of: hook.child))
                    }
                }
            }
            server?.closeSilent(now: SystemClock.monoMicros())
            for i in children.indices { children[i].carryOutPending() }
        }
        service.stopping()
        hooks?.stopAll()
        var unsaved: [String] = []
        for i in children.indices {
            do { try children[i].live.flush(checkpoint: true) } catch {
                unsaved.append("\(children[i].live.unsavedEvents) events of \(children[i].name) could not be saved: \(error)")
            }
        }
        guard unsaved.isEmpty else {
            log("stopped, but " + unsaved.joined(separator: "; "), level: .error, ["event": "stopped"])
            throw StoreError(description: unsaved.joined(separator: "; "))
        }
        log("stopped; everything is saved", ["event": "stopped"])
    }

    /// System mode: the children's desktop hooks started, restarted and stopped with their sessions.
    mutating func superviseHooks() {
        guard var h = hooks else { return }
        let notices = h.supervise(children.map { ($0.uid, $0.name) }, now: SystemClock.monoMicros())
        hooks = h
        for n in notices {
            if let i = index(ofChild: n.child) { children[i].log(n.message, level: n.level, n.fields) }
        }
    }

    /// systemd hears of a policy reload: RELOADING=1 before, READY=1 with the status after.
    func announcer() -> (Bool) -> Void {
        let service = service
        let status = summary()
        return { starting in starting ? service.reloading() : service.ready(status: status) }
    }

    /// Answers a request about the child it names (`user`), or the caller's own, or the only one.
    /// Returns the reply, and for a hook event, the child it went to.
    mutating func answer(_ request: ControlRequest, from caller: ControlServer.Caller) -> ControlServer.Answer {
        func refused(_ why: Why) -> ControlServer.Answer { ControlServer.Answer(line: ControlReply.refused(why).line, ok: false, child: nil) }
        var caller = caller
        let own = index(ofChild: caller.credentials.uid)
        switch request.command {
        case .login: return login(request, from: caller)
        case .logout:
            guard let token = request.token else { return refused(Why(.logoutNeedsToken)) }
            let closed = parentSessions.close(token, caller: caller.credentials.uid)
            if closed { log("\(caller.name) logged out of a parent session", level: .notice, ["event": "parent_logout"]) }
            return ControlServer.Answer(line: ControlReply(ok: true, note: closed ? "logged out" : "no such session open: nothing to end").line, ok: true, child: nil)
        default: break
        }
        // A parent session's token stands for the passphrase, for the children it was given for.
        var session: ParentSessions.Session?
        if let token = request.token {
            guard let s = parentSessions.session(token, caller: caller.credentials.uid, now: SystemClock.monoMicros()) else {
                return refused(Why(.parentSessionOver))
            }
            session = s
        }
        func isParent(_ k: Int) -> Bool {
            session?.children.contains(children[k].uid) == true || children[k].currentAuthority().role(of: caller.credentials.uid) == .parent
        }
        if request.command == .family {
            let theirs = children.indices.filter { isParent($0) && (request.user == nil || children[$0].name == request.user) }
            guard !theirs.isEmpty else {
                return refused(request.user.map { Why(.notParentOfChild, ["who": caller.name, "child": $0]) }
                               ?? Why(.familyForParents, ["who": caller.name]))
            }
            var reply = ControlReply(ok: true)
            reply.family = theirs.map { k in ControlReply.FamilyMember(child: children[k].name, status: children[k].status(hooks: server?.hooks(of: children[k].uid) ?? [])) }
            return ControlServer.Answer(line: reply.line, ok: true, child: nil)
        }
        // System mode: a parent's requests and chores, of every child they are a parent of.
        if request.user == nil, own == nil, children.count > 1, [.requests, .chores].contains(request.command) {
            var reply = ControlReply(ok: true)
            var theirs: [String] = []
            for k in children.indices where isParent(k) {
                theirs.append(children[k].name)
                if request.command == .requests {
                    reply.requests = (reply.requests ?? []) + children[k].requestLines()
                } else {
                    reply.chores = (reply.chores ?? []) + children[k].choreLines()
                }
            }
            guard !theirs.isEmpty else {
                return refused(Why(.notParentOfAny, ["who": caller.name]))
            }
            return ControlServer.Answer(line: reply.line, ok: true, child: nil)
        }
        let i: Int
        if request.user == nil, own == nil, children.count > 1, [.approve, .deny].contains(request.command), let id = request.requestID {
            // System mode: a request's id names its child ("emma-3").
            guard let holder = children.firstIndex(where: { $0.live.engine.requests.contains { $0.id == id } }) else {
                return refused(Why(.noSuchRequest, ["id": id]))
            }
            i = holder
        } else if let name = request.user {
            guard let found = children.firstIndex(where: { $0.name == name }) else {
                let mine = index(ofChild: caller.credentials.uid) != nil
                if mine { return refused(Why(.onlyYourself, ["child": name])) }
                return refused(Why(.noSuchChild, caller.credentials.uid == 0 ? ["child": name, "children": children.map(\.name).joined(separator: ", ")] : ["child": name]))
            }
            i = found
        } else if let own {
            i = own
        } else if children.count == 1 {
            i = 0
        } else {
            return refused(Why(.nameAChild, caller.credentials.uid == 0 ? ["children": children.map(\.name).joined(separator: ", ")] : [:]))
        }
        let uid = children[i].uid
        if let session {
            guard session.children.contains(uid) else {
                return refused(Why(.sessionNotForChild, ["child": children[i].name]))
            }
            caller.parentSession = true
            caller.sessionParent = session.parent
        }
        // Only a reload tells systemd anything (and the status line is not worth making for every hook event).
        let announce = request.command == .reload ? announcer() : { _ in }
        if system { children[i].seatBlindSpot = seatInput.map { $0.blindSpot } ?? "logind is not asked (--no-logind), so no one is known to be at the keyboard: input is not counted, and learning earns nothing" }
        let reply = children[i].answerLine(request, from: caller, hooks: server?.hooks(of: uid) ?? [], announce: announce)
        var answer = ControlServer.Answer(line: reply.line, ok: reply.ok, child: uid)
        // System mode: idle and a lock from the child's own side are their claims; taking them
        // does not make the connection a desktop hook (status's `hooks`, and what its end means).
        // A browser's site reports (the native messaging host) are not a desktop hook either: its
        // end says nothing of what is focused.
        if request.command == .hookEvent, caller.credentials.uid != 0, let text = request.event,
           let said = try? EventLog.decode(hookEvent: text, at: WallTime(micros: 0, utcOffsetSeconds: 0), mono: 0) {
            switch said.kind {
            case .lockChanged where system, .idleChanged(idle: true, _, _) where system: answer.reporter = false
            case .siteChanged:
                answer.reporter = false
                if reply.ok { answer.siteBrowser = ProcessTree.parent(of: caller.credentials.pid) }
            default: break
            }
        }
        return answer
    }

    /// A parent gives the passphrase once and gets a token for the children whose passphrase it
    /// is (system mode: each child's policy has its own). A wrong one counts against the caller's
    /// lock at every child it was tried for; a right one does not count at the others.
    mutating func login(_ request: ControlRequest, from caller: ControlServer.Caller) -> ControlServer.Answer {
        func refused(_ why: Why) -> ControlServer.Answer { ControlServer.Answer(line: ControlReply.refused(why).line, ok: false, child: nil) }
        guard let phrase = request.passphrase, !phrase.isEmpty else { return refused(Why(.loginNeedsPassphrase)) }
        let minutes = request.minutes ?? ParentSessions.defaultMinutes
        guard ParentSessions.minutes.contains(minutes) else {
            return refused(Why(.loginMinutes, ["least": "\(ParentSessions.minutes.lowerBound)", "most": "\(ParentSessions.minutes.upperBound)"]))
        }
        let named = children.indices.filter { request.user == nil || children[$0].name == request.user }
        guard !named.isEmpty else { return refused(Why(.noSuchChild, ["child": request.user ?? ""])) }
        let withPhrase = named.filter { children[$0].hasPassphrase }
        guard !withPhrase.isEmpty else {
            return refused(Why(.loginNoPassphrase))
        }
        let now = SystemClock.wallMicros()
        let right: [Int]
        if let client = pageClient(request, caller) {
            // The parents' page: one user for every browser; a child at one of them must not lock
            // out the parents at the others (the page delays each browser's tries too).
            var gate = pageGates[client] ?? PassphraseGate()
            // Said by its address; a browser's cookie is not written to the journal.
            let shown = client.hasPrefix("address ") ? String(client.prefix(60)) : "a browser a parent logged in with"
            var matched: [Int] = []
            let outcome = gate.attempt(at: now) {
                matched = withPhrase.filter { children[$0].passphraseMatches(phrase) }
                return !matched.isEmpty
            }
            if pageGates.count >= 10_000 { pageGates = pageGates.filter { $0.value.lockedUntil != nil } }
            pageGates[client] = gate
            switch outcome {
            case .locked(let remaining):
                log("parent passphrase from the parents' page (\(shown)) not checked: locked after 5 wrong ones", level: .warning,
                    ["event": "passphrase_locked", "request": "login"])
                return refused(Child.lockedPassphrase(remaining: remaining))
            case .wrong(let left):
                log("wrong parent passphrase from the parents' page (\(shown))" + (left == 0 ? "; that browser is locked for 15 minutes" : ""),
                    level: .warning, ["event": "passphrase_wrong", "request": "login"])
                return refused(Child.wrongPassphrase(triesLeft: left))
            case .accepted:
                right = matched
            }
        } else {
            // Where the caller is locked out, the passphrase is not even checked.
            let locks = withPhrase.map { children[$0].passphraseLock(of: caller.credentials.uid, now: now) }
            let open = zip(withPhrase, locks).filter { $0.1 == nil }.map(\.0)
            guard !open.isEmpty else { return refused(Child.lockedPassphrase(remaining: locks.compactMap { $0 }.min() ?? PassphraseGate.lockFor)) }
            right = open.filter { children[$0].passphraseMatches(phrase) }
            guard !right.isEmpty else {
                var left = PassphraseGate.maxFailures
                for k in open {
                    if case .wrong(let l) = children[k].countPassphrase(what: "login", caller: caller, check: { false }) { left = min(left, l) }
                }
                return refused(Child.wrongPassphrase(triesLeft: left))
            }
            for k in right { _ = children[k].countPassphrase(what: "login", caller: caller, check: { true }) }
        }
        // Which parent: one that every child's policy names in [parents] users, when any names one.
        let parents = Set(right.flatMap { children[$0].live.engine.policy.parents.users })
        let trimmed = request.parent?.trimmingCharacters(in: .whitespaces)
        let parent = trimmed?.isEmpty == false ? trimmed : nil
        if !parents.isEmpty {
            guard let parent else { return refused(Why(.whichParent, ["parents": parents.sorted().joined(separator: ", ")])) }
            guard right.allSatisfy({ children[$0].live.engine.policy.parents.users.contains(parent) }) else {
                return refused(Why(.notAParent, ["parent": String(parent.prefix(40)), "parents": parents.sorted().joined(separator: ", ")]))
            }
        }
        let token = RandomToken.hex()
        parentSessions.open(token: token, caller: caller.credentials.uid, children: Set(right.map { children[$0].uid }),
                            minutes: minutes, now: SystemClock.monoMicros(), parent: parents.isEmpty ? nil : parent)
        log("\(parents.isEmpty ? caller.name : parent!) opened a parent session of \(minutes) min for \(right.map { children[$0].name }.joined(separator: ", "))"
            + (parents.isEmpty ? "" : " (from \(caller.name)'s account)"), level: .notice, ["event": "parent_login"])
        var reply = ControlReply(ok: true)
        reply.token = token
        reply.children = right.map { children[$0].name }
        return ControlServer.Answer(line: reply.line, ok: true, child: nil)
    }

    /// The browser a login of the parents' page comes from: its `client`, believed only from the
    /// page's own user (`--web-user`, which no child can be); nil for anyone else.
    func pageClient(_ request: ControlRequest, _ caller: ControlServer.Caller) -> String? {
        guard let client = request.client, !client.isEmpty, client.utf8.count <= 200, let webUser,
              let page = UserAccount.lookup(name: webUser), page.uid == caller.credentials.uid, page.uid != 0 else { return nil }
        return client
    }

    /// The watchdog's keep-alive, sent only from here: when the loop stops turning, it stops, and
    /// systemd restarts the daemon. And a one-line status every 10 s.
    private mutating func keepServiceInformed() {
        let now = SystemClock.monoMicros()
        if let wedgeAt, now >= wedgeAt {
            log("SCREENTIME_TEST_WEDGE_AFTER: the run loop stops turning (a test of the watchdog)", level: .critical)
            while true { sleep(3600) }
        }
        if let every = service.watchdogEvery, now >= nextWatchdog {
            service.watchdog()
            nextWatchdog = now + every
        }
        if now >= nextStatus {
            service.status(summary())
            nextStatus = now + Seconds.of(10)
        }
    }

    /// What start-up (and, later, the day's rare paths) mapped and no longer uses is let go of:
    /// SQLite's caches, the program's clean pages (ResidentMemory).
    private mutating func letGoOfUnusedMemory() {
        let now = SystemClock.monoMicros()
        guard now >= nextMemoryRelease else { return }
        for child in children { child.live.store.releaseMemory() }
        let released = ResidentMemory.releaseFilePages()
        log("let go of \(released.bytes / 1024) KiB of program pages not in use; resident now \(ResidentMemory.residentBytes() / 1024) KiB",
            level: .debug, ["event": "memory_released"])
        nextMemoryRelease = now + Seconds.of(3600)
    }

    /// User mode: "balance 54 points; game time left 20 min; 3 processes watched; hooks: x11".
    /// System mode: "emma 54 points, 20 min left; tom 3 points, 0 s left; 5 processes watched".
    func summary() -> String {
        let watched = "\(sampler.trackedCount) processes watched"
        if !system, let child = children.first {
            let engine = child.live.engine
            let hooks = server?.hooks ?? []
            return "balance \(engine.ledger.balance) points; game time left \(DurationText.words(engine.reward.availableNow)); "
                + "\(watched); " + (hooks.isEmpty ? "no desktop hook" : "hooks: " + hooks.joined(separator: ", "))
        }
        return (children.map { "\($0.name) \($0.live.engine.ledger.balance) points, \(DurationText.words($0.live.engine.reward.availableNow)) left" }
                + [watched]).joined(separator: "; ")
    }
}

extension Requests {
    /// What SIGTERM, SIGINT and SIGHUP asked since the last turn (StopSignals notes them).
    func takeSignals() {
        if StopSignals.stopAsked() { stop.store(true, ordering: .relaxed) }
        if StopSignals.reloadAsked() { reload.store(true, ordering: .relaxed) }
    }
}
