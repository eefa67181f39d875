import ArgumentParser
import ControlProtocol
import DesktopHooks
import Foundation

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Points, game time left now and today, learning today, and what the app in use counts as.",
        discussion: "--json prints the status object of docs/protocol.md.")

    @OptionGroup var client: ClientOptions

    func run() throws {
        try reporting {
            let reply = try client.send(ControlRequest(.status))
            if client.json, reply.ok, let s = reply.status {
                print(String(decoding: ControlProtocol.encode(s).dropLast(), as: UTF8.self))
                return
            }
            try client.finish(reply) { reply in
                guard let s = reply.status else { return "" }
                return Status.text(s)
            }
        }
    }

    static func text(_ s: ControlReply.Status) -> String {
        var rows: [(String, String)] = [
            ("Points", "\(s.balance)   (+\(s.pointsToday) today; a game minute costs \(s.pointsPerRewardMinute))"),
            ("Game time now", minutes(s.rewardAvailableSeconds)),
            ("Game time today", "\(minutes(s.rewardTodayRemainingSeconds))   (played \(minutes(s.rewardUsedTodaySeconds)))"),
            ("Redeemed, left", minutes(s.rewardRemainingSeconds)),
            ("Learning today", minutes(s.learningTodaySeconds)),
        ]
        if let app = s.currentApp {
            rows.append(("In use", "\(app): \(s.currentCounts ?? s.currentCategory ?? "")"))
        }
        let width = rows.map(\.0.count).max() ?? 0
        var lines = rows.map { $0.0.padding(toLength: width + 3, withPad: " ", startingAt: 0) + $0.1 }
        lines += s.blindSpots.map { "Note: \($0)" }
        return lines.joined(separator: "\n")
    }
}

struct Redeem: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Parents: turn points into minutes of game time.",
        discussion: "Refused, and nothing changes, when the balance cannot pay. Needs root or a user in the policy's [parents] users.")

    @Argument(help: "Minutes of game time.")
    var minutes: Int64

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            try client.finish(try parent.send(ControlRequest(.redeem, minutes: minutes), with: client)) { reply in
                "Redeemed \(self.minutes) min for \(reply.cost ?? 0) points; the balance is now \(reply.balance ?? 0)."
            }
        }
    }
}

struct Adjust: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Parents: give or take points, with a reason.")

    @Argument(help: "Points: positive for a bonus, negative for a penalty.")
    var points: Int64

    @Option(name: .long, help: "Why, in words the child will read in the history.")
    var reason: String

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            try client.finish(try parent.send(ControlRequest(.adjust, points: points, reason: reason), with: client)) { reply in
                "\(points > 0 ? "Added" : "Took") \(abs(points)) points; the balance is now \(reply.balance ?? 0)."
            }
        }
    }
}

struct Hook: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Desktop hooks: report what the daemon cannot see by itself.",
        subcommands: [HookX11.self, HookSway.self, HookEvent.self])
}

struct HookX11: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "x11",
        abstract: "Report the focused window and input of this X display ($DISPLAY) until the X server goes away.",
        discussion: "Runs screentime-hook-x11, installed next to stctl.")

    @Option(name: .long, help: "The daemon's control socket (default: $XDG_RUNTIME_DIR/screentime/control.sock, else the system daemon's).")
    var socket: String?

    @Option(name: .long, help: "System mode: the child whose session this is (root only; the system daemon starts this hook itself).")
    var user: String?

    func run() throws {
        let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let hook = URL(fileURLWithPath: own).deletingLastPathComponent().appendingPathComponent("screentime-hook-x11").path
        guard FileManager.default.isExecutableFile(atPath: hook) else {
            throw Failure("stctl: the X11 hook is not installed: \(hook) is missing (make install puts it next to stctl)", code: 2)
        }
        let args = [hook] + (socket.map { ["--socket", $0] } ?? []) + (user.map { ["--user", $0] } ?? [])
        var argv = args.map { strdup($0) } + [nil]
        execv(hook, &argv)
        throw Failure("stctl: cannot run \(hook): \(String(cString: strerror(errno)))", code: 2)
    }
}

struct HookSway: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sway",
        abstract: "Report the focused window of this sway session ($SWAYSOCK) until sway goes away.",
        discussion: "Idle comes from logind, or from swayidle calling `stctl hook event`.")

    @Option(name: .long, help: "The daemon's control socket (default: $XDG_RUNTIME_DIR/screentime/control.sock).")
    var socket: String?

    @Option(name: .long, help: "sway's IPC socket (default: $SWAYSOCK).")
    var swaysock: String?

    @Option(name: .long, help: "System mode: the child whose session this is (root only).")
    var user: String?

    func run() throws {
        guard let ipc = swaysock ?? ProcessInfo.processInfo.environment["SWAYSOCK"] else {
            throw Failure("stctl: SWAYSOCK is not set: run this inside the sway session (exec stctl hook sway in sway's config)", code: 2)
        }
        let log: (String) -> Void = { FileHandle.standardError.write(Data("stctl hook sway: \($0)\n".utf8)) }
        let client = HookClient(hook: "sway", socketPath: socket ?? ControlProtocol.defaultSocketPath, user: user, log: log)
        do {
            try SwayHook(swaySocket: ipc, client: client).run()
            log("sway went away; stopping")
        } catch let e as HookClient.Refused {
            throw Failure("stctl: the daemon does not take this hook's events: \(e.description)", code: 1)
        } catch {
            throw Failure("stctl: \(error)", code: 1)
        }
    }
}

struct HookEvent: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "event",
        abstract: "Send one event (focus_changed, input, idle_changed, lock_changed) from the child's session.",
        discussion: #"Example: stctl hook event '{"event": "lock_changed", "locked": true}'. The daemon stamps the time."#)

    @Argument(help: "The event as a JSON object of the replay spec, without 'at'.")
    var event: String

    @OptionGroup var client: ClientOptions

    func run() throws {
        try reporting {
            try client.finish(try client.send(ControlRequest(.hookEvent, event: event))) { _ in "" }
        }
    }
}

struct Apps: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The programs started lately and how the policy counts them, so that a parent can name what is unknown.",
        discussion: "Unknown programs are neither learning nor games: add an [[apps]] entry for them (docs/policy.md).")

    @Option(name: .long, help: "How many days back (default 7).")
    var days: Int64 = 7

    @OptionGroup var client: ClientOptions

    func run() throws {
        try reporting {
            try client.finish(try client.send(ControlRequest(.apps, days: days, day: nil))) { reply in
                let apps = reply.apps ?? []
                guard !apps.isEmpty else { return "No program was started in the last \(days) days (as saved)." }
                let rows: [[String]] = [["COUNTS AS", "APP", "STARTS", "LAST", "PROGRAM"]] + apps.map { a in
                    let counts = a.category.map { $0 == "learning" && !a.trusted ? "learning (untrusted)" : $0 } ?? "unknown"
                    let program = a.exe + (a.flatpak.map { " (flatpak \($0))" } ?? "")
                    return [counts, a.app ?? "-", String(a.starts), String(a.lastStarted.prefix(16)).replacingOccurrences(of: "T", with: " "), program]
                }
                return table(rows)
            }
        }
    }
}

/// Rows as aligned columns (the last one is not padded).
/// Aligned columns, `gap` spaces apart; the `rightAligned` ones (numbers) padded on the left.
func table(_ rows: [[String]], rightAligned: Set<Int> = [], gap: Int = 2) -> String {
    guard let columns = rows.first?.count else { return "" }
    let widths = (0..<columns).map { c in rows.map { $0[c].count }.max() ?? 0 }
    return rows.map { row in
        row.enumerated().map { c, cell in
            let pad = String(repeating: " ", count: widths[c] - cell.count)
            return rightAligned.contains(c) ? pad + cell : (c == columns - 1 ? cell : cell + pad)
        }.joined(separator: String(repeating: " ", count: gap))
    }.joined(separator: "\n")
}

struct History: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The points ledger: what was earned, bought, given and taken.")

    @Option(name: .long, help: "How many days back, today included (default 7).")
    var days: Int64 = 7

    @OptionGroup var client: ClientOptions

    func run() throws {
        try reporting {
            try client.finish(try client.send(ControlRequest(.history, days: days, day: nil))) { reply in
                let lines = reply.history ?? []
                guard !lines.isEmpty else { return "Nothing in the ledger in the last \(days) days." }
                let rows: [[String]] = [["WHEN", "WHAT", "POINTS", "BALANCE", "NOTE"]] + lines.map { e in
                    let what: String
                    switch e.kind {
                    case "earned": what = "earned"
                    case "redeemed": what = "bought \(minutes(e.rewardSeconds ?? 0)) of game time"
                    case "expired": what = "\(minutes(e.rewardSeconds ?? 0)) of game time expired"
                    default: what = e.points >= 0 ? "bonus" : "penalty"
                    }
                    return [String(e.at.prefix(16)).replacingOccurrences(of: "T", with: " "), what,
                            e.points > 0 ? "+\(e.points)" : String(e.points), String(e.balanceAfter), e.note ?? ""]
                }
                return table(rows)
            }
        }
    }
}

struct Sessions: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "One day's sessions: what counted, and why the rest did not.",
        discussion: "Times are in the policy's time zone. Sessions appear once they are judged (a few minutes after they end).")

    @Option(name: .long, help: "The day, YYYY-MM-DD (default today).")
    var day: String?

    @OptionGroup var client: ClientOptions

    func run() throws {
        try reporting {
            try client.finish(try client.send(ControlRequest(.sessions, days: nil, day: day))) { reply in
                let sessions = reply.sessions ?? []
                guard !sessions.isEmpty else { return "No sessions \(day.map { "on \($0)" } ?? "today") yet." }
                return sessions.map(Sessions.describe).joined(separator: "\n")
            }
        }
    }

    /// "14:00–14:40  GCompris  40 min, 39 points" and a line per reason, in a child's words.
    static func describe(_ s: ControlReply.SessionLine) -> String {
        let when = "\(s.start.dropFirst(11).prefix(5))–\(s.end.dropFirst(11).prefix(5))"
        var head = "\(when)  \(s.app)  \(minutes(s.seconds))"
        switch s.category {
        case "learning": head += s.points > 0 ? ", \(minutes(s.creditedSeconds)) counted: \(s.points) points" : ", nothing counted"
        case "reward": head += " of game time"
        default: break
        }
        let why = s.refused.filter { $0.seconds > 0 || $0.reason == "too_short" }.map { r in
            "    \(minutes(r.seconds)) not counted: \(ChildWords.reason(r.reason))"
        }
        let flags = s.flags.map { "    noticed: \(ChildWords.reason($0))" }
        return ([head] + why + flags).joined(separator: "\n")
    }
}
