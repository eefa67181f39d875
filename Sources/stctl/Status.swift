import ArgumentParser
import ControlProtocol

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "How many points, and how much game time is left.")

    @OptionGroup var client: ClientOptions

    func run() throws {
        try reporting {
            try client.finish(try client.send(ControlRequest(.status))) { reply in
                guard let s = reply.status else { return "" }
                var lines = [
                    "Points           \(s.balance)  (a game minute costs \(s.pointsPerRewardMinute))",
                    "Game time now    \(minutes(s.rewardAvailableSeconds))",
                    "Redeemed, left   \(minutes(s.rewardRemainingSeconds))",
                    "Played today     \(minutes(s.rewardUsedTodaySeconds))",
                ]
                lines += s.blindSpots.map { "Note: \($0)" }
                return lines.joined(separator: "\n")
            }
        }
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
