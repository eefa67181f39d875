import Foundation
import Testing

/// A real sway compositor, headless, run as the child (uid 65534 unless `uid` says another: sway
/// refuses root), with real foot terminals as its windows (docs/dev/recipes.md).
public final class SwaySession {
    public let dir: String
    public let socket: String
    public let uid: UInt32
    private let sway: Process

    /// `environment`: more of the session's environment, which sway passes on to what it starts
    /// (`DBUS_SYSTEM_BUS_ADDRESS`: the test's system bus, for swayidle).
    public init(uid: UInt32 = 65534, environment extra: [String: String] = [:]) throws {
        self.uid = uid
        let fm = FileManager.default
        dir = fm.temporaryDirectory.appendingPathComponent("screentime-sway-\(UUID().uuidString)").path
        for (path, mode) in [(dir, 0o755), (dir + "/run", 0o700), (dir + "/home", 0o755)] {
            try fm.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: mode])
            if path != dir { try fm.setAttributes([.ownerAccountID: uid, .groupOwnerAccountID: uid], ofItemAtPath: path) }
        }
        try "xwayland disable\n".write(toFile: dir + "/config", atomically: true, encoding: .utf8)
        try fm.setAttributes([.posixPermissions: 0o644], ofItemAtPath: dir + "/config")
        sway = Process()
        sway.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        sway.arguments = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "/usr/bin/sway", "-c", dir + "/config"]
        sway.environment = ["HOME": dir + "/home", "XDG_RUNTIME_DIR": dir + "/run", "PATH": "/usr/bin:/bin",
                            "WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman"].merging(extra) { $1 }
        // sway, and the windows it starts, in a folder of the child's: the test runner's (the clone)
        // may be one the child cannot enter, and foot then does not start.
        sway.currentDirectoryURL = URL(fileURLWithPath: dir + "/home")
        sway.standardOutput = FileHandle.nullDevice
        sway.standardError = FileHandle.nullDevice
        try sway.run()
        var found: String? = nil
        Wait.whether(within: 10) { [dir, sway] in   // (not self: it is not all set yet)
            found = (try? fm.contentsOfDirectory(atPath: dir + "/run"))?.first { $0.hasPrefix("sway-ipc.") && $0.hasSuffix(".sock") }
            return found != nil || !sway.isRunning
        }
        guard let found else { throw FixtureFailure("sway did not start") }
        socket = dir + "/run/" + found
    }

    deinit {
        kill(sway.processIdentifier, SIGKILL)
        reap(sway)
    }

    /// The environment of a program of the child's inside this session.
    public var environment: [String: String] {
        ["HOME": dir + "/home", "XDG_RUNTIME_DIR": dir + "/run", "SWAYSOCK": socket, "PATH": "/usr/bin:/bin"]
    }

    /// `swaymsg` as the child; its output.
    @discardableResult
    public func message(_ args: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        p.arguments = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "/usr/bin/swaymsg"] + args
        p.environment = environment
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        try p.run()
        let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        reap(p)
        return out
    }

    /// A foot terminal with this app id and title, as the child; waits until sway shows it.
    public func foot(appID: String, title: String) throws {
        try message(["exec foot -a \(appID) -T \(title) sleep 600"])
        // 60 s at most: each look runs swaymsg (500 looks 20 ms apart, before #37).
        try Wait.until("the foot window \(appID) to appear in sway's tree", within: 60) {
            try message(["-t", "get_tree"]).contains("\"app_id\": \"\(appID)\"")
        }
    }
}
