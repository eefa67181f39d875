import ArgumentParser

@main
struct Stctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stctl",
        abstract: "Ask screentime what is left, and (for parents) change it.",
        discussion: "Talks to screentimed over its control socket; parents run redeem and adjust as root or as a user named in the policy.",
        subcommands: [Status.self, History.self, Sessions.self, Redeem.self, Adjust.self, Apps.self, Hook.self, PolicyCommand.self])
}

struct PolicyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "policy",
        abstract: "Work with policy files.",
        subcommands: [PolicyCheck.self])
}
