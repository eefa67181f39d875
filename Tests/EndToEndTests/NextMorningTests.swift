import Foundation
import ScreenTimeCore
import Testing

/// Issue #35: a computer switched off in the evening and booted the next morning. The real daemon
/// starts on a state whose log ends "yesterday evening" under another boot id, with 50 of the day's
/// 60 minutes played; its own start writes this kernel's boot id. The clocks are this machine's
/// real ones (the daemon reads them through the system call, which libfaketime cannot move), so the
/// evening is put in the past rather than the morning in the future.
@Suite("The next morning, after a night switched off", .serialized)
struct NextMorningTests {
    static let policy = """
        version = 1
        timezone = "UTC"

        [rewards]
        daily_limit = "60m"
        daily_allowance = "60m"

        [[apps]]
        name = "SuperTuxKart"
        category = "reward"
        exe = ["/usr/games/supertuxkart"]
        """

    /// Yesterday 17:00-18:00 UTC: the game ran 50 minutes; the boot clock small, as early in a boot.
    static func yesterdayEvening() throws -> String {
        let now = Int64(Date().timeIntervalSince1970)
        let evening = (now / 86_400 - 1) * 86_400 + 17 * 3600
        func at(_ s: Int64) -> String { RFC3339.format(micros: (evening + s) * Seconds.micro, utcOffsetSeconds: 0) }
        let lines = [
            #"{"at":"\#(at(0))","mono":10,"event":"daemon_started","boot":"00000000-0000-4000-8000-yesterday000"}"#,
            #"{"at":"\#(at(0))","mono":10,"event":"process_started","pid":4000001,"exe":"/usr/games/supertuxkart","uid":65534,"start_ticks":1,"exe_writable":false}"#,
            #"{"at":"\#(at(3000))","mono":3010,"event":"process_exited","pid":4000001}"#,
            #"{"at":"\#(at(3600))","mono":3610,"event":"tick"}"#,
        ]
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("yesterday-\(UUID().uuidString).jsonl").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        return path
    }

    @Test("today has its whole hour; yesterday's 50 minutes are yesterday's, and known; the start names this boot")
    func wholeHourNextMorning() throws {
        let events = try Self.yesterdayEvening()
        defer { try? FileManager.default.removeItem(atPath: events) }
        let d = try LiveDaemon(policy: Self.policy, arguments: ["--sample-every", "1h", "--no-logind"], importing: events)
        defer { try? d.stop() }
        _ = try d.waitFor("watching uid")
        let s = try d.status()
        #expect(s["reward_available_seconds"] as? Int == 3600, "\(s)")
        #expect(s["reward_used_today_seconds"] as? Int == 0, "\(s)")
        // Yesterday's end was passed at the start: its total is saved.
        let yesterday = try d.poll("SELECT reward_used_micros FROM day") { !$0.isEmpty }
        #expect(yesterday == "3000000000")
        // The daemon's own start carries the kernel's boot id.
        let boot = try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let started = try d.sql("SELECT line FROM event WHERE line LIKE '%daemon_started%' ORDER BY seq DESC LIMIT 1")
        #expect(started.contains("\"boot\":\"\(boot)\""), "\(started)")
    }
}
