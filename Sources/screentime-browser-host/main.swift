import ControlProtocol
import DesktopHooks
import FoundationEssentials
import Glibc
import ScreenTimeLinux

// screentime-browser-host: the native messaging host of screentime's browser extension
// (docs/spec/sites.md). The browser starts it and speaks to it on standard input and output; it
// passes each report of the extension to the daemon as a `site_changed` hook event, and each
// request for more game time from the extension's page as an `ask`, on one connection, and passes
// the daemon's answer back (the hosts not to show; whether it was asked). It decides nothing.
// It ends when the browser closes its input. Where the daemon is: SCREENTIME_SOCKET, else the
// user's own daemon's socket, else the system daemon's.

// FoundationEssentials, not Foundation (as stctl): the static program is half the size (29 MB, not 58).
func say(_ text: String) {
    let bytes = Array("screentime-browser-host: \(text)\n".utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

let socketPath = ProcessInfo.processInfo.environment["SCREENTIME_SOCKET"] ?? ControlProtocol.defaultSocketPath
var connection: UnixConnection? = nil
var replies = FrameReader()

/// One request to the daemon and its reply; nil when it cannot be reached (tried again next time).
@MainActor func exchange(_ request: ControlRequest) -> ControlReply? {
    if connection == nil {
        connection = try? UnixConnection.connect(path: socketPath)
        connection?.setTimeout(seconds: 5)
        replies = FrameReader()
    }
    guard let c = connection, c.write(request.line) else { connection = nil; return nil }
    while true {
        guard let bytes = c.read() else { connection = nil; return nil }
        if let line = replies.append(bytes).first { return try? ControlReply.read(line: line) }
        if replies.overflowed { connection = nil; return nil }
    }
}

@MainActor func send(_ json: String) -> Bool {
    let bytes = NativeMessageReader.frame(json)
    return bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) } == bytes.count
}

var reader = NativeMessageReader()
var chunk = [UInt8](repeating: 0, count: 65_536)
loop: while true {
    let n = read(0, &chunk, chunk.count)
    guard n > 0 else { break }   // the browser closed the port
    let messages: [[UInt8]]
    do { messages = try reader.append(Array(chunk[0..<n])) } catch {
        say("a message longer than \(NativeMessageReader.maxMessage) bytes; the extension is not screentime's")
        exit(1)
    }
    for message in messages {
        // One answer for each message, in order: the extension matches them so.
        let answer: String
        if let (request, problem) = BrowserMessages.ask(from: message) {
            answer = request.map { BrowserMessages.asked(exchange($0)) } ?? BrowserMessages.error(problem ?? "not an ask")
        } else {
            let (event, problem) = BrowserMessages.event(fromReport: message, browser: getppid())
            answer = event.map { BrowserMessages.answer(exchange(ControlRequest(.hookEvent, event: $0, hook: "browser"))) }
                ?? BrowserMessages.error(problem ?? "not a report")
        }
        guard send(answer) else { break loop }
    }
}
exit(0)
