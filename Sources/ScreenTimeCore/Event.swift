/// One observed fact, the vocabulary of `docs/spec/replay.md`. The daemon's event log and
/// `screentimed replay` both speak it; the engine knows nothing it was not told in one.
public struct Event: Sendable, Equatable {
    /// The wall clock as the machine showed it.
    public var at: WallTime
    /// Monotonic time, when the log has it. Durations come from it alone.
    public var mono: Microseconds?
    public var kind: Kind

    public init(at: WallTime, mono: Microseconds? = nil, _ kind: Kind) {
        self.at = at
        self.mono = mono
        self.kind = kind
    }

    public enum Kind: Sendable, Equatable {
        case processStarted(ProcessFacts)
        case processExited(pid: Int32)
        case processCPU(pid: Int32, cpuMillis: Int64)
        case focusChanged(FocusedWindow)
        case input(count: Int64)
        /// `claimed`, added by screentime: said by a process of the child's own, or their session's
        /// idle hint (system mode). It refuses learning credit, and never stops screen time (a
        /// child's claim may only cost the child, docs/spec/screen.md).
        case idleChanged(idle: Bool, since: WallTime?, claimed: Bool = false)
        /// `claimed`, added by screentime: said by a process of the child's own (system mode), which
        /// root cannot check. Such a lock refuses learning credit and never stops game time (a
        /// child's claim may only cost the child); logind's and a trusted hook's lock do both.
        case lockChanged(locked: Bool, claimed: Bool = false)
        /// `familySeq`, added by screentime: the family ledger (docs/household.md) paid it already,
        /// as its entry of that number, against the family's balance; the engine does not ask again.
        case redeem(minutes: Int64, by: String?, familySeq: Int64? = nil)
        case adjust(points: Int64, reason: String)
        case tick
        /// Added by screentime: the daemon (re)started. Whatever it knew ended at the event before;
        /// the sampler reports what runs now afresh. `boot`: the kernel's boot id
        /// (/proc/sys/kernel/random/boot_id); a new one means the computer was restarted.
        case daemonStarted(boot: String?)
        /// Added by screentime: a game the daemon had paused was found running again (someone sent
        /// it SIGCONT). `since`: when it was last seen paused; the time since then was played.
        case gameContinued(pid: Int32, since: WallTime?)
        /// Added by screentime: the daemon found the clocks its process is given are not the
        /// kernel's (an LD_PRELOAD such as libfaketime): its boot clock read `bootAhead` µs ahead of
        /// the kernel's, its wall clock `wallAhead`. The event itself carries the kernel's boot
        /// clock; the engine records the fault and counts nothing by it.
        case clockFaked(bootAhead: Microseconds, wallAhead: Microseconds)
        // The family loop (`docs/spec/family.md`). Who may cause each was checked before it was logged.
        /// The child asks for more game time.
        /// `screen`, added by screentime: the minutes asked for are screen time (docs/spec/screen.md);
        /// an approval gives them as a `screen_bonus` for today.
        case timeRequested(id: String, minutes: Int64, reason: String?, screen: Bool = false)
        /// A parent's answer to a request.
        case requestDecided(RequestDecision)
        /// The child says a chore is done.
        case choreDone(chore: String)
        /// A parent approves (pays) or rejects the pending claim of a chore. `reason`: added by
        /// screentime, the parent's words to the child when rejecting.
        case choreDecided(chore: String, approved: Bool, by: String?, reason: String?)
        /// Added by screentime (docs/household.md): an entry of the child's family ledger that this
        /// machine did not write here, mirrored into its ledger so that its balance is the family's.
        case familyEntry(FamilyLedgerEntry)
        /// Added by screentime (docs/household.md): the family database leased this machine game
        /// time from the family's daily and weekly limits.
        case leaseGranted(LeaseGrant)
        /// Added by screentime (docs/household.md): what the child's other computers played of
        /// each limited app and group on `day` and in its week, as the family database said.
        case appTimeShared(day: Int64, [SharedAppTime])
        // A parent's say over today (docs/family.md), added by screentime.
        /// Minutes of game time for today only, beyond the day's and week's limits (not beyond the
        /// allowed hours); used before any other game time, and gone when the day ends.
        case bonusGiven(minutes: Int64, by: String?, reason: String?)
        /// Games stop now and stay stopped until `until` (calendar time); an `until` that is not
        /// later than now lets games be played again.
        case gamesStopped(until: WallTime, by: String?)
        /// Unused redeemed or given minutes taken back, at most `minutes`; with `refund`, the points
        /// they cost are given back.
        case minutesRevoked(minutes: Int64, refund: Bool, by: String?)
        // The whole computer (`docs/spec/screen.md`).
        /// A login session of the child began (logind); `tty`: not graphical; `remote`: over the network.
        case sessionStarted(session: String, tty: Bool, remote: Bool)
        /// It ended.
        case sessionEnded(session: String)
        /// A parent gave screen minutes beyond today's limits, for today only.
        case screenBonus(minutes: Int64, by: String?, reason: String?)
        /// A parent moved today's end of allowed hours to `until` (minutes after local midnight;
        /// "HH:MM" in the log), tonight only.
        case bedtimeMoved(until: Int, by: String?)
        /// No screen or game limit applies for the rest of today.
        case freeDay(by: String?, reason: String?)
        // Websites (`docs/spec/sites.md`).
        /// A browser's extension reports its active tab's host (nil: no web page), the hosts of
        /// its tabs playing sound, and (its own claim, never counted by) whether it has the focus.
        case siteChanged(SiteReport)
        /// Added by screentime: the connection that brought a browser's reports (its native
        /// messaging host) ended. What it said no longer holds; the browser has `report_within`
        /// to report again through a new one before it counts as `unreported`.
        case siteReportEnded(pid: Int32)
    }

    /// The `event` field's value for each kind.
    public var name: String {
        switch kind {
        case .processStarted: return "process_started"
        case .processExited: return "process_exited"
        case .processCPU: return "process_cpu"
        case .focusChanged: return "focus_changed"
        case .input: return "input"
        case .idleChanged: return "idle_changed"
        case .lockChanged: return "lock_changed"
        case .redeem: return "redeem"
        case .adjust: return "adjust"
        case .tick: return "tick"
        case .daemonStarted: return "daemon_started"
        case .gameContinued: return "game_continued"
        case .clockFaked: return "clock_faked"
        case .timeRequested: return "time_requested"
        case .requestDecided: return "request_decided"
        case .choreDone: return "chore_done"
        case .choreDecided: return "chore_decided"
        case .familyEntry: return "family_entry"
        case .leaseGranted: return "lease_granted"
        case .appTimeShared: return "app_time_shared"
        case .bonusGiven: return "bonus_given"
        case .gamesStopped: return "games_stopped"
        case .minutesRevoked: return "minutes_revoked"
        case .sessionStarted: return "session_started"
        case .sessionEnded: return "session_ended"
        case .siteChanged: return "site_changed"
        case .siteReportEnded: return "site_report_ended"
        case .screenBonus: return "screen_bonus"
        case .bedtimeMoved: return "bedtime_moved"
        case .freeDay: return "free_day"
        }
    }
}

/// A parent's answer to a child's request for more time.
public struct RequestDecision: Sendable, Equatable {
    /// `bonus` (added by screentime): given as bonus time for today, free, beyond today's limits.
    public enum Pay: String, Sendable, Codable { case points, gift, bonus }
    public var id: String
    public var approved: Bool
    /// How approved minutes are paid: from the child's points, or as a gift.
    public var pay: Pay
    /// Fewer minutes than were asked for (nil: what was asked).
    public var minutes: Int64?
    public var by: String?
    /// Added by screentime: the parent's words to the child (a denial's reason).
    public var reason: String?
    /// Added by screentime: the family ledger paid the approval already, as its entry of this number.
    public var familySeq: Int64? = nil

    public init(id: String, approved: Bool, pay: Pay = .points, minutes: Int64? = nil, by: String? = nil, reason: String? = nil, familySeq: Int64? = nil) {
        self.familySeq = familySeq
        self.id = id
        self.approved = approved
        self.pay = pay
        self.minutes = minutes
        self.by = by
        self.reason = reason
    }
}

/// What the sampler saw of one process. Only `exe` (and the Flatpak id) identify it; the rest are
/// hints a child can choose freely.
public struct ProcessFacts: Sendable, Equatable, Codable {
    public var pid: Int32
    /// The realpath of `/proc/PID/exe`; a deleted binary ends in ` (deleted)`.
    public var exe: String
    public var startTicks: Int64?
    public var uid: UInt32?
    public var comm: String?
    public var cmdline: [String]?
    public var cgroup: String?
    public var flatpak: String?
    /// The child can write the exe or its folder; nil when the sampler did not say.
    public var exeWritable: Bool?
    /// Added by screentime: the program the policy names by this path is what the process runs,
    /// though under another name (a renamed copy, a start through the dynamic loader, a memfd):
    /// the same file, or the same ELF build-id. Makes it that app; never trusted for learning.
    public var contentOf: String?

    public init(pid: Int32, exe: String, startTicks: Int64? = nil, uid: UInt32? = nil, comm: String? = nil,
                cmdline: [String]? = nil, cgroup: String? = nil, flatpak: String? = nil, exeWritable: Bool? = nil, contentOf: String? = nil) {
        self.pid = pid
        self.exe = exe
        self.startTicks = startTicks
        self.uid = uid
        self.comm = comm
        self.cmdline = cmdline
        self.cgroup = cgroup
        self.flatpak = flatpak
        self.exeWritable = exeWritable
        self.contentOf = contentOf
    }
}

/// The focused window as a desktop hook described it. `pid` nil: nothing is focused.
public struct FocusedWindow: Sendable, Equatable, Codable {
    public var pid: Int32?
    public var appID: String?
    public var title: String?
    /// Added by screentime (`"hook_lost": true`, with `pid: null`): the desktop hook that reported
    /// the focus went away, so what is focused is unknown until one reports again. The time in
    /// between is refused as `hook_gap`.
    public var hookLost: Bool?
    /// Added by screentime: the Flatpak id the compositor gives the window (GNOME Shell's
    /// sandboxed app id). A hint recorded in the log, as the sampler's `flatpak`; never identity.
    public var flatpak: String?
    /// Added by screentime (`title_apps`): the title was not kept (`[privacy]`), but these
    /// entries' `title` patterns matched it: what the title said, and no more.
    public var titleApps: [String]?

    public init(pid: Int32?, appID: String? = nil, title: String? = nil, hookLost: Bool? = nil, flatpak: String? = nil, titleApps: [String]? = nil) {
        self.pid = pid
        self.appID = appID
        self.title = title
        self.hookLost = hookLost
        self.flatpak = flatpak
        self.titleApps = titleApps
    }
}

/// A clock reading that cannot be true. Nothing was counted by it; `check` reports it.
public struct ClockFault: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable {
        /// Between two events the boot clock advanced more than the wall clock (`TrustedClock`).
        case bootClockAhead = "boot_clock_ahead"
        /// The daemon's process was given a boot clock that is not the kernel's (`clock_faked`).
        case fakedClock = "faked_clock"
    }
    public var kind: Kind
    /// Trusted calendar time (µs since the epoch) when it was seen.
    public var at: Microseconds
    /// How far the boot clock was ahead: of the wall clock's step, or of the kernel's boot clock.
    public var bootAhead: Microseconds
    /// `fakedClock`: how far the process's wall clock was ahead of the kernel's.
    public var wallAhead: Microseconds?

    public init(kind: Kind, at: Microseconds, bootAhead: Microseconds, wallAhead: Microseconds? = nil) {
        self.kind = kind
        self.at = at
        self.bootAhead = bootAhead
        self.wallAhead = wallAhead
    }

    /// "the daemon's boot clock read 20616 days ahead of the kernel's (its wall clock 1 day ahead)"
    public var words: String {
        switch kind {
        case .bootClockAhead:
            return "the boot clock advanced \(DurationText.long(bootAhead)) more than the wall clock between two events, which cannot be"
        case .fakedClock:
            let wall = wallAhead.map { $0 == 0 ? "" : " (its wall clock \(DurationText.signedWords($0)))" } ?? ""
            return "the daemon was given a boot clock \(DurationText.signedWords(bootAhead)) of the kernel's\(wall): its clock was faked (LD_PRELOAD, libfaketime?)"
        }
    }
}

/// An entry of a child's family-wide ledger (docs/household.md) as it reaches a machine that did
/// not write it here: another machine's, or one this machine wrote before its state lost it.
public struct FamilyLedgerEntry: Sendable, Equatable {
    /// The machine that wrote it.
    public var machine: String
    /// Its number in the family ledger.
    public var seq: Int64
    public var kind: LedgerEntry.Kind
    public var points: Int64
    public var note: String?

    public init(machine: String, seq: Int64, kind: LedgerEntry.Kind, points: Int64, note: String? = nil) {
        self.machine = machine; self.seq = seq; self.kind = kind; self.points = points; self.note = note
    }
}

/// What a browser's extension reports (`site_changed`, docs/spec/sites.md): hosts only, in lower
/// case, never a path or a query.
public struct SiteReport: Sendable, Equatable, Codable {
    /// The browser's process (the one whose windows the desktop hook names).
    public var pid: Int32
    /// The active tab's host; nil: no web page (a new tab, the browser's own pages).
    public var host: String?
    /// The hosts of tabs playing sound, sorted, each once.
    public var audible: [String]
    /// The browser says one of its windows has the focus (a claim: the desktop hook decides).
    public var focused: Bool?

    public init(pid: Int32, host: String?, audible: [String] = [], focused: Bool? = nil) {
        self.pid = pid
        self.host = host.map(SiteReport.normalized)
        self.audible = Array(Set(audible.map(SiteReport.normalized))).sorted()
        self.focused = focused
    }

    /// Every host the report names: the active tab's first, then the audible ones.
    public var hosts: [String] {
        var out = host.map { [$0] } ?? []
        for h in audible where h != host { out.append(h) }
        return out
    }

    /// Lower case, without the root's trailing dot.
    static func normalized(_ host: String) -> String {
        var h = host.lowercased()
        if h.hasSuffix(".") { h.removeLast() }
        return h
    }

    /// A host name as a browser's URL holds it (ASCII letters, digits, hyphens and dots; an IPv6
    /// address in brackets), at most 253 characters: never a URL, a path or a port.
    public static func isHost(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 253 else { return false }
        if text.hasPrefix("[") { return text.hasSuffix("]") && text.utf8.dropFirst().dropLast().allSatisfy { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") || isHexDigit($0) } }
        return text.utf8.allSatisfy { c in
            (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
                || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "-") || c == UInt8(ascii: ".")
        } && !text.hasPrefix(".") && !text.contains("..")
    }

    private static func isHexDigit(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "F"))
    }
}
