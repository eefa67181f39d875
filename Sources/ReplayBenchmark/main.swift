import Foundation
import ScreenTimeCore
import ScreenTimePolicy
import ScreenTimeStore
import ScreenTimeLinux
import ControlProtocol

// `make bench`: replay throughput on a generated week of events, decoding included and not.
// Ratios matter more than absolute numbers on a shared machine; all are measured in one run.

let policyText = """
    version = 1
    timezone = "Europe/Berlin"
    [rewards]
    daily_limit = "90m"
    weekly_limit = "7h"
    allowed_hours = ["07:00-20:00"]
    redemption_expires_after = "7d"
    [[apps]]
    name = "GCompris"
    category = "learning"
    exe = ["/usr/bin/gcompris-qt"]
    [[apps]]
    name = "TuxMath"
    category = "learning"
    exe = ["/usr/games/tuxmath"]
    [[apps]]
    name = "SuperTuxKart"
    category = "reward"
    exe = ["/usr/games/supertuxkart"]
    [[apps]]
    name = "Terminal"
    category = "neutral"
    exe = ["/usr/bin/xterm"]
    """

/// A week of a child's afternoons: 25 background processes sampled every minute, learning with
/// input every few seconds, games after redemptions, locks and idle stretches. `inputGap`: the
/// shortest gap between two inputs and how much longer one may be (seconds); the input-heavy week
/// (issue #37) has an input every 0.02–0.12 s, about a million events of which 96 % are `input`.
func generateWeek(_ week: Int = 0, inputGap: (least: Double, spread: Double) = (0.3, 4), gameInputGap: (least: Double, spread: Double) = (0.2, 1)) -> [Event] {
    var seed: UInt64 = 2026
    func next() -> Double {
        seed = seed &* 6364136223846793005 &+ 1442695040888963407
        return Double(seed >> 11) / Double(1 << 53)
    }
    var events: [Event] = []
    let origin = RFC3339.parse("2026-11-23T14:00:00+01:00")!.micros + Int64(week) * 7 * 86_400 * 1_000_000
    func add(_ s: Double, _ k: Event.Kind) {
        let m = Int64(s * 1e6)
        events.append(Event(at: WallTime(micros: origin + m, utcOffsetSeconds: 3600), mono: 1_000_000_000 + m, k))
    }
    for day in 0..<7 {
        let base = Double(day) * 86_400
        var cpu: [Int32: Int64] = [:]
        for p in 0..<25 {
            let pid = Int32(1000 + (week * 7 + day) % 300 * 100 + p)
            add(base, .processStarted(ProcessFacts(pid: pid, exe: p == 0 ? "/usr/bin/xterm" : "/usr/lib/x86_64-linux-gnu/helper\(p)",
                                                   startTicks: Int64(pid), uid: 1000)))
            cpu[pid] = 0
        }
        add(base + 1, .adjust(points: 40, reason: "chores"))
        add(base + 2, .redeem(minutes: 20, by: "mom"))
        var t = base + 10
        // Locks and idle stretches as often per hour, however dense the input.
        let rare = (inputGap.least + inputGap.spread / 2) / 2.3
        let learner = Int32(40_000 + (week * 7 + day) % 1000)
        add(t, .processStarted(ProcessFacts(pid: learner, exe: day % 2 == 0 ? "/usr/bin/gcompris-qt" : "/usr/games/tuxmath", startTicks: 1, uid: 1000)))
        add(t, .focusChanged(FocusedWindow(pid: learner, appID: "learning", title: "Learning")))
        let learnEnd = t + 2.5 * 3600
        var nextSample = t + 60
        while t < learnEnd {
            t += inputGap.least + next() * inputGap.spread
            if t >= nextSample {
                for (pid, ms) in cpu.sorted(by: { $0.key < $1.key }) { cpu[pid] = ms + 300; add(nextSample, .processCPU(pid: pid, cpuMillis: ms + 300)) }
                nextSample += 60
            }
            if next() < 0.002 * rare { add(t, .lockChanged(locked: true)); t += 120; add(t, .lockChanged(locked: false)) }
            if next() < 0.001 * rare { add(t, .idleChanged(idle: true, since: nil)); t += 400; add(t, .idleChanged(idle: false, since: nil)) }
            add(t, .input(count: 3))
        }
        add(t, .processExited(pid: learner))
        let game = Int32(50_000 + (week * 7 + day) % 1000)
        add(t + 60, .processStarted(ProcessFacts(pid: game, exe: "/usr/games/supertuxkart", startTicks: 1, uid: 1000)))
        add(t + 60, .focusChanged(FocusedWindow(pid: game, appID: "supertuxkart", title: "SuperTuxKart")))
        var g = t + 60
        while g < t + 60 + 1500 { g += gameInputGap.least + next() * gameInputGap.spread; add(g, .input(count: 10)) }
        add(g, .processExited(pid: game))
        for pid in cpu.keys.sorted() { add(base + 86_000, .processExited(pid: pid)) }
    }
    return events
}

func measure(_ label: String, events: Int, repeat runs: Int = 9, _ body: () -> Void) -> Double {
    var best = Double.infinity
    for _ in 0..<runs {
        let start = ContinuousClock.now
        body()
        let d = ContinuousClock.now - start
        best = min(best, Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
    }
    let rate = Double(events) / best
    print("\(label): \(events) events in \(String(format: "%.3f", best)) s = \(String(format: "%.0f", rate)) events/s (best of \(runs))")
    return rate
}

let policy = try! PolicyLoader.parse(policyText)
let events = generateWeek()
let log = events.map(EventLog.encode).joined(separator: "\n") + "\n"
let bytes = Array(log.utf8)
print("A generated week: \(events.count) events, \(bytes.count / 1024) KiB of JSON lines")

var sink = 0
let engineRate = measure("engine only (events already decoded, effects looked at and let go)", events: events.count) {
    var engine = Engine(policy: policy)
    var effects: [Effect] = []
    for e in events { engine.apply(e, into: &effects); sink &+= effects.count; effects.removeAll(keepingCapacity: true) }
    engine.finish(into: &effects)
    sink &+= effects.count
}
let decodeRate = measure("decoding only (JSON lines to events)", events: events.count) {
    bytes.withUnsafeBufferPointer { buf in
        EventLogLines.forEach(in: buf) { _, line in
            if (try? EventLog.decode(bytes: line)) != nil { sink &+= 1 }
            return true
        }
    }
}
/// Replay as `screentimed replay` does it: decoding, the engine, the result gathered.
func replay(_ bytes: [UInt8]) -> Int {
    let replayed = bytes.withUnsafeBufferPointer { ReplayResult.replay(lines: $0, policy: policy) }
    guard case .success(let (result, _)) = replayed else { fatalError("the generated week did not replay") }
    return result.sessions.count + result.ledger.count
}
let replayRate = measure("replay (decode + engine), as `screentimed replay`", events: events.count) { sink &+= replay(bytes) }
print("target: 1,000,000 events/s for replay; engine/replay ratio \(String(format: "%.2f", engineRate / replayRate))")

do {
    let heavy = generateWeek(inputGap: (0.02, 0.1), gameInputGap: (0.02, 0.1))
    let inputs = heavy.filter { if case .input = $0.kind { return true } else { return false } }.count
    let heavyBytes = Array((heavy.map(EventLog.encode).joined(separator: "\n") + "\n").utf8)
    print("An input-heavy week: \(heavy.count) events, \(inputs * 100 / heavy.count) % of them input, \(heavyBytes.count / 1024) KiB of JSON lines")
    if CommandLine.arguments.dropFirst().first == "--profile-replay" {
        // For `perf record`: the replay alone, many times over.
        for _ in 0..<20 { sink &+= replay(heavyBytes) }
        exit(0)
    }
    if CommandLine.arguments.dropFirst().first == "--profile-engine" {
        for week in [events, heavy] {
            for _ in 0..<(week.count < 100_000 ? 100 : 8) {
                var engine = Engine(policy: policy)
                var effects: [Effect] = []
                for e in week { engine.apply(e, into: &effects); sink &+= effects.count; effects.removeAll(keepingCapacity: true) }
                sink &+= effects.count
            }
        }
        exit(0)
    }
    _ = measure("input-heavy week: engine only", events: heavy.count, repeat: 5) {
        var engine = Engine(policy: policy)
        var effects: [Effect] = []
        for e in heavy { engine.apply(e, into: &effects); sink &+= effects.count; effects.removeAll(keepingCapacity: true) }
        engine.finish(into: &effects)
        sink &+= effects.count
    }
    _ = measure("input-heavy week: replay (decode + engine)", events: heavy.count, repeat: 5) { sink &+= replay(heavyBytes) }
}
if CommandLine.arguments.dropFirst().first == "--replay-only" { exit(0) }
// `--system-only BINARIES MINUTES`: only the side-by-side run with Timekpr-nExT (as root).
if CommandLine.arguments.dropFirst().first == "--system-only", CommandLine.arguments.count > 2 {
    systemBench(binaries: CommandLine.arguments[2], minutes: CommandLine.arguments.count > 3 ? Int(CommandLine.arguments[3]) ?? 5 : 5)
    exit(0)
}

// MARK: The state database (issue #3)

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

let dir = FileManager.default.temporaryDirectory.appendingPathComponent("screentime-bench-\(getpid())").path
try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: dir) }
let lines = events.map(EventLog.encode)

_ = measure("store: event lines appended in batches of 1,000", events: lines.count, repeat: 3) {
    let store = try! Store(path: dir + "/append-\(UUID().uuidString).sqlite")
    var k = 0
    while k < lines.count {
        var batch = Store.Batch()
        batch.events = Array(lines[k..<min(k + 1000, lines.count)])
        try! store.commit(batch)
        k += 1000
    }
}
_ = measure("daemon path: encode, apply, save (LiveState, saved every 1,000)", events: events.count, repeat: 3) {
    var live = try! LiveState(store: try! Store(path: dir + "/live-\(UUID().uuidString).sqlite"), policyText: policyText, policyFile: "bench")
    for (k, e) in events.enumerated() {
        live.ingest(e)
        if k % 1000 == 999 { try! live.flush() }
    }
    try! live.flush()
}

let yearPath = dir + "/year.sqlite"
var yearEvents = 0
let built = ContinuousClock.now
do {
    var live = try! LiveState(store: try! Store(path: yearPath), policyText: policyText, policyFile: "bench")
    for week in 0..<52 {
        for (k, e) in generateWeek(week).enumerated() {
            live.ingest(e)
            if k % 1000 == 999 { try! live.flush() }
            yearEvents += 1
        }
    }
    try! live.flush()
}
let buildTime = seconds(ContinuousClock.now - built)
let dbBytes = ((try? FileManager.default.attributesOfItem(atPath: yearPath)[.size] as? NSNumber)?.int64Value ?? 0)
    + ((try? FileManager.default.attributesOfItem(atPath: yearPath + "-wal")[.size] as? NSNumber)?.int64Value ?? 0)
print("a year of history: \(yearEvents) events written in \(String(format: "%.1f", buildTime)) s; database \(dbBytes / 1_048_576) MiB = \(dbBytes / Int64(max(1, yearEvents))) bytes per event")

var bestStart = Double.infinity
for _ in 0..<5 {
    let t = ContinuousClock.now
    let live = try! LiveState(store: try! Store(path: yearPath), policyText: policyText, policyFile: "bench")
    bestStart = min(bestStart, seconds(ContinuousClock.now - t))
    sink &+= Int(live.engine.ledger.balance)
}
let t0 = ContinuousClock.now
let full = try! LiveState.rebuild(from: try! Store(path: yearPath), fromCheckpoint: false)!
let fullTime = seconds(ContinuousClock.now - t0)
sink &+= full.events
print("start-up with a year of history: \(String(format: "%.0f", bestStart * 1000)) ms from the newest checkpoint (best of 5; target < 300 ms); replaying the whole year instead: \(String(format: "%.0f", fullTime * 1000)) ms")

// MARK: The control socket (issue #4), against the real release daemon

func socketBench(binaries: String) {
    let base = dir + "/socket"
    try! FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
    try! policyText.write(toFile: base + "/policy.toml", atomically: true, encoding: .utf8)
    let daemon = Process()
    daemon.executableURL = URL(fileURLWithPath: binaries + "/screentimed")
    daemon.arguments = ["--policy", base + "/policy.toml", "--state-dir", base + "/state", "--socket", base + "/control.sock"]
    daemon.standardError = FileHandle.nullDevice
    try! daemon.run()
    defer { daemon.terminate(); daemon.waitUntilExit() }
    var connection: UnixConnection? = nil
    for _ in 0..<200 where connection == nil {
        connection = try? UnixConnection.connect(path: base + "/control.sock")
        if connection == nil { usleep(20_000) }
    }
    guard let c = connection else { print("control socket: the daemon did not start"); return }
    var reader = FrameReader()
    func ask(_ request: ControlRequest) -> Bool { ask(bytes: ControlProtocol.encode(request)) }
    func ask(bytes: [UInt8]) -> Bool {
        guard c.write(bytes) else { return false }
        while true {
            guard let bytes = c.read() else { return false }
            if !reader.append(bytes).isEmpty { return true }
        }
    }
    let status = ControlProtocol.encode(ControlRequest(.status))
    for _ in 0..<500 { _ = ask(bytes: status) }
    var times: [Double] = []
    for _ in 0..<10_000 {
        let t = ContinuousClock.now
        _ = ask(bytes: status)
        times.append(seconds(ContinuousClock.now - t))
    }
    times.sort()
    print("stctl status round trip over the socket: p50 \(String(format: "%.0f", times[5_000] * 1e6)) µs, p99 \(String(format: "%.0f", times[9_900] * 1e6)) µs over 10,000 requests (target p99 < 1 ms)")
    // A hook sends the same request again and again: encoded once, so that the daemon is measured.
    let input = ControlProtocol.encode(ControlRequest(.hookEvent, event: "{\"event\": \"input\", \"count\": 1}"))
    let t = ContinuousClock.now
    for _ in 0..<20_000 { _ = ask(bytes: input) }
    print("hook events over the socket, one at a time with their replies: \(String(format: "%.0f", 20_000 / seconds(ContinuousClock.now - t))) events/s (target ≥ 20,000/s)")
    // As a hook with a burst to tell does: 100 events written at once, then their 100 replies read.
    let burst = Array(repeating: input, count: 100).flatMap { $0 }
    let tb = ContinuousClock.now
    var answered = 0
    for _ in 0..<200 {
        guard c.write(burst) else { break }
        var replies = 0
        while replies < 100, let bytes = c.read() { replies += reader.append(bytes).count }
        answered += replies
    }
    print("hook events over the socket, written 100 at a time: \(String(format: "%.0f", Double(answered) / seconds(ContinuousClock.now - tb))) events/s (\(answered) answered)")
    // A whole process, exec to exit, timed by hyperfine (Debian's), not through Foundation's
    // Process, which adds its own milliseconds.
    if let median = hyperfineMedian([binaries + "/stctl", "status", "--socket", base + "/control.sock"]) {
        print("one `stctl status` process, exec to exit: median \(String(format: "%.1f", median * 1000)) ms over 200 runs of hyperfine (target ≤ 5 ms)")
    } else {
        print("one `stctl status` process, exec to exit: hyperfine is not installed (Debian's hyperfine; make bench installs it)")
    }
}
if CommandLine.arguments.count > 1 {
    socketBench(binaries: CommandLine.arguments[1])
    webBench(binaries: CommandLine.arguments[1])
}

// MARK: The /proc sampler (issue #5): 1,000 processes on the machine, 100 of them the child's

/// What a plain C daemon would do each second: readdir /proc and stat every pid.
func fullScan() -> Int {
    guard let d = opendir("/proc") else { return 0 }
    defer { closedir(d) }
    var mine = 0
    var st = stat()
    var path = [CChar](repeating: 0, count: 64)
    while let e = readdir(d) {
        let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        guard let first = name.utf8.first, first >= 48, first <= 57 else { continue }
        _ = "/proc/\(name)".withCString { strncpy(&path, $0, 63) }
        if stat(path, &st) == 0, st.st_uid == 65534 { mine += 1 }
    }
    return mine
}

func processCount() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.filter { $0.first?.isNumber == true }.count ?? 0 }

@MainActor func samplerBench(binaries: String?, minutes: Int) {
    guard getuid() == 0 else { print("/proc sampler: run make bench as root (it starts processes as uid 65534)"); return }
    var spawned: [Process] = []
    func spawn(asChild: Bool) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: asChild ? "/usr/bin/setpriv" : "/bin/sleep")
        p.arguments = asChild ? ["--reuid=65534", "--regid=65534", "--clear-groups", "/bin/sleep", "3600"] : ["3600"]
        if (try? p.run()) != nil { spawned.append(p) }
    }
    defer { for p in spawned { kill(p.processIdentifier, SIGKILL) } }
    let childAlready = fullScan()
    for _ in childAlready..<100 { spawn(asChild: true) }
    while processCount() < 1000 && spawned.count < 1200 { spawn(asChild: false) }
    // Past their first seconds, in which the sampler looks at new processes more closely.
    sleep(4)
    let total = processCount(), child = fullScan()
    let sampler = ProcSampler(uids: [65534])
    // The same, told of execs and ends by the kernel's process events.
    let hearing = ProcSampler(uids: [65534], kernelEvents: ProcessEvents.listen())
    var out: [Event.Kind] = []
    // The first sample looks at every process (as after the pids went round).
    let first = ContinuousClock.now
    sampler.sample(at: SystemClock.monoMicros(), into: &out)
    let firstTime = seconds(ContinuousClock.now - first)
    hearing.sample(at: SystemClock.monoMicros(), into: &out)
    out.removeAll()
    // Interleaved, so that all three see the same machine at the same moments.
    var sampleTimes: [Double] = [], scanTimes: [Double] = [], hearingTimes: [Double] = []
    for _ in 0..<300 {
        var t = ContinuousClock.now
        sampler.sample(at: SystemClock.monoMicros(), into: &out)
        sampleTimes.append(seconds(ContinuousClock.now - t))
        out.removeAll(keepingCapacity: true)
        t = ContinuousClock.now
        hearing.sample(at: SystemClock.monoMicros(), into: &out)
        hearingTimes.append(seconds(ContinuousClock.now - t))
        out.removeAll(keepingCapacity: true)
        t = ContinuousClock.now
        sink &+= fullScan()
        scanTimes.append(seconds(ContinuousClock.now - t))
    }
    sampleTimes.sort(); scanTimes.sort(); hearingTimes.sort()
    let sample = sampleTimes[150], scan = scanTimes[150]
    func us(_ t: Double) -> String { String(format: "%.0f µs", t * 1e6) }
    print("/proc sampler, \(total) processes, \(child) of them the child's: one sample \(us(sample)) (median of 300; target < 1 ms); a C-style full scan (readdir + stat of every pid) \(us(scan)); sample/scan \(String(format: "%.1f", sample / scan * 100)) % (target < 10 %)")
    print("  samples: 90th percentile \(us(sampleTimes[270])), slowest \(us(sampleTimes[299])); the first sample, which looks at every process, \(us(firstTime))")
    if hearing.hearsKernel {
        print("  with the kernel's process events: one sample \(us(hearingTimes[150])) (median), 90th percentile \(us(hearingTimes[270])); samples with events lost: \(hearing.samplesWithEventsLost) of 300")
    } else {
        print("  with the kernel's process events: not measured (\(hearing.kernelEventsFailure ?? "?"))")
    }

    guard let binaries, minutes > 0 else { return }
    // The release daemon as the child, sampling once a second, for `minutes`.
    let base = dir + "/daemon"
    try! FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
    try! policyText.write(toFile: base + "/policy.toml", atomically: true, encoding: .utf8)
    let daemon = Process()
    daemon.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
    daemon.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", binaries + "/screentimed", "--no-logind",
                        "--policy", base + "/policy.toml", "--state-dir", base + "/state", "--socket", base + "/control.sock"]
    daemon.standardError = FileHandle.nullDevice
    try! daemon.run()
    defer { kill(daemon.processIdentifier, SIGTERM) }
    func figures() -> (rssKiB: Int, cpuTicks: Int) { processFigures(daemon.processIdentifier) }
    sleep(5)
    let start = figures()
    let t = ContinuousClock.now
    sleep(UInt32(minutes * 60))
    let end = figures()
    let wall = seconds(ContinuousClock.now - t)
    let cpu = Double(end.cpuTicks - start.cpuTicks) / Double(sysconf(Int32(_SC_CLK_TCK))) / wall * 100
    print("screentimed (release) watching \(child) processes, 1 Hz, over \(minutes) min: RSS \(mebibytes(start.rssKiB)) after start, \(mebibytes(end.rssKiB)) at the end (target ≤ 8 MiB); CPU \(String(format: "%.3f", cpu)) % of a core")
    print(residentBreakdown(of: daemon.processIdentifier).split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
}
samplerBench(binaries: CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : nil,
             minutes: CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 10 : 10)
if CommandLine.arguments.count > 1 {
    systemBench(binaries: CommandLine.arguments[1], minutes: CommandLine.arguments.count > 3 ? Int(CommandLine.arguments[3]) ?? 5 : 5)
}
if sink == 42 { print("") }
