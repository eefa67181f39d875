import ArgumentParser
import ControlProtocol
import FoundationEssentials
import Glibc
import ScreenTimeCore
import ScreenTimeWords

// The family loop (docs/family.md): a child asks for time and claims chores; a parent answers.

struct Ask: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ask",
        abstract: "The child: ask a parent for more game time (or, with --screen, screen time).",
        discussion: """
            The request waits for a parent (stctl requests, stctl approve); it expires when nobody answers in time \
            ([requests] expire_after). With --screen, an approval gives the minutes as screen time for today.
            """)

    @Argument(help: "Minutes of game time.")
    var minutes: Int64

    @Option(name: .long, help: "Why, in words the parent reads.")
    var reason: String?

    @Flag(name: .long, help: "Screen time (more time at the computer today), not game time.")
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
    static let configuration = CommandConfiguration(
        commandName: "requests",
        abstract: "Requests for game time: waiting ones first, then the last week's.",
        discussion: "Parents answer with stctl approve ID or stctl deny ID. In system mode, a parent sees the requests of every child they are a parent of.")

    @OptionGroup var client: ClientOptions

    func run() throws {
        try reporting {
            try client.finish(try client.send(ControlRequest(.requests))) { reply in
                let requests = reply.requests ?? []
                guard !requests.isEmpty else { return "No requests in the last week." }
                let child = requests.contains { $0.child != nil }
                let rows: [[String]] = [(child ? ["CHILD"] : []) + ["ID", "ASKED", "MINUTES", "STATE", "WORDS"]] + requests.map { r in
                    (child ? [r.child ?? ""] : []) + [r.id, clock(r.at), String(r.minutes) + (r.screen == true ? " screen" : ""), Self.state(r), Self.words(r)]
                }
                return table(rows, rightAligned: [child ? 3 : 2])
            }
        }
    }

    /// "waiting until 16:06", "approved: 10 min (gift, mum)", "denied (dad)", "expired", "refused: too many today"
    static func state(_ r: ControlReply.RequestLine) -> String {
        let by = r.by.map { ", \($0)" } ?? ""
        switch r.state {
        case "pending": return "waiting until \(clock(r.expiresAt))"
        case "approved" where r.screen == true: return "approved: \(r.minutesGranted ?? r.minutes) min of screen time" + (r.by.map { " (\($0))" } ?? "")
        case "approved": return "approved: \(r.minutesGranted ?? r.minutes) min (\(r.pay == "gift" ? "gift" : r.pay == "bonus" ? "bonus time" : "points")\(by))"
        case "denied": return "denied" + (r.by.map { " (\($0))" } ?? "")
        case "refused": return "refused: too many today"
        default: return r.state
        }
    }

    static func words(_ r: ControlReply.RequestLine) -> String {
        [r.reason.map { "“\($0)”" }, r.answer.map { "answer: “\($0)”" }].compactMap { $0 }.joined(separator: "; ")
    }
}

struct Approve: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approve",
        abstract: "Parents: say yes to a request for game time.",
        discussion: """
            Paid with the child's points like a redemption (refused when the balance cannot pay), or with --gift at no cost, \
            or with --bonus as bonus time for today (free, beyond today's limits). --minutes grants fewer than asked. \
            When today's limits leave no room for all the minutes, nothing is paid until you say so (on a terminal, or --anyway).
            """)

    @Argument(help: "The request's id (stctl requests lists them).")
    var id: String

    @Flag(name: .long, help: "Give the minutes: the child's points are not touched.")
    var gift = false

    @Flag(name: .long, help: "Give the minutes as bonus time for today: free, beyond today's limits, gone tonight.")
    var bonus = false

    @Flag(name: .long, help: "Approve even when today's limits leave no room for all the minutes.")
    var anyway = false

    @Option(name: .long, help: "Fewer minutes than were asked.")
    var minutes: Int64?

    @Option(name: .long, help: "Words for the child.")
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
                let paid = r.screen == true ? "of screen time for today" : r.pay == "gift" ? "as a gift" : r.pay == "bonus" ? "as bonus time for today"
                    : "for \(reply.balance.map { "points; the balance is now \($0)" } ?? "points")"
                return "Approved \(r.minutesGranted ?? r.minutes) min for \(r.child ?? "the child") (request \(r.id)) \(paid)."
            }
        }
    }
}

struct Deny: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "deny", abstract: "Parents: say no to a request for game time.")

    @Argument(help: "The request's id (stctl requests lists them).")
    var id: String

    @Option(name: .long, help: "Why, in words the child reads.")
    var reason: String?

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            var request = ControlRequest(.deny, reason: reason)
            request.requestID = id
            try client.finish(try parent.send(request, with: client)) { reply in
                "Denied request \(reply.request?.id ?? id)" + (reply.request?.child.map { " of \($0)" } ?? "") + "."
            }
        }
    }
}

struct Chores: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chores",
        abstract: "The chores of the policy and where each stands today.",
        discussion: "The child claims one with stctl chore done NAME; a parent answers with stctl chore approve NAME or stctl chore reject NAME.")

    @OptionGroup var client: ClientOptions

    func run() throws {
        try reporting {
            try client.finish(try client.send(ControlRequest(.chores))) { reply in
                let chores = reply.chores ?? []
                guard !chores.isEmpty else { return "The policy has no chores ([[chores]] in the policy file, docs/policy.md)." }
                return choreTable(chores)
            }
        }
    }
}

/// Chores as a table: name, points, how often, where it stands.
func choreTable(_ chores: [ControlReply.ChoreLine]) -> String {
    let child = chores.contains { $0.child != nil }
    let rows: [[String]] = [(child ? ["CHILD"] : []) + ["CHORE", "POINTS", "EVERY", "STATE"]] + chores.map { c in
        (child ? [c.child ?? ""] : []) + [c.chore, String(c.points), c.every, choreState(c)]
    }
    return table(rows, rightAligned: [child ? 2 : 1])
}

/// "may be claimed", "claimed 16:00, waits for a parent", "approved (mum)", "rejected: the bowl is empty — may be claimed again"
func choreState(_ c: ControlReply.ChoreLine) -> String {
    switch c.state {
    case "open": return "may be claimed"
    case "pending": return "claimed \(clock(c.claimedAt)), waits for a parent" + (c.note.map { " (\($0))" } ?? "")
    case "approved": return "approved" + (c.by.map { " (\($0))" } ?? "")
    case "rejected": return "rejected" + (c.answer.map { ": \($0)" } ?? "") + "; may be claimed again"
    default: return c.note ?? "not due"
    }
}

struct ChoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chore",
        abstract: "Chores: the child says one is done; a parent approves (it pays) or rejects it.",
        subcommands: [ChoreDone.self, ChoreApprove.self, ChoreReject.self])
}

struct ChoreDone: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "done", abstract: "The child: say a chore is done; it waits for a parent.")

    @Argument(help: "The chore's name, as stctl chores lists it.")
    var name: String

    @OptionGroup var client: ClientOptions

    func run() throws {
        try reporting {
            var request = ControlRequest(.choreDone)
            request.chore = name
            request.id = UUID().uuidString
            try client.finish(try client.send(request)) { reply in
                "\(name): claimed; a parent will approve it (\(reply.chores?.first.map { "\($0.points) points" } ?? "its points"))."
            }
        }
    }
}

struct ChoreApprove: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "approve", abstract: "Parents: approve a chore the child claimed; its points are paid.")

    @Argument(help: "The chore's name.")
    var name: String

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            var request = ControlRequest(.choreApprove)
            request.chore = name
            try client.finish(try parent.send(request, with: client)) { reply in
                "Approved \(name): +\(reply.chores?.first?.points ?? 0) points; the balance is now \(reply.balance ?? 0)."
            }
        }
    }
}

struct ChoreReject: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "reject", abstract: "Parents: reject a chore the child claimed; the child may claim it again.")

    @Argument(help: "The chore's name.")
    var name: String

    @Option(name: .long, help: "Why, in words the child reads.")
    var reason: String?

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            var request = ControlRequest(.choreReject, reason: reason)
            request.chore = name
            try client.finish(try parent.send(request, with: client)) { _ in "Rejected \(name); the child may claim it again." }
        }
    }
}

/// "16:06" of an RFC 3339 time of today, else "2026-11-23 16:06".
func clock(_ at: String?) -> String {
    guard let at, at.count >= 16 else { return "?" }
    let day = String(at.prefix(10)), time = String(at.dropFirst(11).prefix(5))
    return day == today() ? time : "\(day) \(time)"
}

private func today() -> String {
    var t = time(nil)
    var parts = tm()
    localtime_r(&t, &parts)
    return CalendarDate.text(of: CalendarDate.key(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday)))
}
