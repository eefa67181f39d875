/// System mode: whether a process of the child's that reports the focused window may be believed
/// as the session's compositor (docs/observing.md, "What each mode trusts"; docs/security.md).
/// Decides from the facts `CompositorFacts` read; reads nothing itself. (The daemon's `Child`
/// asks it.) It is believed for focus only: input comes from the seat's own devices.
///
/// GNOME Shell runs as the child, so it cannot be run by the daemon; what the extension inside it
/// says is believed only when root can show it is sealed, that nothing of the child's could have
/// put words in its mouth:
/// - its program is the system's GNOME Shell (root's, not one the child can change);
/// - it is the child's own process, not traced, and the kernel lets no process of the child's
///   attach to it (Yama's `ptrace_scope` at least 1: else ptrace, `pidfd_getfd` or
///   /proc/PID/mem make it say anything, or take its connection);
/// - its environment holds only what a session needs (an allow-list: a variable that is not on
///   it may load the child's code, modules or settings into it, as GIO_MODULE_DIR, GST_PLUGIN_PATH
///   or GI_TYPELIB_PATH do);
/// - no folder on the search paths it reads (its data folders, where session modes are, and the
///   module and typelib folders) is one the child can change;
/// - every file mapped into it as code is root's, and the child cannot change it;
/// - the extension it loads is the system's copy (a copy of the child's, in their home, earlier
///   on the data path, would be loaded instead);
/// - it is the only one: two processes that pass all of this (a second GNOME Shell the child
///   started) are both refused until one is gone.
public enum CompositorTrust {
    /// The compositors whose own reports system mode can believe, by program.
    public static let compositors = ["/usr/bin/gnome-shell": "GNOME Shell"]
    /// The extension GNOME Shell must load from a place of root's.
    public static let gnomeExtension = "screentime@screentime"
    /// The environment a GNOME session gives its shell (gdm, systemd's user manager, gnome-session),
    /// which loads nothing into it: names, places of the session, and the language.
    /// `XDG_DATA_DIRS` is allowed too, its folders checked (`alterableSearchFolders`).
    public static let sessionEnvironment: Set<String> = [
        "HOME", "USER", "LOGNAME", "USERNAME", "SHELL", "PATH", "PWD", "OLDPWD", "SHLVL", "_", "TERM", "MAIL", "EDITOR",
        "LANG", "LANGUAGE", "TZ", "LC_ALL", "LC_ADDRESS", "LC_COLLATE", "LC_CTYPE", "LC_IDENTIFICATION", "LC_MEASUREMENT",
        "LC_MESSAGES", "LC_MONETARY", "LC_NAME", "LC_NUMERIC", "LC_PAPER", "LC_TELEPHONE", "LC_TIME", "GDM_LANG",
        "XDG_RUNTIME_DIR", "XDG_SESSION_ID", "XDG_SESSION_TYPE", "XDG_SESSION_CLASS", "XDG_SESSION_DESKTOP", "XDG_CURRENT_DESKTOP",
        "XDG_SEAT", "XDG_VTNR", "XDG_MENU_PREFIX", "XDG_DATA_DIRS", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME",
        "DESKTOP_SESSION", "GDMSESSION", "GNOME_SETUP_DISPLAY", "SESSION_MANAGER", "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY",
        "DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS", "DBUS_STARTER_ADDRESS", "DBUS_STARTER_BUS_TYPE",
        "SSH_AUTH_SOCK", "SSH_AGENT_LAUNCHER", "GPG_AGENT_INFO", "GNOME_KEYRING_CONTROL",
        "INVOCATION_ID", "JOURNAL_STREAM", "MANAGERPID", "SYSTEMD_EXEC_PID", "NOTIFY_SOCKET", "WATCHDOG_PID", "WATCHDOG_USEC",
        "MEMORY_PRESSURE_WATCH", "MEMORY_PRESSURE_WRITE", "IM_CONFIG_PHASE", "XMODIFIERS", "QT_ACCESSIBILITY", "QT_IM_MODULE",
        "GTK_IM_MODULE", "CLUTTER_IM_MODULE", "NO_AT_BRIDGE", "GIO_LAUNCHED_DESKTOP_FILE", "GIO_LAUNCHED_DESKTOP_FILE_PID",
        // Where the extension finds the daemon (only ever costs the child: another socket is not the daemon).
        "SCREENTIME_SOCKET",
        // Lets a D-Bus call reset Mutter's idle time: harmless here, since system mode counts no
        // input from the compositor (the tests' sessions set it).
        "MUTTER_DEBUG_RESET_IDLETIME",
    ]

    /// Why Yama's `ptrace_scope` (nil: no Yama) lets the child's own programs attach to `name`,
    /// a process of theirs, and speak through it; nil when it does not.
    public static func yamaProblem(_ scope: Int?, name: String) -> String? {
        switch scope {
        case nil: return "the kernel has no Yama, so the child's own programs may attach to \(name) and speak through it (Yama's ptrace_scope must be 1 or more)"
        case let scope? where scope < 1:
            return "Yama's ptrace_scope is \(scope), so the child's own programs may attach to \(name) and speak through it (it must be 1 or more: the screentime package's sysctl setting sets it)"
        default: return nil
        }
    }

    /// Why `facts` cannot be believed as `child`'s compositor, every reason found; nil: it can.
    public static func distrust(_ facts: CompositorFacts, child: UInt32) -> String? {
        guard let exe = facts.exe else { return "the process is gone" }
        guard let name = compositors[exe] else { return "\(exe) is not a compositor screentime can believe" }
        if facts.exeAlterable { return "\(exe) can be changed by the child" }
        guard let uids = facts.uids, uids.real == child, uids.effective == child else { return "\(name) is not the child's own process" }
        var why: [String] = []
        if facts.tracer != 0 { why.append("\(name) is being traced (pid \(facts.tracer))") }
        if let yama = yamaProblem(facts.ptraceScope, name: name) { why.append(yama) }
        let unknown = facts.environment.keys.filter { !sessionEnvironment.contains($0) }.sorted()
        if !unknown.isEmpty {
            why.append("\(name) runs with \(unknown.joined(separator: ", ")) set, which a session does not need and which may load the child's own code or settings into it")
        }
        if !facts.alterableSearchFolders.isEmpty {
            why.append("\(name) reads code and data from \(facts.alterableSearchFolders.joined(separator: ", ")), which the child can change")
        }
        if !facts.alterableCode.isEmpty {
            let shown = facts.alterableCode.prefix(3).joined(separator: ", ") + (facts.alterableCode.count > 3 ? " and \(facts.alterableCode.count - 3) more" : "")
            why.append("\(name) runs code from \(shown), which is not root's or which the child can change")
        }
        if let folder = facts.extensionFolder {
            if facts.extensionAlterable { why.append("\(name) loads the screentime extension from \(folder), which the child can change") }
        } else {
            why.append("\(name) loads no screentime extension")
        }
        return why.isEmpty ? nil : why.joined(separator: "; ")
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
