import ArgumentParser
import ControlProtocol
import ScreenTimeWords

/// A parent's say over today: bonus time, games stopped until a time, minutes taken back.
struct BonusCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "bonus",
            abstract: tr("Parents: give minutes of game time (or, with --screen, screen time) for today only, beyond today's limits."),
            discussion: tr("Bonus time is free (no points), is played before any other game time, does not count against the daily and weekly limits, and is gone at the end of the day. The allowed hours still hold. With a family database, it is this computer's. With --screen, the minutes are screen time: time at the computer beyond today's screen limits (not past bedtime: stctl bedtime moves that)."))
    }

    @Argument(help: ArgumentHelp(tr("Minutes of bonus time (1 to 1440).")))
    var minutes: Int64

    @Flag(name: .long, help: ArgumentHelp(tr("Screen time (the whole computer), not game time.")))
    var screen = false

    @Option(name: .long, help: ArgumentHelp(tr("Why, in words the child reads in the history.")))
    var reason: String?

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            var request = ControlRequest(.bonus, minutes: minutes, reason: reason)
            if screen { request.screen = true }
            try client.finish(try parent.send(request, with: client)) { $0.noteWords(tr) }
        }
    }
}

/// Tonight's bedtime, earlier or later (docs/family.md, "Just tonight").
struct BedtimeCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "bedtime",
            abstract: tr("Parents: move tonight's bedtime (the end of the screen's allowed hours), later or earlier."),
            discussion: tr("Only tonight: tomorrow the policy's [screen] allowed_hours hold again (to change them for good, edit the policy). The child is warned before the new bedtime as before the old one."))
    }

    @Argument(help: ArgumentHelp(tr("The new bedtime, HH:MM (up to 24:00).")))
    var time: String

    @Flag(name: .long, help: ArgumentHelp(tr("Say that it is for tonight only (required).")))
    var tonight = false

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            guard tonight else {
                throw Failure("stctl: " + tr("bedtime changes only tonight: add --tonight (to change it every day, edit [screen] allowed_hours in the policy)"), code: 2)
            }
            var request = ControlRequest(.bedtime)
            request.until = time
            try client.finish(try parent.send(request, with: client)) { $0.noteWords(tr) }
        }
    }
}

/// A free day: no screen or game limit until midnight.
struct FreeDayCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "free-day",
            abstract: tr("Parents: no screen or game limit for the rest of today (a birthday, a sick day)."),
            discussion: tr("Until midnight no daily, weekly or hours limit holds, for the screen or for games; redeemed minutes still pay for games, and a parent's stop-games still holds. Tomorrow the policy holds again."))
    }

    @Option(name: .long, help: ArgumentHelp(tr("Why, in words the child reads.")))
    var reason: String?

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            try client.finish(try parent.send(ControlRequest(.freeDay, reason: reason), with: client)) { $0.noteWords(tr) }
        }
    }
}

struct StopGames: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "stop-games",
            abstract: tr("Parents: stop the games now, until a time (default: the end of today)."),
            discussion: tr("Games running now are stopped as when time is used up (paused or closed, as the policy says), with a notice to the child, and any game started before the time is stopped too. --until takes a time of day (19:00: today, or tomorrow when it has passed), a date and time (2026-11-28T07:00:00+01:00), or now (games may be played again)."))
    }

    @Option(name: .long, help: ArgumentHelp(tr("Until when: HH:MM, a date and time, or now.")))
    var until: String?

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            var request = ControlRequest(.stopGames)
            request.until = until
            try client.finish(try parent.send(request, with: client)) { $0.noteWords(tr) }
        }
    }
}

struct Revoke: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "revoke",
            abstract: tr("Parents: take back unused minutes of game time that were redeemed or given."),
            discussion: tr("Takes back up to MINUTES of what is left of redeemed, given and bonus minutes (bonus time last). The ledger says so, and whether the points were given back: with --refund, the points redeemed minutes cost come back."))
    }

    @Argument(help: ArgumentHelp(tr("Minutes to take back (at most what is left).")))
    var minutes: Int64

    @Flag(name: .long, help: ArgumentHelp(tr("Give back the points the minutes cost.")))
    var refund = false

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            var request = ControlRequest(.revoke, minutes: minutes)
            request.refund = refund
            try client.finish(try parent.send(request, with: client)) { reply in
                reply.noteWords(tr) + (reply.balance.map { " " + tr("The balance is now {balance}.", ["balance": "\($0)"]) } ?? "")
            }
        }
    }
}
