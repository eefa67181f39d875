import ControlProtocol
@testable import DesktopHooks
import ScreenTimeCore
import Testing

/// The browsers' native messaging framing and what the host makes of the extension's messages
/// (docs/spec/sites.md). The host end to end, between a browser and a daemon, is in EndToEndTests.
@Suite("Native messaging")
struct NativeMessagingTests {
    @Test("messages are cut at their length, in any pieces; a message too long ends the host")
    func framing() throws {
        let a = NativeMessageReader.frame(#"{"type":"report","host":"a.org"}"#)
        let b = NativeMessageReader.frame(#"{"type":"report","host":null}"#)
        #expect(Array(a.prefix(4)) == [32, 0, 0, 0])   // 32 bytes, little-endian (x86's and ARM's order)
        var reader = NativeMessageReader()
        let all = a + b
        // In three pieces, the first ending inside the first message's length.
        #expect(try reader.append(Array(all[0..<2])).isEmpty)
        #expect(try reader.append(Array(all[2..<(a.count + 3)])) == [Array(a.dropFirst(4))])
        #expect(try reader.append(Array(all[(a.count + 3)...])) == [Array(b.dropFirst(4))])
        var big = NativeMessageReader()
        #expect(throws: NativeMessageReader.Failure.tooLong(70_000)) {
            try big.append([0x70, 0x11, 0x01, 0x00])
        }
    }

    @Test("a report becomes a site_changed event the daemon reads, with the browser's pid; anything else is refused")
    func reports() throws {
        let (event, problem) = BrowserMessages.event(fromReport: Array(#"{"type":"report","host":"www.khanacademy.org","audible":["www.youtube.com","https://x/y"],"focused":true}"#.utf8), browser: 4242)
        #expect(problem == nil)
        // The daemon's own reader takes it (a pid of 0 it would not).
        #expect(try EventLog.decode(hookEvent: try #require(event), at: WallTime(micros: 0), mono: 0).kind == .siteChanged(SiteReport(pid: 4242, host: "www.khanacademy.org", audible: ["www.youtube.com"], focused: true)))
        #expect(event == #"{"event":"site_changed","pid":4242,"host":"www.khanacademy.org","audible":["www.youtube.com"],"focused":true}"#)
        #expect(BrowserMessages.event(fromReport: Array(#"{"type":"report","host":null}"#.utf8), browser: 4242).event == #"{"event":"site_changed","pid":4242,"host":null}"#)
        #expect(BrowserMessages.event(fromReport: Array(#"{"type":"report","host":"https://www.youtube.com/watch?v=1"}"#.utf8), browser: 4242).problem
            == #"'host' must be a host name, not "https://www.youtube.com/watch?v=1""#)
        #expect(BrowserMessages.event(fromReport: Array(#"{"type":"redeem","minutes":60}"#.utf8), browser: 4242).problem == #"the messages are {"type": "report", …} and {"type": "ask", …}"#)
        #expect(BrowserMessages.event(fromReport: Array("[1]".utf8), browser: 4242).problem == "a message must be a JSON object")
    }

    @Test("an ask from the extension's page becomes the daemon's ask, minutes and reason; a bad one says why; other messages are not asks")
    func ask() throws {
        func ask(_ json: String) -> (request: ControlRequest?, problem: String?)? { BrowserMessages.ask(from: Array(json.utf8)) }
        let good = try #require(ask(#"{"type":"ask","minutes":15,"reason":"  I finished my homework \n"}"#))
        #expect(good.request == ControlRequest(.ask, minutes: 15, reason: "I finished my homework"))
        #expect(ask(#"{"type":"ask","minutes":30,"reason":""}"#)?.request == ControlRequest(.ask, minutes: 30, reason: nil))
        #expect(ask(#"{"type":"ask","minutes":30}"#)?.request == ControlRequest(.ask, minutes: 30, reason: nil))
        #expect(ask(#"{"type":"ask","minutes":0}"#)?.problem == "'minutes' must be a whole number from 1 to 240")
        #expect(ask(#"{"type":"ask","minutes":241}"#)?.problem == "'minutes' must be a whole number from 1 to 240")
        #expect(ask(#"{"type":"ask","minutes":"15"}"#)?.problem == "'minutes' must be a whole number from 1 to 240")
        #expect(ask(#"{"type":"ask","minutes":15,"reason":5}"#)?.problem == "'reason' must be text")
        #expect(ask(#"{"type":"ask","minutes":15,"reason":"\#(String(repeating: "x", count: 201))"}"#)?.problem == "'reason' must be at most 200 characters")
        #expect(ask(#"{"type":"report","host":null}"#) == nil)
        #expect(ask("[1]") == nil)
        // The answer for the page.
        #expect(BrowserMessages.asked(ControlReply(ok: true)) == #"{"asked":true}"#)
        #expect(BrowserMessages.asked(.refused(.asSaid, ["detail": "not asked: x"])) == #"{"error":"not asked: x"}"#)
        #expect(BrowserMessages.asked(nil) == #"{"error":"screentime is not running"}"#)
    }

    @Test("the daemon's answer, for the extension")
    func answers() {
        var reply = ControlReply(ok: true)
        reply.siteStops = [ControlReply.SiteStopLine(host: "poki.com", site: "Poki", reason: "blocked")]
        #expect(BrowserMessages.answer(reply) == #"{"stops":[{"host":"poki.com","site":"Poki","reason":"blocked"}]}"#)
        #expect(BrowserMessages.answer(ControlReply(ok: true)) == #"{"stops":[]}"#)
        #expect(BrowserMessages.answer(.refused(.asSaid, ["detail": "the site report is not believed: x"])) == #"{"error":"the site report is not believed: x"}"#)
        #expect(BrowserMessages.answer(nil) == #"{"error":"screentime is not running"}"#)
    }
}
