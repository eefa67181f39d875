import ControlProtocol
import ArgumentParser
import ScreenTimeLinux
import ScreenTimeWords

@main
struct Stctl: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "stctl",
            abstract: tr("Ask screentime what is left, and (for parents) change it."),
            discussion: tr("Talks to screentimed over its control socket; parents run redeem, adjust, approve, deny and chore approve/reject as root or as a user named in the policy; the child asks (ask) and claims chores (chore done)."),
            version: ControlProtocol.release,
            subcommands: [Status.self, History.self, Sessions.self, Report.self, Redeem.self, Adjust.self, BonusCommand.self, StopGames.self,
                          BedtimeCommand.self, FreeDayCommand.self,
                          Revoke.self, Ask.self, Requests.self, Approve.self,
                          Deny.self, Chores.self, ChoreCommand.self, SimulateCommand.self, ExportCommand.self,
                          ForgetCommand.self, Apps.self, Hook.self, PolicyCommand.self])
    }

    /// `stctl adjust -5 --reason …` takes 5 points away: a negative number there is the points,
    /// not an option (the parser would take it for one), so it is passed after `--`.
    static func main() {
        let given = Array(CommandLine.arguments.dropFirst())
        var arguments = given
        if arguments.first == "adjust", !arguments.contains("--"),
           let k = arguments.firstIndex(where: { $0.count > 1 && $0.hasPrefix("-") && Int64($0) != nil }) {
            let points = arguments.remove(at: k)
            arguments += ["--", points]
        }
        // `stctl status` is what a child and a status bar run most (a bar every few seconds): its
        // few arguments are read here, by hand. ArgumentParser reads a command's arguments by
        // reflection, which was more than half of the process's instructions, 11 million of 20
        // (callgrind; docs/benchmarks.md). Anything else — help, a mistake, an option this does
        // not know — goes the usual way, with the usual messages.
        if arguments.first == "status", let status = Status.QuickArguments(Array(arguments.dropFirst())) {
            do { try status.run() } catch { exit(withError: error) }
            return
        }
        // As ArgumentParser's `main`, but a mistyped command or a reason without --reason is
        // told in words of its own (UsageHint), with ArgumentParser's exit status for a misuse.
        var command: ParsableCommand
        do { command = try parseAsRoot(arguments) } catch {
            if let hint = UsageHint.hint(for: given) {
                StandardError.write(hint)
                exit(withError: ExitCode.validationFailure)
            }
            exit(withError: error)
        }
        do { try command.run() } catch { exit(withError: error) }
    }
}

struct PolicyCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "policy",
            abstract: tr("Work with policy files."),
            subcommands: [PolicyCheck.self, PolicyReload.self, PolicySet.self, PolicyUnset.self, PolicyHistory.self, PolicyUndo.self])
    }
}

struct PolicyReload: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "reload",
            abstract: tr("Parents: make the daemon read its policy file again."),
            discussion: tr("A policy with problems is refused with each problem and its line; the old policy stays in force."))
    }

    @OptionGroup var client: ClientOptions
    @OptionGroup var parent: ParentOptions

    func run() throws {
        try reporting {
            try client.finish(try parent.send(ControlRequest(.reload), with: client)) { reply in sentence(reply.noteWords(tr)) }
        }
    }
}
