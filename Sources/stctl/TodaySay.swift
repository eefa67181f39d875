import ArgumentParser
import ControlProtocol

/// A parent's say over today: bonus time, games stopped until a time, minutes taken back.
struct BonusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bonus",
        abstract: "Parents: give minutes of game time for today only, beyond today's limits.",
        discussion: """
            Bonus time is free (no points), is played before any other game time, does not count against the daily and weekly \\
            limits, and is gone at the end of the day. The allowed hours still hold. With a family database, it is this computer's.
            """)

    @Argument(help: "Minutes of bonus time (1 to 1440).")
    var minutes: Int64

    @Option(name: .long, help: "Why, in words the child reads in the history.")
    var reason: String?

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            try client.finish(try parent.send(ControlRequest(.bonus, minutes: minutes, reason: reason), with: client)) { $0.note ?? "" }
        }
    }
}

struct StopGames: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop-games",
        abstract: "Parents: stop the games now, until a time (default: the end of today).",
        discussion: """
            Games running now are stopped as when time is used up (paused or closed, as the policy says), with a notice to \\
            the child, and any game started before the time is stopped too. --until takes a time of day (19:00: today, or \\
            tomorrow when it has passed), a date and time (2026-11-28T07:00:00+01:00), or now (games may be played again).
            """)

    @Option(name: .long, help: "Until when: HH:MM, a date and time, or now.")
    var until: String?

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            var request = ControlRequest(.stopGames)
            request.until = until
            try client.finish(try parent.send(request, with: client)) { $0.note ?? "" }
        }
    }
}

struct Revoke: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Parents: take back unused minutes of game time that were redeemed or given.",
        discussion: """
            Takes back up to MINUTES of what is left of redeemed, given and bonus minutes (bonus time last). The ledger says \\
            so, and whether the points were given back: with --refund, the points redeemed minutes cost come back.
            """)

    @Argument(help: "Minutes to take back (at most what is left).")
    var minutes: Int64

    @Flag(name: .long, help: "Give back the points the minutes cost.")
    var refund = false

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            var request = ControlRequest(.revoke, minutes: minutes)
            request.refund = refund
            try client.finish(try parent.send(request, with: client)) { reply in
                (reply.note ?? "") + (reply.balance.map { " The balance is now \($0)." } ?? "")
            }
        }
    }
}
