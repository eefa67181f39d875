import ScreenTimeCore
import ScreenTimeLinux

/// Carries out the engine's stop and resume orders with signals; it decides nothing. A game and
/// the processes that go with it (`ProcessGroup`) are each held by a pidfd, checked against the
/// start time the sampler saw, so that no signal reaches a process that reused a pid.
///
/// - terminate, first order: SIGCONT (a stopped process keeps SIGTERM pending), then SIGTERM;
///   told again (the engine does after `grace`): SIGKILL.
/// - pause: SIGSTOP, and the processes are kept until the engine says resume: SIGCONT.
struct Enforcer {
    let group: ProcessGroup
    private var paused: [Int32: [ProcessHandle]] = [:]

    init(group: ProcessGroup) { self.group = group }

    /// Signals what the order names; returns what was done, in words, for the journal.
    mutating func stop(_ order: StopOrder, process: ProcessFacts?) -> String {
        // Paused games that were closed meanwhile hold nothing any more.
        paused = paused.filter { $0.value.first?.isAlive == true }
        guard group.mayTouch(order.pid) else { return "not signalled: it is this daemon or what runs it" }
        let handles: [ProcessHandle]
        do throws(ProcessHandle.Failure) { handles = try game(order.pid, process) } catch { return "nothing signalled: \(error)" }
        let signals: [StopSignal]
        switch order.action {
        case .pause: signals = [.pause]
        case .terminate: signals = order.repeatCount == 0 ? [.resume, .terminate] : [.kill]
        }
        paused[order.pid] = order.action == .pause ? handles : nil
        return send(signals, to: handles.filter(\.isAlive))
    }

    /// Lets a paused game run again. A game paused before the daemon restarted is found again by
    /// its pid and start time (and the processes that go with it now).
    mutating func resume(_ pid: Int32, process: ProcessFacts?) -> String {
        var handles = paused.removeValue(forKey: pid) ?? []
        if handles.isEmpty, group.mayTouch(pid) { handles = (try? game(pid, process)) ?? [] }
        guard !handles.isEmpty else { return "nothing to resume: it has exited" }
        return send([.resume], to: handles)
    }

    /// The paused `games` that run again: someone sent them (or a process that goes with them)
    /// SIGCONT. The engine is told, and pauses them again. A game paused before the daemon
    /// restarted is found by its pid and start time.
    mutating func runningAgain(_ games: Set<Int32>, process: (Int32) -> ProcessFacts?) -> [Int32] {
        var found: [Int32] = []
        for pid in games.sorted() {
            if paused[pid] == nil, group.mayTouch(pid) { paused[pid] = try? game(pid, process(pid)) }
            guard let handles = paused[pid] else { continue }
            if handles.contains(where: { $0.runs == true }) { found.append(pid) }
        }
        return found
    }

    /// The game (opened with the start time the sampler saw) and the processes that go with it now.
    private func game(_ pid: Int32, _ process: ProcessFacts?) throws(ProcessHandle.Failure) -> [ProcessHandle] {
        let main = try ProcessHandle(pid: pid, startTicks: process?.startTicks)
        return [main] + group.members(of: pid, cgroup: process?.cgroup).compactMap { try? ProcessHandle(pid: $0.pid, startTicks: $0.startTicks) }
    }

    /// Sends `signals` in order to each process; "SIGTERM to 2 processes", and what failed but for exits.
    private func send(_ signals: [StopSignal], to handles: [ProcessHandle]) -> String {
        var reached = 0
        var problems: [String] = []
        for h in handles {
            var any = false
            for s in signals {
                do throws(ProcessHandle.Failure) { try h.send(s); any = true } catch {
                    if error != .gone { problems.append("pid \(h.pid): \(error)") }
                }
            }
            if any { reached += 1 }
        }
        let what = "\(signals.last!.name) to \(reached) process\(reached == 1 ? "" : "es")"
        return problems.isEmpty ? what : what + " (" + problems.joined(separator: "; ") + ")"
    }
}
