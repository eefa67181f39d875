import ArgumentParser
import ControlProtocol
import FoundationEssentials
import ScreenTimeWords
import Glibc

struct Report: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "report",
            abstract: tr("For parents at a glance: learning, points, game time and apps, day by day."),
            discussion: tr("By default the last 7 days, today included. Learning is counted by the day its session started; game time of a past day is known when the daemon saw that day end. --json prints the report objects of docs/protocol.md; --csv one line per day."))
    }

    @Flag(name: .long, help: ArgumentHelp(tr("The last 7 days (the default).")))
    var week = false

    @Option(name: .long, help: ArgumentHelp(tr("One day, YYYY-MM-DD; with --week, the week that ends on it.")))
    var day: String?

    @Flag(name: .long, help: ArgumentHelp(tr("One line per day, comma-separated, with a header line.")))
    var csv = false

    @OptionGroup var client: ClientOptions

    func validate() throws {
        if csv && client.json { throw ValidationError(tr("--csv and --json: choose one")) }
    }

    func run() throws {
        try reporting {
            let days: Int64 = day != nil && !week ? 1 : 7
            let reply = try client.send(ControlRequest(.report, days: days, day: day))
            if csv, reply.ok {
                print(Report.csv(reply.report ?? []), terminator: "")
                return
            }
            try client.finish(reply) { reply in Report.text(reply.report ?? []) }
        }
    }

    // MARK: Text

    static let barWidth = 24

    /// Sections of aligned bars, one line per day in each.
    static func text(_ days: [ControlReply.ReportDay]) -> String {
        guard let first = days.first, let last = days.last else { return "" }
        var out = [days.count == 1 ? tr("Report for {weekday} {day}", ["weekday": weekday(first.day), "day": dateWords(first.day)])
                                    : tr("Report for {first} to {last}", ["first": dateWords(first.day), "last": dateWords(last.day)]), ""]
        let label = days.map { days.count == 1 ? "" : "  \(weekday($0.day)) \(dayWords($0.day))  " }

        // Learning: counted and not, on one scale.
        let most = days.map { $0.learningCreditedSeconds + $0.learningRefusedSeconds }.max() ?? 0
        out.append(tr("Learning: █ counted, ░ not counted"))
        for (i, d) in days.enumerated() {
            var line = label[i] + bar([(d.learningCreditedSeconds, "█"), (d.learningRefusedSeconds, "░")], scale: most)
            if d.learningCreditedSeconds + d.learningRefusedSeconds == 0 {
                line += tr("nothing")
            } else {
                line += tr("{time} counted", ["time": minutesWords(d.learningCreditedSeconds)])
                if d.learningRefusedSeconds > 0 {
                    let why = d.refused.prefix(2).map { "\(ChildWords.short($0.reason, tr)) \(minutesWords($0.seconds))" }
                    line += ", " + tr("{time} not ({why})", ["time": minutesWords(d.learningRefusedSeconds), "why": why.joined(separator: ", ")])
                }
            }
            if d.goalMet == true { line += "  ★ " + tr("goal met") }
            out.append(line)
        }

        // Game time, against the daily limit when there is one.
        let limit = days.compactMap(\.rewardDailyLimitSeconds).max()
        out.append("")
        out.append(limit.map { tr("Game time: █ played, · left of the daily limit of {limit}", ["limit": minutesWords($0)]) } ?? tr("Game time played (no daily limit)"))
        let mostPlayed = max(limit ?? 0, days.compactMap(\.rewardUsedSeconds).max() ?? 0)
        for (i, d) in days.enumerated() {
            guard let used = d.rewardUsedSeconds else {
                out.append(label[i] + String(repeating: " ", count: barWidth + 2) + tr("not known: the daemon did not see this day end"))
                continue
            }
            let left = max(0, (d.rewardDailyLimitSeconds ?? 0) - used)
            out.append(label[i] + bar([(used, "█"), (left, "·")], scale: mostPlayed)
                       + (d.rewardDailyLimitSeconds.map { tr("{used} of {limit}", ["used": minutesWords(used), "limit": minutesWords($0)]) } ?? minutesWords(used)))
        }

        // Screen time (a policy with [screen]), against each day's own limit and its extra minutes.
        if days.contains(where: { $0.screenUsedSeconds != nil || $0.screenLimitSeconds != nil }) {
            out.append("")
            out.append(tr("Screen time: █ used, · left of the day's limit"))
            let most = days.map { max(($0.screenLimitSeconds ?? 0) + ($0.screenBonusSeconds ?? 0), $0.screenUsedSeconds ?? 0) }.max() ?? 0
            for (i, d) in days.enumerated() {
                guard let used = d.screenUsedSeconds else {
                    out.append(label[i] + String(repeating: " ", count: barWidth + 2) + tr("not known: the daemon did not see this day end"))
                    continue
                }
                let bonus = d.screenBonusSeconds ?? 0
                let limit = d.screenLimitSeconds.map { $0 + bonus }
                var line = label[i] + bar([(used, "█"), (max(0, (limit ?? 0) - used), "·")], scale: most)
                line += limit.map { tr("{used} of {limit}", ["used": minutesWords(used), "limit": minutesWords($0)]) } ?? tr("{used} (no daily limit)", ["used": minutesWords(used)])
                if bonus > 0 { line += " " + tr("({time} extra from parents)", ["time": minutesWords(bonus)]) }
                out.append(line)
            }
        }

        // Points, as columns.
        out.append("")
        out.append(tr("Points", context: "report"))
        let rows = days.map { d in
            [tr("earned", context: "points"), signed(d.pointsEarned), " " + tr("spent", context: "points"), signed(-d.pointsSpent), " " + tr("from parents", context: "points"), signed(d.pointsAdjusted)]
        }
        out += zip(label, table(rows, rightAligned: [1, 3, 5], gap: 1).split(separator: "\n")).map { $0 + $1 }

        // The apps used most.
        out.append("")
        out.append(tr("Most used"))
        for (i, d) in days.enumerated() {
            let apps = d.topApps.prefix(3).map { "\($0.app) \(minutesWords($0.seconds))" }
            out.append(label[i] + (apps.isEmpty ? tr("nothing") : apps.joined(separator: ", ")))
        }
        return out.joined(separator: "\n")
    }

    /// Segments of a bar of at most `barWidth` cells, scaled so that `scale` fills it; padded.
    static func bar(_ parts: [(Int64, String)], scale: Int64) -> String {
        var cells = 0
        var s = ""
        for (value, mark) in parts where value > 0 && scale > 0 {
            // At least one cell for anything at all, so that a little is not shown as nothing.
            let n = max(1, Int((value * Int64(barWidth) + scale / 2) / scale))
            let take = min(n, barWidth - cells)
            s += String(repeating: mark, count: take)
            cells += take
        }
        return s + String(repeating: " ", count: barWidth - cells + 2)
    }

    static func signed(_ n: Int64) -> String { n > 0 ? "+\(n)" : n == 0 ? "0" : "−\(-n)" }

    /// The weekday of `YYYY-MM-DD` (Sakamoto's method; the proleptic Gregorian calendar).
    static func weekday(_ day: String) -> String {
        let parts = day.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, (1...12).contains(parts[1]) else { return "" }
        let offsets = [0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4]
        let y = parts[1] < 3 ? parts[0] - 1 : parts[0]
        let w = (y + y / 4 - y / 100 + y / 400 + offsets[parts[1] - 1] + parts[2]) % 7
        return [tr("Sun", context: "weekday"), tr("Mon", context: "weekday"), tr("Tue", context: "weekday"), tr("Wed", context: "weekday"),
                tr("Thu", context: "weekday"), tr("Fri", context: "weekday"), tr("Sat", context: "weekday")][w]
    }

    // MARK: CSV

    static let csvHeader = ["day", "learning_credited_seconds", "learning_refused_seconds", "refused", "points_earned", "points_spent",
                            "points_adjusted", "reward_used_seconds", "reward_daily_limit_seconds", "top_apps",
                            "screen_used_seconds", "screen_limit_seconds", "screen_bonus_seconds"]

    /// RFC 4180: a header line, then a line per day; lists as `name=seconds` joined by `;`.
    static func csv(_ days: [ControlReply.ReportDay]) -> String {
        func field(_ s: String) -> String {
            s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) ? "\"" + s.replacing("\"", with: "\"\"") + "\"" : s
        }
        var lines = [csvHeader.joined(separator: ",")]
        for d in days {
            let refused: String = d.refused.map { "\($0.reason)=\($0.seconds)" }.joined(separator: ";")
            let apps: String = d.topApps.map { "\($0.app)=\($0.seconds)" }.joined(separator: ";")
            let used: String = d.rewardUsedSeconds.map { String($0) } ?? ""
            let limit: String = d.rewardDailyLimitSeconds.map { String($0) } ?? ""
            var cells: [String] = [d.day, String(d.learningCreditedSeconds), String(d.learningRefusedSeconds), refused]
            cells += [String(d.pointsEarned), String(d.pointsSpent), String(d.pointsAdjusted), used, limit, apps]
            cells += [d.screenUsedSeconds, d.screenLimitSeconds, d.screenBonusSeconds].map { $0.map { String($0) } ?? "" }
            lines.append(cells.map(field).joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}
