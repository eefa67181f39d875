import Foundation
import TestSupport
import Testing

/// System mode's dconf defaults and locks for GNOME (desktop/gnome-shell/dconf, installed by
/// `make install-gnome-lock`): compiled with the real `dconf compile`, read by the real GSettings
/// as a test user (uid 65534) through a profile naming that database, as /etc/dconf/profile/user
/// names /etc/dconf/db/local.
@Suite("GNOME: the extension on and locked for system mode", .ownThread)
struct GnomeLockTests {
    @Test("the extension is enabled for every user, and the child can neither turn it off nor open Looking Glass")
    func locked() throws {
        let fm = FileManager.default
        let dir = fm.temporaryDirectory.appendingPathComponent("screentime-dconf-\(UUID().uuidString)").path
        let source = ReplayBinaryTests.root.appendingPathComponent("desktop/gnome-shell/dconf").path
        try fm.createDirectory(atPath: dir + "/local.d/locks", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try fm.createDirectory(atPath: dir + "/home", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try fm.setAttributes([.ownerAccountID: 65534], ofItemAtPath: dir + "/home")
        try fm.copyItem(atPath: source + "/50-screentime", toPath: dir + "/local.d/50-screentime")
        try fm.copyItem(atPath: source + "/locks/50-screentime", toPath: dir + "/local.d/locks/50-screentime")
        let compile = try ReplayBinaryTests.runBinary("/usr/bin/dconf", ["compile", dir + "/local", dir + "/local.d"])
        try #require(compile.status == 0, "\(compile.stderr)")
        // The shipped profile, with the test's database in place of /etc/dconf/db/local.
        let profile = try String(contentsOfFile: source + "/profile-user", encoding: .utf8)
        #expect(profile.split(separator: "\n") == ["user-db:user", "system-db:local"])
        try "user-db:user\nfile-db:\(dir)/local\n".write(toFile: dir + "/profile", atomically: true, encoding: .utf8)
        // No session bus: reading and the refusal of a locked key need none (a write that is
        // allowed would go to dconf's service; none is made here).
        let script = """
            for key in enabled-extensions disabled-extensions disable-user-extensions development-tools favorite-apps; do
              printf '%s %s %s\\n' "$key" "$(gsettings writable org.gnome.shell $key)" "$(gsettings get org.gnome.shell $key)"
            done
            gsettings set org.gnome.shell enabled-extensions "[]" 2>&1 && echo changed
            gsettings set org.gnome.shell development-tools true 2>&1 && echo changed
            gsettings get org.gnome.shell enabled-extensions
            """
        let r = try ReplayBinaryTests.runBinary("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/env",
                                                                   "HOME=\(dir)/home", "XDG_RUNTIME_DIR=\(dir)/home", "DCONF_PROFILE=\(dir)/profile",
                                                                   "/bin/sh", "-c", script])
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("enabled-extensions false ['screentime@screentime']"), "\(r.stdout)\(r.stderr)")
        #expect(lines.contains("disabled-extensions false @as []"), "\(r.stdout)")
        #expect(lines.contains("disable-user-extensions false false"), "\(r.stdout)")
        #expect(lines.contains("development-tools false false"), "\(r.stdout)")
        // Only what needs locking is locked.
        #expect(lines.contains { $0.hasPrefix("favorite-apps true ") }, "\(r.stdout)")
        #expect(lines.filter { $0 == "The key is not writable" }.count == 2, "\(r.stdout)")
        #expect(!lines.contains("changed"), "\(r.stdout)")
        #expect(lines.last == "['screentime@screentime']", "\(r.stdout)")
        try? fm.removeItem(atPath: dir)
    }
}
