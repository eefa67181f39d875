import Foundation
@testable import ScreenTimeLinux
import TestSupport
import Testing

/// pidfd signals against real processes.
@Suite("Signals through pidfds", .ownThread, .serialized)
struct SignalTests {
    /// Their processes' uid: not the sampler suite's child, whose tests count that uid's processes
    /// and run beside these. No other test uses it.
    static let child: UInt32 = 65012

    @Test("a pid reused by another process is not signalled: the old handle answers that its process is gone")
    func reusedPid() throws {
        var opened: ProcessHandle? = nil
        let reused = try ProcSamplerTests.reusePid(first: ["/bin/sleep", "30"], second: ["/bin/sleep", "30"], uid: Self.child) { first in
            let pid = first.processIdentifier
            opened = try ProcessHandle(pid: pid, startTicks: try #require(ProcessHandle.stat(of: pid)?.startTicks))
            #expect(opened?.isAlive == true)
        }
        let second = try #require(reused, "no pid could be handed out again")
        defer { ProcSamplerTests.end(second) }
        let pid = second.processIdentifier
        let handle = try #require(opened)
        #expect(handle.pid == pid)
        #expect(!handle.isAlive)
        #expect(throws: ProcessHandle.Failure.gone) { try handle.send(.kill) }
        // A sleep, not a wait: nothing is to happen. Had a SIGKILL gone out, 0.1 s would see its process end.
        usleep(100_000)
        #expect(second.isRunning)
        // Opened by pid with the old process's start time, the new one is not taken for it either.
        let oldStart = try #require(ProcessHandle.stat(of: pid)?.startTicks) - 1
        #expect(throws: ProcessHandle.Failure.gone) { try ProcessHandle(pid: pid, startTicks: oldStart) }
    }

    @Test("SIGSTOP and SIGCONT reach the process; the daemon's own ancestors are never members of a game")
    func pauseAndResume() throws {
        let p = try ProcSamplerTests.spawn(["/bin/sleep", "30"], uid: Self.child)
        defer { ProcSamplerTests.end(p) }
        let handle = try ProcessHandle(pid: p.processIdentifier)
        func state() -> String? {
            (try? String(contentsOfFile: "/proc/\(p.processIdentifier)/stat", encoding: .utf8))?.split(separator: ")").last?
                .split(separator: " ").first.map(String.init)
        }
        try handle.send(.pause)
        try Wait.until("the process to show stopped (T)", within: 10, every: 0.01) { state() == "T" }
        #expect(state() == "T")
        try handle.send(.resume)
        // Asleep again (S), as before the pause: just after SIGCONT it may show R for a moment.
        try Wait.until("the process to show asleep (S) again, not stopped", within: 10, every: 0.01) { state() == "S" }
        #expect(state() == "S")
        let group = ProcessGroup(uids: [0, Self.child])
        #expect(!group.mayTouch(getpid()))
        #expect(!group.mayTouch(getppid()))
        #expect(!group.mayTouch(1))
        #expect(group.mayTouch(p.processIdentifier))
    }

    @Test("a game whose first thread ended (it shows as a zombie) is seen paused, and seen running again when another process sends it SIGCONT")
    func pauseAfterFirstThreadEnded() throws {
        let p = try ProcSamplerTests.spawn(["/usr/bin/python3", "-c",
            "import ctypes, threading, time\nthreading.Thread(target=time.sleep, args=(60,)).start()\nctypes.CDLL(None).pthread_exit(None)"], uid: Self.child)
        defer { ProcSamplerTests.end(p) }
        let pid = p.processIdentifier
        func status() -> String { (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? "" }
        Wait.whether(within: 20, every: 0.01) { status().contains("State:\tZ") && status().contains("Threads:\t2") }
        try #require(status().contains("State:\tZ") && status().contains("Threads:\t2"), "\(status())")
        let handle = try ProcessHandle(pid: pid, startTicks: try #require(ProcessHandle.stat(of: pid)?.startTicks))
        #expect(handle.isAlive)
        #expect(handle.runs == true)
        try handle.send(.pause)
        try Wait.until("the handle to see its process paused", within: 10, every: 0.01) { handle.runs == false }
        #expect(handle.runs == false)
        // Another of the child's processes lets it go on: the daemon must see it run again.
        kill(pid, SIGCONT)
        try Wait.until("the handle to see its process run again", within: 10, every: 0.01) { handle.runs == true }
        #expect(handle.runs == true)
        try handle.send(.kill)
        p.waitUntilExit()
        #expect(handle.runs == nil)
    }

    @Test("the processes a game started go with it; others of the same user do not")
    func members() throws {
        // A shell that starts two sleeps; and a sleep of the same user that the shell did not start.
        let game = try ProcSamplerTests.spawn(["/bin/sh", "-c", "sleep 30 & sleep 30 & wait"], uid: Self.child)
        defer { ProcSamplerTests.end(game) }
        let other = try ProcSamplerTests.spawn(["/bin/sleep", "30"], uid: Self.child)
        defer { ProcSamplerTests.end(other) }
        let group = ProcessGroup(uids: [Self.child])
        var found: [(pid: Int32, startTicks: Int64)] = []
        // Killed through pidfds: by pid, a sleep gone meanwhile could be another test's process.
        defer { for m in found { try? ProcessHandle(pid: m.pid, startTicks: m.startTicks).send(.kill) } }
        Wait.whether(within: 2, every: 0.01) {
            found = group.members(of: game.processIdentifier, cgroup: nil)
            return found.count >= 2
        }
        #expect(found.count == 2)
        #expect(found.allSatisfy { ProcessHandle.stat(of: $0.pid)?.parent == game.processIdentifier })
        #expect(!found.contains { $0.pid == other.processIdentifier })
    }
}
