import ArgumentParser

@main
struct Stctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stctl",
        abstract: "Ask screentime what is left, and (for parents) change it.",
        discussion: "Status, redeem and the other commands that talk to the daemon come with the control socket.",
        subcommands: [PolicyCommand.self])
}

struct PolicyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "policy",
        abstract: "Work with policy files.",
        subcommands: [PolicyCheck.self])
}
