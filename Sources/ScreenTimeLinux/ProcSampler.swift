import ScreenTimeCore

/// Turns /proc into `process_started` / `process_exited` / `process_cpu` events for the watched
/// uids. Identity is (pid, starttime); the exe link is read again on every sample, so an `exec`
/// is seen within one sample. Other users' processes cost one `stat` each.
public struct ProcSampler {
    public let uids: Set<UInt32>
    /// How often a tracked process's CPU time is reported.
    public let cpuEvery: Microseconds
    private let fs: ProcFS
    private var accounts: [UInt32: UserAccount] = [:]

    private struct Known {
        var startTicks: Int64
        var exe: String
        var cpuMillis: Int64
        var cpuReportedAt: Microseconds
    }
    private var known: [Int32: Known] = [:]
    private var pids: [Int32] = []
    private var seen: Set<Int32> = []
    private var buffer: [UInt8] = []

    public init(uids: Set<UInt32>, cpuEvery: Microseconds = Seconds.of(60), fs: ProcFS = ProcFS()) {
        self.uids = uids
        self.cpuEvery = cpuEvery
        self.fs = fs
        for uid in uids { accounts[uid] = UserAccount.lookup(uid: uid) }
    }

    /// One look at /proc; appends what changed since the last one.
    public mutating func sample(at mono: Microseconds, into out: inout [Event.Kind]) {
        fs.pids(into: &pids)
        seen.removeAll(keepingCapacity: true)
        for pid in pids {
            guard let uid = fs.owner(of: pid), uids.contains(uid),
                  fs.read(pid, "stat", into: &buffer), let stat = StatLine(buffer) else { continue }
            guard let exe = fs.exe(of: pid) else { continue }     // kernel threads, zombies
            seen.insert(pid)
            let cpu = (stat.userTicks + stat.systemTicks) * 1000 / SystemClock.ticksPerSecond
            if var k = known[pid], k.startTicks == stat.startTicks {
                if k.exe != exe {
                    k.exe = exe
                    out.append(.processStarted(facts(pid: pid, uid: uid, exe: exe, startTicks: stat.startTicks)))
                }
                if mono - k.cpuReportedAt >= cpuEvery, cpu != k.cpuMillis {
                    out.append(.processCPU(pid: pid, cpuMillis: cpu))
                    k.cpuMillis = cpu
                    k.cpuReportedAt = mono
                }
                known[pid] = k
                continue
            }
            if known[pid] != nil { out.append(.processExited(pid: pid)) }   // the pid was reused
            out.append(.processStarted(facts(pid: pid, uid: uid, exe: exe, startTicks: stat.startTicks)))
            out.append(.processCPU(pid: pid, cpuMillis: cpu))
            known[pid] = Known(startTicks: stat.startTicks, exe: exe, cpuMillis: cpu, cpuReportedAt: mono)
        }
        if known.count > seen.count {
            for pid in known.keys.sorted() where !seen.contains(pid) {
                known[pid] = nil
                out.append(.processExited(pid: pid))
            }
        }
    }

    private mutating func facts(pid: Int32, uid: UInt32, exe: String, startTicks: Int64) -> ProcessFacts {
        var comm: String? = nil
        if fs.read(pid, "comm", into: &buffer) {
            comm = String(decoding: buffer.prefix { $0 != 10 }, as: UTF8.self)
        }
        var cmdline: [String]? = nil
        if fs.read(pid, "cmdline", into: &buffer), !buffer.isEmpty {
            // A hint only, and command lines can carry secrets: the first few words, cut short.
            cmdline = buffer.split(separator: 0, omittingEmptySubsequences: false).dropLast(buffer.last == 0 ? 1 : 0)
                .prefix(ProcSampler.cmdlineWords).map { String(decoding: $0.prefix(ProcSampler.cmdlineWordBytes), as: UTF8.self) }
        }
        var cgroup: String? = nil
        if fs.read(pid, "cgroup", into: &buffer) {
            // cgroup v2: one line "0::/path".
            let text = String(decoding: buffer, as: UTF8.self)
            cgroup = text.split(separator: "\n").first { $0.hasPrefix("0::") }.map { String($0.dropFirst(3)) }
        }
        let path = exe.hasSuffix(" (deleted)") ? String(exe.dropLast(10)) : exe
        let writable = accounts[uid].map { $0.canReplace(path) }
        return ProcessFacts(pid: pid, exe: exe, startTicks: startTicks, uid: uid, comm: comm, cmdline: cmdline,
                            cgroup: cgroup, flatpak: cgroup.flatMap(ProcSampler.flatpakID), exeWritable: writable)
    }

    static let cmdlineWords = 4
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
    var userTicks: Int64
    var systemTicks: Int64
    var startTicks: Int64

    init?(_ bytes: [UInt8]) {
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        // Fields after ')' start with field 3 (state); utime is 14, stime 15, starttime 22.
        var field = 2
        var user: Int64? = nil, system: Int64? = nil, start: Int64? = nil
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
            case 14: user = v
            case 15: system = v
            case 22: start = v
            default: break
            }
        }
        guard let u = user, let s = system, let st = start else { return nil }
        userTicks = u
        systemTicks = s
        startTicks = st
    }
}
