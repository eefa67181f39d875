import ArgumentParser
import ControlProtocol
import DesktopHooks
import FoundationEssentials
import Glibc
import ScreenTimeLinux
import ScreenTimeWords

struct Status: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "status",
            abstract: tr("Points, game time left now and today, learning today, and what the app in use counts as."),
            discussion: tr("--json prints the status object of docs/protocol.md. --format waybar prints one line of JSON for waybar's custom module (return-type json), --format i3blocks the lines i3blocks reads; both say when the daemon cannot be reached instead of failing (docs/status-bars.md)."))
    }

    /// How the status is printed: for people, or for a status bar (docs/status-bars.md).
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, waybar, i3blocks
    }

    @Option(name: .long, help: ArgumentHelp(tr("waybar: one line of JSON for waybar's custom module; i3blocks: full text, short text, colour; text: for people.")))
    var format: Format = .text

    @OptionGroup var client: ClientOptions

    /// `stctl status`'s arguments read without ArgumentParser (Stctl.main): only `--socket PATH`,
    /// `--user NAME`, `--json` and `--format text|waybar|i3blocks` (each also as
    /// `--option=value`), once each and in a combination `validate` accepts; nil for anything else,
    /// which then goes through ArgumentParser and its messages. Neither this command's nor its
    /// options' ArgumentParser values are made: their property wrappers alone cost a tenth of
    /// the process's time (perf, docs/benchmarks.md).
    struct QuickArguments {
        let format: Format
        let client: DaemonClient

        init?(_ arguments: [String]) {
            var client = DaemonClient(), format = Format.text
            var seen: [String] = []
            var rest = arguments[...]
            while let word = rest.popFirst() {
                let name = String(word.prefix { $0 != "=" })
                guard !seen.contains(name) else { return nil }
                seen.append(name)
                var value: String? = nil
                if name.count < word.count { value = String(word.dropFirst(name.count + 1)) }
                switch name {
                case "--json":
                    guard value == nil else { return nil }
                    client.json = true
                case "--socket", "--user", "--format":
                    if value == nil { value = rest.popFirst() }
                    guard let v = value, !v.isEmpty, !v.hasPrefix("-") else { return nil }
                    if name == "--socket" { client.socket = v } else if name == "--user" { client.user = v } else {
                        guard let f = Format(rawValue: v) else { return nil }
                        format = f
                    }
                default:
                    return nil
                }
            }
            guard !(client.json && format != .text) else { return nil }
            self.format = format
            self.client = client
        }

        func run() throws { try reportingFailure { try Status.show(format: format, client: client) } }
    }

    func validate() throws {
        if client.json, format != .text {
            throw ValidationError(tr("--json and --format {format} do not go together: --json prints the daemon's status object, --format {format} a status bar's line; use one of them", ["format": format.rawValue]))
        }
    }

    func run() throws {
        try reporting { try Status.show(format: format, client: client.daemon) }
    }

    static func show(format: Format, client: DaemonClient) throws {
        if format != .text {
            print(Status.bar(format, reply: Result { try client.send(ControlRequest(.status)) }))
            return
        }
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

    /// One row of `stctl status`: what it is (`key`, for the tooltip's order), its label and value
    /// in the caller's words.
    struct Row {
        enum Key {
            case today, screenTime, bedtime, games, points, gameTimeNow, gameTimeToday, freeTimeToday, bonusToday, redeemedLeft
            case learningToday, goalToday, app, inUse, request, chore, family
        }

        var key: Key
        var label: String
        var value: String
    }

    /// The rows `stctl status` prints, and a status bar's tooltip shows.
    static func rows(_ s: ControlReply.Status) -> [Row] {
        var rows: [Row] = [
            Row(key: .points, label: tr("Points"), value: tr("{balance}   (+{today} today; a game minute costs {price})",
                                                               ["balance": "\(s.balance)", "today": "\(s.pointsToday)", "price": "\(s.pointsPerRewardMinute)"])),
            Row(key: .gameTimeNow, label: tr("Game time now"), value: minutesWords(s.rewardAvailableSeconds)),
            Row(key: .gameTimeToday, label: tr("Game time today"), value: tr("{left}   (played {played})",
                                                                                 ["left": minutesWords(s.rewardTodayRemainingSeconds), "played": minutesWords(s.rewardUsedTodaySeconds)])),
            Row(key: .redeemedLeft, label: tr("Redeemed, left"), value: minutesWords(s.rewardRemainingSeconds)),
            Row(key: .learningToday, label: tr("Learning today"), value: minutesWords(s.learningTodaySeconds)),
        ]
        if let schedule = s.schedule {
            rows.insert(Row(key: .today, label: tr("Today"), value: tr("the schedule “{name}”", ["name": schedule])), at: 0)
        }
        if let left = s.allowanceLeftSeconds, let day = s.allowanceTodaySeconds {
            rows.insert(Row(key: .freeTimeToday, label: tr("Free time today"),
                            value: tr("{left} of {day} left   (used before redeemed minutes)", ["left": minutesWords(left), "day": minutesWords(day)])), at: 3)
        }
        if let bonus = s.bonusLeftSeconds {
            rows.insert(Row(key: .bonusToday, label: tr("Bonus today"),
                            value: tr("{left} left   (a parent's gift for today: played first, beyond the limits)", ["left": minutesWords(bonus)])), at: 3)
        }
        if let until = s.gamesStoppedUntil {
            rows.insert(Row(key: .games, label: tr("Games"), value: tr("stopped by a parent until {time}", ["time": clock(until)])), at: 1)
        }
        if let screen = s.screen {
            // The whole computer (docs/policy.md, [screen]).
            let left: String
            if screen.freeDay {
                left = tr("no limit today (a free day)")
            } else if let l = screen.leftSeconds {
                left = screen.limit == "bedtime" ? tr("{left} left until bedtime", ["left": minutesWords(l)])
                    : screen.limit == "screen_weekly_limit" ? tr("{left} left this week", ["left": minutesWords(l)]) : tr("{left} left today", ["left": minutesWords(l)])
            } else {
                left = tr("no limit now")
            }
            let used = screen.bonusSeconds > 0
                ? tr("used {used}, {bonus} bonus from a parent", ["used": minutesWords(screen.usedTodaySeconds), "bonus": minutesWords(screen.bonusSeconds)])
                : tr("used {used}", ["used": minutesWords(screen.usedTodaySeconds)])
            rows.insert(Row(key: .screenTime, label: tr("Screen time"), value: "\(left)   (\(used))"), at: 0)
            if let bedtime = screen.bedtime, !screen.freeDay { rows.insert(Row(key: .bedtime, label: tr("Bedtime"), value: clock(bedtime)), at: 1) }
        }
        if let goal = s.goalSeconds {
            let streak = Int(s.streakDays ?? 0)
            let met = s.learningTodaySeconds >= goal
            rows.append(Row(key: .goalToday, label: tr("Goal today"),
                            value: (met ? tr("{done} of {goal} — met!", ["done": minutesWords(min(s.learningTodaySeconds, goal)), "goal": minutesWords(goal)])
                                        : tr("{done} of {goal}", ["done": minutesWords(min(s.learningTodaySeconds, goal)), "goal": minutesWords(goal)]))
                                + "   (" + tr.plural("{n} day in a row", "{n} days in a row", streak) + ")"))
        }
        for a in s.appTimeLeft ?? [] {
            rows.append(Row(key: .app, label: a.app, value: tr("{left} left today   (its own limit)", ["left": minutesWords(a.seconds)])))
        }
        if let app = s.currentApp {
            rows.append(Row(key: .inUse, label: tr("In use"), value: "\(app)\(s.currentSite.map { " (\($0))" } ?? ""): \(s.currentCategory.map { ChildWords.counts($0, trusted: s.currentTrusted ?? true, tr) } ?? s.currentCounts ?? "")"))
        }
        for r in s.requests ?? [] {
            rows.append(Row(key: .request, label: tr("Request {id}", ["id": r.id]),
                            value: tr("{minutes} min: {state}", ["minutes": "\(r.minutes)", "state": Requests.state(r)]) + (r.answer.map { " " + tr("“{reason}”", ["reason": $0]) } ?? "")))
        }
        for c in s.chores ?? [] {
            rows.append(Row(key: .chore, label: tr("Chore", context: "status"), value: "\(c.chore): \(choreState(c))"))
        }
        if let h = s.household {
            rows.append(Row(key: .family, label: tr("Family", context: "status"),
                            value: tr("points and game time shared by {child}'s computers (this one is {machine})", ["child": h.child, "machine": h.machine])
                            + (h.reachable ? "" : "; " + tr("the family database is out of reach"))
                            + (h.unsent > 0 ? "; " + tr.plural("{n} entry to send", "{n} entries to send", Int(h.unsent)) : "")))
        }
        return rows
    }

    static func text(_ s: ControlReply.Status) -> String {
        let rows = rows(s)
        let width = rows.map(\.label.count).max() ?? 0
        var lines = rows.map { $0.label + String(repeating: " ", count: width + 3 - $0.label.count) + $0.value }
        lines += blindSpotWords(s).map { tr("Note: {note}", ["note": $0]) }
        return lines.joined(separator: "\n")
    }

    // MARK: Status bars (docs/status-bars.md)

    /// The bar's state: no game time usable now, less than `lowBelowSeconds`, more; or the daemon
    /// could not be asked. With `[screen]`, the nearer of game time and screen time: no screen time
    /// left is `none`, less than `lowBelowSeconds` of it `low`. Waybar's `class` and `alt`; the
    /// colour in i3blocks. (Declared from the best to the worst: the bar shows the worse.)
    enum BarClass: String, CaseIterable, Comparable {
        case ok, low, none, error

        static func < (a: BarClass, b: BarClass) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }
    }

    /// Under five minutes usable now is "low" (the default `warn_before`'s first warning, for game
    /// time and for screen time).
    static let lowBelowSeconds: Int64 = 300

    static func barClass(_ s: ControlReply.Status) -> BarClass {
        let game = barClass(left: s.rewardAvailableSeconds)
        guard let left = s.screen?.leftSeconds, s.screen?.freeDay == false else { return game }
        return max(game, barClass(left: left))
    }

    static func barClass(left: Int64) -> BarClass { left <= 0 ? .none : left < lowBelowSeconds ? .low : .ok }

    /// "0 min", "40 s", "20 min", "1 h 05 min": the game time in a bar.
    static func barMinutes(_ seconds: Int64) -> String { seconds <= 0 ? tr("{m} min", ["m": "0"]) : minutesWords(seconds) }

    /// "🖥 45 min · ": screen time left now, before the game time (empty without `[screen]`, or when
    /// no limit holds now). With bedtime the nearer end: "🖥 45 min (bedtime 20:30) · "; on a free
    /// day "🖥 free day · ". `short` leaves bedtime out (i3blocks' short text).
    static func barScreen(_ s: ControlReply.Status, short: Bool = false) -> String {
        guard let screen = s.screen else { return "" }
        if screen.freeDay { return "🖥 " + tr("free day", context: "status bar") + " · " }
        guard let left = screen.leftSeconds else { return "" }
        // Bedtime is at most a day on: its time of day ("01:00" for one moved past midnight) says it.
        let bedtime = !short && screen.limit == "bedtime" ? screen.bedtime.map { " " + tr("(bedtime {time})", ["time": String($0.dropFirst(11).prefix(5))]) } ?? "" : ""
        return "🖥 \(barMinutes(left))\(bedtime) · "
    }

    /// "🎮 20 min · 54 pts": game time usable now and the balance; with `[screen]`, screen time
    /// left first ("🖥 45 min · 🎮 20 min · 54 pts").
    static func barText(_ s: ControlReply.Status) -> String {
        barScreen(s) + "🎮 \(barMinutes(s.rewardAvailableSeconds)) · "
            + tr.plural("{balance} pt", "{balance} pts", Int(clamping: s.balance.magnitude), ["balance": "\(s.balance)"])
    }

    /// The tooltip: one line per row of `stctl status` ("Game time now: 20 min"), then the blind spots.
    static func barTooltip(_ s: ControlReply.Status) -> String {
        let order: [Row.Key] = [.screenTime, .bedtime, .gameTimeNow, .gameTimeToday, .freeTimeToday, .redeemedLeft, .points, .learningToday, .inUse]
        let rows = rows(s).sorted { (order.firstIndex(of: $0.key) ?? order.count) < (order.firstIndex(of: $1.key) ?? order.count) }
        // The terminal's rows space their remarks out ("42   (+0 today; …)"); a tooltip needs one space.
        let lines = rows.map { "\($0.label): \($0.value.replacing("   (", with: " ("))" } + blindSpotWords(s).map { tr("Note: {note}", ["note": $0]) }
        return lines.joined(separator: "\n")
    }

    /// What a bar shows when the daemon cannot be asked, or refuses: the bar keeps a visible,
    /// explained module (a failing command would make waybar hide it, and i3blocks show an error).
    /// `notRunning`: the daemon's socket is not there (or left by one that stopped).
    static func barError(_ why: String) -> (text: String, tooltip: String, notRunning: Bool) {
        // not shown: matched in the socket's error (UnixSocket, English)
        let notRunning = why.contains("screentimed is not running")
        let text = "🎮 " + (notRunning ? tr("screentime: not running") : tr("screentime: error"))
        return (text, why.hasPrefix("stctl: ") ? String(why.dropFirst(7)) : why, notRunning)
    }

    /// One line of JSON for waybar (`return-type: json`), or the lines of i3blocks.
    static func bar(_ format: Format, reply: Result<ControlReply, any Error>) -> String {
        let text: String, tooltip: String, shortText: String, cls: BarClass
        switch reply {
        case .success(let r):
            if r.ok, let s = r.status {
                (text, tooltip, cls) = (barText(s), barTooltip(s), barClass(s))
                shortText = barScreen(s, short: true) + "🎮 \(barMinutes(s.rewardAvailableSeconds))"
            } else {
                (text, tooltip, _) = barError(r.refusalWords(tr))
                (shortText, cls) = ("🎮 " + tr("error", context: "status bar"), .error)
            }
        case .failure(let e):
            let notRunning: Bool
            (text, tooltip, notRunning) = barError((e as? Failure)?.description ?? "stctl: \(e)")
            (shortText, cls) = ("🎮 " + (notRunning ? tr("off", context: "status bar") : tr("error", context: "status bar")), .error)
        }
        switch format {
        case .waybar:
            let line = WaybarLine(text: pango(text), tooltip: pango(tooltip), class: cls.rawValue, alt: cls.rawValue)
            return String(decoding: ControlProtocol.encode(line).dropLast(), as: UTF8.self)
        case .i3blocks:
            let colour: String? = switch cls {
            case .none, .error: "#FF5555"
            case .low: "#FFAA00"
            case .ok: nil
            }
            // No colour line when all is well: an empty one would set an empty colour; the block's own `color=` stays.
            return ([text, shortText] + (colour.map { [$0] } ?? [])).joined(separator: "\n")
        case .text:
            return text
        }
    }

    /// Waybar's custom module reads these keys (man 5 waybar-custom, RETURN-TYPE).
    struct WaybarLine: Encodable {
        var text: String
        var tooltip: String
        var `class`: String
        var alt: String
    }

    /// Waybar reads text and tooltip as Pango markup: an app named "Tux & Math" must not break it.
    static func pango(_ s: String) -> String {
        s.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;")
    }
}

struct Redeem: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "redeem",
            abstract: tr("Parents: turn points into minutes of game time."),
            discussion: tr("Refused, and nothing changes, when the balance cannot pay. When today's limits leave no room for all the minutes, nothing is paid until you say so: asked on a terminal, or --anyway (the minutes keep for another day; stctl bonus gives time for today beyond the limits instead). Needs root or a user in the policy's [parents] users."))
    }

    @Argument(help: ArgumentHelp(tr("Minutes of game time.")))
    var minutes: Int64

    @Flag(name: .long, help: ArgumentHelp(tr("Pay for the minutes even when today's limits leave no room for all of them.")))
    var anyway = false

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            var request = ControlRequest(.redeem, minutes: minutes)
            if anyway { request.anyway = true }
            try client.finish(try parent.sendPaying(request, with: client, bonusInstead: "bonus \(minutes)")) { reply in
                tr.plural("Redeemed {minutes} min for {n} point; the balance is now {balance}.", "Redeemed {minutes} min for {n} points; the balance is now {balance}.",
                          Int(clamping: reply.cost ?? 0), ["minutes": "\(self.minutes)", "n": "\(reply.cost ?? 0)", "balance": "\(reply.balance ?? 0)"])
            }
        }
    }
}

struct Adjust: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "adjust",
            abstract: tr("Parents: give or take points, with a reason."),
            discussion: tr("Taking more points than the child earned today (the \"+N today\" of stctl status) is asked first on a terminal (y/N); without a terminal it is refused, and nothing is taken, unless --yes is given."))
    }

    @Argument(help: ArgumentHelp(tr("Points: positive for a bonus, negative for a penalty.")))
    var points: Int64

    @Option(name: .long, help: ArgumentHelp(tr("Why, in words the child will read in the history.")))
    var reason: String

    @Flag(name: .long, help: ArgumentHelp(tr("Take the points without asking, even more than the child earned today.")))
    var yes = false

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            if points < 0, !yes { try confirmPenalty() }
            try client.finish(try parent.send(ControlRequest(.adjust, points: points, reason: reason), with: client)) { reply in
                let figures = ["n": "\(points.magnitude)", "balance": "\(reply.balance ?? 0)"]
                return points > 0
                    ? tr.plural("Added {n} point; the balance is now {balance}.", "Added {n} points; the balance is now {balance}.", Int(clamping: points.magnitude), figures)
                    : tr.plural("Took {n} point; the balance is now {balance}.", "Took {n} points; the balance is now {balance}.", Int(clamping: points.magnitude), figures)
            }
        }
    }

    /// A penalty larger than what the child earned today (status's `points_today`: the points
    /// learning earned today) is a slip of a finger more often than a parent's wish: asked on a
    /// terminal, refused without one. Nothing is sent to be carried out before the answer.
    func confirmPenalty() throws {
        let reply = try client.send(ControlRequest(.status))
        guard reply.ok, let s = reply.status else {
            throw Failure("stctl: " + tr("could not read today's points before taking {points}: {why}. Nothing was taken. To take them anyway, add --yes.",
                                         ["points": "\(points.magnitude)", "why": reply.refusalWords(tr)]), code: 1)
        }
        guard points.magnitude > UInt64(max(0, s.pointsToday)) else { return }
        let after = s.balance.addingReportingOverflow(points)
        var figures = ["points": "\(points.magnitude)", "today": "\(s.pointsToday)", "balance": "\(s.balance)", "after": "\(after.partialValue)"]
        figures["balance_now"] = after.overflow ? tr("the balance is {balance}", figures) : tr("the balance is {balance}; it would be {after}", figures)
        let what: String
        if let child = client.user {
            figures["child"] = child
            what = tr("taking {points} points is more than the {today} points {child} earned today ({balance_now})", figures)
        } else {
            what = tr("taking {points} points is more than the {today} points the child earned today ({balance_now})", figures)
        }
        if isatty(0) == 1, !parent.passphraseStdin {
            StandardError.write(tr("{what}.\nTake them anyway? [y/N] ", ["what": what.prefix(1).uppercased() + what.dropFirst()]))
            let answer = readLine(strippingNewline: true).map { $0.filter { $0 != " " && $0 != "\t" }.lowercased() }
            // y and yes in every language, and the language's own (the prompt's [y/N] as translated).
            let yes = ["y", "yes", tr("y", context: "the answer yes").lowercased(), tr("yes", context: "the answer yes").lowercased()]
            guard let answer, yes.contains(answer) else { throw Failure("stctl: " + tr("nothing was taken."), code: 1) }
            return
        }
        throw Failure("stctl: " + tr("{what}. Nothing was taken. If you mean it, add --yes.", ["what": what]), code: 1)
    }
}

struct Hook: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "hook",
            abstract: tr("Desktop hooks: report what the daemon cannot see by itself."),
            subcommands: [HookX11.self, HookSway.self, HookKDE.self, HookEvent.self])
    }
}

struct HookX11: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "x11",
            abstract: tr("Report the focused window and input of this X display ($DISPLAY) until the X server goes away."),
            discussion: tr("Runs screentime-hook-x11, installed next to stctl."))
    }

    @Option(name: .long, help: ArgumentHelp(tr("The daemon's control socket (default: $XDG_RUNTIME_DIR/screentime/control.sock, else the system daemon's).")))
    var socket: String?

    @Option(name: .long, help: ArgumentHelp(tr("System mode: the child whose session this is (root only; the system daemon starts this hook itself).")))
    var user: String?

    @Flag(name: .long, help: ArgumentHelp(tr("Count input only from the X server's own devices, not what programs fake through XTEST (the system daemon starts the hook so).")))
    var leaveOutXtest = false

    func run() throws {
        let hook = InstalledFiles.beside("screentime-hook-x11")
        guard FileManager.default.isExecutableFile(atPath: hook) else {
            throw Failure("stctl: " + tr("the X11 hook is not installed: {path} is missing (make install puts it next to stctl)", ["path": hook]), code: 2)
        }
        let args = [hook] + (socket.map { ["--socket", $0] } ?? []) + (user.map { ["--user", $0] } ?? []) + (leaveOutXtest ? ["--leave-out-xtest"] : [])
        var argv = args.map { strdup($0) } + [nil]
        execv(hook, &argv)
        throw Failure("stctl: " + tr("cannot run {path}: {why}", ["path": hook, "why": String(cString: strerror(errno))]), code: 2)
    }
}

struct HookSway: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "sway",
            abstract: tr("Report the focused window of this sway session ($SWAYSOCK) until sway goes away."),
            discussion: tr("Idle comes from logind, or from swayidle calling `stctl hook event`."))
    }

    @Option(name: .long, help: ArgumentHelp(tr("The daemon's control socket (default: $XDG_RUNTIME_DIR/screentime/control.sock).")))
    var socket: String?

    @Option(name: .long, help: ArgumentHelp(tr("sway's IPC socket (default: $SWAYSOCK).")))
    var swaysock: String?

    @Option(name: .long, help: ArgumentHelp(tr("System mode: the child whose session this is (root only).")))
    var user: String?

    func run() throws {
        guard let ipc = swaysock ?? ProcessInfo.processInfo.environment["SWAYSOCK"] else {
            throw Failure("stctl: " + tr("SWAYSOCK is not set: run this inside the sway session (exec stctl hook sway in sway's config)"), code: 2)
        }
        let log: (String) -> Void = { StandardError.write("stctl hook sway: \($0)\n") }
        let client = HookClient(hook: "sway", socketPath: socket ?? ControlProtocol.defaultSocketPath, user: user, log: log)
        do {
            try SwayHook(swaySocket: ipc, client: client).run()
            log("sway went away; stopping")   // not shown: a log line of the hook (its session's journal)
        } catch let e as HookClient.Refused {
            throw Failure("stctl: " + tr("the daemon does not take this hook's events: {why}", ["why": e.description]), code: 1)
        } catch {
            throw Failure("stctl: \(error)", code: 1)
        }
    }
}

struct HookEvent: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "event",
            abstract: tr("Send one event (focus_changed, input, idle_changed, lock_changed) from the child's session."),
            discussion: tr("Example: {example}. The daemon stamps the time.", ["example": #"stctl hook event '{"event": "lock_changed", "locked": true}'"#]))
    }

    @Argument(help: ArgumentHelp(tr("The event as a JSON object of the replay spec, without 'at'.")))
    var event: String

    @OptionGroup var client: ClientOptions

    func run() throws {
        try reporting {
            try client.finish(try client.send(ControlRequest(.hookEvent, event: event))) { _ in "" }
        }
    }
}

struct Apps: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "apps",
            abstract: tr("The programs started lately and how the policy counts them, so that a parent can name what is unknown."),
            discussion: tr("Unknown programs are neither learning nor games: add an [[apps]] entry for them (docs/policy.md). With [[sites]] in the policy, the websites the browsers showed too (each by its domain, never the address): add a [[sites]] entry for them (docs/websites.md)."))
    }

    @Option(name: .long, help: ArgumentHelp(tr("How many days back (default 7).")))
    var days: Int64 = 7

    @OptionGroup var client: ClientOptions

    func run() throws {
        try reporting {
            try client.finish(try client.send(ControlRequest(.apps, days: days, day: nil))) { reply in
                let apps = reply.apps ?? []
                var out = ""
                if apps.isEmpty {
                    out = tr.plural("No program was started in the last day (as saved).", "No program was started in the last {n} days (as saved).", Int(days))
                } else {
                    let head = [tr("COUNTS AS", context: "column"), tr("APP", context: "column"), tr("STARTS", context: "column"), tr("LAST", context: "column"), tr("PROGRAM", context: "column")]
                    let rows: [[String]] = [head] + apps.map { a in
                        let counts = a.category.map { $0 == "learning" && !a.trusted ? tr("learning (untrusted)") : categoryWords($0) } ?? tr("unknown", context: "category")
                        let program = a.exe + (a.flatpak.map { " (flatpak \($0))" } ?? "")
                        return [counts, a.app ?? "-", String(a.starts), dateAndTimeWords(a.lastStarted), program]
                    }
                    out = table(rows)
                }
                // With [[sites]] in the policy: the websites too, so that a parent can name them.
                if let sites = reply.sites {
                    out += "\n\n"
                    if sites.isEmpty {
                        out += tr.plural("No website was reported in the last day (as saved).", "No website was reported in the last {n} days (as saved).", Int(days))
                    } else {
                        let head = [tr("COUNTS AS", context: "column"), tr("SITE", context: "column"), tr("SEEN", context: "column"), tr("LAST", context: "column"), tr("WEBSITE", context: "column")]
                        let rows: [[String]] = [head] + sites.map { s in
                            [s.category.map(categoryWords) ?? tr("unnamed", context: "category"), s.site ?? "-", String(s.reports), dateAndTimeWords(s.lastSeen), s.domain]
                        }
                        out += table(rows) + "\n" + tr("A website no [[sites]] entry names counts as [browsers] unnamed_sites (docs/websites.md).")
                    }
                }
                return out
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
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "history",
            abstract: tr("The points ledger: what was earned, bought, given and taken."))
    }

    @Option(name: .long, help: ArgumentHelp(tr("How many days back, today included (default 7).")))
    var days: Int64 = 7

    @OptionGroup var client: ClientOptions

    func run() throws {
        try reporting {
            try client.finish(try client.send(ControlRequest(.history, days: days, day: nil))) { reply in
                let lines = reply.history ?? []
                guard !lines.isEmpty else { return tr.plural("Nothing in the ledger in the last day.", "Nothing in the ledger in the last {n} days.", Int(days)) }
                let head = [tr("WHEN", context: "column"), tr("WHAT", context: "column"), tr("POINTS", context: "column"), tr("BALANCE", context: "column"), tr("NOTE", context: "column")]
                let rows: [[String]] = [head] + lines.map { e in
                    let what: String
                    let time = ["time": minutesWords(e.rewardSeconds ?? 0)]
                    switch e.kind {
                    case "earned": what = tr("earned", context: "ledger")
                    case "redeemed": what = e.note == "child" ? tr("bought {time} of game time (yourself)", time) : tr("bought {time} of game time", time)
                    case "expired": what = tr("{time} of game time expired", time)
                    case "gifted": what = tr("given {time} of game time", time)
                    case "chore": what = tr("chore done", context: "ledger")
                    default: what = e.points >= 0 ? tr("bonus", context: "ledger") : tr("penalty", context: "ledger")
                    }
                    return [dateAndTimeWords(e.at), what,
                            e.points > 0 ? "+\(e.points)" : String(e.points), String(e.balanceAfter), e.note ?? ""]
                }
                return table(rows)
            }
        }
    }
}

struct Sessions: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "sessions",
            abstract: tr("One day's sessions: what counted, and why the rest did not."),
            discussion: tr("Times are in the policy's time zone. Sessions appear once they are judged (a few minutes after they end)."))
    }

    @Option(name: .long, help: ArgumentHelp(tr("The day, YYYY-MM-DD (default today).")))
    var day: String?

    @OptionGroup var client: ClientOptions

    func run() throws {
        try reporting {
            try client.finish(try client.send(ControlRequest(.sessions, days: nil, day: day))) { reply in
                let sessions = reply.sessions ?? []
                guard !sessions.isEmpty else { return day.map { tr("No sessions on {day} yet.", ["day": $0]) } ?? tr("No sessions today yet.") }
                return sessions.map(Sessions.describe).joined(separator: "\n")
            }
        }
    }

    /// "14:00–14:40  GCompris  40 min, 39 points" and a line per reason, in a child's words and
    /// language.
    static func describe(_ s: ControlReply.SessionLine) -> String {
        let when = "\(s.start.dropFirst(11).prefix(5))–\(s.end.dropFirst(11).prefix(5))"
        var head = "\(when)  \(s.app)  "
        switch s.category {
        case "learning":
            head += s.points > 0
                ? tr("{time}, {counted} counted: {points} points", ["time": minutesWords(s.seconds), "counted": minutesWords(s.creditedSeconds), "points": "\(s.points)"])
                : tr("{time}, nothing counted", ["time": minutesWords(s.seconds)])
        case "reward": head += tr("{time} of game time", ["time": minutesWords(s.seconds)])
        default: head += minutesWords(s.seconds)
        }
        let why = s.refused.filter { $0.seconds > 0 || $0.reason == "too_short" }.map { r in
            "    " + tr("{time} not counted: {why}", ["time": minutesWords(r.seconds), "why": ChildWords.reason(r.reason, tr)])
        }
        let flags = s.flags.map { "    " + tr("noticed: {what}", ["what": ChildWords.reason($0, tr)]) }
        return ([head] + why + flags).joined(separator: "\n")
    }
}
