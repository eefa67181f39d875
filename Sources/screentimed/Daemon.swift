import ControlProtocol
import Dispatch
import Foundation
import Logging
import ScreenTimeCore
import ScreenTimeLinux
import ScreenTimePolicy
import ScreenTimeStore
import Synchronization

/// Signals turned into requests the run loop reads; `wakeup` interrupts its wait.
final class Requests: Sendable {
    let stop = Atomic<Bool>(false)
    let reload = Atomic<Bool>(false)
    let wakeup = Wakeup()
}

/// The live daemon: samples /proc, serves the control socket in between, stamps each observation
/// with both clocks, logs and applies it, saves every second, and says what it would enforce.
/// SIGTERM/SIGINT: save and stop; SIGHUP: reload the policy (a bad one is refused, the old one kept).
struct Daemon {
    var live: LiveState
    var sampler: ProcSampler
    var server: ControlServer?
    let policyPath: String
    let sampleEvery: Microseconds
    /// The journal under systemd, else standard error (`screentimed --log`).
    let logger: Logger
    /// Monotonic time of the last event logged.
    var lastMono = SystemClock.monoMicros()
    /// Monotonic time of the last save (or failed try), and why saving fails while it does.
    var lastSave = SystemClock.monoMicros()
    var saveFailure: String? = nil
    /// Removes old events from the log (nil: keep them all), at start and then every hour.
    var retention: Retention? = nil
    var nextRetention = SystemClock.monoMicros()
    /// Wrong parent passphrases lock the passphrase path for a while.
    var passphraseGate = PassphraseGate()
    /// Set when a new policy is in force: who is a parent may have changed (the cached Authority is stale).
    var policyChanged = false
    /// The user's logind session: idle, lock, sleep (nil: not watched, `--no-logind`).
    var logind: LogindObserver? = nil
    /// Signals stop and resume orders.
    var enforcer: Enforcer
    /// Tells the child on the desktop (nil: not asked, `--no-notifications`).
    var notifier: Notifier? = nil
    /// systemd: ready, status, watchdog, reloading, stopping (nothing outside systemd).
    let service = ServiceManager()
    var nextWatchdog: Int64 = 0
    var nextStatus: Int64 = 0
    /// A test-only fault (`SCREENTIME_TEST_WEDGE_AFTER=SECONDS`): the run loop stops turning that
    /// long after the start, as a hung daemon would, so that a test sees the watchdog go quiet.
    let wedgeAt: Int64? = ProcessInfo.processInfo.environment["SCREENTIME_TEST_WEDGE_AFTER"].flatMap(Int64.init)
        .map { SystemClock.monoMicros() + $0 * Seconds.micro }
    /// What requests caused (a redemption that lets a paused game go on, a hook's focus on a game
    /// with no time left), carried out after the requests are answered.
    var pending: [Effect] = []

    /// Both clocks, now, for the next event logged: every event the daemon logs is stamped here.
    mutating func clocks() -> (wall: WallTime, mono: Microseconds) {
        lastMono = SystemClock.monoMicros()
        return (WallTime(micros: SystemClock.wallMicros()), lastMono)
    }

    mutating func stamp(_ kind: Event.Kind) -> Event {
        let now = clocks()
        return Event(at: now.wall, mono: now.mono, kind)
    }

    /// One line for the journal: the message in words, and the same facts as fields
    /// (`SCREENTIME_EVENT`, `SCREENTIME_APP`, …, docs/journal.md).
    func log(_ message: String, level: Logger.Level = .info, _ fields: Logger.Metadata = [:]) {
        logger.log(level: level, "\(message)", metadata: fields.isEmpty ? nil : fields)
    }

    /// Carries out what the engine said (stops and resumes through the enforcer, notices through
    /// the notifier), and logs it.
    mutating func carryOut(_ e: Effect) {
        let engine = live.engine
        func at(_ w: Microseconds) -> String { RFC3339.format(micros: w, utcOffsetSeconds: engine.utcOffset(at: w)) }
        func seconds(_ us: Microseconds) -> Logger.MetadataValue { "\(us / Seconds.micro)" }
        let told = Notice.about(e, policy: engine.policy).map(tell) ?? ""
        switch e {
        case .warn(let w):
            log("\(at(w.at)) warn: \(DurationText.words(w.remaining)) of game time left (\(w.limit.rawValue))" + told,
                ["event": "warn", "remaining_seconds": seconds(w.remaining), "reason": "\(w.limit.rawValue)"])
        case .stop(let s):
            let facts = engine.process(s.pid)
            let done = enforcer.stop(s, process: facts)
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
            log("\(at(r.at)) refused \(r.request): \(r.reason)", level: .notice, ["event": "refused", "request": "\(r.request)"])
        case .clockJumped(let w, let by):
            log("\(at(w)) the wall clock jumped by \(by / Seconds.micro) s; the calendar did not follow", level: .warning,
                ["event": "clock_jump", "reason": "clock_jump", "jump_seconds": seconds(by)])
        case .ledger(let entry):
            logLedger(entry, at: at(entry.at))
        case .dayEnded:
            break
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
        case .expired:
            fields["event"] = "expire"
            fields["reward_seconds"] = "\((entry.rewardSeconds ?? 0) / Seconds.micro)"
            log("\(at) \(DurationText.words(entry.rewardSeconds ?? 0)) of redeemed game time expired unused", fields)
        }
    }

    /// Shows a notice on the child's desktop; returns what the journal line adds about it.
    private func tell(_ notice: Notice) -> String {
        guard let notifier else { return "" }
        if notifier.notify(summary: notice.summary, body: notice.body, urgency: notice.urgency, now: SystemClock.monoMicros()) { return "; notified" }
        return "; not notified (\(notifier.problem ?? "no notification service"))"
    }

    mutating func run(requests: Requests, childUID: UInt32) throws {
        var kinds: [Event.Kind] = []
        var nextSample = SystemClock.monoMicros()
        var authority: Authority? = nil
        live.ingest(stamp(.daemonStarted))
        save()
        log("watching uid \(sampler.uids.sorted().map(String.init).joined(separator: ", ")); state in \(live.store.path); policy \(policyPath)"
            + (server.map { "; socket \($0.listener.path)" } ?? ""), ["event": "started"])
        service.ready(status: summary())
        while !requests.stop.load(ordering: .relaxed) {
            keepServiceInformed()
            if requests.reload.exchange(false, ordering: .relaxed) {
                reloadPolicy()
            }
            var actions: [Effect] = []
            if SystemClock.monoMicros() >= nextSample {
                kinds.removeAll(keepingCapacity: true)
                sampler.sample(at: SystemClock.monoMicros(), into: &kinds)
                for k in kinds { actions += live.ingest(stamp(k)) }
                nextSample = SystemClock.monoMicros() + sampleEvery
            }
            if let logind {
                kinds.removeAll(keepingCapacity: true)
                let notices = logind.update(now: SystemClock.monoMicros(), into: &kinds)
                for k in kinds { actions += live.ingest(stamp(k)) }
                for notice in notices { heed(notice) }
            }
            var due = live.engine.timeToNextDeadline
            if let d = due, SystemClock.monoMicros() - lastMono >= d {
                actions += live.ingest(stamp(.tick))
                due = live.engine.timeToNextDeadline
            }
            for a in actions { carryOut(a) }
            saveIfDue()
            removeOldEventsIfDue()
            // Wait for the next sample, a request, or a signal.
            var wait = max(0, nextSample - SystemClock.monoMicros())
            if service.watchdogEvery != nil { wait = min(wait, max(0, nextWatchdog - SystemClock.monoMicros())) }
            if live.unsavedEvents > 0 { wait = min(wait, max(0, lastSave + Seconds.micro - SystemClock.monoMicros())) }
            if let d = due { wait = min(wait, max(0, lastMono + d - SystemClock.monoMicros())) }
            if let retry = logind?.nextRetry { wait = min(wait, max(0, retry - SystemClock.monoMicros())) }
            if let quiet = server?.nextTimeout { wait = min(wait, max(0, quiet - SystemClock.monoMicros())) }
            let bus = logind?.descriptor.map { [$0] } ?? []
            let ready = Poll.wait(read: [requests.wakeup.fd] + bus + (server?.readDescriptors ?? []),
                                  write: (logind?.wantsWrite == true ? bus : []) + (server?.writeDescriptors ?? []),
                                  timeoutMillis: Int32(min(wait / 1000 + 1, 1000)))
            if ready.readable.contains(requests.wakeup.fd) { requests.wakeup.drain() }
            if var s = server, !ready.readable.subtracting(bus).isEmpty || !ready.writable.subtracting(bus).isEmpty {
                // Who is a parent follows the policy in force.
                if authority == nil || policyChanged {
                    authority = Authority(childUID: childUID, policy: live.engine.policy)
                    policyChanged = false
                }
                let lost = s.serve(ready, now: SystemClock.monoMicros()) { request, caller in
                    answer(request, from: caller, authority: authority!)
                }
                server = s
                if !lost.isEmpty { hooksLost(lost, remaining: s.hooks) }
            }
            server?.closeSilent(now: SystemClock.monoMicros())
            if !pending.isEmpty {
                let caused = pending
                pending.removeAll()
                for a in caused { carryOut(a) }
            }
        }
        service.stopping()
        do {
            try live.flush(checkpoint: true)
            log("stopped; everything is saved", ["event": "stopped"])
        } catch {
            log("stopped, but \(live.unsavedEvents) events could not be saved: \(error)", level: .error, ["event": "stopped", "unsaved_events": "\(live.unsavedEvents)"])
            throw error
        }
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

    /// "balance 54 points; game time left 20 min; 3 processes watched; hooks: x11"
    func summary() -> String {
        let engine = live.engine
        let hooks = server?.hooks ?? []
        return "balance \(engine.ledger.balance) points; game time left \(DurationText.words(engine.reward.availableNow)); "
            + "\(sampler.trackedCount) processes watched; " + (hooks.isEmpty ? "no desktop hook" : "hooks: " + hooks.joined(separator: ", "))
    }

    /// Saves in batches, at least every second (redemptions, adjustments and the start at once, in
    /// `ingest`). When saving fails, the engine goes on with what it knows, and it is tried again
    /// every second until it works: nothing unsaved is dropped.
    private mutating func saveIfDue() {
        guard live.unsavedEvents > 0, SystemClock.monoMicros() - lastSave >= Seconds.micro else { return }
        save()
    }

    private mutating func save(checkpoint: Bool = false) {
        lastSave = SystemClock.monoMicros()
        do {
            try live.flush(checkpoint: checkpoint)
            if saveFailure != nil { log("saving works again", level: .notice, ["event": "save_works"]); saveFailure = nil }
        } catch {
            let message = "\(error)"
            if saveFailure != message { log("cannot save (will retry every second): \(message)", level: .error, ["event": "save_failed"]) }
            saveFailure = message
        }
    }

    /// A desktop hook went away. Once none is left, the focused window is unknown: the engine
    /// hears that nothing is focused (so nothing is credited for focus) until a hook is back.
    private mutating func hooksLost(_ lost: [String], remaining: [String]) {
        guard remaining.isEmpty else {
            log("the \(lost.joined(separator: ", ")) desktop hook disconnected; still connected: \(remaining.joined(separator: ", "))",
                level: .warning, ["event": "hook_lost", "hook": .array(lost.map { "\($0)" })])
            return
        }
        log("the \(lost.joined(separator: ", ")) desktop hook disconnected, and no other is connected: nothing counts as focused until one is back",
            level: .warning, ["event": "hook_lost", "hook": .array(lost.map { "\($0)" })])
        for a in live.ingest(stamp(.focusChanged(FocusedWindow(pid: nil, appID: nil, title: nil)))) {
            carryOut(a)
        }
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

    /// Retention, in short runs: another run follows soon while old events remain, else in an hour.
    private mutating func removeOldEventsIfDue() {
        guard let retention, SystemClock.monoMicros() >= nextRetention, saveFailure == nil else { return }
        var removed = 0
        do {
            // The engine's trusted calendar time, not the wall clock: setting the clock ahead must
            // not make recent events look old enough to remove.
            removed = try retention.run(on: live.store, now: live.engine.clock.wall(at: live.engine.now))
            if removed > 0 { log("removed \(removed) events older than \(retention.keep / 86_400 / Seconds.micro) days from the event log; the ledger and sessions are unchanged") }
        } catch {
            log("old events were not removed: \(error)", level: .error)
        }
        nextRetention = SystemClock.monoMicros() + (removed >= retention.maxEventsPerRun ? 10 : 3600) * Seconds.micro
    }

    /// Reads the policy file again (SIGHUP, `stctl policy reload`): what happened, or why not.
    @discardableResult
    mutating func reloadPolicy() -> Result<String, PolicyNotReloaded> {
        do {
            let text = try PolicyLoader.loadWithText(path: policyPath).text
            guard text != live.policyText else { return .success("\(policyPath) is unchanged; nothing to reload") }
            service.reloading()
            defer { service.ready(status: summary()) }
            pending += try live.adopt(policyText: text, file: policyPath)
            policyChanged = true
            log("policy reloaded from \(policyPath)", level: .notice, ["event": "policy_reloaded"])
            return .success("policy reloaded from \(policyPath)")
        } catch {
            log("policy not reloaded, the old one stays in force: \(error)", level: .error, ["event": "policy_refused"])
            return .failure(PolicyNotReloaded(description: "policy not reloaded, the old one stays in force: \(error)"))
        }
    }
}

struct PolicyNotReloaded: Error, CustomStringConvertible { var description: String }

/// SIGTERM, SIGINT and SIGHUP, delivered to `requests` instead of ending the process.
func handleSignals(_ requests: Requests) -> [DispatchSourceSignal] {
    let queue = DispatchQueue(label: "screentimed.signals")
    return [(SIGTERM, false), (SIGINT, false), (SIGHUP, true)].map { (number, reload) in
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
        source.setEventHandler {
            if reload { requests.reload.store(true, ordering: .relaxed) } else { requests.stop.store(true, ordering: .relaxed) }
            requests.wakeup.poke()
        }
        source.resume()
        return source
    }
}
