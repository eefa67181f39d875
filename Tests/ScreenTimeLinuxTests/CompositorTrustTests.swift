import ScreenTimeLinux
import TestSupport
import Testing

/// System mode's rules for believing the child's own GNOME Shell, over facts made here (the E2E
/// tests in GnomeShellTests read real ones from a real GNOME Shell).
@Suite("Which compositor system mode believes", .ownThread)
struct CompositorTrustTests {
    static let child: UInt32 = 1001
    static let honest = CompositorFacts(pid: 4242, exe: "/usr/bin/gnome-shell", exeAlterable: false, uids: (child, child), tracer: 0,
                                        environment: ["HOME": "/home/emma", "WAYLAND_DISPLAY": "wayland-0"],
                                        extensionFolder: "/usr/share/gnome-shell/extensions/screentime@screentime", extensionAlterable: false)

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
        (with { $0.environment["LD_PRELOAD"] = "/home/emma/x.so" }, "GNOME Shell runs with LD_PRELOAD set, which can load the child's own code or settings into it"),
        (with { $0.environment["DCONF_PROFILE"] = "/home/emma/p" }, "GNOME Shell runs with DCONF_PROFILE set, which can load the child's own code or settings into it"),
        (with { $0.extensionFolder = nil }, "GNOME Shell loads no screentime extension"),
        (with { $0.extensionFolder = "/home/emma/.local/share/gnome-shell/extensions/screentime@screentime"; $0.extensionAlterable = true },
         "GNOME Shell loads the screentime extension from /home/emma/.local/share/gnome-shell/extensions/screentime@screentime, which the child can change"),
    ]

    @Test("every way of speaking through it is refused, with the reason", arguments: 0..<tricks.count)
    func refused(_ i: Int) {
        let (facts, why) = Self.tricks[i]
        #expect(CompositorTrust.distrust(facts, child: Self.child) == why)
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
