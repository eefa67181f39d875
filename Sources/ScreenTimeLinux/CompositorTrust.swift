/// System mode: whether a process of the child's that reports focus and input may be believed as
/// the session's compositor (docs/observing.md, "What each mode trusts"). Decides from the facts
/// `CompositorFacts` read; reads nothing itself. (The daemon's `Child` asks it.)
///
/// GNOME Shell runs as the child, so it cannot be run by the daemon; what the extension inside it
/// says is believed only when nothing of the child's could have put words in its mouth:
/// - its program is the system's GNOME Shell (root's, not one the child can change);
/// - it is the child's own process, not traced (a debugger could make it say anything);
/// - its environment loads nothing of the child's into it (no preload, no other JS or typelibs,
///   no other dconf profile or settings backend that would escape the parents' locks);
/// - the extension it loads is the system's copy (a copy of the child's, in their home, earlier
///   on the data path, would be loaded instead);
/// - it is the only one: two processes that pass all of this (a second GNOME Shell the child
///   started) are both refused until one is gone.
public enum CompositorTrust {
    /// The compositors whose own reports system mode can believe, by program.
    public static let compositors = ["/usr/bin/gnome-shell": "GNOME Shell"]
    /// The extension GNOME Shell must load from a place of root's.
    public static let gnomeExtension = "screentime@screentime"
    /// Environment that loads code or settings of the child's into GNOME Shell.
    public static let unsafeEnvironment = ["LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "GI_TYPELIB_PATH", "GJS_PATH",
                                    "GNOME_SHELL_JS", "GNOME_SHELL_DATADIR", "DCONF_PROFILE", "GSETTINGS_BACKEND",
                                    "GSETTINGS_SCHEMA_DIR", "GIO_EXTRA_MODULES", "GTK_MODULES"]

    /// Why `facts` cannot be believed as `child`'s compositor; nil: it can.
    public static func distrust(_ facts: CompositorFacts, child: UInt32) -> String? {
        guard let exe = facts.exe else { return "the process is gone" }
        guard let name = compositors[exe] else { return "\(exe) is not a compositor screentime can believe" }
        if facts.exeAlterable { return "\(exe) can be changed by the child" }
        guard let uids = facts.uids, uids.real == child, uids.effective == child else { return "\(name) is not the child's own process" }
        if facts.tracer != 0 { return "\(name) is being traced (pid \(facts.tracer))" }
        let unsafe = unsafeEnvironment.filter { facts.environment[$0] != nil }
        if !unsafe.isEmpty { return "\(name) runs with \(unsafe.joined(separator: ", ")) set, which can load the child's own code or settings into it" }
        guard let folder = facts.extensionFolder else { return "\(name) loads no screentime extension" }
        if facts.extensionAlterable { return "\(name) loads the screentime extension from \(folder), which the child can change" }
        return nil
    }
}

/// Which compositor system mode believes for one child: the first that passed, until it is gone;
/// a second one that passes while the first lives makes both unbelieved until one of them is gone.
public struct BelievedCompositor: Sendable {
    public private(set) var pid: Int32? = nil
    /// Two compositors claimed the session: (the one believed before, the newcomer).
    public private(set) var contested: (Int32, Int32)? = nil

    public init() {}

    public enum Verdict: Equatable, Sendable { case believed, contested(other: Int32), newlyContested(other: Int32) }

    /// `pid` passed `CompositorTrust`; `alive` says whether a pid still runs.
    public mutating func claim(_ claimant: Int32, alive: (Int32) -> Bool) -> Verdict {
        if let (a, b) = contested {
            let survivors = [a, b].filter(alive)
            if survivors.count == 2 { return .contested(other: claimant == a ? b : a) }
            contested = nil
            pid = survivors.first
        }
        if let current = pid, current != claimant, alive(current) {
            contested = (current, claimant)
            pid = nil
            return .newlyContested(other: current)
        }
        pid = claimant
        return .believed
    }
}
