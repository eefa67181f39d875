import ArgumentParser
import ControlProtocol
import FoundationEssentials
import ScreenTimeWords

// A parent changes the policy through the daemon (docs/policy.md, "Changing the policy"): each
// change checked as `stctl policy check` checks the file, the file's comments kept, recorded with
// who and when, and undoable.

struct PolicySet: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "set",
            abstract: tr("Parents: change keys of the child's policy file (KEY=VALUE ...), checked, comments kept, undoable."),
            discussion: tr("KEY is table.key (rewards.daily_limit), list[name].key (chores[Feed the cat].points, schedules[School days].daily_limit, apps[Mystery].category) or a top key (timezone). VALUE is written as TOML when it is a number, true/false, an array or a quoted string, else as a string: stctl policy set rewards.daily_limit=1h 'screen.allowed_hours=[\"07:00-20:30\"]'. A new entry of a list is made by setting its keys. Nothing is changed when the result has a problem; --preview shows the change without making it. stctl policy history lists the changes; stctl policy undo N undoes one."))
    }

    @Argument(help: ArgumentHelp(tr("KEY=VALUE, one or more.")))
    var changes: [String]

    @Flag(name: .long, help: ArgumentHelp(tr("Show what would change, change nothing.")))
    var preview = false

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            var list: [ControlRequest.PolicyChange] = []
            for c in changes {
                guard let eq = c.firstIndex(of: "=") else {
                    throw ValidationError(tr("'{change}' has no '=': write KEY=VALUE (stctl policy unset KEY removes a key)", ["change": c]))
                }
                list.append(.init(key: String(c[..<eq]), value: String(c[c.index(after: eq)...])))
            }
            try PolicyChangeWords.send(list, preview: preview, client: client, parent: parent)
        }
    }
}

struct PolicyUnset: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "unset",
            abstract: tr("Parents: remove keys (or whole entries, like chores[Dishes]) from the child's policy file, checked, comments kept, undoable."))
    }

    @Argument(help: ArgumentHelp(tr("KEY, one or more: table.key, list[name].key, or list[name] for a whole entry.")))
    var keys: [String]

    @Flag(name: .long, help: ArgumentHelp(tr("Show what would change, change nothing.")))
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
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "history",
            abstract: tr("Parents: the changes made with stctl policy set/unset and the parents' page, newest first."))
    }

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            try client.finish(try parent.send(ControlRequest(.policyHistory), with: client)) { reply in
                let changes = reply.policyHistory ?? []
                guard !changes.isEmpty else { return tr("No changes of the policy were made through screentime yet.") }
                return changes.map(PolicyChangeWords.describe).joined(separator: "\n")
            }
        }
    }
}

struct PolicyUndo: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "undo",
            abstract: tr("Parents: undo change N of stctl policy history (while the file is as it left it)."))
    }

    @Argument(help: ArgumentHelp(tr("The change's number.")))
    var change: Int64

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            var request = ControlRequest(.policyUndo)
            request.changeID = change
            try client.finish(try parent.send(request, with: client)) { reply in
                reply.policyChange.map { tr("Undone: {change}", ["change": PolicyChangeWords.describe($0)]) } ?? ""
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
            return change.applied ? tr("Changed: {change}", ["change": describe(change)]) : tr("Would change (nothing is changed yet):") + "\n" + lines(change)
        }
    }

    /// "change 3, 2026-11-29 07:02, by mum" and a line per key ("  rewards.daily_limit: "1h" → "90m"").
    static func describe(_ c: ControlReply.PolicyChangeLine) -> String {
        var f = ["id": c.id.map(String.init) ?? "?"]
        f["at"] = c.at.map { dateAndTimeWords(String($0.prefix(16))) }
        f["parent"] = c.by
        var head = switch (c.at, c.by) {
        case (.some, .some): tr("change {id}, {at}, by {parent}", f)
        case (.some, nil): tr("change {id}, {at}", f)
        case (nil, .some): tr("change {id}, by {parent}", f)
        case (nil, nil): tr("change {id}", f)
        }
        if let undone = c.undoes { head += " " + tr("(undoes change {id})", ["id": "\(undone)"]) }
        if let later = c.undoneBy { head += " " + tr("(undone by change {id})", ["id": "\(later)"]) }
        return head + "\n" + lines(c)
    }

    static func lines(_ c: ControlReply.PolicyChangeLine) -> String {
        func value(_ v: String?) -> String { v.map { $0.split(separator: "\n").joined(separator: " ") } ?? tr("not set", context: "policy key") }
        return c.changes.map { "  " + tr("{key}: {before} → {after}", ["key": $0.key, "before": value($0.before), "after": value($0.after)]) }
            .joined(separator: "\n")
    }
}
