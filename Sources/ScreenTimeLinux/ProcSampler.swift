import Glibc
import ScreenTimeCore

/// Turns /proc into `process_started` / `process_exited` / `process_cpu` events for the watched
/// uids. Identity is the open /proc/PID folder (and the start time): it names one process however
/// its pid is reused. The exe link is read again on every sample, so an `exec` is seen within one.
///
/// Cheap, because most of /proc is not looked at again. A watched process costs one byte read a
/// sample from its /proc/PID/maps, opened once: that descriptor is bound to the program image, so
/// it reads nothing once the process exec'd or exited, and only then is the exe link read again.
/// (In its first seconds, and once every `exeLookEvery`, the exe link is read anyway: a vfork
/// child shares its parent's image until it execs.) Its stat is read once per `cpuEvery`. Other users' processes cost
/// nothing after their first look: a process that is new since the last sample has a pid handed out
/// since then, which the last pid of /proc/loadavg tells, and /proc/stat's count of created
/// processes shows whether the pids went round or were set back in between. Only those pids are opened (or, when
/// there are many, only those of /proc's listing). When that cannot be known (the first sample,
/// pids that went round, a /proc of another pid namespace), every process in /proc is looked at.
///
/// Cheaper still with the kernel's process events (`ProcessEvents`): then a watched process costs
/// nothing a sample unless the kernel named it (it exec'd or ended), or events were lost or may
/// have been silenced; its image is not read. The exe link is still read every `exeLookEvery`
/// and in a process's first seconds.
public final class ProcSampler {
    public let uids: Set<UInt32>
    /// How often a tracked process's CPU time is read (and reported when it changed).
    public let cpuEvery: Microseconds
    /// The programs the policies name by path, recognised under other names (set by the daemon).
    public var programs = KnownPrograms(paths: [])
    /// Which processes are really the Flatpak apps their scope names.
    public let flatpakApps: FlatpakApps
    private let fs: ProcFS
    private var accounts: [UInt32: UserAccount] = [:]
    /// This process, when /proc is this pid namespace's: never followed. In user mode the daemon
    /// runs as the child, but it is no app of theirs (`stctl apps` would list it), and following
    /// it would save its own CPU time every minute, keeping SQLite's write path in memory for no
    /// purpose (docs/benchmarks.md).
    private let ownPid: Int32?

    private struct Tracked {
        var folder: ProcessFolder
        /// Its program image, watched once it is past its first seconds (nil before, or unreadable).
        var image: ProcessImage?
        /// When it started, on the clock of `mono` (CLOCK_BOOTTIME).
        var since: Microseconds
        var uid: UInt32
        var startTicks: Int64
        var exe: [UInt8]
        var cpuMillis: Int64
        var cpuReadAt: Microseconds
        /// When its exe link was last read (it is read at least every `exeLookEvery`).
        var exeReadAt: Microseconds
        /// Started through the dynamic loader, the program it runs not known yet: looked at
        /// again while young (the loader maps the program just after it starts).
        var loaderProgramUnknown = false
        /// Its first thread has ended while others run (`ProcFS.Link.readThroughThread`): its image
        /// is read every sample, as the kernel's events tell of its end only as one thread's.
        var firstThreadEnded = false
    }
    private var tracked: [Int32: Tracked] = [:]
    /// The tracked pids in ascending order, so that events come in the same order every run.
    private var order: [Int32] = []
    /// Other users' processes met lately. Their owner is looked at again for a few seconds: root
    /// forks first and changes to the child's uid just after (login, su, a display manager).
    private var recent: [(folder: ProcessFolder, until: Microseconds)] = []
    private var lastPid: Int32? = nil
    private var created: Int64? = nil
    /// Pids the last sample saw handed out that /proc/stat had not counted yet (see `newPids`).
    private var pidsAhead: Int64 = 0
    private var pids: [Int32] = []
    /// The exe link read last: a buffer of PATH_MAX bytes, read into again and again.
    private var exe: [UInt8] = []
    /// A copy of `exe` the size of its path, to keep with a process. Kept as it is, `exe` would
    /// stay with that process whole (4 KiB each: 400 KiB for 100 processes), and the next read
    /// would make a new one (docs/benchmarks.md).
    private var keptExe: [UInt8] {
        [UInt8](unsafeUninitializedCapacity: exe.count) { bytes, count in
            count = bytes.initialize(fromContentsOf: exe)
        }
    }
    private var buffer: [UInt8] = []
    private var gone: [Int32] = []
    /// Until when (mono) a tracked process needs a look every sample: in its first seconds, or
    /// with its first thread ended (Int64.max). Set by each sample.
    private var steadyUntil: Microseconds = 0
    /// The oldest CPU-time read among the processes this sample looked at (a process that ended
    /// in it counts too: at worst one sample early). Set by each sample.
    private var oldestCPURead: Microseconds = Int64.max
    /// The kernel's process events, while they work (nil: every process's image is read each sample).
    private var kernelEvents: ProcessEvents?
    private var news = ProcessEvents.News()
    /// Why the kernel's events are not used (nil while they are): they could not be had, or failed.
    public private(set) var kernelEventsFailure: String?
    /// Samples in which events had been lost, so that every process's image was read.
    public private(set) var samplesWithEventsLost = 0
    /// Samples in which the kernel may have stopped sending events for a while (someone talked
    /// its count of listeners down), so that every process's image was read.
    public private(set) var samplesWithEventsSilenced = 0
    /// How many times a tracked process's image was read to learn whether it still runs.
    public private(set) var imagesRead = 0

    /// More new pids than this: take them from /proc's listing rather than opening each.
    static let openLimit = 256
    /// At most this many forks between a sample's two reads are taken back at the next sample.
    static let raceSlack: Int64 = 4
    /// Processes younger than this are looked at fully (owner and exe link) every sample.
    static let recentFor = Seconds.of(3)
    /// Every tracked process's exe link is read at least this often.
    public static let exeLookEvery = Seconds.of(30)
    static let recentLimit = 256

    /// `kernelEvents`: the kernel's process events, or why there are none. They are used only
    /// when /proc shows this process's pid namespace (the events name pids as the kernel's first
    /// namespace sees them).
    public init(uids: Set<UInt32>, cpuEvery: Microseconds = Seconds.of(60), fs: ProcFS = ProcFS(), flatpakApps: FlatpakApps = FlatpakApps(),
                kernelEvents: Result<ProcessEvents, ProcessEvents.ListenError>? = nil) {
        self.uids = uids
        self.flatpakApps = flatpakApps
        self.cpuEvery = cpuEvery
        self.fs = fs
        ownPid = fs.showsOwnPids ? getpid() : nil
        switch kernelEvents {
        case .success(let events) where fs.showsOwnPids && ProcSampler.inFirstPidNamespace:
            self.kernelEvents = events
        case .success:
            kernelEventsFailure = "process events: this /proc is not of the kernel's first pid namespace"
        case .failure(let error):
            kernelEventsFailure = error.description
        case nil:
            kernelEventsFailure = "not asked for"
        }
        // A uid without an entry in the user database has no groups the daemon could know of.
        for uid in uids { accounts[uid] = UserAccount.lookup(uid: uid) ?? UserAccount(uid: uid, name: "uid \(uid)", groups: []) }
    }

    deinit {
        for t in tracked.values {
            fs.release(t.folder)
            if let image = t.image { fs.release(image) }
        }
        for r in recent { fs.release(r.folder) }
    }

    /// How many processes are tracked now (the watched uids').
    public var trackedCount: Int { tracked.count }

    /// The bytes kept for the tracked processes' exe paths (their buffers' capacity; tests).
    var exeBytesKept: Int { tracked.values.reduce(0) { $0 + $1.exe.capacity } }

    /// Whether the kernel's process events tell this sampler of execs and ends.
    public var hearsKernel: Bool { kernelEvents != nil }

    /// The kernel's process events' socket while they are used: readable once the kernel has
    /// named a process (or answered anyone's request), so a sample then has something to look at.
    public var kernelEventsDescriptor: Int32? { kernelEvents?.descriptor }

    /// Whether the next sample should come at the usual cadence rather than when the kernel names
    /// a process (with a look now and then): without the kernel's events; while a watched process
    /// is in its first seconds (its exe link is read every sample) or its first thread has ended;
    /// while another user's process met lately may still become a watched one's; while the
    /// kernel's last answer is missing (the next sample must look at every process too).
    public func wantsSteadySamples(at mono: Microseconds) -> Bool {
        guard let events = kernelEvents else { return true }
        return mono < steadyUntil || !recent.isEmpty || events.lastUnanswered
    }

    /// The kernel's events name pids as its first pid namespace sees them; in a container they
    /// would name other processes than /proc's.
    static let inFirstPidNamespace: Bool = {
        // The first namespace's init sees itself as pid 1 and has no parent namespace pids: its
        // NSpid line holds one number. Elsewhere the line lists one pid per namespace level.
        guard let status = ProcFS.contents(of: "/proc/self/status") else { return false }
        let text = String(decoding: status, as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("NSpid:") }) else { return false }
        return line.dropFirst("NSpid:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }).count == 1
    }()

    /// One look at /proc; appends what changed since the last one. `progress` is called every 256
    /// processes looked at (a look at every process of a busy machine can take a second or two:
    /// the daemon tells systemd's watchdog it is alive meanwhile).
    public func sample(at mono: Microseconds, into out: inout [Event.Kind], progress: () -> Void = {}) {
        var looked = 0
        func step() {
            looked += 1
            if looked & 255 == 0 { progress() }
        }
        followTracked(at: mono, into: &out)
        switch newPids() {
        case .none:
            break
        case .since(let before, let count) where count <= Self.openLimit:
            let max = fs.pidMax ?? Int32.max
            var pid = before
            for _ in 0..<count {
                pid = pid + 1 >= max ? 1 : pid + 1
                if tracked[pid] == nil { look(at: pid, listed: false, mono: mono, into: &out); step() }
            }
        case .since(let before, let count):
            let max = Int64(fs.pidMax ?? Int32.max)
            fs.pids(into: &pids)
            for pid in pids where tracked[pid] == nil {
                let after = (Int64(pid) - Int64(before) + max) % max
                if after >= 1, after <= count { look(at: pid, listed: true, mono: mono, into: &out); step() }
            }
        case .all:
            fs.pids(into: &pids)
            for pid in pids where tracked[pid] == nil { look(at: pid, listed: true, remember: nil, mono: mono, into: &out); step() }
        }
        lookAgainAtRecent(mono: mono, into: &out)
        nextCPURead = oldestCPURead == Int64.max ? nil : oldestCPURead + cpuEvery
    }

    /// When a tracked process's CPU time is next due to be read (`cpuEvery` after its last read;
    /// nil: none tracked). The daemon samples by then even while it waits for the kernel's events.
    public private(set) var nextCPURead: Microseconds?

    private enum NewPids {
        case none
        /// The `count` pids handed out after `before`.
        case since(Int32, count: Int64)
        case all
    }

    private func newPids() -> NewPids {
        guard fs.showsOwnPids, let max = fs.pidMax, let now = fs.lastPid() else { return .all }
        guard let before = lastPid, let createdBefore = created else {
            created = fs.createdSinceBoot()
            lastPid = fs.lastPid()
            return .all
        }
        // The pids went round exactly to the same last one: seen at the next pid handed out.
        if now == before { return .none }
        // The count first, then the last pid again: a process created in between is then among the pids.
        guard let createdNow = fs.createdSinceBoot(), let last = fs.lastPid() else { return .all }
        defer { lastPid = last; created = createdNow }
        let count = (Int64(last) - Int64(before) + Int64(max)) % Int64(max)
        // More processes created than pids handed out: the pids went round (or were set back).
        // A fork between the two reads of the last sample was among its pids but is counted only
        // now: the last sample's surplus of pids (a few at most) is taken back first.
        let createdSince = createdNow - createdBefore
        defer { pidsAhead = Swift.min(Swift.max(count - createdSince, 0), Self.raceSlack) }
        if createdSince - pidsAhead > count { return .all }
        return .since(before, count: count)
    }

    /// The tracked processes: gone, exec'd, their CPU time.
    private func followTracked(at mono: Microseconds, into out: inout [Event.Kind]) {
        gone.removeAll(keepingCapacity: true)
        // Read every sample, so that the socket's buffer holds only what came since the last.
        var heard = false
        if let events = kernelEvents {
            switch events.read(into: &news) {
            case .heard: heard = true
            case .lost: samplesWithEventsLost += 1
            case .silenced: samplesWithEventsSilenced += 1
            case .broken(let why):
                kernelEvents = nil
                kernelEventsFailure = why
            }
        }
        steadyUntil = 0
        oldestCPURead = Int64.max
        for pid in order {
            var t = tracked[pid]!
            // Read below when due: then it is read now.
            oldestCPURead = Swift.min(oldestCPURead, mono - t.cpuReadAt >= cpuEvery ? mono : t.cpuReadAt)
            let young = mono - t.since < Self.recentFor
            if young || t.firstThreadEnded { steadyUntil = Swift.max(steadyUntil, young ? t.since + Self.recentFor : Int64.max) }
            // The exe link of every process is read at least every `exeLookEvery`, for an image
            // shared with another process (vfork, CLONE_VM), which outlives an exec, and for
            // what the kernel's events may not have said (see ProcessEvents).
            let due = mono - t.exeReadAt >= Self.exeLookEvery
            if !young, let image = t.image, heard && !t.firstThreadEnded ? !news.names(pid) : stillRuns(image) {
                // Nothing says it changed.
                var same = !due
                if due, heard {
                    // The kernel did not name it: its exe link alone says whether it runs another program now.
                    let link = fs.exe(of: t.folder, into: &exe)
                    same = (link == .read || link == .readThroughThread) && exe == t.exe
                    if same { t.exeReadAt = mono }
                }
                if same {
                    let cpuDue = mono - t.cpuReadAt >= cpuEvery
                    if cpuDue { readCPU(&t, mono: mono, into: &out) }
                    if cpuDue || due { tracked[pid] = t }
                    continue
                }
            }
            t.exeReadAt = mono
            var execd = false
            if let image = t.image, !stillRuns(image) {
                fs.release(image)
                t.image = nil
                execd = true
            }
            var link = fs.exe(of: t.folder, into: &exe)
            if link == .hidden, execd || young {
                // It exec'd a program that may not be looked into: a setuid one (then it is not the
                // child's any more, see the owner below), or one the child may only run (an
                // execute-only copy): that is an unknown program of theirs, not nothing.
                exe.removeAll(keepingCapacity: true)
                exe.append(contentsOf: Self.hiddenExe.utf8)
                link = .read
            }
            switch link {
            case .gone:
                gone.append(pid)
                continue
            case .hidden:
                break    // made non-dumpable by itself: still the same program
            case .read, .readThroughThread:
                t.firstThreadEnded = link == .readThroughThread
                if execd || young {
                    // An exec may change the owner (setuid); a young process may still drop to the child's.
                    guard let uid = fs.owner(of: t.folder), uids.contains(uid) else { gone.append(pid); continue }
                    t.uid = uid
                }
                if t.folder.byPath {
                    // No descriptor holds this one: it is the same process only with the same start time.
                    guard fs.read(t.folder, "stat", into: &buffer), StatLine(buffer)?.startTicks == t.startTicks else {
                        gone.append(pid)
                        continue
                    }
                }
                if t.exe != exe {
                    t.exe = keptExe
                    let f = facts(t.folder, uid: t.uid, startTicks: t.startTicks)
                    t.loaderProgramUnknown = f.contentOf == nil && ProcSampler.isLoader(f.exe)
                    out.append(.processStarted(f))
                } else if young, t.loaderProgramUnknown {
                    let f = facts(t.folder, uid: t.uid, startTicks: t.startTicks)
                    if f.contentOf != nil {
                        t.loaderProgramUnknown = false
                        out.append(.processStarted(f))
                    }
                }
            }
            // Past the moments of a vfork, the image is watched instead of the exe link.
            if t.image == nil, !young { t.image = fs.image(of: t.folder) }
            if mono - t.cpuReadAt >= cpuEvery { readCPU(&t, mono: mono, into: &out) }
            tracked[pid] = t
        }
        guard !gone.isEmpty else { return }
        for pid in gone {
            let t = tracked.removeValue(forKey: pid)!
            fs.release(t.folder)
            if let image = t.image { fs.release(image) }
            out.append(.processExited(pid: pid))
        }
        order.removeAll { tracked[$0] == nil }
    }

    private func stillRuns(_ image: ProcessImage) -> Bool {
        imagesRead += 1
        return fs.stillRuns(image)
    }

    private func readCPU(_ t: inout Tracked, mono: Microseconds, into out: inout [Event.Kind]) {
        if fs.read(t.folder, "stat", into: &buffer), let stat = StatLine(buffer), stat.cpuMillis != t.cpuMillis {
            out.append(.processCPU(pid: t.folder.pid, cpuMillis: stat.cpuMillis))
            t.cpuMillis = stat.cpuMillis
        }
        t.cpuReadAt = mono
    }

    /// A pid that may be a new process: tracked when it is a watched uid's; else remembered a while
    /// when it is new (`remember` nil: when it started less than `recentFor` ago).
    private func look(at pid: Int32, listed: Bool, remember: Bool? = true, mono: Microseconds, into out: inout [Event.Kind]) {
        guard pid != ownPid, let folder = fs.open(pid) else { return }
        guard let uid = fs.owner(of: folder) else { fs.release(folder); return }
        guard uids.contains(uid) else {
            if remember ?? startedLately(folder, mono: mono), recent.count < Self.recentLimit, !folder.byPath {
                recent.append((folder, mono + Self.recentFor))
            } else {
                fs.release(folder)
            }
            return
        }
        track(folder, uid: uid, listed: listed, mono: mono, into: &out)
    }

    private func startedLately(_ folder: ProcessFolder, mono: Microseconds) -> Bool {
        guard fs.read(folder, "stat", into: &buffer), let stat = StatLine(buffer) else { return false }
        return mono - stat.startMicros < Self.recentFor
    }

    private func lookAgainAtRecent(mono: Microseconds, into out: inout [Event.Kind]) {
        guard !recent.isEmpty else { return }
        var kept = 0
        for i in recent.indices {
            let r = recent[i]
            if r.until >= mono, tracked[r.folder.pid] == nil, let uid = fs.owner(of: r.folder) {
                if !uids.contains(uid) { recent[kept] = r; kept += 1; continue }
                track(r.folder, uid: uid, listed: false, mono: mono, into: &out)
                continue
            }
            fs.release(r.folder)
        }
        recent.removeSubrange(kept...)
    }

    private func track(_ folder: ProcessFolder, uid: UInt32, listed: Bool, mono: Microseconds, into out: inout [Event.Kind]) {
        // A thread has a /proc/TID too, though /proc's listing shows only processes.
        guard listed || isProcess(folder),
              fs.read(folder, "stat", into: &buffer), let stat = StatLine(buffer) else {
            fs.release(folder)
            return
        }
        let link = fs.exe(of: folder, into: &exe)
        switch link {
        case .read, .readThroughThread: break
        case .gone:    // kernel threads, zombies
            fs.release(folder)
            return
        case .hidden:
            // Not dropped: a program the child may run but not read, or one that made itself
            // non-dumpable, is an unknown program of theirs.
            exe.removeAll(keepingCapacity: true)
            exe.append(contentsOf: Self.hiddenExe.utf8)
        }
        let f = facts(folder, uid: uid, startTicks: stat.startTicks)
        out.append(.processStarted(f))
        out.append(.processCPU(pid: folder.pid, cpuMillis: stat.cpuMillis))
        steadyUntil = Swift.max(steadyUntil, link == .readThroughThread ? Int64.max : stat.startMicros + Self.recentFor)
        oldestCPURead = Swift.min(oldestCPURead, mono)
        tracked[folder.pid] = Tracked(folder: folder, image: nil, since: stat.startMicros, uid: uid, startTicks: stat.startTicks,
                                      exe: keptExe, cpuMillis: stat.cpuMillis, cpuReadAt: mono,
                                      // The looks at every process's exe link spread over `exeLookEvery`.
                                      exeReadAt: mono - Self.exeLookEvery * Int64(folder.pid % 30) / 30,
                                      loaderProgramUnknown: f.contentOf == nil && ProcSampler.isLoader(f.exe),
                                      firstThreadEnded: link == .readThroughThread)
        let at = order.firstIndex { $0 > folder.pid } ?? order.endIndex
        order.insert(folder.pid, at: at)
    }

    /// A thread-group leader, not one of its other threads.
    private func isProcess(_ folder: ProcessFolder) -> Bool {
        guard fs.read(folder, "status", into: &buffer) else { return false }
        let key = Array("\nTgid:".utf8)
        guard let at = buffer.indices.first(where: { buffer[$0] == 10 && buffer[$0...].starts(with: key) }) else { return false }
        return ProcFS.number(buffer[(at + key.count)...].drop { $0 == 9 || $0 == 32 }) == Int64(folder.pid)
    }

    private func facts(_ folder: ProcessFolder, uid: UInt32, startTicks: Int64) -> ProcessFacts {
        let pid = folder.pid
        let exe = String(decoding: self.exe, as: UTF8.self)
        var comm: String? = nil
        if fs.read(folder, "comm", into: &buffer) {
            comm = String(decoding: buffer.prefix { $0 != 10 }, as: UTF8.self)
        }
        var cmdline: [String]? = nil
        if fs.read(folder, "cmdline", into: &buffer), !buffer.isEmpty {
            // A hint only: the name the program was started by (argv[0], which the classifier
            // reads), cut short. Its arguments are not kept: they can name a diary's file, a
            // private address or a password ([privacy], docs/state.md).
            cmdline = buffer.split(separator: 0, omittingEmptySubsequences: false).prefix(1)
                .map { String(decoding: $0.prefix(ProcSampler.cmdlineWordBytes), as: UTF8.self) }
        }
        var cgroup: String? = nil
        if fs.read(folder, "cgroup", into: &buffer) {
            // cgroup v2: one line "0::/path".
            let text = String(decoding: buffer, as: UTF8.self)
            cgroup = text.split(separator: "\n").first { $0.hasPrefix("0::") }.map { String($0.dropFirst(3)) }
        }
        let path = exe.hasSuffix(" (deleted)") ? String(exe.dropLast(10)) : exe
        // A program run from a memfd is one the child wrote.
        let writable = path.hasPrefix("/memfd:") ? true : accounts[uid].map { $0.canReplace(path) }
        var flatpak: String? = nil
        var contentOf: String? = nil
        let claimed = cgroup.flatMap(ProcSampler.flatpakID)
        // Opened only when there is something to compare it with (most processes: nothing).
        let program = exe == Self.hiddenExe || (claimed == nil && programs.isEmpty) ? -1 : fs.openProgram(of: folder)
        if program >= 0 {
            defer { fs.close(program) }
            // The scope's name only says which Flatpak to check the program against.
            if let claimed, let file = FileIdentity.of(fd: program), flatpakApps.runs(claimed, file: file) {
                flatpak = claimed
            }
            if let known = programs.program(openFile: program), known != path { contentOf = known }
        }
        if contentOf == nil, !programs.isEmpty, ProcSampler.isLoader(path) {
            // `ld.so GAME`: the program the loader runs is among the files mapped into the process.
            for file in fs.mappedFiles(of: folder) where file.path != path {
                if let known = programs.program(device: file.device, inode: file.inode) { contentOf = known; break }
                guard !file.path.hasSuffix(" (deleted)"), let known = programs.program(mappedFile: file.path, device: file.device, inode: file.inode) else { continue }
                contentOf = known
                break
            }
        }
        return ProcessFacts(pid: pid, exe: exe, startTicks: startTicks, uid: uid, comm: comm, cmdline: cmdline,
                            cgroup: cgroup, flatpak: flatpak, exeWritable: writable, contentOf: contentOf)
    }

    /// The dynamic loader (`ld-linux-x86-64.so.2`, `ld-linux-aarch64.so.1`, …), which can run a program named as its argument.
    static func isLoader(_ path: String) -> Bool {
        guard let base = path.split(separator: "/").last else { return false }
        return base.hasPrefix("ld-linux") || (base.hasPrefix("ld-") && base.contains(".so"))
    }


    /// The exe of a process whose program may not be looked into (`exe` in its `process_started`).
    public static let hiddenExe = "(hidden)"

    static let cmdlineWordBytes = 200

    /// `…/app-flatpak-org.kde.gcompris-12345.scope` → `org.kde.gcompris`.
    static func flatpakID(inCgroup path: String) -> String? {
        guard let last = path.split(separator: "/").last, last.hasPrefix("app-flatpak-"), last.hasSuffix(".scope") else { return nil }
        let body = last.dropFirst("app-flatpak-".count).dropLast(".scope".count)
        guard let dash = body.lastIndex(of: "-"), body[body.index(after: dash)...].allSatisfy(\.isNumber) else { return nil }
        let id = String(body[..<dash])
        return id.isEmpty ? nil : id
    }
}

/// The fields of /proc/PID/stat the sampler uses, parsed after the last ')' (comm may hold anything).
struct StatLine {
    /// The state letter: R running, S sleeping, D disk sleep, T stopped, t traced, Z zombie, …
    var state: UInt8
    var parent: Int32
    var userTicks: Int64
    var systemTicks: Int64
    var startTicks: Int64

    /// When the process started, in microseconds since boot (CLOCK_BOOTTIME, as event `mono`s are).
    var startMicros: Microseconds { startTicks * Seconds.micro / SystemClock.ticksPerSecond }

    /// User and system time together, in milliseconds.
    var cpuMillis: Int64 { (userTicks + systemTicks) * 1000 / SystemClock.ticksPerSecond }

    init?(_ bytes: [UInt8]) {
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")), close + 2 < bytes.count else { return nil }
        state = bytes[close + 2]
        // Fields after ')' start with field 3 (state); utime is 14, stime 15, starttime 22.
        var field = 2
        var user: Int64? = nil, system: Int64? = nil, start: Int64? = nil, parent: Int64? = nil
        var i = close + 1
        while i < bytes.count, field <= 22 {
            while i < bytes.count, bytes[i] == 32 { i += 1 }
            field += 1
            var v: Int64 = 0
            while i < bytes.count, bytes[i] != 32, bytes[i] != 10 {
                if bytes[i] >= 48, bytes[i] <= 57 { v = v * 10 + Int64(bytes[i] - 48) }
                i += 1
            }
            switch field {
            case 4: parent = v
            case 14: user = v
            case 15: system = v
            case 22: start = v
            default: break
            }
        }
        guard let u = user, let s = system, let st = start, let p = parent else { return nil }
        self.parent = Int32(truncatingIfNeeded: p)
        userTicks = u
        systemTicks = s
        startTicks = st
    }
}
