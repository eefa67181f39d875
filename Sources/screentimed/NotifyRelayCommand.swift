import ArgumentParser
import Foundation
import ScreenTimeCore
import ScreenTimeLinux
import ScreenTimeSystemd

/// `screentimed notify-relay`: started by the system daemon for one user (NotificationRelay):
/// acts as that user, keeping root as its real user, and shows each notice it reads from
/// standard input (one JSON object per line: summary, body, urgency) on the user's session bus.
/// Ends when standard input does (the daemon closed it, or ended).
struct NotifyRelay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify-relay",
        abstract: "System mode's notification relay for one user (started by the daemon).",
        shouldDisplay: false)

    @Option(name: .long, help: "The user to act as.")
    var uid: UInt32

    @Option(name: .long, help: "The user's primary group.")
    var gid: UInt32

    @Option(name: .long, help: "The user's session bus socket.")
    var bus: String

    func run() throws {
        func say(_ s: String) { FileHandle.standardError.write(Data("screentimed notify-relay (uid \(uid)): \(s)\n".utf8)) }
        guard getuid() == 0 else { say("runs as root only (the system daemon starts it)"); throw ExitCode(2) }
        guard uid != 0 else { say("acts for a user, not root"); throw ExitCode(2) }
        do { try Privileges.actAs(uid: uid, gid: gid) } catch {
            say("\(error)")
            throw ExitCode(1)
        }
        let notifier = Notifier(address: "unix:path=\(bus)")
        var lastProblem: String? = nil
        while let line = readLine(strippingNewline: true) {
            guard case .object(let fields)? = try? JSONLineReader.parse(line) else { say("not a notice: \(line.prefix(80))"); continue }
            var summary = "", body = "", urgency = Notifier.Urgency.normal
            for (k, v) in fields {
                switch (k, v) {
                case ("summary", .string(let s)): summary = s
                case ("body", .string(let s)): body = s
                case ("urgency", .number(let n)): urgency = n.int64.flatMap { Notifier.Urgency(rawValue: UInt8(clamping: $0)) } ?? .normal
                default: break
                }
            }
            if !notifier.notify(summary: summary, body: body, urgency: urgency, now: SystemClock.monoMicros()), notifier.problem != lastProblem {
                say(notifier.problem ?? "the notice was not shown")
            }
            lastProblem = notifier.problem
        }
    }
}
