import Foundation
import ScreenTimeCore
@testable import ScreenTimeLinux
import TestSupport
import Testing

/// The sampler against real processes, run as uid 65002 with `setpriv` so that the watched uid
/// holds only what the test starts: no other test uses it (the end-to-end tests' daemons watch uid
/// 65534 and stop whatever of theirs looks like a game).
@Suite("/proc sampler", .ownThread, .serialized)
struct ProcSamplerTests {
    static let child: UInt32 = 65002

    /// Starts `args` as `uid` (the child, unless a suite that runs beside this one needs a uid of its own).
    static func spawn(_ args: [String], uid: UInt32 = child) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        p.arguments = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"] + args
        try p.run()
        return p
    }

    /// Starts `args` as this test's own user (root), not the child.
    static func spawnAsTheTest(_ args: [String]) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: args[0])
        p.arguments = Array(args.dropFirst())
        try p.run()
        return p
    }

    static func end(_ p: Process) {
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
    }

    /// Samples until `done` holds for the events seen so far (real processes take a moment to exec).
    static func sample(_ s: ProcSampler, until done: ([Event.Kind]) -> Bool) -> [Event.Kind] {
        var all: [Event.Kind] = []
        Wait.whether(within: 20) {   // generous: CI runs the crash and fuzz tests alongside
            s.sample(at: SystemClock.monoMicros(), into: &all)
            return done(all)
        }
        return all
    }

    static func started(_ events: [Event.Kind], pid: Int32) -> [ProcessFacts] {
        events.compactMap { if case .processStarted(let f) = $0, f.pid == pid { return f } else { return nil } }
    }

    @Test("a copied binary under another name is seen with its real path, name and owner")
    func copiedBinary() throws {
        let dir = try AppCopies.folder()
        let p = try Self.spawn(["\(dir)/gcompris-qt", "30"])
        defer { Self.end(p) }
        let s = ProcSampler(uids: [Self.child])
        let events = Self.sample(s) { Self.started($0, pid: p.processIdentifier).contains { $0.exe.hasSuffix("/gcompris-qt") } }
        let f = try #require(Self.started(events, pid: p.processIdentifier).last)
        #expect(f.exe == "\(dir)/gcompris-qt")
        #expect(f.comm == "gcompris-qt")
        // The name it was started by; not its arguments (they can say what a child wrote or read).
        #expect(f.cmdline == ["\(dir)/gcompris-qt"])
        #expect(f.uid == Self.child)
        #expect(f.exeWritable == false)
        #expect(f.startTicks != nil)
        Self.end(p)
        let after = Self.sample(s) { $0.contains(.processExited(pid: p.processIdentifier)) }
        #expect(after.contains(.processExited(pid: p.processIdentifier)))
    }

    @Test("a binary in a folder the child can write is reported writable")
    func writableFolder() throws {
        let dir = try AppCopies.folder(open: true)
        let p = try Self.spawn(["\(dir)/supertuxkart", "30"])
        defer { Self.end(p) }
        let s = ProcSampler(uids: [Self.child])
        let events = Self.sample(s) { Self.started($0, pid: p.processIdentifier).contains { $0.exe.hasSuffix("/supertuxkart") } }
        #expect(Self.started(events, pid: p.processIdentifier).last?.exeWritable == true)
    }

    @Test("an exec keeps the pid and is seen as a new program")
    func exec() throws {
        let dir = try AppCopies.folder()
        // The shell execs the game once the test says so, after the sampler has seen the shell
        // (a fixed sleep was too short on a loaded machine).
        let go = "\(dir)/go"
        let p = try Self.spawn(["/bin/sh", "-c", "while [ ! -e \(go) ]; do sleep 0.05; done; exec \(dir)/supertuxkart 30"])
        defer { Self.end(p) }
        let s = ProcSampler(uids: [Self.child])
        var events = Self.sample(s) { Self.started($0, pid: p.processIdentifier).contains { $0.exe == "/usr/bin/dash" || $0.exe == "/bin/dash" } }
        FileManager.default.createFile(atPath: go, contents: nil)
        events += Self.sample(s) { Self.started($0, pid: p.processIdentifier).contains { $0.exe.hasSuffix("/supertuxkart") } }
        let programs = Self.started(events, pid: p.processIdentifier).map(\.exe)
        #expect(programs.first.map { !$0.hasSuffix("/supertuxkart") } == true)
        #expect(programs.last == "\(dir)/supertuxkart")
        #expect(!events.contains(.processExited(pid: p.processIdentifier)))
    }

    @Test("an exec a minute after the start is seen in the next sample")
    func lateExec() throws {
        let dir = try AppCopies.folder()
        // Long past the first seconds, in which every new process's exe link is read each sample anyway.
        let p = try Self.spawn(["/bin/sh", "-c", "read x < /dev/null; sleep 61; exec \(dir)/supertuxkart 30"])
        defer { Self.end(p) }
        let s = ProcSampler(uids: [Self.child])
        var events: [Event.Kind] = []
        func execd() -> Bool { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(p.processIdentifier)/exe")) == "\(dir)/supertuxkart" }
        Wait.whether(within: 90, every: 0.1) {
            if execd() { return true }
            events.removeAll()
            s.sample(at: SystemClock.monoMicros(), into: &events)
            return false
        }
        #expect(execd())
        #expect(Self.started(events, pid: p.processIdentifier).isEmpty)
        events.removeAll()
        s.sample(at: SystemClock.monoMicros(), into: &events)
        #expect(Self.started(events, pid: p.processIdentifier).map(\.exe) == ["\(dir)/supertuxkart"])
        #expect(!events.contains(.processExited(pid: p.processIdentifier)))
    }

    @Test("a deleted binary is reported as such")
    func deletedBinary() throws {
        let dir = try AppCopies.folder()
        let p = try Self.spawn(["\(dir)/gcompris-qt", "30"])
        defer { Self.end(p) }
        let s = ProcSampler(uids: [Self.child])
        _ = Self.sample(s) { Self.started($0, pid: p.processIdentifier).contains { $0.exe.hasSuffix("/gcompris-qt") } }
        try FileManager.default.removeItem(atPath: "\(dir)/gcompris-qt")
        let events = Self.sample(s) { Self.started($0, pid: p.processIdentifier).contains { $0.exe.hasSuffix(" (deleted)") } }
        #expect(Self.started(events, pid: p.processIdentifier).last?.exe == "\(dir)/gcompris-qt (deleted)")
    }

    @Test("processes of other users are not reported")
    func otherUsers() throws {
        let dir = try AppCopies.folder()
        let mine = try Self.spawnAsTheTest(["\(dir)/gcompris-qt", "30"])
        defer { Self.end(mine) }
        let child = try Self.spawn(["\(dir)/supertuxkart", "30"])
        defer { Self.end(child) }
        let s = ProcSampler(uids: [Self.child])
        let events = Self.sample(s) { Self.started($0, pid: child.processIdentifier).contains { $0.exe.hasSuffix("/supertuxkart") } }
        #expect(Self.started(events, pid: mine.processIdentifier).isEmpty)
        #expect(!Self.started(events, pid: child.processIdentifier).isEmpty)
    }

    @Test("the sampler's own process is not followed (a user-mode daemon runs as the child, but is no app of theirs); another process of the same user is")
    func notItsOwnProcess() throws {
        let dir = try AppCopies.folder()
        let mine = try Self.spawnAsTheTest(["\(dir)/gcompris-qt", "30"])
        defer { Self.end(mine) }
        // Watching this test's own uid, as a user-mode daemon watches its own.
        let s = ProcSampler(uids: [getuid()])
        let events = Self.sample(s) { Self.started($0, pid: mine.processIdentifier).contains { $0.exe.hasSuffix("/gcompris-qt") } }
        #expect(!Self.started(events, pid: mine.processIdentifier).isEmpty)
        #expect(Self.started(events, pid: getpid()).isEmpty)
        #expect(!events.contains { if case .processCPU(let pid, _) = $0 { return pid == getpid() } else { return false } })
    }

    @Test("a watched process costs the sampler its exe path's bytes, not the PATH_MAX buffer the link was read into, also after an exec")
    func exePathKeptAtItsSize() throws {
        let dir = try AppCopies.folder()
        var ps: [Process] = []
        defer { ps.forEach(Self.end) }
        for _ in 0..<20 { ps.append(try Self.spawn(["\(dir)/gcompris-qt", "30"])) }
        // One that execs another program after its start: its new path is kept too.
        ps.append(try Self.spawn(["/bin/sh", "-c", "sleep 1; exec \(dir)/supertuxkart 30"]))
        let s = ProcSampler(uids: [Self.child])
        let last = ps.last!.processIdentifier
        let events = Self.sample(s) { events in
            ps.dropLast().allSatisfy { !Self.started(events, pid: $0.processIdentifier).isEmpty }
                && Self.started(events, pid: last).contains { $0.exe.hasSuffix("/supertuxkart") }
        }
        #expect(Self.started(events, pid: last).contains { $0.exe.hasSuffix("/supertuxkart") })
        // (The shell's `sleep 1` may still be tracked too.)
        #expect(s.trackedCount >= 21)
        // Each path, and what the allocator rounds it up to; PATH_MAX is 4,096.
        let longest = "\(dir)/supertuxkart".utf8.count
        #expect(s.exeBytesKept <= s.trackedCount * (longest + 64), "kept \(s.exeBytesKept) bytes for \(s.trackedCount) paths")
    }

    @Test("a Flatpak's id is read from its cgroup scope")
    func flatpakScope() {
        #expect(ProcSampler.flatpakID(inCgroup: "/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-org.kde.gcompris-12345.scope") == "org.kde.gcompris")
        #expect(ProcSampler.flatpakID(inCgroup: "/user.slice/user-1000.slice/session-2.scope") == nil)
        #expect(ProcSampler.flatpakID(inCgroup: "/app.slice/app-flatpak-org.x.Y-abc.scope") == nil)
    }

    static func cgroup2Mount() -> String? { Cgroup2.mount() }

    /// Runs `program` (stopped first, as a sandboxed app is before it runs) in a real cgroup scope
    /// named `scope`, and returns what the sampler says of it.
    static func inScope(_ scope: String, _ program: String, sampler: ProcSampler) throws -> ProcessFacts? {
        #expect(mkdir(scope, 0o755) == 0 || errno == EEXIST, "cannot create \(scope): \(String(cString: strerror(errno)))")
        let child = try Self.spawn(["/bin/sh", "-c", "kill -STOP $$; exec \(program) 30"])
        defer { Self.end(child); rmdir(scope) }
        Wait.whether(within: 2, every: 0.01) {
            let stat = try? String(contentsOfFile: "/proc/\(child.processIdentifier)/stat", encoding: .utf8)
            return stat?.split(separator: ")").last?.split(separator: " ").first == "T"
        }
        try "\(child.processIdentifier)\n".write(toFile: scope + "/cgroup.procs", atomically: false, encoding: .utf8)
        kill(child.processIdentifier, SIGCONT)
        let events = Self.sample(sampler) { Self.started($0, pid: child.processIdentifier).contains { $0.exe == program } }
        return Self.started(events, pid: child.processIdentifier).last { $0.exe == program }
    }

    @Test("a Flatpak scope's name is believed only for a program among that Flatpak's own root-owned files: a game in a scope it named itself is no Flatpak")
    func flatpakCgroup() throws {
        let mount = try #require(Self.cgroup2Mount(), "no cgroup2 mount in /proc/self/mountinfo")
        // A system-wide installation of org.example.Learn, laid out (and owned) as flatpak deploys one.
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("screentime-flatpak-\(UUID().uuidString)").path
        let files = root + "/app/org.example.Learn/x86_64/stable/0123abcd/files/bin"
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(atPath: root) }
        try AppCopies.uniqueCopy(of: "/bin/sleep", to: files + "/learn")
        let games = try AppCopies.folder()
        let sampler = ProcSampler(uids: [Self.child], flatpakApps: FlatpakApps(root: root))

        // The child's own scope, named after the learning Flatpak, around a game.
        let fake = try #require(try Self.inScope("\(mount)/app-flatpak-org.example.Learn-\(getpid())1.scope", "\(games)/supertuxkart", sampler: sampler))
        #expect(fake.cgroup?.hasSuffix("/app-flatpak-org.example.Learn-\(getpid())1.scope") == true)
        #expect(fake.flatpak == nil)
        // The Flatpak's own program in its scope.
        let real = try #require(try Self.inScope("\(mount)/app-flatpak-org.example.Learn-\(getpid())2.scope", files + "/learn", sampler: sampler))
        #expect(real.flatpak == "org.example.Learn")
        // Its program in a scope of another id is not that other app.
        let other = try #require(try Self.inScope("\(mount)/app-flatpak-org.example.Other-\(getpid())3.scope", files + "/learn", sampler: sampler))
        #expect(other.flatpak == nil)
    }

    @Test("a program the policy names is known under any other name: a renamed copy, a start through the loader, a memfd")
    func programByContent() throws {
        let apps = try AppCopies.folder()
        let game = "\(apps)/supertuxkart"
        let mine = FileManager.default.temporaryDirectory.appendingPathComponent("screentime-mine-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: mine, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(atPath: mine) }
        try FileManager.default.copyItem(atPath: game, toPath: "\(mine)/homework")
        chown(mine, Self.child, Self.child)
        chown("\(mine)/homework", Self.child, Self.child)
        let loader = try #require(["/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1"].first { FileManager.default.fileExists(atPath: $0) })
        let memfd = #"import os, sys; fd = os.memfd_create("homework"); f = os.fdopen(os.dup(fd), "wb"); "#
            + #"f.write(open(sys.argv[1], "rb").read()); f.close(); os.execve(fd, ["homework", "30"], {})"#

        let sampler = ProcSampler(uids: [Self.child])
        sampler.programs = KnownPrograms(paths: [game, "/nonexistent/learning-app"])
        let runs: [(what: String, args: [String], exe: (String) -> Bool, contentOf: String?)] = [
            ("the game itself", [game, "30"], { $0 == game }, nil),
            ("a renamed copy", ["\(mine)/homework", "30"], { $0 == "\(mine)/homework" }, game),
            ("through the loader", [loader, game, "30"], { ProcSampler.isLoader($0) }, game),
            ("the renamed copy through the loader", [loader, "\(mine)/homework", "30"], { ProcSampler.isLoader($0) }, game),
            ("from a memfd", ["/usr/bin/python3", "-c", memfd, game], { $0.hasPrefix("/memfd:homework") }, game),
            ("another program", ["\(apps)/mystery", "30"], { $0 == "\(apps)/mystery" }, nil),
        ]
        for run in runs {
            let p = try Self.spawn(run.args)
            defer { Self.end(p) }
            let events = Self.sample(sampler) { events in
                Self.started(events, pid: p.processIdentifier).contains { run.exe($0.exe) && ($0.contentOf != nil || run.contentOf == nil) }
            }
            let facts = try #require(Self.started(events, pid: p.processIdentifier).last { run.exe($0.exe) }, "\(run.what): never seen")
            #expect(facts.contentOf == run.contentOf, "\(run.what): \(facts)")
        }
    }

    @Test("stat is parsed after the last ')': a comm may hold spaces and parentheses")
    func statLine() {
        let line = "4242 (a) b (c) S 1 4242 4242 0 -1 4194304 100 0 0 0 250 50 0 0 20 0 1 0 987654 1000 200 18446744073709551615\n"
        let s = StatLine(Array(line.utf8))
        #expect(s?.userTicks == 250)
        #expect(s?.systemTicks == 50)
        #expect(s?.startTicks == 987654)
        #expect(s?.parent == 1)
    }

    /// Starts `args` as the child with a pid far above those handed out lately (through
    /// ns_last_pid, as root may). A pid the test then hands out again is one no other test has
    /// known: were it a recent one, another test's late `kill` of its own exited process could hit it.
    static func spawnAtFreshPid(_ args: [String], uid: UInt32 = child) throws -> Process {
        let loadavg = try String(contentsOfFile: "/proc/loadavg", encoding: .utf8)
        let last = Int(loadavg.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
        let max = Int(try String(contentsOfFile: "/proc/sys/kernel/pid_max", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 32768
        if last + 3000 < max {
            try "\(last + 2000)".write(toFile: "/proc/sys/kernel/ns_last_pid", atomically: false, encoding: .utf8)
        }
        return try spawn(args, uid: uid)
    }

    /// Starts `args` as the child so that it gets `pid` (through ns_last_pid, as root may); nil
    /// when another process keeps taking that pid first.
    static func spawn(_ args: [String], asPid pid: Int32, uid: UInt32 = child) throws -> Process? {
        for _ in 0..<10 {
            try "\(pid - 1)".write(toFile: "/proc/sys/kernel/ns_last_pid", atomically: false, encoding: .utf8)
            let p = try spawn(args, uid: uid)
            if p.processIdentifier == pid { return p }
            end(p)
        }
        return nil
    }

    /// Starts `first` at a fresh pid, lets `meanwhile` look at it, ends it, and starts `second` at
    /// the same pid. Another test's process may take that pid first; then it is tried again with
    /// another one. Nil when that happened every time.
    static func reusePid(first: [String], second: [String], uid: UInt32 = child, meanwhile: (Process) throws -> Void) throws -> Process? {
        for _ in 0..<5 {
            let a = try spawnAtFreshPid(first, uid: uid)
            try meanwhile(a)
            end(a)
            if let b = try spawn(second, asPid: a.processIdentifier, uid: uid) { return b }
        }
        return nil
    }

    @Test("a pid reused by a new process between two samples is an exit and a start")
    func pidReuse() throws {
        let dir = try AppCopies.folder()
        let s = ProcSampler(uids: [Self.child])
        let reused = try Self.reusePid(first: ["\(dir)/supertuxkart", "30"], second: ["\(dir)/gcompris-qt", "30"]) { game in
            // Another process after it, as on any machine: the last pid handed out is not the game's
            // when the pid is handed out again. (Set back to exactly the last pid a sample saw, which
            // only root can do with ns_last_pid, the new process would be seen at the next new pid.)
            Self.end(try Self.spawn(["/bin/true"]))
            _ = Self.sample(s) { Self.started($0, pid: game.processIdentifier).contains { $0.exe.hasSuffix("/supertuxkart") } }
        }
        let learning = try #require(reused, "no pid could be handed out again")
        defer { Self.end(learning) }
        let pid = learning.processIdentifier
        let events = Self.sample(s) { Self.started($0, pid: pid).contains { $0.exe.hasSuffix("/gcompris-qt") } }
        let mine = events.filter {
            switch $0 {
            case .processExited(let p), .processCPU(let p, _): return p == pid
            case .processStarted(let f): return f.pid == pid
            default: return false
            }
        }
        #expect(mine.count == 3)
        #expect(mine.first == .processExited(pid: pid))
        #expect(Self.started(mine, pid: pid).map(\.exe) == ["\(dir)/gcompris-qt"])
    }

    @Test("the threads of a watched process are not reported as processes")
    func threads() throws {
        let s = ProcSampler(uids: [Self.child])
        var before: [Event.Kind] = []
        s.sample(at: SystemClock.monoMicros(), into: &before)
        // Started after the first sample, so that its threads' pids are new ones the sampler opens.
        let p = try Self.spawn(["/usr/bin/python3", "-c",
            "import threading, time\n[threading.Thread(target=time.sleep, args=(30,)).start() for _ in range(8)]\nopen('/dev/stdin').read() if False else time.sleep(30)"])
        defer { Self.end(p) }
        var tasks: [String] = []
        Wait.whether(within: 2, every: 0.01) {
            tasks = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(p.processIdentifier)/task")) ?? [])
            return tasks.count >= 9
        }
        #expect(tasks.count == 9)
        let events = Self.sample(s) { Self.started($0, pid: p.processIdentifier).contains { $0.exe.hasPrefix("/usr/bin/python3") } }
        #expect(Self.started(events, pid: p.processIdentifier).count == 1)
        let threads = Set(tasks.compactMap(Int32.init)).subtracting([p.processIdentifier])
        let startedThreads = events.compactMap { if case .processStarted(let f) = $0, threads.contains(f.pid) { return f.pid } else { return nil } }
        #expect(threads.count == 8)
        #expect(startedThreads.isEmpty)
    }

    @Test("a process started by root that becomes the child's just after is seen")
    func becomesTheChilds() throws {
        let dir = try AppCopies.folder()
        let s = ProcSampler(uids: [Self.child])
        var before: [Event.Kind] = []
        s.sample(at: SystemClock.monoMicros(), into: &before)
        // Root's at first, as a login or su is, then the child's: the same process, the same pid.
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "sleep 0.5; exec setpriv --reuid=\(Self.child) --regid=\(Self.child) --clear-groups \(dir)/supertuxkart 30"]
        try p.run()
        defer { Self.end(p) }
        let events = Self.sample(s) { Self.started($0, pid: p.processIdentifier).contains { $0.exe.hasSuffix("/supertuxkart") } }
        #expect(Self.started(events, pid: p.processIdentifier).last?.uid == Self.child)
    }

    /// A shell of the child's that execs a game when the test writes to `fifo` (and until then
    /// starts nothing: a polling loop's `sleep`s would be processes of their own).
    static func shellExecingOnWord(_ dir: String) throws -> (Process, fifo: String) {
        let fifo = "\(dir)/go"
        guard mkfifo(fifo, 0o600) == 0, chown(fifo, child, child) == 0 else { throw FixtureFailure("mkfifo \(fifo): \(errno)") }
        return (try spawn(["/bin/sh", "-c", "read x < \(fifo); exec \(dir)/supertuxkart 30"]), fifo)
    }

    /// The shell of `shellExecingOnWord`, a sampler hearing the kernel's events and one polling.
    static func shellAndSamplers(_ dir: String) throws -> (Process, fifo: String, hearing: ProcSampler, polling: ProcSampler) {
        let (p, fifo) = try shellExecingOnWord(dir)
        return (p, fifo, ProcSampler(uids: [child], kernelEvents: ProcessEvents.listen()), ProcSampler(uids: [child]))
    }

    /// Lets the shell exec, and waits until it has.
    static func say(_ fifo: String, andWaitForExecOf p: Process, to program: String) {
        let fd = open(fifo, O_WRONLY)
        _ = write(fd, "go\n", 3)
        close(fd)
        Wait.whether(within: 20, every: 0.01) {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(p.processIdentifier)/exe")) == program
        }
    }

    /// Samples (as if past its first seconds) until `pid` is seen started, then once more, in
    /// which its image is opened; the events seen.
    static func sampleUntilWatched(_ s: ProcSampler, pid: Int32) -> [Event.Kind] {
        var events: [Event.Kind] = []
        Wait.whether(within: 20) {
            s.sample(at: later(), into: &events)
            return !started(events, pid: pid).isEmpty
        }
        s.sample(at: later(), into: &events)
        return events
    }

    /// Samples as if every process were past its first seconds (in which each is looked at fully).
    static func later() -> Microseconds { SystemClock.monoMicros() + Seconds.of(10) }

    @Test("with the kernel's process events a process is looked into only when the kernel names it: its exec is seen once the kernel has queued its event, its end in the next sample")
    func kernelEvents() throws {
        let dir = try AppCopies.folder()
        let (p, fifo, s, polling) = try Self.shellAndSamplers(dir)
        defer { Self.end(p) }
        #expect(s.hearsKernel)
        #expect(s.kernelEventsFailure == nil)
        #expect(!polling.hearsKernel)
        let pid = p.processIdentifier
        var events: [Event.Kind] = []
        Wait.whether(within: 20) {
            s.sample(at: Self.later(), into: &events)
            return !Self.started(events, pid: pid).isEmpty
        }
        #expect(Self.started(events, pid: pid).map(\.exe).contains { $0.hasSuffix("/dash") })
        _ = Self.sample(polling) { !Self.started($0, pid: pid).isEmpty }
        // 60 samples in which the shell waits: polling reads its image each time; with the
        // kernel's events never (its exe link alone is read at its 30-second look).
        let (fromEvents, fromPolling) = (s.imagesRead, polling.imagesRead)
        // A minute of them, a second apart: the shell's exe link is due once or twice.
        var quiet: [Event.Kind] = []
        let start = Self.later()
        for second in 1...60 {
            s.sample(at: start + Seconds.of(Int64(second)), into: &quiet)
            polling.sample(at: start + Seconds.of(Int64(second)), into: &quiet)
        }
        #expect(Self.started(quiet, pid: pid).isEmpty)
        #expect(polling.imagesRead - fromPolling >= 58)
        #expect(s.imagesRead == fromEvents)
        Self.say(fifo, andWaitForExecOf: p, to: "\(dir)/supertuxkart")
        events.removeAll()
        // /proc can show the new image a moment before the kernel has queued the exec's event
        // (seen once under stress-ng and the thread sanitizer): the event is waited for, not
        // assumed to be there at the next sample.
        Wait.whether(within: 20) {
            s.sample(at: Self.later(), into: &events)
            return !Self.started(events, pid: pid).isEmpty
        }
        #expect(Self.started(events, pid: pid).map(\.exe) == ["\(dir)/supertuxkart"])
        kill(pid, SIGKILL)
        p.waitUntilExit()
        events.removeAll()
        s.sample(at: Self.later(), into: &events)
        #expect(events.contains(.processExited(pid: pid)))
        #expect(s.samplesWithEventsLost == 0)
    }

    @Test("events lost to a flood of execs (a buffer run over): every process's image is read, so the exec hidden in the flood is still seen")
    func kernelEventsLost() throws {
        let dir = try AppCopies.folder()
        let (p, fifo) = try Self.shellExecingOnWord(dir)
        defer { Self.end(p) }
        // The smallest buffer the kernel allows: a few messages.
        let s = ProcSampler(uids: [Self.child], kernelEvents: ProcessEvents.listen(receiveBuffer: 1))
        #expect(s.hearsKernel)
        let pid = p.processIdentifier
        var events = Self.sampleUntilWatched(s, pid: pid)
        #expect(Self.started(events, pid: pid).count == 1)
        // 300 programs started and ended run the buffer over before the game's exec comes.
        let flood = Process()
        flood.executableURL = URL(fileURLWithPath: "/bin/sh")
        flood.arguments = ["-c", "i=0; while [ $i -lt 300 ]; do /bin/true; i=$((i+1)); done"]
        try flood.run()
        flood.waitUntilExit()
        let lostBefore = s.samplesWithEventsLost
        Self.say(fifo, andWaitForExecOf: p, to: "\(dir)/supertuxkart")
        events.removeAll()
        s.sample(at: Self.later(), into: &events)
        #expect(s.samplesWithEventsLost == lostBefore + 1)
        #expect(Self.started(events, pid: pid).map(\.exe) == ["\(dir)/supertuxkart"])
        #expect(s.hearsKernel)
    }

    /// A child's program that silences the kernel's process events (Linux 6.6 lets any user send
    /// it requests), run with `setpriv` as the child. It reads commands, one a line, and answers
    /// each with a line:
    /// - `down`: talks the kernel's count of listeners down (an invalid request, then "ignore",
    ///   which the kernel counts once more each time) until its own probe, a listener, no longer
    ///   gets the kernel's answer: "silent N" (N steps), "refused" (not allowed), "never".
    /// - `up`: raises the count by as many steps again (an invalid request, then "listen"): "up".
    /// At the end (stdin closed) it puts back what it took and stops listening.
    static let silencer = #"""
    import select, socket, struct, sys, time
    LISTEN, IGNORE, INVALID = 1, 2, 0x5157
    def request(s, op, nonce):
        cn = struct.pack("=IIIIHHI", 1, 1, nonce, nonce, 4, 0, op)
        s.sendto(struct.pack("=IHHII", 16 + len(cn), 3, 0, 0, 0) + cn, (0, 0))
    def answered(s, nonce, wait):
        end = time.time() + wait
        while time.time() < end:
            if not select.select([s], [], [], max(0, end - time.time()))[0]: return None
            try: m = s.recv(4096)
            except BlockingIOError: continue
            except OSError: continue   # ENOBUFS: other programs' events ran it over
            if len(m) >= 56 and struct.unpack_from("=I", m, 36)[0] == 0 and struct.unpack_from("=I", m, 28)[0] == nonce + 1:
                return struct.unpack_from("=I", m, 52)[0]
        return None
    a = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, 11); a.bind((0, 0))
    probe = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, 11); probe.bind((0, 1))
    probe.setblocking(False)
    request(probe, LISTEN, 7000)
    err = answered(probe, 7000, 5)
    print("ready" if err == 0 else "refused", flush=True)
    if err != 0: sys.exit(0)
    taken, nonce = 0, 7001
    def step(op):
        request(a, INVALID, 1); request(a, op, 2)
    for line in sys.stdin:
        word = line.strip()
        if word == "down":
            while taken < 5000:
                step(IGNORE); taken += 1; nonce += 1
                request(probe, LISTEN, nonce)
                if answered(probe, nonce, 0.3) is None: break
            print(f"silent {taken}" if taken < 5000 else "never", flush=True)
        elif word == "up":
            while taken > 0: step(LISTEN); taken -= 1
            print("up", flush=True)
    while taken > 0: step(LISTEN); taken -= 1
    # Its own sockets end as they began: "ignore" after "listen" is counted down once.
    step(LISTEN); request(a, IGNORE, 3)
    request(probe, IGNORE, 4)
    """#

    /// The silencer, started as the child, with its pipes.
    final class Silencer {
        let process: Process
        let commands = Pipe(), answers = Pipe()
        private var pending = Data()

        init() throws {
            process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(ProcSamplerTests.child)", "--regid=\(ProcSamplerTests.child)", "--clear-groups",
                                 "/usr/bin/python3", "-c", ProcSamplerTests.silencer]
            process.standardInput = commands
            process.standardOutput = answers
            try process.run()
        }

        /// The next line it says (nil once it ended).
        func line() -> String? {
            while true {
                if let newline = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    return line
                }
                let more = answers.fileHandleForReading.availableData
                if more.isEmpty { return nil }
                pending.append(more)
            }
        }

        func say(_ command: String) -> String? {
            commands.fileHandleForWriting.write(Data((command + "\n").utf8))
            return line()
        }

        /// Lets it put the count back as it was, and waits for its end.
        func finish() {
            try? commands.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }

    @Test("a child who silences the kernel's process events gains nothing: a game exec'd while they were silenced, and the count put back before the next sample, is seen at that sample; from then on the events are not used at all")
    func kernelEventsSilenced() throws {
        let silencer = try Silencer()
        defer { silencer.finish() }
        let ready = silencer.line()
        guard ProcessEvents.othersMayAsk else {
            // Before Linux 6.6 only CAP_NET_ADMIN may ask the kernel anything: the child cannot silence it.
            #expect(ready == "refused")
            return
        }
        #expect(ready == "ready")
        let dir = try AppCopies.folder()
        let (p, fifo) = try Self.shellExecingOnWord(dir)
        defer { Self.end(p) }
        let s = ProcSampler(uids: [Self.child], kernelEvents: ProcessEvents.listen())
        #expect(s.hearsKernel)
        let pid = p.processIdentifier
        var events = Self.sampleUntilWatched(s, pid: pid)
        #expect(Self.started(events, pid: pid).count == 1)
        #expect(s.samplesWithEventsSilenced == 0)

        // Silenced, and held down: the shell execs a game (no new process, no fork to count), then
        // the count is put back before the next sample. Every daemon of the other suites listens
        // too: the silencer takes them all down, and one of theirs starting meanwhile may raise
        // the count again; the game is to be seen at the next sample whichever way.
        let silent = silencer.say("down")
        #expect(silent?.hasPrefix("silent ") == true, "\(silent ?? "ended")")
        events.removeAll()
        s.sample(at: Self.later(), into: &events)
        Self.say(fifo, andWaitForExecOf: p, to: "\(dir)/supertuxkart")
        #expect(silencer.say("up") == "up")
        events.removeAll()
        s.sample(at: Self.later(), into: &events)
        #expect(Self.started(events, pid: pid).map(\.exe) == ["\(dir)/supertuxkart"])
        // Its invalid requests were heard: the events are used no more, and the sampler says why.
        #expect(!s.hearsKernel)
        #expect(s.kernelEventsFailure?.contains("invalid request") == true, "\(s.kernelEventsFailure ?? "")")
    }

    @Test("the kernel's silence is told from a quiet machine: a sample whose question to the kernel went unanswered reads every process, and so does the next")
    func kernelEventsUnanswered() throws {
        // The kernel's real silence, without an invalid request heard, needs the count held at
        // zero by listeners of the test's own while the suites running beside this one start and
        // stop daemons that listen too: not a thing to hold still. So the question is not sent
        // (a seam, `ask`): to the sampler that is the kernel not answering. The real silence and
        // the real answers are the test above's.
        let events = try ProcessEvents.listen().get()
        let s = ProcSampler(uids: [Self.child], kernelEvents: .success(events))
        let a = try Self.spawn(["/bin/sleep", "60"]), b = try Self.spawn(["/bin/sleep", "60"])
        defer { Self.end(a); Self.end(b) }
        var seen: [Event.Kind] = []
        Wait.whether(within: 20) {
            s.sample(at: Self.later(), into: &seen)
            return !Self.started(seen, pid: a.processIdentifier).isEmpty && !Self.started(seen, pid: b.processIdentifier).isEmpty
        }
        s.sample(at: Self.later(), into: &seen)    // their images are opened now
        #expect(s.trackedCount == 2)
        var quiet: [Event.Kind] = []
        func imagesReadBySample() -> Int {
            let before = s.imagesRead
            s.sample(at: Self.later(), into: &quiet)
            return s.imagesRead - before
        }
        #expect(imagesReadBySample() <= 1)    // one of the two may be due its 30-second look
        #expect(s.samplesWithEventsSilenced == 0)
        let ask = events.ask
        events.ask = { _, _ in 0 }
        guard ProcessEvents.othersMayAsk else {
            // Before Linux 6.6 only CAP_NET_ADMIN may change the count: the kernel is not asked.
            #expect(imagesReadBySample() <= 1)
            #expect(s.samplesWithEventsSilenced == 0)
            return
        }
        #expect(imagesReadBySample() == 2)
        #expect(s.samplesWithEventsSilenced == 1)
        events.ask = ask
        #expect(imagesReadBySample() == 2)    // the events may have come back only just before this one
        #expect(s.samplesWithEventsSilenced == 2)
        #expect(imagesReadBySample() <= 1)
        #expect(s.samplesWithEventsSilenced == 2)
        #expect(s.hearsKernel)
        #expect(quiet.isEmpty)
    }

    @Test("without the kernel's events (not asked for, or refused) every watched process's image is read each sample, and the sampler says why")
    func polling() throws {
        let dir = try AppCopies.folder()
        let p = try Self.spawn(["\(dir)/gcompris-qt", "30"])
        defer { Self.end(p) }
        let s = ProcSampler(uids: [Self.child], kernelEvents: .failure(ProcessEvents.ListenError("process events are off")))
        #expect(!s.hearsKernel)
        #expect(s.kernelEventsFailure == "process events are off")
        _ = Self.sample(s) { !Self.started($0, pid: p.processIdentifier).isEmpty }
        var events: [Event.Kind] = []
        s.sample(at: Self.later(), into: &events)    // past its first seconds: its image is opened
        let before = s.imagesRead
        for _ in 0..<10 { s.sample(at: Self.later(), into: &events) }
        #expect(s.imagesRead - before == 10)
    }

    @Test("the kernel tells of a program's exec and end by its process id")
    func processEvents() throws {
        let events = try ProcessEvents.listen().get()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/true")
        try p.run()
        p.waitUntilExit()
        var news = ProcessEvents.News()
        #expect(events.read(into: &news) == .heard)
        #expect(news.execd.contains(p.processIdentifier))
        #expect(news.ended.contains(p.processIdentifier))
        #expect(!news.lost)
        #expect(events.read(into: &news) == .heard)
        #expect(!news.names(p.processIdentifier))
    }

    @Test("a process whose first thread ended while others run (it then shows as a zombie) is seen, with its program, until it really ends", arguments: [false, true])
    func firstThreadEnded(hearingKernel: Bool) throws {
        // The main thread ends itself (pthread_exit) after starting one that runs on.
        let p = try Self.spawn(["/usr/bin/python3", "-c",
            "import ctypes, threading, time\nthreading.Thread(target=time.sleep, args=(60,)).start()\nctypes.CDLL(None).pthread_exit(None)"])
        defer { Self.end(p) }
        let pid = p.processIdentifier
        func status() -> String { (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? "" }
        Wait.whether(within: 20, every: 0.01) { status().contains("State:\tZ") && status().contains("Threads:\t2") }
        #expect(status().contains("State:\tZ") && status().contains("Threads:\t2"), "\(status())")
        let s = ProcSampler(uids: [Self.child], kernelEvents: hearingKernel ? ProcessEvents.listen() : nil)
        #expect(s.hearsKernel == hearingKernel)
        var events: [Event.Kind] = []
        s.sample(at: Self.later(), into: &events)
        #expect(Self.started(events, pid: pid).map(\.exe).contains { $0.hasPrefix("/usr/bin/python3") })
        // A minute of samples, a second apart (its exe link is read once or twice at its 30-second look): it runs on.
        let start = Self.later()
        for second in 1...60 { s.sample(at: start + Seconds.of(Int64(second)), into: &events) }
        #expect(!events.contains(.processExited(pid: pid)))
        kill(pid, SIGKILL)
        p.waitUntilExit()
        events.removeAll()
        s.sample(at: start + Seconds.of(61), into: &events)
        #expect(events.contains(.processExited(pid: pid)))
    }

    @Test("with the kernel's process events the daemon may wait for them: a quiet sampler asks for no steady samples; a process in its first seconds, or no events, does; the events' socket is readable once anyone execs")
    func samplesMayWaitForTheKernel() throws {
        let dir = try AppCopies.folder()
        let (p, fifo, s, polling) = try Self.shellAndSamplers(dir)
        defer { Self.end(p) }
        #expect(s.hearsKernel)
        let fd = try #require(s.kernelEventsDescriptor)
        #expect(polling.kernelEventsDescriptor == nil)
        var events = Self.sample(s) { !Self.started($0, pid: p.processIdentifier).isEmpty }
        let shell = try #require(Self.started(events, pid: p.processIdentifier).first)
        let since = try #require(shell.startTicks) * (Seconds.micro / Int64(sysconf(Int32(_SC_CLK_TCK))))
        // The shell's first seconds want a look every sample; without the kernel's events every sample is one.
        #expect(s.wantsSteadySamples(at: since + Seconds.of(1)))
        #expect(polling.wantsSteadySamples(at: since + Seconds.of(60)))
        // Past them, the sampler may wait for the kernel (another user's process met in a sample
        // is looked at again for a few seconds: on this busy machine, samples are taken until one met none).
        var quiet = since + Seconds.of(10)
        for _ in 0..<50 {
            quiet += Seconds.of(4)
            s.sample(at: quiet, into: &events)
            if !s.wantsSteadySamples(at: quiet) { break }
        }
        #expect(!s.wantsSteadySamples(at: quiet))
        // The shell's exec: the events' socket is readable (whatever else it holds), and the next sample sees it.
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        Self.say(fifo, andWaitForExecOf: p, to: "\(dir)/supertuxkart")
        ready.revents = 0
        #expect(poll(&ready, 1, 10_000) == 1)
        events.removeAll()
        s.sample(at: quiet + Seconds.of(1), into: &events)
        #expect(Self.started(events, pid: p.processIdentifier).map(\.exe).contains { $0.hasSuffix("/supertuxkart") })
    }
}
