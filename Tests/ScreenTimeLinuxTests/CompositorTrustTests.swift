import Foundation
import ScreenTimeLinux
import TestSupport
import Testing

/// System mode's rules for believing the child's own GNOME Shell, over facts made here (the E2E
/// tests in GnomeShellTests read real ones from a real GNOME Shell).
@Suite("Which compositor system mode believes", .ownThread)
struct CompositorTrustTests {
    static let child: UInt32 = 1001
    static let honest: CompositorFacts = {
        // What a GNOME session on Debian 12 gives its shell (gdm, systemd's user manager).
        var facts = CompositorFacts(pid: 4242, exe: "/usr/bin/gnome-shell", exeAlterable: false, uids: (child, child), tracer: 0,
                                    environment: ["HOME": "/home/emma", "WAYLAND_DISPLAY": "wayland-0", "LANG": "de_DE.UTF-8", "USER": "emma",
                                                  "XDG_DATA_DIRS": "/usr/share/gnome:/usr/local/share/:/usr/share/", "XDG_SESSION_TYPE": "wayland",
                                                  "DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1001/bus", "INVOCATION_ID": "0c5e", "GDMSESSION": "gnome"],
                                    extensionFolder: "/usr/share/gnome-shell/extensions/screentime@screentime", extensionAlterable: false)
        facts.ptraceScope = 1
        return facts
    }()

    @Test("the session's own GNOME Shell, with the system's extension, is believed")
    func honestShell() {
        #expect(CompositorTrust.distrust(Self.honest, child: Self.child) == nil)
    }

    static func with(_ change: (inout CompositorFacts) -> Void) -> CompositorFacts {
        var facts = honest
        change(&facts)
        return facts
    }

    static let tricks: [(CompositorFacts, String)] = [
        (with { $0.exe = nil }, "the process is gone"),
        (with { $0.exe = "/usr/bin/python3.11" }, "/usr/bin/python3.11 is not a compositor screentime can believe"),
        (with { $0.exe = "/home/emma/gnome-shell" }, "/home/emma/gnome-shell is not a compositor screentime can believe"),
        (with { $0.exeAlterable = true }, "/usr/bin/gnome-shell can be changed by the child"),
        (with { $0.uids = (1002, 1002) }, "GNOME Shell is not the child's own process"),
        (with { $0.uids = (child, 0) }, "GNOME Shell is not the child's own process"),
        (with { $0.tracer = 777 }, "GNOME Shell is being traced (pid 777)"),
        (with { $0.environment["LD_PRELOAD"] = "/home/emma/x.so" }, "GNOME Shell runs with LD_PRELOAD set, which a session does not need and which may load the child's own code or settings into it"),
        (with { $0.environment["DCONF_PROFILE"] = "/home/emma/p" }, "GNOME Shell runs with DCONF_PROFILE set, which a session does not need and which may load the child's own code or settings into it"),
        // Not on any list of forbidden variables, and still refused: the list is of those allowed.
        (with { $0.environment["GIO_MODULE_DIR"] = "/home/emma/gio"; $0.environment["GST_PLUGIN_PATH"] = "/home/emma/gst" },
         "GNOME Shell runs with GIO_MODULE_DIR, GST_PLUGIN_PATH set, which a session does not need and which may load the child's own code or settings into it"),
        (with { $0.ptraceScope = nil }, "the kernel has no Yama, so the child's own programs may attach to GNOME Shell and speak through it (Yama's ptrace_scope must be 1 or more)"),
        (with { $0.ptraceScope = 0 }, "Yama's ptrace_scope is 0, so the child's own programs may attach to GNOME Shell and speak through it (it must be 1 or more: the screentime package's sysctl setting sets it)"),
        (with { $0.alterableSearchFolders = ["/home/emma/.local/share/flatpak/exports/share"] },
         "GNOME Shell reads code and data from /home/emma/.local/share/flatpak/exports/share, which the child can change"),
        (with { $0.alterableCode = ["/home/emma/libx.so", "/tmp/a.so", "/tmp/b.so", "/tmp/c.so"] },
         "GNOME Shell runs code from /home/emma/libx.so, /tmp/a.so, /tmp/b.so and 1 more, which is not root's or which the child can change"),
        // Every reason at once, for a parent to fix them all.
        (with { $0.tracer = 9; $0.ptraceScope = 0 },
         "GNOME Shell is being traced (pid 9); Yama's ptrace_scope is 0, so the child's own programs may attach to GNOME Shell and speak through it (it must be 1 or more: the screentime package's sysctl setting sets it)"),
        (with { $0.extensionFolder = nil }, "GNOME Shell loads no screentime extension"),
        (with { $0.extensionFolder = "/home/emma/.local/share/gnome-shell/extensions/screentime@screentime"; $0.extensionAlterable = true },
         "GNOME Shell loads the screentime extension from /home/emma/.local/share/gnome-shell/extensions/screentime@screentime, which the child can change"),
    ]

    @Test("every way of speaking through it is refused, with the reason", arguments: 0..<tricks.count)
    func refused(_ i: Int) {
        let (facts, why) = Self.tricks[i]
        #expect(CompositorTrust.distrust(facts, child: Self.child) == why)
    }

    @Test("the facts of a real process of another user: Yama's setting through its seam, a data folder and code of that user's found")
    func realFacts() throws {
        // A process of a user of the tests' own (not a shell: what is read does not depend on the
        // program), started with a data folder of theirs on XDG_DATA_DIRS and a library of theirs
        // preloaded; in a folder of root's they can enter. Yama's file is the test's (this
        // machine's kernel has no Yama).
        let uid = TestUser.ensure(uid: 65019, name: "stseal65019")
        let fm = FileManager.default
        let root = fm.temporaryDirectory.appendingPathComponent("screentime-seal-\(UUID().uuidString)").path
        defer { try? fm.removeItem(atPath: root) }
        try fm.createDirectory(atPath: root + "/theirs/data", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: root)
        let library = try #require(["/lib/x86_64-linux-gnu/libz.so.1", "/usr/lib/x86_64-linux-gnu/libz.so.1", "/lib/aarch64-linux-gnu/libz.so.1"]
            .first { fm.fileExists(atPath: $0) }, "no libz to preload")
        try fm.copyItem(atPath: URL(fileURLWithPath: library).resolvingSymlinksInPath().path, toPath: root + "/theirs/libz.so.1")
        for path in [root + "/theirs", root + "/theirs/data", root + "/theirs/libz.so.1"] {
            try fm.setAttributes([.ownerAccountID: uid, .groupOwnerAccountID: uid], ofItemAtPath: path)
        }
        try "0\n".write(toFile: root + "/ptrace_scope", atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        p.arguments = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "/bin/sleep", "30"]
        // (A folder on the path need not exist: one under a folder of root's cannot be made by
        // them, one under a folder of theirs can.)
        p.environment = ["PATH": "/usr/bin:/bin", "XDG_DATA_DIRS": root + "/theirs/data:" + root + "/none:" + root + "/theirs/later:/usr/share",
                         "LD_PRELOAD": root + "/theirs/libz.so.1"]
        try p.run()
        defer { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() }
        let account = try #require(UserAccount.lookup(name: "stseal65019"))
        var facts = CompositorFacts.read(pid: p.processIdentifier, child: account, extensionUUID: CompositorTrust.gnomeExtension, yamaFile: root + "/ptrace_scope")
        // (setpriv execs sleep: read once the preload is mapped.)
        try Wait.until("setpriv to exec sleep with the preload mapped", within: 5) {
            facts = CompositorFacts.read(pid: p.processIdentifier, child: account, extensionUUID: CompositorTrust.gnomeExtension, yamaFile: root + "/ptrace_scope")
            return facts.exe == "/usr/bin/sleep" && !facts.alterableCode.isEmpty
        }
        #expect(facts.ptraceScope == 0)
        #expect(facts.alterableSearchFolders == [root + "/theirs/data", root + "/theirs/later"])
        #expect(facts.alterableCode == [root + "/theirs/libz.so.1"])
        #expect(facts.environment["LD_PRELOAD"] == root + "/theirs/libz.so.1")
        // Without the file, no Yama.
        #expect(CompositorFacts.read(pid: p.processIdentifier, child: account, extensionUUID: CompositorTrust.gnomeExtension,
                                     yamaFile: root + "/none").ptraceScope == nil)
        // The same for a process of root's with the system's folders and code only: nothing of the user's.
        let own = CompositorFacts.read(pid: getpid(), child: account, extensionUUID: CompositorTrust.gnomeExtension, yamaFile: root + "/ptrace_scope")
        #expect(own.alterableCode == [], "\(own.alterableCode)")
    }

    @Test("two shells that pass: neither is believed until one is gone; then the other is")
    func contested() {
        var alive: Set<Int32> = [10, 20]
        var believed = BelievedCompositor()
        #expect(believed.claim(10) { alive.contains($0) } == .believed)
        #expect(believed.claim(10) { alive.contains($0) } == .believed)
        #expect(believed.claim(20) { alive.contains($0) } == .newlyContested(other: 10))
        #expect(believed.pid == nil)
        #expect(believed.claim(10) { alive.contains($0) } == .contested(other: 20))
        #expect(believed.claim(20) { alive.contains($0) } == .contested(other: 10))
        alive.remove(20)
        #expect(believed.claim(10) { alive.contains($0) } == .believed)
        #expect(believed.pid == 10)
        // A shell that ended is replaced by the next without a contest.
        alive = [30]
        #expect(believed.claim(30) { alive.contains($0) } == .believed)
    }
}
