import ArgumentParser
import ControlProtocol
import FoundationEssentials
import Glibc
import ScreenTimeCore
import ScreenTimeWords

// The family loop (docs/family.md): a child asks for time and claims chores; a parent answers.

struct Ask: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "ask",
            abstract: tr("The child: ask a parent for more game time (or, with --screen, screen time)."),
            discussion: tr("The request waits for a parent (stctl requests, stctl approve); it expires when nobody answers in time ([requests] expire_after). With --screen, an approval gives the minutes as screen time for today."))
    }

    @Argument(help: ArgumentHelp(tr("Minutes of game time.")))
    var minutes: Int64

    @Option(name: .long, help: ArgumentHelp(tr("Why, in words the parent reads.")))
    var reason: String?

    @Flag(name: .long, help: ArgumentHelp(tr("Screen time (more time at the computer today), not game time.")))
    var screen = false

    @OptionGroup var client: ClientOptions

    func run() throws {
        try reporting {
            var request = ControlRequest(.ask, minutes: minutes, reason: reason)
            request.id = UUID().uuidString
            if screen { request.screen = true }
            try client.finish(try client.send(request)) { reply in
                guard let r = reply.request else { return "" }
                let values = ["minutes": "\(r.minutes)", "id": "\(r.id)", "until": clock(r.expiresAt)]
                return r.screen == true
                    ? tr("Asked for {minutes} min of screen time (request {id}); a parent can answer until {until}.", values)
                    : tr("Asked for {minutes} min (request {id}); a parent can answer until {until}.", values)
            }
        }
    }
}

struct Requests: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "requests",
            abstract: tr("Requests for game time: waiting ones first, then the last week's."),
            discussion: tr("Parents answer with stctl approve ID or stctl deny ID. In system mode, a parent sees the requests of every child they are a parent of."))
    }

    @OptionGroup var client: ClientOptions

    func run() throws {
        try reporting {
            try client.finish(try client.send(ControlRequest(.requests))) { reply in
                let requests = reply.requests ?? []
                guard !requests.isEmpty else { return tr("No requests in the last week.") }
                let child = requests.contains { $0.child != nil }
                let head = (child ? [tr("CHILD", context: "column")] : [])
                    + [tr("ID", context: "column"), tr("ASKED", context: "column"), tr("MINUTES", context: "column"), tr("STATE", context: "column"), tr("WORDS", context: "column")]
                let rows: [[String]] = [head] + requests.map { r in
                    (child ? [r.child ?? ""] : []) + [r.id, clock(r.at), r.screen == true ? tr("{minutes} screen", ["minutes": String(r.minutes)]) : String(r.minutes),
                                                      Self.state(r), Self.words(r)]
                }
                return table(rows, rightAligned: [child ? 3 : 2])
            }
        }
    }

    /// "waiting until 16:06", "approved: 10 min (gift, mum)", "denied (dad)", "expired", "refused: too many today"
    static func state(_ r: ControlReply.RequestLine) -> String {
        let by = r.by.map { " (\($0))" } ?? ""
        let minutes = ["minutes": "\(r.minutesGranted ?? r.minutes)"]
        switch r.state {
        case "pending": return tr("waiting until {until}", ["until": clock(r.expiresAt)])
        case "approved" where r.screen == true: return tr("approved: {minutes} min of screen time", minutes) + by
        case "approved" where r.pay == "gift": return tr("approved: {minutes} min as a gift", minutes) + by
        case "approved" where r.pay == "bonus": return tr("approved: {minutes} min of bonus time", minutes) + by
        case "approved": return tr("approved: {minutes} min for points", minutes) + by
        case "denied": return tr("denied", context: "request") + by
        case "refused": return tr("refused: too many today")
        default: return RequestWords.state(r.state, tr)
        }
    }

    static func words(_ r: ControlReply.RequestLine) -> String {
        [r.reason.map { tr("“{reason}”", ["reason": $0]) }, r.answer.map { tr("answer: “{answer}”", ["answer": $0]) }].compactMap { $0 }.joined(separator: "; ")
    }
}

struct Approve: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "approve",
            abstract: tr("Parents: say yes to a request for game time."),
            discussion: tr("Paid with the child's points like a redemption (refused when the balance cannot pay), or with --gift at no cost, or with --bonus as bonus time for today (free, beyond today's limits). --minutes grants fewer than asked. When today's limits leave no room for all the minutes, nothing is paid until you say so (on a terminal, or --anyway)."))
    }

    @Argument(help: ArgumentHelp(tr("The request's id (stctl requests lists them).")))
    var id: String

    @Flag(name: .long, help: ArgumentHelp(tr("Give the minutes: the child's points are not touched.")))
    var gift = false

    @Flag(name: .long, help: ArgumentHelp(tr("Give the minutes as bonus time for today: free, beyond today's limits, gone tonight.")))
    var bonus = false

    @Flag(name: .long, help: ArgumentHelp(tr("Approve even when today's limits leave no room for all the minutes.")))
    var anyway = false

    @Option(name: .long, help: ArgumentHelp(tr("Fewer minutes than were asked.")))
    var minutes: Int64?

    @Option(name: .long, help: ArgumentHelp(tr("Words for the child.")))
    var reason: String?

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            var request = ControlRequest(.approve, minutes: minutes, reason: reason)
            request.requestID = id
            request.gift = gift
            if bonus { request.bonus = true }
            if anyway { request.anyway = true }
            try client.finish(try parent.sendPaying(request, with: client, bonusInstead: "approve \(id) --bonus")) { reply in
                guard let r = reply.request else { return "" }
                var figures = ["minutes": "\(r.minutesGranted ?? r.minutes)", "child": r.child ?? tr("the child"), "id": r.id]
                figures["balance"] = reply.balance.map(String.init)
                if r.screen == true { return tr("Approved {minutes} min for {child} (request {id}) of screen time for today.", figures) }
                if r.pay == "gift" { return tr("Approved {minutes} min for {child} (request {id}) as a gift.", figures) }
                if r.pay == "bonus" { return tr("Approved {minutes} min for {child} (request {id}) as bonus time for today.", figures) }
                if reply.balance != nil { return tr("Approved {minutes} min for {child} (request {id}) for points; the balance is now {balance}.", figures) }
                return tr("Approved {minutes} min for {child} (request {id}) for points.", figures)
            }
        }
    }
}

struct Deny: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "deny", abstract: tr("Parents: say no to a request for game time."))
    }

    @Argument(help: ArgumentHelp(tr("The request's id (stctl requests lists them).")))
    var id: String

    @Option(name: .long, help: ArgumentHelp(tr("Why, in words the child reads.")))
    var reason: String?

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            var request = ControlRequest(.deny, reason: reason)
            request.requestID = id
            try client.finish(try parent.send(request, with: client)) { reply in
                let figures = ["id": reply.request?.id ?? id, "child": reply.request?.child ?? ""]
                return reply.request?.child != nil ? tr("Denied request {id} of {child}.", figures) : tr("Denied request {id}.", figures)
            }
        }
    }
}

struct Chores: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "chores",
            abstract: tr("The chores of the policy and where each stands today."),
            discussion: tr("The child claims one with stctl chore done NAME; a parent answers with stctl chore approve NAME or stctl chore reject NAME."))
    }

    @OptionGroup var client: ClientOptions

    func run() throws {
        try reporting {
            try client.finish(try client.send(ControlRequest(.chores))) { reply in
                let chores = reply.chores ?? []
                guard !chores.isEmpty else { return tr("The policy has no chores ([[chores]] in the policy file, docs/policy.md).") }
                return choreTable(chores)
            }
        }
    }
}

/// Chores as a table: name, points, how often, where it stands.
func choreTable(_ chores: [ControlReply.ChoreLine]) -> String {
    let child = chores.contains { $0.child != nil }
    let head = (child ? [tr("CHILD", context: "column")] : [])
        + [tr("CHORE", context: "column"), tr("POINTS", context: "column"), tr("EVERY", context: "column"), tr("STATE", context: "column")]
    let rows: [[String]] = [head] + chores.map { c in
        (child ? [c.child ?? ""] : []) + [c.chore, String(c.points), everyWords(c.every), choreState(c)]
    }
    return table(rows, rightAligned: [child ? 2 : 1])
}

/// "may be claimed", "claimed 16:00, waits for a parent", "approved (mum)", "rejected: the bowl is empty — may be claimed again"
func choreState(_ c: ControlReply.ChoreLine) -> String {
    let by = c.by.map { " (\($0))" } ?? ""
    switch c.state {
    case "open": return tr("may be claimed")
    // (The one note a claim has: the daemon's "claimed on an earlier day".)
    case "pending": return tr("claimed {time}, waits for a parent", ["time": clock(c.claimedAt)]) + (c.note != nil ? " " + tr("(claimed on an earlier day)") : "")
    case "approved": return tr("approved", context: "chore") + by
    case "rejected": return c.answer.map { tr("rejected: {answer}; may be claimed again", ["answer": $0]) } ?? tr("rejected; may be claimed again")
    default: return tr("not due today")
    }
}

struct ChoreCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "chore",
            abstract: tr("Chores: the child says one is done; a parent approves (it pays) or rejects it."),
            subcommands: [ChoreDone.self, ChoreApprove.self, ChoreReject.self])
    }
}

struct ChoreDone: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "done", abstract: tr("The child: say a chore is done; it waits for a parent."))
    }

    @Argument(help: ArgumentHelp(tr("The chore's name, as stctl chores lists it.")))
    var name: String

    @OptionGroup var client: ClientOptions

    func run() throws {
        try reporting {
            var request = ControlRequest(.choreDone)
            request.chore = name
            request.id = UUID().uuidString
            try client.finish(try client.send(request)) { reply in
                let points = reply.chores?.first?.points
                return points.map { tr.plural("{chore}: claimed; a parent will approve it ({points} point).", "{chore}: claimed; a parent will approve it ({points} points).", Int($0),
                                              ["chore": name, "points": "\($0)"]) }
                    ?? tr("{chore}: claimed; a parent will approve it (its points).", ["chore": name])
            }
        }
    }
}

struct ChoreApprove: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "approve", abstract: tr("Parents: approve a chore the child claimed; its points are paid."))
    }

    @Argument(help: ArgumentHelp(tr("The chore's name.")))
    var name: String

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            var request = ControlRequest(.choreApprove)
            request.chore = name
            try client.finish(try parent.send(request, with: client)) { reply in
                let points = reply.chores?.first?.points ?? 0
                return tr.plural("Approved {chore}: +{points} point; the balance is now {balance}.", "Approved {chore}: +{points} points; the balance is now {balance}.", Int(points),
                                 ["chore": name, "points": "\(points)", "balance": "\(reply.balance ?? 0)"])
            }
        }
    }
}

struct ChoreReject: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "reject", abstract: tr("Parents: reject a chore the child claimed; the child may claim it again."))
    }

    @Argument(help: ArgumentHelp(tr("The chore's name.")))
    var name: String

    @Option(name: .long, help: ArgumentHelp(tr("Why, in words the child reads.")))
    var reason: String?

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            var request = ControlRequest(.choreReject, reason: reason)
            request.chore = name
            try client.finish(try parent.send(request, with: client)) { _ in tr("Rejected {chore}; the child may claim it again.", ["chore": name]) }
        }
    }
}

/// "16:06" of an RFC 3339 time of today, else "2026-11-23 16:06".
func clock(_ at: String?) -> String {
    guard let at, at.count >= 16 else { return "?" }
    let day = String(at.prefix(10)), time = String(at.dropFirst(11).prefix(5))
    return day == today() ? time : "\(dateWords(day)) \(time)"
}

private func today() -> String {
    var t = time(nil)
    var parts = tm()
    localtime_r(&t, &parts)
    return CalendarDate.text(of: CalendarDate.key(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday)))
}
