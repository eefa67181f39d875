import ArgumentParser
import ControlProtocol
import Foundation
import ScreenTimeCore
import ScreenTimeLinux
import ScreenTimeSystemd

/// `screentimed notify-relay`: started by the system daemon for one user (NotificationRelay):
/// acts as that user, keeping root as its real user, and shows each notice it reads from
/// standard input (a socket; one JSON object per line: summary, body, urgency, and `actions`, a
/// button's key and words) on the user's session bus. A button pressed on a notice it showed is
/// written back on the same socket, once: `{"pressed": KEY}`. Ends when standard input does (the
/// daemon closed it, or ended).
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
        let daemon = UnixConnection.standardInput()
        var lines = FrameReader()
        var lastProblem: String? = nil
        /// The notices shown with a button, by id: the button's key (the last few).
        var buttons: [UInt32: String] = [:]
        while true {
            let ready = Poll.wait(read: [daemon.fd] + (notifier.descriptor.map { [$0] } ?? []), timeoutMillis: 60_000)
            if ready.readable.contains(daemon.fd) {
                guard let bytes = daemon.read() else { return }
                for line in lines.append(bytes) {
                    guard let notice = Self.notice(line) else { say("not a notice: \(String(decoding: line.prefix(80), as: UTF8.self))"); continue }
                    let id = notifier.show(summary: notice.summary, body: notice.body, urgency: notice.urgency, actions: notice.actions,
                                           now: SystemClock.monoMicros())
                    if id == nil, notifier.problem != lastProblem { say(notifier.problem ?? "the notice was not shown") }
                    lastProblem = notifier.problem
                    if let id, let key = notice.actions.first?.key {
                        if buttons.count >= 20, let oldest = buttons.keys.min() { buttons[oldest] = nil }
                        buttons[id] = key
                    }
                }
            }
            notifier.process()
            for press in notifier.takePressed() where buttons[press.id] == press.key {
                buttons[press.id] = nil
                var w = JSONWriter()
                w.beginObject(); w.key("pressed"); w.string(press.key); w.endObject()
                guard daemon.write(Array((w.output + "\n").utf8)) else { return }
            }
        }
    }

    /// A notice line from the daemon; nil when it is not one.
    static func notice(_ line: [UInt8]) -> (summary: String, body: String, urgency: Notifier.Urgency, actions: [(key: String, label: String)])? {
        guard case .object(let fields)? = try? line.withUnsafeBufferPointer({ buf throws(JSONLineError) in try JSONLineReader.parse(buf) }) else { return nil }
        var summary = "", body = "", urgency = Notifier.Urgency.normal, actions: [(key: String, label: String)] = []
        for (k, v) in fields {
            switch (k, v) {
            case ("summary", .string(let s)): summary = s
            case ("body", .string(let s)): body = s
            case ("urgency", .number(let n)): urgency = n.int64.flatMap { Notifier.Urgency(rawValue: UInt8(clamping: $0)) } ?? .normal
            case ("actions", .array(let a)):
                let words = a.compactMap { if case .string(let s) = $0 { s } else { nil } }
                actions = stride(from: 0, to: words.count - 1, by: 2).map { (words[$0], words[$0 + 1]) }
            default: break
            }
        }
        return (summary, body, urgency, actions)
    }
}
