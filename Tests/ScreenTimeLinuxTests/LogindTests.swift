import Foundation
import ScreenTimeCore
@testable import ScreenTimeLinux
@testable import ScreenTimeSystemd
import TestSupport
import Testing

@Suite("logind through sd-bus, against a real dbus-daemon and dbusmock's logind", .ownThread, .serialized)
struct LogindTests {
    static let uid: UInt32 = 4242

    struct Seen {
        var kinds: [Event.Kind] = []
        var notices: [LogindObserver.Notice] = []
    }

    /// Lets the observer handle the bus until `done` holds for what it reported since the call.
    @discardableResult
    static func pump(_ o: LogindObserver, until done: (Seen) -> Bool) -> Seen {
        var seen = Seen()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            var kinds: [Event.Kind] = []
            seen.notices += o.update(now: SystemClock.monoMicros(), into: &kinds)
            seen.kinds += kinds
            if done(seen) { return seen }
            var fds = [pollfd(fd: o.descriptor ?? -1, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 1, 50)
        }
        Issue.record("not seen in 10 s; saw \(seen)")
        return seen
    }

    /// Lets the observer handle what is already on the bus, and returns it (for "nothing happens").
    static func settle(_ o: LogindObserver, _ bus: MockLogind) throws -> Seen {
        // A round trip through the mock: once its reply is back, earlier signals have arrived too.
        try bus.call("/org/freedesktop/login1", "org.freedesktop.DBus.Properties", "GetAll", [.string("org.freedesktop.login1.Manager")])
        var seen = Seen()
        for _ in 0..<5 {
            var kinds: [Event.Kind] = []
            seen.notices += o.update(now: SystemClock.monoMicros(), into: &kinds)
            seen.kinds += kinds
            var fds = [pollfd(fd: o.descriptor ?? -1, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 1, 20)
        }
        return seen
    }

    @Test("idle, lock, the Lock/Unlock signals and sleep reach the engine as events; forged signals do not")
    func sessionFollowed() throws {
        let logind = try MockLogind()
        try logind.addSession("c2", uid: Self.uid, name: "alice")
        try logind.answerSessionByPID("c2")
        let o = LogindObserver(uid: Self.uid, address: logind.address)
        let path = "/org/freedesktop/login1/session/c2"
        let found = Self.pump(o) { $0.notices.contains(.watching(session: path)) }
        #expect(found.kinds.isEmpty)   // neither idle nor locked: nothing to tell the engine
        #expect(o.watching && o.problem == nil)

        let since: UInt64 = 1_795_000_000_000_000
        try logind.setSession("c2", ["IdleHint": .bool(true), "IdleSinceHint": .uint64(since)])
        #expect(Self.pump(o) { !$0.kinds.isEmpty }.kinds == [.idleChanged(idle: true, since: WallTime(micros: Int64(since)))])
        try logind.setSession("c2", ["IdleHint": .bool(false)])
        #expect(Self.pump(o) { !$0.kinds.isEmpty }.kinds == [.idleChanged(idle: false, since: nil)])

        try logind.call(path, "org.freedesktop.login1.Session", "SetLockedHint", [.bool(true)])
        #expect(Self.pump(o) { !$0.kinds.isEmpty }.kinds == [.lockChanged(locked: true)])
        // Someone else's "Unlock" on the session's path is not believed.
        try logind.forge(path, "Unlock")
        #expect(try Self.settle(o, logind).kinds.isEmpty)
        try logind.call(path, "org.freedesktop.login1.Session", "SetLockedHint", [.bool(false)])
        #expect(Self.pump(o) { !$0.kinds.isEmpty }.kinds == [.lockChanged(locked: false)])

        try logind.call(path, "org.freedesktop.login1.Session", "Lock")
        #expect(Self.pump(o) { !$0.kinds.isEmpty }.kinds == [.lockChanged(locked: true)])
        try logind.call(path, "org.freedesktop.login1.Session", "Unlock")
        #expect(Self.pump(o) { !$0.kinds.isEmpty }.kinds == [.lockChanged(locked: false)])

        // Switched away from (another user's session in front): counts as locked.
        try logind.setSession("c2", ["Active": .bool(false)])
        #expect(Self.pump(o) { !$0.kinds.isEmpty }.kinds == [.lockChanged(locked: true)])
        try logind.setSession("c2", ["Active": .bool(true)])
        #expect(Self.pump(o) { !$0.kinds.isEmpty }.kinds == [.lockChanged(locked: false)])

        try logind.emit(on: "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "PrepareForSleep", "b", [.bool(true)])
        #expect(Self.pump(o) { !$0.notices.isEmpty }.notices == [.preparingForSleep(true)])
        try logind.emit(on: "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "PrepareForSleep", "b", [.bool(false)])
        #expect(Self.pump(o) { !$0.notices.isEmpty }.notices == [.preparingForSleep(false)])
    }

    @Test("without GetSessionByPID, the user's active session is chosen from ListSessions; others are ignored")
    func listSessions() throws {
        let logind = try MockLogind()
        try logind.addSession("other", uid: 5000, name: "bob")
        try logind.addSession("tty", uid: Self.uid, name: "alice", active: false)
        try logind.addSession("desk", uid: Self.uid, name: "alice", active: true)
        let o = LogindObserver(uid: Self.uid, address: logind.address)
        Self.pump(o) { $0.notices.contains(.watching(session: "/org/freedesktop/login1/session/desk")) }
        // Another user's session going idle is not ours.
        try logind.setSession("other", ["IdleHint": .bool(true)])
        #expect(try Self.settle(o, logind).kinds.isEmpty)
        try logind.setSession("desk", ["IdleHint": .bool(true)])
        #expect(Self.pump(o) { !$0.kinds.isEmpty }.kinds == [.idleChanged(idle: true, since: nil)])
    }

    @Test("a session that begins after the start is followed as logind announces it, not at the next look 10 s later; locked at once, it is heard")
    func sessionBegunLater() throws {
        let logind = try MockLogind()
        let o = LogindObserver(uid: Self.uid, address: logind.address)
        // The observer's clock stands still: a look that waits for its 10-s retry never comes.
        let now = SystemClock.monoMicros()
        var kinds: [Event.Kind] = []
        _ = o.update(now: now, into: &kinds)
        #expect(o.problem == "no logind session of uid \(Self.uid) yet; looking again every 10 s")
        #expect(try Self.settle(o, logind).notices.isEmpty)   // (settle's own clock is a few ms on: no retry due)

        try logind.addSession("c5", uid: Self.uid, name: "alice")
        try logind.lockedHint("c5", true)
        var seen = Seen()
        try Wait.until("the new session followed with the clock standing still", within: 10) {
            var k: [Event.Kind] = []
            seen.notices += o.update(now: now, into: &k)
            seen.kinds += k
            var fds = [pollfd(fd: o.descriptor ?? -1, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 1, 50)
            return seen.notices.contains(.watching(session: "/org/freedesktop/login1/session/c5")) && !seen.kinds.isEmpty
        }
        #expect(seen.kinds == [.lockChanged(locked: true)])
    }

    @Test("a logind restart is followed: the session is found again and its state reported")
    func restart() throws {
        let logind = try MockLogind()
        try logind.addSession("c2", uid: Self.uid, name: "alice")
        let o = LogindObserver(uid: Self.uid, address: logind.address)
        Self.pump(o) { $0.notices.contains(.watching(session: "/org/freedesktop/login1/session/c2")) }
        try logind.call("/org/freedesktop/login1/session/c2", "org.freedesktop.login1.Session", "SetLockedHint", [.bool(true)])
        Self.pump(o) { $0.kinds == [.lockChanged(locked: true)] }

        logind.stopMock()
        Self.pump(o) { $0.notices.contains(.lost("logind stopped")) }
        #expect(!o.watching)
        #expect(o.problem == "logind stopped: idle and lock come only from desktop hooks")

        try logind.startMock()
        try logind.addSession("c7", uid: Self.uid, name: "alice")
        // The new session is not locked: the engine hears that it is not any more.
        let again = Self.pump(o) { $0.notices.contains(.watching(session: "/org/freedesktop/login1/session/c7")) && !$0.kinds.isEmpty }
        #expect(again.kinds == [.lockChanged(locked: false)])
    }

    @Test("no system bus: it says so, and does not watch")
    func noBus() {
        let o = LogindObserver(uid: Self.uid, address: "unix:path=/nonexistent/screentime-test-bus")
        var kinds: [Event.Kind] = []
        let notices = o.update(now: SystemClock.monoMicros(), into: &kinds)
        #expect(kinds.isEmpty)
        #expect(!o.watching)
        #expect(o.problem?.hasPrefix("no system bus (cannot connect to the system bus at unix:path=/nonexistent/screentime-test-bus: ") == true)
        #expect(notices.count == 1)
    }
}
