import ArgumentParser
import ControlProtocol
import FoundationEssentials

// A parent changes the policy through the daemon (docs/policy.md, "Changing the policy"): each
// change checked as `stctl policy check` checks the file, the file's comments kept, recorded with
// who and when, and undoable.

struct PolicySet: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Parents: change keys of the child's policy file (KEY=VALUE ...), checked, comments kept, undoable.",
        discussion: """
            KEY is table.key (rewards.daily_limit), list[name].key (chores[Feed the cat].points, \
            schedules[School days].daily_limit, apps[Mystery].category) or a top key (timezone). VALUE is written as \
            TOML when it is a number, true/false, an array or a quoted string, else as a string: \
            stctl policy set rewards.daily_limit=1h 'screen.allowed_hours=["07:00-20:30"]'. \
            A new entry of a list is made by setting its keys. Nothing is changed when the result has a problem; \
            --preview shows the change without making it. stctl policy history lists the changes; stctl policy undo N undoes one.
            """)

    @Argument(help: "KEY=VALUE, one or more.")
    var changes: [String]

    @Flag(name: .long, help: "Show what would change, change nothing.")
    var preview = false

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            var list: [ControlRequest.PolicyChange] = []
            for c in changes {
                guard let eq = c.firstIndex(of: "=") else {
                    throw ValidationError("'\(c)' has no '=': write KEY=VALUE (stctl policy unset KEY removes a key)")
                }
                list.append(.init(key: String(c[..<eq]), value: String(c[c.index(after: eq)...])))
            }
            try PolicyChangeWords.send(list, preview: preview, client: client, parent: parent)
        }
    }
}

struct PolicyUnset: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unset",
        abstract: "Parents: remove keys (or whole entries, like chores[Dishes]) from the child's policy file, checked, comments kept, undoable.")

    @Argument(help: "KEY, one or more: table.key, list[name].key, or list[name] for a whole entry.")
    var keys: [String]

    @Flag(name: .long, help: "Show what would change, change nothing.")
    var preview = false

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            try PolicyChangeWords.send(keys.map { .init(key: $0, value: nil) }, preview: preview, client: client, parent: parent)
        }
    }
}

struct PolicyHistory: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Parents: the changes made with stctl policy set/unset and the parents' page, newest first.")

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            try client.finish(try parent.send(ControlRequest(.policyHistory), with: client)) { reply in
                let changes = reply.policyHistory ?? []
                guard !changes.isEmpty else { return "No changes of the policy were made through screentime yet." }
                return changes.map(PolicyChangeWords.describe).joined(separator: "\n")
            }
        }
    }
}

struct PolicyUndo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo",
        abstract: "Parents: undo change N of stctl policy history (while the file is as it left it).")

    @Argument(help: "The change's number.")
    var change: Int64

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            var request = ControlRequest(.policyUndo)
            request.changeID = change
            try client.finish(try parent.send(request, with: client)) { reply in
                reply.policyChange.map { "Undone: " + PolicyChangeWords.describe($0) } ?? ""
            }
        }
    }
}

enum PolicyChangeWords {
    static func send(_ changes: [ControlRequest.PolicyChange], preview: Bool, client: ClientOptions, parent: ParentOptions) throws {
        var request = ControlRequest(.policyChange)
        request.changes = changes
        if preview { request.preview = true }
        try client.finish(try parent.send(request, with: client)) { reply in
            guard let change = reply.policyChange else { return "" }
            return change.applied ? "Changed: " + describe(change) : "Would change (nothing is changed yet):\n" + lines(change)
        }
    }

    /// "3  2026-11-29 07:02  mum: …" and a line per key.
    static func describe(_ c: ControlReply.PolicyChangeLine) -> String {
        var head = "change \(c.id.map(String.init) ?? "?")"
        if let at = c.at { head += ", " + String(at.prefix(16).map { $0 == "T" ? " " : $0 }) }
        if let by = c.by { head += ", by \(by)" }
        if let undone = c.undoes { head += " (undoes change \(undone))" }
        if let later = c.undoneBy { head += " (undone by change \(later))" }
        return head + "\n" + lines(c)
    }

    static func lines(_ c: ControlReply.PolicyChangeLine) -> String {
        c.changes.map { "  \($0.key): \(($0.before ?? "not set").split(separator: "\n").joined(separator: " ")) → \(($0.after ?? "not set").split(separator: "\n").joined(separator: " "))" }
            .joined(separator: "\n")
    }
}
