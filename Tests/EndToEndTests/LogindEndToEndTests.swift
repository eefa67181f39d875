import Foundation
import TestSupport
import Testing

/// The real daemon, as the child (uid 65534), against a real dbus-daemon with dbusmock's logind.
@Suite("screentimed follows logind", .ownThread, .serialized)
struct LogindEndToEndTests {
    @Test("lock and idle from logind are logged events; sleep saves everything at once; status says logind is watched")
    func lockIdleSleep() throws {
        let logind = try MockLogind()
        try logind.addSession("c5", uid: 65534, name: "nobody")
        let d = try LiveDaemon(environment: ["DBUS_SYSTEM_BUS_ADDRESS": logind.address])
        _ = try d.waitFor("following logind session /org/freedesktop/login1/session/c5")
        let status = try ReplayBinaryTests.runBinary(ControlSocketTests.stctl, ["status", "--socket", d.socket])
        #expect(status.status == 0)
        #expect(!status.stdout.contains("logind"), "\(status.stdout)")

        try logind.call("/org/freedesktop/login1/session/c5", "org.freedesktop.login1.Session", "SetLockedHint", [.bool(true)])
        try logind.setSession("c5", ["IdleHint": .bool(true), "IdleSinceHint": .uint64(1_795_000_000_000_000)])
        try logind.emit(on: "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "PrepareForSleep", "b", [.bool(true)])
        _ = try d.waitFor("the machine is going to sleep: everything is saved")
        // Saved at once, with a checkpoint at the last event: nothing waits for the next second.
        let events = try d.sql("SELECT group_concat(json_extract(line, '$.event'), ' ') FROM event WHERE json_extract(line, '$.event') NOT LIKE 'process%'")
        #expect(events == "daemon_started lock_changed idle_changed")
        #expect(try d.sql("SELECT json_extract(line, '$.since') FROM event WHERE line LIKE '%idle_changed%'") == "2026-11-18T11:06:40Z")
        #expect(try d.sql("SELECT max(event_seq) = (SELECT max(seq) FROM event) FROM checkpoint") == "1")
        try d.stop()
    }

    @Test("no system bus: the daemon runs without logind and status says so")
    func noBus() throws {
        let d = try LiveDaemon(environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/screentime-bus"])
        _ = try d.waitFor("logind: no system bus")
        let status = try ReplayBinaryTests.runBinary(ControlSocketTests.stctl, ["status", "--socket", d.socket])
        #expect(status.status == 0)
        #expect(status.stdout.contains("Note: no system bus (cannot connect to the system bus at unix:path=/nonexistent/screentime-bus: "), "\(status.stdout)")
        try d.stop()
    }
}
