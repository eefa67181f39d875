import ArgumentParser
import ControlProtocol
import FoundationEssentials
import Glibc
import ScreenTimeWords

/// `stctl simulate NEW-POLICY.toml`: what a policy would have done to the child's last days.
struct SimulateCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "simulate",
            abstract: tr("Parents: replay the child's last days under a new policy, beside the one in force; changes nothing."),
            discussion: tr("Per day: points earned, learning counted and not counted, game time played — old, new, and the difference."))
    }

    @Argument(help: ArgumentHelp(tr("The policy to try (TOML).")))
    var file: String

    @Option(name: .long, help: ArgumentHelp(tr("How many days back, today included (1-31, default 7).")))
    var days: Int64 = 7

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
                throw Failure("stctl: " + tr("{file}: cannot be read (no such file, or not UTF-8 text)", ["file": file]), code: 2)
            }
            var request = ControlRequest(.simulate, days: days, day: nil)
            request.policy = text
            try client.finish(try parent.send(request, with: client)) { reply in Self.text(reply.simulation ?? []) }
        }
    }

    /// One line per day: "Mon 11-23  points 45 → 22 (−23) · learning 45 min → 45 min · not counted 5 min → 5 min · games 1 h 30 min → 1 h 00 min (−30 min)"
    static func text(_ days: [ControlReply.SimulatedDay]) -> String {
        func change(_ d: Int64, _ show: (Int64) -> String) -> String { d == 0 ? "" : " (\(d > 0 ? "+" : "−")\(show(abs(d))))" }
        func pair(_ k: KeyPath<ControlReply.SimulatedDay.Figures, Int64>, _ d: ControlReply.SimulatedDay, _ show: (Int64) -> String) -> String {
            let a: String = show(d.old[keyPath: k])
            let b: String = show(d.new[keyPath: k])
            return a + " → " + b + change(d.difference[keyPath: k], show)
        }
        let count: (Int64) -> String = { String($0) }
        var rows: [[String]] = [[tr("DAY", context: "column"), tr("POINTS", context: "column"), tr("LEARNING COUNTED", context: "column"),
                                 tr("NOT COUNTED", context: "column"), tr("GAME TIME", context: "column")]]
        for d in days {
            let label: String = Report.weekday(d.day) + " " + dayWords(d.day)
            rows.append([label, pair(\.points, d, count), pair(\.learningCreditedSeconds, d, minutesWords),
                         pair(\.learningRefusedSeconds, d, minutesWords), pair(\.gameSeconds, d, minutesWords)])
        }
        let total = { (k: KeyPath<ControlReply.SimulatedDay.Figures, Int64>) in days.reduce(Int64(0)) { $0 + $1.new[keyPath: k] - $1.old[keyPath: k] } }
        let points = total(\.points), game = total(\.gameSeconds)
        let figures = ["points": "\(points >= 0 ? "+" : "")\(points)", "time": "\(game >= 0 ? "+" : "−")\(minutesWords(abs(game)))"]
        let over = tr.plural("Over {n} day the new policy gives {points} points and {time} of game time. Nothing was changed.", "Over {n} days the new policy gives {points} points and {time} of game time. Nothing was changed.", days.count, figures)
        return table(rows) + "\n" + over
    }
}

/// `stctl export`: everything kept about the child, as JSON on standard output.
struct ExportCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "export",
            abstract: tr("Parents: everything screentime keeps about the child, as one JSON document."),
            discussion: tr("The policies, the event log, the ledger (with its hashes), the sessions, the days, and the last week's requests and chores (docs/state.md)."))
    }

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            try client.finish(try parent.send(ControlRequest(.export), with: client)) { reply in reply.export ?? "" }
        }
    }
}

/// `stctl forget --before DATE`: removes the events and sessions from before a day.
struct ForgetCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "forget",
            abstract: tr("Parents: remove the events and sessions from before a day; the ledger stays whole and checkable."),
            discussion: tr("Through the same machinery as retention (docs/state.md): the state keeps where the log begins, and screentimed check still proves the ledger."))
    }

    @Option(name: .long, help: ArgumentHelp(tr("The first day kept (YYYY-MM-DD); everything before it is removed.")))
    var before: String

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            try client.finish(try parent.send(ControlRequest(.forget, days: nil, day: before), with: client)) { reply in
                sentence(reply.noteWords(tr))
            }
        }
    }
}
