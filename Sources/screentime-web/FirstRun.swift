import Dispatch
import FoundationEssentials
import Glibc
import HTTPTypes
import Hummingbird
import ParentsPage
import ScreenTimeLinux
import ScreenTimeWords
import Synchronization

/// `screentime-web --first-run`: the first-run page, started by `screentime-setup --web` (root)
/// for one setup (docs/system-mode.md). Setup writes what it found, with the key its printed
/// address carries, as the first line of standard input; each answer goes to setup as a JSON line
/// on standard output, and setup's reply comes back on standard input. Once setup says it is done,
/// the page shows what was done, says `{"shown":true}`, and ends (as it does when setup is gone:
/// its standard input ends). It writes no file.
final class FirstRunSite: Sendable {
    let context: FirstRunPage.Context
    /// The form's token, tied to this run.
    let csrf = RandomToken.hex()
    let lines = Mutex<[String]?>(nil)
    /// One answer goes to setup at a time.
    let talking = Mutex(false)
    /// The languages the page speaks (its catalogs, read at start): each browser's own.
    let languages = PageLanguages(folder: Translator.catalogFolder())
    static let cookie = "st_setup"

    init(context: FirstRunPage.Context) {
        self.context = context
        _ = Self.replies     // reading standard input from now on
    }

    func routes(_ router: Router<PageContext>) {
        router.add(middleware: SecurityHeaders(policy: Site.contentSecurityPolicy) { [languages] in languages.translator(for: $0) })
        router.get("/static/style.css") { _, _ in Site.text(PageAssets.style, type: "text/css; charset=utf-8") }
        router.get("/setup") { request, _ in self.show(request) }
        router.post("/setup") { request, _ in try await self.answer(request) }
    }

    /// The key is the address's (`?token=`): a browser that came with it gets a cookie and the form.
    func allowed(_ request: Request) -> Bool {
        CookieHeader.value(of: Self.cookie, in: request.headers[.cookie]).map { WebSessions.same($0, context.token) } ?? false
    }

    func show(_ request: Request) -> Response {
        if let token = request.uri.queryParameters.get("token") {
            guard WebSessions.same(token, context.token) else { return closed(request) }
            return Site.redirect("/setup", cookie: "\(Self.cookie)=\(context.token); Path=/; HttpOnly; SameSite=Strict")
        }
        guard allowed(request) else { return closed(request) }
        let tr = languages.translator(for: request)
        if let done = lines.withLock({ $0 }) { return Site.html(FirstRunPage.done(done, tr: tr)) }
        return Site.html(FirstRunPage.form(context, csrf: csrf, tr: tr))
    }

    func closed(_ request: Request) -> Response {
        let tr = languages.translator(for: request)
        return Site.refused(.forbidden, tr("This setup page opens only from the address screentime-setup printed (it carries its key)."), tr)
    }

    func answer(_ request: Request) async throws -> Response {
        guard allowed(request) else { return closed(request) }
        let form = FormFields(String(decoding: Array(buffer: try await request.body.collect(upTo: 64 * 1024)), as: UTF8.self))
        guard let token = form["csrf"], WebSessions.same(token, csrf) else { return closed(request) }
        guard talking.withLock({ busy in defer { busy = true }; return !busy }) else {
            let tr = languages.translator(for: request)
            return Site.refused(.conflict, tr("The setup is busy with the answers sent a moment ago: wait, then reload."), tr)
        }
        defer { talking.withLock { $0 = false } }
        let answers = FirstRunPage.answers(form, context: context)
        let reply = await exchange(answers)
        let tr = languages.translator(for: request)
        guard let reply, reply.ok else {
            return Site.html(FirstRunPage.form(context, csrf: csrf, error: reply?.error ?? tr("screentime-setup did not answer: run it again."), tr: tr))
        }
        lines.withLock { $0 = reply.lines }
        let page = FirstRunPage.done(reply.lines, tr: tr)
        let body = ResponseBody { writer in
            // Shown (or the browser went away meanwhile): this page ends, after this answer has
            // gone out, and setup with it.
            defer {
                Self.say("{\"shown\":true}")
                Self.stop()
            }
            try await writer.write(ByteBuffer(string: page))
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: body)
    }

    /// Ends the page as SIGTERM does (Hummingbird's graceful shutdown): what is being answered
    /// goes out first; no new connection is taken.
    static func stop() {
        kill(getpid(), SIGTERM)
    }

    /// One line to setup, straight to the file descriptor.
    static func say(_ line: String) {
        _ = (line + "\n").withCString { write(1, $0, strlen($0)) }
    }

    /// Setup's lines after the first, as they come; when setup is gone (standard input ends),
    /// this page has nobody to ask for and ends too.
    static let replies: AsyncStream<String> = {
        let (stream, lines) = AsyncStream<String>.makeStream()
        DispatchQueue.global().async {
            // A blocking read of standard input, off the server's threads.
            while let line = readLine(strippingNewline: true) { lines.yield(line) }
            stop()
        }
        return stream
    }()

    /// The answers to setup, and its reply (nil: setup is gone).
    func exchange(_ answers: FirstRunPage.Answers) async -> FirstRunPage.Reply? {
        guard let data = try? JSONEncoder().encode(answers) else { return nil }
        Self.say(String(decoding: data, as: UTF8.self))
        var next = Self.replies.makeAsyncIterator()
        guard let line = await next.next() else { return nil }
        return try? JSONDecoder().decode(FirstRunPage.Reply.self, from: Data(line.utf8))
    }

    /// What setup gave: the first line of standard input (nil: none, or not setup's).
    static func context() -> FirstRunPage.Context? {
        guard let line = readLine(strippingNewline: true),
              let context = try? JSONDecoder().decode(FirstRunPage.Context.self, from: Data(line.utf8)), context.token.count >= 32 else {
            return nil
        }
        return context
    }
}

struct FirstRunFailure: Error, CustomStringConvertible { var description: String }
