import Foundation
import ScreenTimeLinux
import ScreenTimeSystemd

/// A process's resident memory (KiB) and CPU time used so far (clock ticks), from /proc.
func processFigures(_ pid: Int32) -> (rssKiB: Int, cpuTicks: Int) {
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    let rss = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
    let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
    let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
    let cpu = fields.count > 13 ? (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0) : 0
    return (rss, cpu)
}

/// Runs `path` with `arguments` (output discarded); nil when it cannot start.
@discardableResult
func start(_ path: String, _ arguments: [String], environment: [String: String]? = nil) -> Process? {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = arguments
    if let environment { p.environment = environment }
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    return (try? p.run()) != nil ? p : nil
}

/// System mode against Timekpr-nExT, side by side in the same minutes: the release screentimed
/// `--system` and `timekprd`, each watching the same two children (two test users with a logind
/// session each) on a private system bus with python3-dbusmock's logind (docs/dev/recipes.md),
/// among 1,000 processes. Their RSS and CPU, and the ratios.
@MainActor func systemBench(binaries: String, minutes: Int) {
    guard minutes > 0 else { return }
    guard getuid() == 0 else { print("system mode vs Timekpr-nExT: run make bench as root (it makes two test users)"); return }
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/timekprd") else {
        print("system mode vs Timekpr-nExT: timekprd is not installed (Debian's timekpr-next; make bench installs it)")
        return
    }
    // Timekpr-nExT watches uids from login.defs' UID_MIN to UID_MAX (1000–60000 on Debian).
    let children: [(uid: UInt32, name: String)] = [(59901, "stbench59901"), (59902, "stbench59902")]
    for c in children where getpwuid(c.uid) == nil {
        start("/usr/sbin/useradd", ["--uid", "\(c.uid)", "--no-create-home", "--shell", "/usr/sbin/nologin", "--user-group", c.name])?.waitUntilExit()
    }
    let base = dir + "/system"
    try! FileManager.default.createDirectory(atPath: base + "/policies", withIntermediateDirectories: true)
    let bus = "unix:path=\(base)/bus"
    try! """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig><type>system</type><listen>\(bus)</listen><auth>EXTERNAL</auth>
        <policy context="default"><allow own="*"/><allow send_destination="*" eavesdrop="true"/>
        <allow eavesdrop="true"/><allow user="*"/></policy></busconfig>
        """.write(toFile: base + "/bus.conf", atomically: true, encoding: .utf8)
    var processes: [Process] = []
    defer {
        for p in processes.reversed() where p.isRunning { kill(p.processIdentifier, SIGTERM) }
        usleep(500_000)
        for p in processes where p.isRunning { kill(p.processIdentifier, SIGKILL) }
    }
    guard let daemonBus = start("/usr/bin/dbus-daemon", ["--config-file=\(base)/bus.conf", "--nofork"]) else {
        print("system mode vs Timekpr-nExT: dbus-daemon did not start (Debian's dbus-daemon)"); return
    }
    processes.append(daemonBus)
    let env = ["PATH": "/usr/bin:/bin", "DBUS_SYSTEM_BUS_ADDRESS": bus]
    usleep(300_000)
    guard let logind = start("/usr/bin/python3", ["-m", "dbusmock", "--template", "logind", "--system"], environment: env) else {
        print("system mode vs Timekpr-nExT: python3-dbusmock did not start"); return
    }
    processes.append(logind)
    var sessions = false
    for _ in 0..<100 where !sessions && logind.isRunning {
        usleep(100_000)
        guard let b = try? Bus(.system, address: bus) else { continue }
        sessions = children.enumerated().allSatisfy { i, c in
            (try? b.call("org.freedesktop.login1", "/org/freedesktop/login1", "org.freedesktop.DBus.Mock", "AddSession",
                         [.string("c\(i + 1)"), .string("seat0"), .uint32(c.uid), .string(c.name), .bool(true)])) != nil
        }
    }
    guard sessions else { print("system mode vs Timekpr-nExT: dbusmock's logind did not answer"); return }
    // 1,000 processes, 50 of each child's.
    for c in children {
        for _ in 0..<50 {
            if let p = start("/usr/bin/setpriv", ["--reuid=\(c.uid)", "--regid=\(c.uid)", "--clear-groups", "/bin/sleep", "3600"]) { processes.append(p) }
        }
    }
    while processCount() < 1000, processes.count < 1300, let p = start("/bin/sleep", ["3600"]) { processes.append(p) }
    // Screen time limited, as Timekpr-nExT's whole job is: the daemon follows the children's login
    // sessions (every 5 s) and counts their screen time; no limit is reached in the run.
    // (SYSTEM_BENCH_SCREEN=0: without, for an A/B of what following the sessions costs.)
    let withScreen = ProcessInfo.processInfo.environment["SYSTEM_BENCH_SCREEN"] != "0"
    let screenPolicy = policyText + (withScreen ? "\n[screen]\ndaily_limit = \"6h\"\nweekly_limit = \"20h\"\nwarn_before = [\"10m\"]\n" : "")
    for c in children { try! screenPolicy.write(toFile: "\(base)/policies/\(c.name).toml", atomically: true, encoding: .utf8) }
    guard let screentimed = start(binaries + "/screentimed", ["--system", "--policy-dir", base + "/policies", "--state-dir", base + "/state",
                                                             "--socket", base + "/control.sock", "--no-desktop-hooks"], environment: env),
          let timekpr = start("/usr/bin/timekprd", [], environment: env) else {
        print("system mode vs Timekpr-nExT: a daemon did not start"); return
    }
    processes += [screentimed, timekpr]
    sleep(5)
    guard screentimed.isRunning, timekpr.isRunning else {
        print("system mode vs Timekpr-nExT: \(screentimed.isRunning ? "timekprd" : "screentimed") stopped at once"); return
    }
    let total = processCount()
    let before = (processFigures(screentimed.processIdentifier), processFigures(timekpr.processIdentifier))
    let t = ContinuousClock.now
    sleep(UInt32(minutes * 60))
    let after = (processFigures(screentimed.processIdentifier), processFigures(timekpr.processIdentifier))
    let wall = seconds(ContinuousClock.now - t)
    func cpu(_ a: (rssKiB: Int, cpuTicks: Int), _ b: (rssKiB: Int, cpuTicks: Int)) -> Double {
        Double(b.cpuTicks - a.cpuTicks) / Double(sysconf(Int32(_SC_CLK_TCK))) / wall * 100
    }
    let ours = (rss: after.0.rssKiB, cpu: cpu(before.0, after.0)), theirs = (rss: after.1.rssKiB, cpu: cpu(before.1, after.1))
    func mib(_ kib: Int) -> String { String(format: "%.1f MiB", Double(kib) / 1024) }
    print("system mode, two children\(withScreen ? " with [screen]" : ""), \(total) processes, over \(minutes) min, side by side: screentimed --system (release, 1 Hz) RSS \(mib(ours.rss)), CPU \(String(format: "%.2f", ours.cpu)) % of a core; timekprd (Timekpr-nExT \(timekprVersion())) RSS \(mib(theirs.rss)), CPU \(String(format: "%.2f", theirs.cpu)) % of a core")
    print("  screentimed/timekprd: RSS \(String(format: "%.2f", Double(ours.rss) / Double(max(1, theirs.rss)))) (target ≤ 0.33), CPU \(theirs.cpu > 0 ? String(format: "%.2f", ours.cpu / theirs.cpu) : "n/a (timekprd used none)") (target ≤ 0.20)")
    print(residentBreakdown(of: screentimed.processIdentifier).split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
}

func timekprVersion() -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/dpkg-query")
    p.arguments = ["-W", "-f", "${Version}", "timekpr-next"]
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    guard (try? p.run()) != nil else { return "?" }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}

func mebibytes(_ kib: Int) -> String { String(format: "%.1f MiB", Double(kib) / 1024) }

/// Where a process's resident pages come from, from /proc/PID/smaps: the program's own file
/// (code and data as mapped), its anonymous memory (heap, stacks, written copies of data), and
/// each shared library, largest first.
func residentBreakdown(of pid: Int32) -> String {
    // Read to its end (Foundation stops short on a /proc file, whose size says 0).
    guard let smaps = ProcFS.contents(of: "/proc/\(pid)/smaps").map({ String(decoding: $0, as: UTF8.self) }) else { return "smaps: unreadable" }
    let program = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) ?? ""
    var byOrigin: [String: (rss: Int, anon: Int)] = [:]
    var origin = ""
    for line in smaps.split(separator: "\n") {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard let first = fields.first else { continue }
        if first.contains("-"), fields.count >= 5, first.first?.isHexDigit == true {
            let path = fields.count > 5 ? String(fields[5]) : ""
            origin = path == program ? "the program (\((program as NSString).lastPathComponent))" : path.hasPrefix("/") ? (path as NSString).lastPathComponent : "anonymous (heap, stacks)"
        } else if first == "Rss:", let kib = Int(fields[1]) {
            byOrigin[origin, default: (0, 0)].rss += kib
        } else if first == "Anonymous:", let kib = Int(fields[1]) {
            byOrigin[origin, default: (0, 0)].anon += kib
        }
    }
    let total = byOrigin.values.reduce(0) { $0 + $1.rss }
    return (["resident \(mebibytes(total)), of which:"] + byOrigin.sorted { $0.value.rss > $1.value.rss }.prefix(8).map { name, v in
        "\(String(format: "%6d", v.rss)) KiB \(name)" + (v.anon > 0 && !name.hasPrefix("anonymous") ? " (\(v.anon) KiB of it written copies)" : "")
    }).joined(separator: "\n")
}

/// The median wall time of `command` (seconds) over 200 runs of hyperfine, without a shell; nil
/// when hyperfine is missing or fails.
func hyperfineMedian(_ command: [String]) -> Double? {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/hyperfine") else { return nil }
    let json = dir + "/hyperfine.json"
    let line = command.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
    guard let p = start("/usr/bin/hyperfine", ["-N", "--warmup", "20", "--runs", "200", "--export-json", json, line]) else { return nil }
    p.waitUntilExit()
    guard p.terminationStatus == 0, let data = FileManager.default.contents(atPath: json),
          let top = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
          let results = top["results"] as? [[String: Any]], let median = results.first?["median"] as? Double else { return nil }
    return median
}
