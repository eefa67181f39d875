import ArgumentParser

@main
struct ScreenTimeDaemon: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "screentimed",
        abstract: "The screentime daemon: learning time in, points and reward minutes out.",
        discussion: """
            Live observation (the /proc sampler, logind and desktop hooks) and the control socket are \
            not built yet; today screentimed runs the engine over an event log with 'screentimed replay'.
            """,
        subcommands: [Replay.self, Import.self, Check.self])
}
