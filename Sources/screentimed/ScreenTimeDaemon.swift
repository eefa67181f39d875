import ArgumentParser
import ControlProtocol

@main
struct ScreenTimeDaemon: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "screentimed",
        abstract: "The screentime daemon: learning time in, points and reward minutes out.",
        discussion: """
            Without a subcommand, runs the daemon in the foreground (see 'screentimed run --help'). \
            Not built yet: logind, desktop hooks, the control socket and enforcement.
            """,
        version: ControlProtocol.release,
        subcommands: [Run.self, Replay.self, Import.self, Check.self, NotifyRelay.self, KDEHookCommand.self],
        defaultSubcommand: Run.self)
}
