import Foundation
import ScreenTimeCore
import ScreenTimePolicy

/// Builds event timelines for scenario tests: times are seconds after an origin.
struct Timeline {
    var origin: WallTime
    /// Monotonic seconds at the origin; nil: the log has no `mono`.
    var monoOrigin: Double?
    /// Events with the offset they were added at; replayed in offset order (stable for equal offsets).
    private var entries: [(offset: Double, event: Event)] = []
    var events: [Event] {
        entries.enumerated().sorted { a, b in
            a.element.offset != b.element.offset ? a.element.offset < b.element.offset : a.offset < b.offset
        }.map(\.element.event)
    }
    private var rng = SplitMix(seed: 42)

    init(_ origin: String = "2026-11-23T15:00:00+01:00", mono: Double? = nil) {
        self.origin = RFC3339.parse(origin)!
        self.monoOrigin = mono
    }

    /// Adds an event `s` seconds after the origin; `wallSkew` moves only the wall clock (a clock trick).
    mutating func add(_ s: Double, _ kind: Event.Kind, wallSkew: Double = 0) {
        let wall = WallTime(micros: origin.micros + Int64(((s + wallSkew) * 1e6).rounded()), utcOffsetSeconds: origin.utcOffsetSeconds)
        let mono = monoOrigin.map { Int64((($0 + s) * 1e6).rounded()) }
        entries.append((s, Event(at: wall, mono: mono, kind)))
    }

    mutating func start(_ s: Double, pid: Int32, exe: String, ticks: Int64? = nil, writable: Bool? = nil, flatpak: String? = nil, comm: String? = nil) {
        add(s, .processStarted(ProcessFacts(pid: pid, exe: exe, startTicks: ticks ?? Int64(pid) * 10, uid: 1000,
                                            comm: comm ?? String(exe.split(separator: "/").last!.prefix(15)),
                                            cmdline: [exe], flatpak: flatpak, exeWritable: writable)))
    }
    mutating func exit(_ s: Double, pid: Int32) { add(s, .processExited(pid: pid)) }
    mutating func focus(_ s: Double, pid: Int32?, appID: String? = nil, title: String? = nil) {
        add(s, .focusChanged(FocusedWindow(pid: pid, appID: appID, title: title)))
    }
    mutating func lock(_ s: Double, _ locked: Bool, claimed: Bool = false) { add(s, .lockChanged(locked: locked, claimed: claimed)) }
    mutating func idle(_ s: Double, _ idle: Bool, since: Double? = nil) {
        add(s, .idleChanged(idle: idle, since: since.map { WallTime(micros: origin.micros + Int64($0 * 1e6), utcOffsetSeconds: origin.utcOffsetSeconds) }))
    }
    mutating func redeem(_ s: Double, minutes: Int64) { add(s, .redeem(minutes: minutes, by: "mom")) }
    mutating func adjust(_ s: Double, points: Int64) { add(s, .adjust(points: points, reason: "test")) }
    mutating func tick(_ s: Double) { add(s, .tick) }
    /// A login session of the child's begins or ends (docs/spec/screen.md).
    mutating func login(_ s: Double, _ session: String) { add(s, .sessionStarted(session: session, tty: false, remote: false)) }
    mutating func logout(_ s: Double, _ session: String) { add(s, .sessionEnded(session: session)) }
    /// Input every `period` seconds from `from` to before `to` (screen time does not judge its rhythm).
    mutating func keys(from: Double, to: Double, every period: Double = 20) { jiggle(from: from, to: to, every: period) }
    /// The paused game `pid` was found running again; last seen paused at `since`.
    mutating func continued(_ s: Double, pid: Int32, since: Double) {
        add(s, .gameContinued(pid: pid, since: WallTime(micros: origin.micros + Int64(since * 1e6), utcOffsetSeconds: origin.utcOffsetSeconds)))
    }
    mutating func cpu(_ s: Double, pid: Int32, ms: Int64) { add(s, .processCPU(pid: pid, cpuMillis: ms)) }

    /// Human-like input: irregular gaps of `min`...`max` seconds from `from` to before `to`.
    mutating func typing(from: Double, to: Double, min: Double = 3, max: Double = 40) {
        var s = from + 0.5
        while s < to {
            add(s, .input(count: 5))
            s += min + rng.nextUnit() * (max - min)
        }
    }

    /// Machine input: exactly every `period` seconds.
    mutating func jiggle(from: Double, to: Double, every period: Double) {
        var s = from
        while s < to { add(s, .input(count: 1)); s += period }
    }

    func replay(_ policy: Policy) -> ReplayResult {
        ReplayResult.replay(events, policy: policy)
    }
}

/// A small deterministic generator (SplitMix64) so that tests are the same every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

/// The shared scenarios' policy, with keys replaced or removed (`nil`) and apps added.
func testPolicy(_ overrides: [String: String?] = [:], apps extra: String = "") -> Policy {
    let sections: [(String, [(String, String)])] = [
        ("", [("version", "1"), ("timezone", "\"Europe/Berlin\"")]),
        ("points", [("learning_per_hour", "60"), ("per_reward_minute", "2"), ("daily_learning_cap", "\"2h\"")]),
        ("rewards", [("daily_limit", "\"90m\""), ("weekly_limit", "\"7h\""), ("allowed_hours", "[\"07:00-20:00\"]"),
                     ("redemption_expires_after", "\"7d\""), ("counts_while", "\"running\"")]),
        ("validation", [("strictness", "\"moderate\"")]),
        ("enforcement", [("warn_before", "[\"5m\", \"1m\"]"), ("action", "\"terminate\""), ("grace", "\"15s\"")]),
        ("requests", []),
        ("privacy", []),
        ("screen", []),
    ]
    var text = ""
    var used = Set<String>()
    for (section, keys) in sections {
        // ([screen] only when a test sets something in it: its presence alone adds `screen.days`.)
        if section == "screen", !overrides.keys.contains(where: { $0.hasPrefix("screen.") }) { continue }
        if !section.isEmpty { text += "\n[\(section)]\n" }
        var lines = keys
        for (k, _) in overrides where k.hasPrefix(section.isEmpty ? "" : section + ".") {
            let key = section.isEmpty ? k : String(k.dropFirst(section.count + 1))
            if key.contains(".") && section.isEmpty { continue }
            if !lines.contains(where: { $0.0 == key }) { lines.append((key, "")) }
        }
        for (key, value) in lines {
            let full = section.isEmpty ? key : section + "." + key
            if let o = overrides[full] {
                used.insert(full)
                if let v = o { text += "\(key) = \(v)\n" }
            } else if !value.isEmpty {
                text += "\(key) = \(value)\n"
            }
        }
    }
    precondition(used.count == overrides.count, "unknown override in \(overrides.keys.sorted())")
    text += """

        [[apps]]
        name = "GCompris"
        category = "learning"
        exe = ["/usr/bin/gcompris-qt"]
        flatpak = "org.kde.gcompris"

        [[apps]]
        name = "TuxMath"
        category = "learning"
        points_per_hour = 30
        exe = ["/usr/games/tuxmath"]

        [[apps]]
        name = "SuperTuxKart"
        category = "reward"
        exe = ["/usr/games/supertuxkart"]

        [[apps]]
        name = "Minetest"
        category = "reward"
        exe = ["/usr/games/minetest"]

        [[apps]]
        name = "Blocked Game"
        category = "blocked"
        exe = ["/usr/games/blocked-game"]

        [[apps]]
        name = "Terminal"
        category = "neutral"
        exe = ["/usr/bin/xterm"]

        """ + extra
    do { return try PolicyLoader.parse(text, file: "test.toml") } catch { fatalError("\(error)\n\(text)") }
}

let gcompris = "/usr/bin/gcompris-qt"
let tuxmath = "/usr/games/tuxmath"
let kart = "/usr/games/supertuxkart"
let minetest = "/usr/games/minetest"
let xterm = "/usr/bin/xterm"
let M = 60.0   // seconds in a minute, for readable timelines
let H = 3600.0

extension ReplayResult {
    var learningPoints: Int64 { ledger.filter { $0.kind == .earned }.reduce(0) { $0 + $1.points } }
    var learningSessions: [SessionRecord] { sessions.filter { $0.category == .learning } }
    var stops: [StopOrder] { actions.compactMap { if case .stop(let s) = $0 { return s } else { return nil } } }
    var warnings: [Warning] { actions.compactMap { if case .warn(let w) = $0 { return w } else { return nil } } }
}

/// Seconds as engine microseconds.
func sec(_ s: Double) -> Microseconds { Microseconds((s * 1e6).rounded()) }

/// A wall time `s` seconds after the default origin.
func wall(_ s: Double, origin: String = "2026-11-23T15:00:00+01:00") -> Microseconds {
    RFC3339.parse(origin)!.micros + sec(s)
}
