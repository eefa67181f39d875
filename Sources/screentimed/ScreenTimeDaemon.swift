import ArgumentParser
import ControlProtocol

@main
struct ScreenTimeDaemon: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "screentimed",
        abstract: "The screentime daemon: learning time in, points and reward minutes out.",
        discussion: """
            Without a subcommand, runs the daemon in the foreground (see 'screentimed run --help'): \
            for the user running it, or with --system for every child with a policy in /etc/screentime. \
            Children ask 'stctl status' what is left; parents answer with 'stctl'.
            """,
        version: ControlProtocol.release,
        subcommands: [Run.self, Replay.self, Import.self, Check.self, Setup.self, NotifyRelay.self, KDEHookCommand.self],
        defaultSubcommand: Run.self)

    /// `screentime-setup` is a link to screentimed (make install): called by that name, it is
    /// `screentimed setup`.
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if CommandLine.arguments.first?.split(separator: "/").last == "screentime-setup" {
            StandaloneSetup.main(arguments)
        } else {
            main(arguments)
        }
    }
}
