import ArgumentParser
import ControlProtocol

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

    func run() throws {
        try reporting {
            try client.finish(try client.send(ControlRequest(.redeem, minutes: minutes))) { reply in
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

    func run() throws {
        try reporting {
            try client.finish(try client.send(ControlRequest(.adjust, points: points, reason: reason))) { reply in
                "\(points > 0 ? "Added" : "Took") \(abs(points)) points; the balance is now \(reply.balance ?? 0)."
            }
        }
    }
}

struct Hook: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Desktop hooks: report what the daemon cannot see by itself.",
        subcommands: [HookEvent.self])
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
