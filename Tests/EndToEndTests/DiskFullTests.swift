import Foundation
import TestSupport
import Testing

/// The state database on a full disk: the daemon keeps running, says so, saves everything once
/// there is room again, and nothing saved before is lost.
@Suite("screentimed on a full disk", .ownThread)
struct DiskFullTests {
    @Test("a full disk is survived and everything is saved when there is room again")
    func fullDisk() throws {
        let script = Readable.path("Tests/EndToEndTests/Scripts/disk-full.sh")
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("screentime-full-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let policy = work + "/policy.toml"
        try "version = 1\ntimezone = \"UTC\"\n".write(toFile: policy, atomically: true, encoding: .utf8)
        // At most two minutes, whatever happens: a stuck daemon must not hold CI.
        let r = try ReplayBinaryTests.runBinary("/usr/bin/timeout", ["120", "/usr/bin/unshare", "-m", script, work, ReplayBinaryTests.binary, policy])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("cannot save (will retry every second)"))
        #expect(r.stdout.contains("the disk is full"))
        #expect(r.stdout.contains(": ok — "))
        // Refused while the disk was full, with the reason, and not applied; accepted once there is room.
        #expect(r.stdout.contains("nothing was changed, because it cannot be saved"))
        #expect(r.stdout.contains("adjust on a full disk: exit 1"))
        #expect(r.stdout.contains("balance after the disk was freed: 0\n"))
        #expect(r.stdout.contains("adjust with room: exit 0"))
        #expect(r.stdout.contains("ledger: 7 room again (root)\n"))
    }
}
