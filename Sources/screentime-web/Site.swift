import ControlProtocol
import HTTPTypes
import Hummingbird
import NIOCore
import ParentsPage
import ScreenTimeCore
import ScreenTimeLinux
import ScreenTimeWords
import Synchronization

/// The parents' page: each route asks the daemon (through `DaemonLink`) and shows its answer.
/// Nothing here decides anything about a child: the daemon checks who may do what, and refuses.
final class Site: Sendable {
    let daemon: DaemonLink
    /// Cookies are `Secure` when the page is served over TLS.
    let secure: Bool
    let sessionLifetime: Microseconds
    let sessions = Mutex(WebSessions())
    /// The languages the page speaks besides English (its catalogs, read at start).
    let languages: PageLanguages

    static let sessionCookie = "st_session"
    static let loginCookie = "st_login"
    /// A browser a parent logged in with: its wrong passphrases are its own, not its address's.
    static let browserCookie = "st_browser"
    let throttle = Mutex(LoginThrottle())
    /// The browser cookies given at a login (in memory, at most 10,000; a restart forgets them).
    let browsers = Mutex(Set<String>())
    /// The page's own files only; no inline script or style; forms post to the page; no frames.
    static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    init(daemon: DaemonLink, secure: Bool, sessionLifetime: Microseconds, languages: PageLanguages = PageLanguages(folder: Translator.catalogFolder())) {
        self.languages = languages
        self.daemon = daemon
        self.secure = secure
        self.sessionLifetime = sessionLifetime
    }

    func routes(_ router: Router<PageContext>) {
        router.add(middleware: SecurityHeaders(policy: Self.contentSecurityPolicy) { [languages] in languages.translator(for: $0) })
        router.get("/static/style.css") { _, _ in Self.text(PageAssets.style, type: "text/css; charset=utf-8") }
        router.get("/static/page.js") { _, _ in Self.text(PageAssets.script, type: "text/javascript; charset=utf-8") }
        router.get("/login") { request, _ in self.loginPage(request) }
        router.get("/language") { request, _ in self.chooseLanguage(request) }
        router.post("/login") { request, context in try await self.login(request, from: context.remoteAddress) }
        router.post("/logout") { request, _ in try await self.signedIn(request, form: true) { s, _, _ in try await self.logout(s) } }
        router.get("/") { request, _ in try await self.signedIn(request) { s, _, tr in try await self.family(s, tr) } }
        router.get("/events") { request, _ in
            // Without a session: 204, which tells EventSource not to try again (a redirect would).
            guard self.session(of: request) != nil else { return Response(status: .noContent) }
            return try await self.signedIn(request) { s, _, tr in self.events(s, since: request.uri.queryParameters.get("since"), tr) }
        }
        router.post("/requests/approve") { request, _ in
            try await self.signedIn(request, form: true) { s, f, tr in try await self.answerRequest(s, f, tr, approve: true) }
        }
        router.post("/requests/deny") { request, _ in
            try await self.signedIn(request, form: true) { s, f, tr in try await self.answerRequest(s, f, tr, approve: false) }
        }
        router.post("/chores/approve") { request, _ in
            try await self.signedIn(request, form: true) { s, f, tr in try await self.answerChore(s, f, tr, approve: true) }
        }
        router.post("/chores/reject") { request, _ in
            try await self.signedIn(request, form: true) { s, f, tr in try await self.answerChore(s, f, tr, approve: false) }
        }
        router.post("/redeem") { request, _ in try await self.signedIn(request, form: true) { s, f, tr in try await self.redeem(s, f, tr) } }
        router.post("/adjust") { request, _ in try await self.signedIn(request, form: true) { s, f, tr in try await self.adjust(s, f, tr) } }
        router.post("/bonus") { request, _ in try await self.signedIn(request, form: true) { s, f, tr in try await self.bonus(s, f, tr) } }
        router.post("/stop-games") { request, _ in try await self.signedIn(request, form: true) { s, f, tr in try await self.stopGames(s, f, tr) } }
        router.post("/revoke") { request, _ in try await self.signedIn(request, form: true) { s, f, tr in try await self.revoke(s, f, tr) } }
        router.post("/screen-bonus") { request, _ in try await self.signedIn(request, form: true) { s, f, tr in try await self.screenBonus(s, f, tr) } }
        router.post("/bedtime") { request, _ in try await self.signedIn(request, form: true) { s, f, tr in try await self.bedtime(s, f, tr) } }
        router.post("/free-day") { request, _ in try await self.signedIn(request, form: true) { s, f, tr in try await self.freeDay(s, f, tr) } }
        router.get("/child/{name}") { request, context in
            let name = context.parameters.get("name") ?? ""
            return try await self.signedIn(request) { s, _, tr in try await self.childPage(s, name: name, day: request.uri.queryParameters.get("day"), tr) }
        }
        router.get("/policy") { request, _ in
            try await self.signedIn(request) { s, _, tr in try await self.policyPage(s, child: request.uri.queryParameters.get("child"), tr) }
        }
        router.post("/simulate") { request, _ in try await self.simulate(request) }
        router.post("/policy/change") { request, _ in try await self.signedIn(request, form: true) { s, f, tr in try await self.changePolicy(s, f, tr) } }
        router.post("/policy/sort") { request, _ in try await self.signedIn(request, form: true) { s, f, tr in try await self.sort(s, f, tr) } }
        router.post("/policy/undo") { request, _ in try await self.signedIn(request, form: true) { s, f, tr in try await self.undoPolicyChange(s, f, tr) } }
    }

    // MARK: Sessions

    /// The session the request's cookie names, while it lasts.
    func session(of request: Request) -> WebSessions.Session? {
        let now = SystemClock.monoMicros()
        guard let id = CookieHeader.value(of: Self.sessionCookie, in: request.headers[.cookie]) else { return nil }
        return sessions.withLock { $0.session(id, now: now) }
    }

    /// Runs `body` for a parent with a session (and, for a form, its CSRF token); anyone else
    /// goes to the login page, and a form without the token is refused.
    func signedIn(_ request: Request, form: Bool = false, formBytes given: [UInt8]? = nil,
                  _ body: (WebSessions.Session, FormFields, Translator) async throws -> Response) async throws -> Response {
        let tr = languages.translator(for: request)
        guard let session = session(of: request) else {
            return form ? Self.refused(.forbidden, tr("You are not logged in (or the session ended): log in again."), tr) : Self.redirect("/login")
        }
        var fields = FormFields("")
        if form {
            let bytes: [UInt8]
            if let given { bytes = given } else { bytes = Array(buffer: try await request.body.collect(upTo: 64 * 1024)) }
            fields = FormFields(String(decoding: bytes, as: UTF8.self))
            guard let token = fields["csrf"], WebSessions.same(token, session.csrf) else {
                return Self.refused(.forbidden, tr("This form is not from this page's session (its token is missing or wrong): reload the page and try again."), tr)
            }
        }
        do {
            return try await body(session, fields, tr)
        } catch is SessionOver {
            _ = sessions.withLock { $0.close(session.id) }
            return Self.redirect("/login", cookie: Self.expired(Self.sessionCookie))
        } catch let e as DaemonLink.Unreachable {
            return Self.refused(.serviceUnavailable, e.words(tr), tr)
        }
    }

    struct SessionOver: Error, CustomStringConvertible { var description: String }

    /// A request of the session's parent, by the daemon's token.
    func ask(_ session: WebSessions.Session, _ request: ControlRequest, child: String? = nil) async throws -> ControlReply {
        var request = request
        request.token = session.daemonToken
        request.user = child
        let reply = try await daemon.send(request)
        if !reply.ok, reply.code == Why.Code.parentSessionOver.rawValue { throw SessionOver(description: reply.error ?? "") }
        return reply
    }

    func loginPage(_ request: Request, error: String? = nil) -> Response {
        let tr = languages.translator(for: request)
        if error == nil, session(of: request) != nil { return Self.redirect("/") }
        // The login form's token is a cookie's too (double submit): a page elsewhere cannot post it.
        let nonce = WebSessions.randomToken()
        var response = Self.html(LoginPage.page(csrf: nonce, error: error, tr: tr), status: error == nil ? .ok : .unauthorized)
        response.headers.append(HTTPField(name: .setCookie, value: cookie(Self.loginCookie, nonce, path: "/login", seconds: 600)))
        return response
    }

    /// The browser a login comes from: its cookie, if a parent logged in with it; else its address.
    func browser(of request: Request, address: SocketAddress?) -> String {
        if let known = CookieHeader.value(of: Self.browserCookie, in: request.headers[.cookie]), browsers.withLock({ $0.contains(known) }) {
            return "browser " + known
        }
        return "address " + (address?.ipAddress ?? "unknown")
    }

    func login(_ request: Request, from address: SocketAddress?) async throws -> Response {
        let fields = FormFields(String(decoding: Array(buffer: try await request.body.collect(upTo: 16 * 1024)), as: UTF8.self))
        let tr = languages.translator(for: request)
        guard let nonce = CookieHeader.value(of: Self.loginCookie, in: request.headers[.cookie]), let sent = fields["csrf"],
              WebSessions.same(nonce, sent) else {
            return loginPage(request, error: tr("This login form is not from this page (or it is old): try again."))
        }
        guard let phrase = fields["passphrase"], !phrase.isEmpty else { return loginPage(request, error: tr("Type the parent passphrase.")) }
        // Each browser waits longer after each wrong passphrase (LoginThrottle); the daemon counts
        // them per browser too, so that a child at one cannot lock the parents out of the others.
        let client = browser(of: request, address: address)
        let wait = throttle.withLock { $0.wait(client, now: SystemClock.monoMicros()) }
        if wait > 0 {
            let seconds = (wait + Seconds.micro - 1) / Seconds.micro
            return loginPage(request, error: tr.plural("Not checked: a wrong passphrase was typed here a moment ago. Wait {n} second and try again.", "Not checked: a wrong passphrase was typed here a moment ago. Wait {n} seconds and try again.", Int(seconds)))
        }
        // The daemon's session lasts at least as long as the page's (whole minutes).
        var asked = ControlRequest(.login, minutes: (sessionLifetime + 60 * Seconds.micro - 1) / 60 / Seconds.micro)
        asked.passphrase = phrase
        asked.parent = fields["parent"].flatMap { $0.isEmpty ? nil : $0 }
        asked.client = client
        let reply: ControlReply
        do { reply = try await daemon.send(asked) } catch let e as DaemonLink.Unreachable {
            return loginPage(request, error: e.words(tr))
        }
        guard reply.ok, let token = reply.token else {
            // Only a wrong passphrase counts (not a parent's name left out).
            if reply.code == Why.Code.wrongPassphrase.rawValue {
                throttle.withLock { $0.failed(client, now: SystemClock.monoMicros()) }
            }
            // The daemon's refusal, from its code and figures, in the page's language.
            return loginPage(request, error: tr("Not logged in: {why}", ["why": reply.refusalWords(tr)]))
        }
        throttle.withLock { $0.succeeded(client) }
        var known = CookieHeader.value(of: Self.browserCookie, in: request.headers[.cookie]) ?? ""
        if !browsers.withLock({ $0.contains(known) }) {
            known = WebSessions.randomToken()
            browsers.withLock { if $0.count >= 10_000 { $0.removeAll() }; $0.insert(known) }
        }
        let now = SystemClock.monoMicros()
        let session = sessions.withLock { $0.open(daemonToken: token, children: reply.children ?? [], lifetime: sessionLifetime, now: now) }
        var response = Self.redirect("/")
        response.headers.append(HTTPField(name: .setCookie, value: cookie(Self.sessionCookie, session.id, path: "/",
                                                                          seconds: Int(sessionLifetime / Seconds.micro))))
        response.headers.append(HTTPField(name: .setCookie, value: Self.expired(Self.loginCookie, path: "/login")))
        response.headers.append(HTTPField(name: .setCookie, value: cookie(Self.browserCookie, known, path: "/login", seconds: 400 * 86_400)))
        return response
    }

    func logout(_ session: WebSessions.Session) async throws -> Response {
        var ending = ControlRequest(.logout)
        ending.token = session.daemonToken
        _ = try? await daemon.send(ending)
        _ = sessions.withLock { $0.close(session.id) }
        return Self.redirect("/login", cookie: Self.expired(Self.sessionCookie))
    }

    func cookie(_ name: String, _ value: String, path: String, seconds: Int) -> String {
        "\(name)=\(value); Path=\(path); Max-Age=\(seconds); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    static func expired(_ name: String, path: String = "/") -> String { "\(name)=; Path=\(path); Max-Age=0; HttpOnly; SameSite=Strict" }

    // MARK: Pages

    func family(_ session: WebSessions.Session, _ tr: Translator) async throws -> Response {
        let reply = try await ask(session, ControlRequest(.family))
        guard reply.ok else { return Self.refused(.forbidden, PageWords.refusal(reply, tr), tr) }
        let flash = sessions.withLock { $0.takeFlash(of: session.id) }
        return Self.html(FamilyPage.page(reply.family ?? [], csrf: session.csrf, flash: flash, tr: tr))
    }

    /// Server-sent events: the family part again whenever it changes (the daemon asked every
    /// second while the page is open; `since`: the version the page shows), and `ended` when the
    /// session is over.
    func events(_ session: WebSessions.Session, since: String?, _ tr: Translator) -> Response {
        let body = ResponseBody { writer in
            var last = since
            var quiet = 0
            while !Task.isCancelled {
                let now = SystemClock.monoMicros()
                guard self.sessions.withLock({ $0.session(session.id, now: now) }) != nil else { break }
                let reply: ControlReply
                do { reply = try await self.ask(session, ControlRequest(.family)) } catch is SessionOver { break } catch {
                    // not shown: a comment line of the event stream, which the browser drops (it keeps the connection alive)
                    try await writer.write(ByteBuffer(string: ": the daemon is out of reach\n\n"))
                    try await Task.sleep(for: .seconds(2))
                    continue
                }
                let part = FamilyPage.fragment(reply.family ?? [], csrf: session.csrf, tr: tr)
                let version = FamilyPage.version(of: reply.family ?? [], csrf: session.csrf, tr: tr)
                if reply.ok, version != last {
                    last = version
                    try await writer.write(ByteBuffer(string: Self.event("family", part)))
                    quiet = 0
                } else if quiet >= 15 {
                    // not shown: a comment line of the event stream, which the browser drops (it keeps the connection alive)
                    try await writer.write(ByteBuffer(string: ": still here\n\n"))
                    quiet = 0
                } else {
                    quiet += 1
                }
                try await Task.sleep(for: .seconds(1))
            }
            try await writer.write(ByteBuffer(string: Self.event("ended", "")))
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store"], body: body)
    }

    /// One server-sent event; each line of the data on a `data:` line of its own.
    static func event(_ name: String, _ data: String) -> String {
        "event: \(name)\n" + data.split(separator: "\n", omittingEmptySubsequences: false).map { "data: \($0)\n" }.joined() + "\n"
    }

    func childPage(_ session: WebSessions.Session, name: String, day: String?, _ tr: Translator) async throws -> Response {
        let sessionsReply = try await ask(session, ControlRequest(.sessions, days: nil, day: day), child: name)
        guard sessionsReply.ok else { return Self.refused(.badRequest, PageWords.refusal(sessionsReply, tr), tr) }
        let week = try await ask(session, ControlRequest(.report, days: 7, day: day), child: name)
        guard week.ok else { return Self.refused(.badRequest, PageWords.refusal(week, tr), tr) }
        let shown = day ?? week.report?.last?.day ?? "today"
        // The child's today, for the links to other days (the week asked ends on the day shown).
        let today = day == nil ? shown : try await ask(session, ControlRequest(.report, days: 1, day: nil), child: name).report?.last?.day
        return Self.html(ChildPage.page(child: name, day: shown, today: today, sessions: sessionsReply.sessions ?? [], week: week.report ?? [],
                                        csrf: session.csrf, tr: tr))
    }

    func policyPage(_ session: WebSessions.Session, child: String?, _ tr: Translator, tried: String? = nil,
                    simulation: [ControlReply.SimulatedDay]? = nil, error: String? = nil) async throws -> Response {
        let child = child ?? session.children.first ?? ""
        let reply = try await ask(session, ControlRequest(.policy), child: child)
        guard reply.ok, let text = reply.policy else { return Self.refused(.badRequest, PageWords.refusal(reply, tr), tr) }
        // What the forms need: the apps and sites used this week, and the changes so far.
        let used = try await ask(session, ControlRequest(.apps), child: child)
        let history = try await ask(session, ControlRequest(.policyHistory), child: child)
        let editing = used.ok && history.ok
            ? PolicyPage.Editing(apps: used.apps ?? [], sites: used.sites ?? [], history: history.policyHistory ?? []) : nil
        let flash = sessions.withLock { $0.takeFlash(of: session.id) }
        return Self.html(PolicyPage.page(policy: text, summary: reply.policySummary, child: child, children: session.children, csrf: session.csrf, tried: tried,
                                         simulation: simulation, error: error, editing: editing, flash: flash, tr: tr,
                                         here: "/policy?child=" + Self.formEscape(child)))
    }

    /// Back to a child's policy page, which says what the change did.
    func changed(_ session: WebSessions.Session, child: String, _ reply: ControlReply, done: String, _ tr: Translator) -> Response {
        sessions.withLock { $0.setFlash(.answer(reply, done: done, tr: tr), of: session.id) }
        return Self.redirect("/policy?child=" + Self.formEscape(child))
    }

    /// A change from the limits or chores forms: shown before and after first (`step` preview),
    /// then made (`step` apply).
    func changePolicy(_ session: WebSessions.Session, _ form: FormFields, _ tr: Translator) async throws -> Response {
        let child = form["child"] ?? session.children.first ?? ""
        let changes = PolicyEditing.changes(form)
        guard !changes.isEmpty else { return try await refusedChange(session, child: child, tr("Nothing was changed in the form."), tr) }
        var asked = ControlRequest(.policyChange)
        asked.changes = changes
        asked.language = tr.language
        let apply = form["step"] == "apply"
        if !apply { asked.preview = true }
        let reply = try await ask(session, asked, child: child)
        guard reply.ok, let change = reply.policyChange else { return try await refusedChange(session, child: child, PageWords.refusal(reply, tr), tr) }
        guard apply else { return Self.html(PolicyEditing.previewPage(change, asked: changes, child: child, csrf: session.csrf, tr: tr)) }
        return changed(session, child: child, reply, done: tr("Changed {child}'s rules (change {id}); it is in force now.", ["child": child, "id": "\(change.id ?? 0)"]), tr)
    }

    /// The policy page again, saying at its top why nothing was changed.
    func refusedChange(_ session: WebSessions.Session, child: String, _ why: String, _ tr: Translator) async throws -> Response {
        sessions.withLock { $0.setFlash(.refused(why), of: session.id) }
        return try await policyPage(session, child: child, tr)
    }

    /// One tap on a sort button: made at once (the history can undo it).
    func sort(_ session: WebSessions.Session, _ form: FormFields, _ tr: Translator) async throws -> Response {
        let child = form["child"] ?? session.children.first ?? ""
        let policy = try await ask(session, ControlRequest(.policy), child: child)
        let taken = policy.policySummary?.entries.map(\.name) ?? []
        let used = try await ask(session, ControlRequest(.apps), child: child)
        guard let changes = PolicyEditing.sorting(form, taken: taken, seen: used.apps ?? []) else {
            return try await refusedChange(session, child: child, tr("Not sorted: a program {child} can change, or one that runs other programs, can only be a game or blocked.", ["child": child]), tr)
        }
        var asked = ControlRequest(.policyChange)
        asked.changes = changes
        asked.language = tr.language
        let reply = try await ask(session, asked, child: child)
        let name = form["domain"] ?? form["name"] ?? tr("it", context: "the program sorted")
        let values = ["name": name, "id": "\(reply.policyChange?.id ?? 0)"]
        // (PolicyEditing.sorting took only these four.)
        let done = switch form["category"] {
        case "learning": tr("{name} is learning now (change {id}).", values)
        case "reward": tr("{name} is a game now (change {id}).", values)
        case "neutral": tr("{name} is neither learning nor a game now (change {id}).", values)
        default: tr("{name} is blocked now (change {id}).", values)
        }
        return changed(session, child: child, reply, done: done, tr)
    }

    func undoPolicyChange(_ session: WebSessions.Session, _ form: FormFields, _ tr: Translator) async throws -> Response {
        let child = form["child"] ?? session.children.first ?? ""
        guard let id = form["change"].flatMap({ Int64($0) }) else { return Self.refused(.badRequest, tr("Which change? (the form names none)"), tr) }
        var asked = ControlRequest(.policyUndo)
        asked.changeID = id
        asked.language = tr.language
        let reply = try await ask(session, asked, child: child)
        return changed(session, child: child, reply, done: tr("Change {undone} is undone (change {id}).", ["undone": "\(id)", "id": "\(reply.policyChange?.id ?? 0)"]), tr)
    }

    /// A policy's text (a file, or pasted) tried on the last 7 days: `simulate`, which changes nothing.
    func simulate(_ request: Request) async throws -> Response {
        let bytes = Array(buffer: try await request.body.collect(upTo: 256 * 1024))
        let tr = languages.translator(for: request)
        guard let boundary = Multipart.boundary(contentType: request.headers[.contentType] ?? "") else {
            return Self.refused(.badRequest, tr("The policy is sent as a form with a file (multipart/form-data)."), tr)
        }
        let parts = Multipart.parts(bytes, boundary: boundary)
        // The token is checked as for any form, from its part.
        let csrf = parts["csrf"].map { "csrf=" + Self.formEscape(String(decoding: $0, as: UTF8.self)) } ?? ""
        return try await signedIn(request, form: true, formBytes: Array(csrf.utf8)) { session, _, tr in
            let child = parts["child"].map { String(decoding: $0, as: UTF8.self) } ?? session.children.first
            let file = parts["file"].map { String(decoding: $0, as: UTF8.self) } ?? ""
            let text = file.isEmpty ? parts["policy"].map { String(decoding: $0, as: UTF8.self) } ?? "" : file
            guard !text.isEmpty else { return try await self.policyPage(session, child: child, tr, error: tr("Choose a policy file, or paste its text.")) }
            var asked = ControlRequest(.simulate, days: 7, day: nil)
            asked.policy = text
            let reply = try await self.ask(session, asked, child: child)
            guard reply.ok else { return try await self.policyPage(session, child: child, tr, tried: text, error: tr.language == nil ? reply.error ?? "refused" : reply.refusalWords(tr)) }
            return try await self.policyPage(session, child: child, tr, tried: text, simulation: reply.simulation ?? [])
        }
    }

    static func formEscape(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            if (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) { out.unicodeScalars.append(Unicode.Scalar(b)) } else {
                out += "%" + String(b, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    // MARK: Answers

    /// Carries out a parent's answer and goes back to the family page, which says what happened.
    func acted(_ session: WebSessions.Session, _ reply: ControlReply, done: String, _ tr: Translator = .english) -> Response {
        // A refusal: its code and figures in the page's language (`PageWords.refusal`).
        sessions.withLock { $0.setFlash(.answer(reply, done: done, tr: tr), of: session.id) }
        return Self.redirect("/")
    }

    func answerRequest(_ session: WebSessions.Session, _ form: FormFields, _ tr: Translator, approve: Bool) async throws -> Response {
        guard let id = form["id"], let child = form["child"] else { return Self.refused(.badRequest, tr("Which request? (the form names none)"), tr) }
        var asked = ControlRequest(approve ? .approve : .deny)
        asked.requestID = id
        if approve {
            asked.gift = form["pay"] == "gift"
            if form["pay"] == "bonus" { asked.bonus = true }
            if form["anyway"] == "yes" { asked.anyway = true }
            if let m = form["minutes"], !m.isEmpty {
                guard let minutes = Int64(m) else { return Self.refused(.badRequest, tr("Minutes are a whole number, not “{typed}”.", ["typed": String(m.prefix(20))]), tr) }
                asked.minutes = minutes
            }
        } else if let why = form["reason"], !why.isEmpty {
            asked.reason = why
        }
        let reply = try await ask(session, asked, child: child)
        let granted = reply.request?.minutesGranted.map { tr("{m} min", context: "duration", ["m": String($0)]) } ?? ""
        let done = !approve ? tr("Denied {child}'s request", ["child": child])
            : asked.gift == true ? tr("Approved: {minutes} for {child}, as a gift", ["minutes": granted, "child": child])
            : asked.bonus == true ? tr("Approved: {minutes} for {child}, as bonus time for today", ["minutes": granted, "child": child])
            : form["pay"] == "screen" ? tr("Approved: {minutes} for {child}, as screen time for today", ["minutes": granted, "child": child])
            : tr("Approved: {minutes} for {child}", ["minutes": granted, "child": child])
        return acted(session, reply, done: done, tr)
    }

    func answerChore(_ session: WebSessions.Session, _ form: FormFields, _ tr: Translator, approve: Bool) async throws -> Response {
        guard let chore = form["chore"], let child = form["child"] else { return Self.refused(.badRequest, tr("Which chore? (the form names none)"), tr) }
        var asked = ControlRequest(approve ? .choreApprove : .choreReject)
        asked.chore = chore
        if !approve, let why = form["reason"], !why.isEmpty { asked.reason = why }
        let reply = try await ask(session, asked, child: child)
        return acted(session, reply, done: approve ? tr("Approved the chore {chore} of {child}", ["chore": chore, "child": child])
                                                   : tr("Rejected the chore {chore} of {child}", ["chore": chore, "child": child]), tr)
    }

    func redeem(_ session: WebSessions.Session, _ form: FormFields, _ tr: Translator) async throws -> Response {
        guard let child = form["child"], let minutes = form["minutes"].flatMap({ Int64($0) }) else {
            return Self.refused(.badRequest, tr("Redeem needs a child and whole minutes."), tr)
        }
        var asked = ControlRequest(.redeem, minutes: minutes)
        asked.id = form["rid"]
        if form["anyway"] == "yes" { asked.anyway = true }
        let reply = try await ask(session, asked, child: child)
        return acted(session, reply, done: tr("Redeemed {minutes} for {child}: {cost} points; {balance} left",
                                              ["minutes": tr("{m} min", context: "duration", ["m": String(minutes)]), "child": child, "cost": "\(reply.cost ?? 0)", "balance": "\(reply.balance ?? 0)"]), tr)
    }

    func adjust(_ session: WebSessions.Session, _ form: FormFields, _ tr: Translator) async throws -> Response {
        guard let child = form["child"], let points = form["points"].flatMap({ Int64($0) }) else {
            return Self.refused(.badRequest, tr("Adjust needs a child and whole points."), tr)
        }
        var asked = ControlRequest(.adjust, points: points, reason: form["reason"])
        asked.id = form["rid"]
        let reply = try await ask(session, asked, child: child)
        return acted(session, reply, done: tr("Adjusted {child}'s points by {points}: {balance} now", ["child": child, "points": "\(points)", "balance": "\(reply.balance ?? 0)"]), tr)
    }

    func bonus(_ session: WebSessions.Session, _ form: FormFields, _ tr: Translator) async throws -> Response {
        guard let child = form["child"], let minutes = form["minutes"].flatMap({ Int64($0) }) else {
            return Self.refused(.badRequest, tr("Bonus time needs a child and whole minutes."), tr)
        }
        var asked = ControlRequest(.bonus, minutes: minutes, reason: form["reason"].flatMap { $0.isEmpty ? nil : $0 })
        asked.id = form["rid"]
        let reply = try await ask(session, asked, child: child)
        let gave = tr("Gave {child} {minutes} of bonus time for today", ["child": child, "minutes": tr("{m} min", context: "duration", ["m": String(minutes)])])
        return acted(session, reply, done: tr.language == nil ? reply.note ?? gave : reply.told != nil ? reply.noteWords(tr) : gave, tr)
    }

    func stopGames(_ session: WebSessions.Session, _ form: FormFields, _ tr: Translator) async throws -> Response {
        guard let child = form["child"] else { return Self.refused(.badRequest, tr("Stop whose games? (the form names no child)"), tr) }
        var asked = ControlRequest(.stopGames)
        asked.until = form["until"].flatMap { $0.isEmpty ? nil : $0 }
        asked.id = form["rid"]
        let reply = try await ask(session, asked, child: child)
        // The daemon's note says until when: in the parent's language from its code (`Told`).
        let stopped = asked.until == "now" ? tr("{child} may play games again", ["child": child]) : tr("{child}'s games are stopped", ["child": child])
        return acted(session, reply, done: tr.language == nil ? "\(child): " + (reply.note ?? "done") : reply.told != nil ? reply.noteWords(tr) : stopped, tr)
    }

    func revoke(_ session: WebSessions.Session, _ form: FormFields, _ tr: Translator) async throws -> Response {
        guard let child = form["child"], let minutes = form["minutes"].flatMap({ Int64($0) }) else {
            return Self.refused(.badRequest, tr("Taking minutes back needs a child and whole minutes."), tr)
        }
        var asked = ControlRequest(.revoke, minutes: minutes)
        asked.refund = form["refund"] == "yes"
        asked.id = form["rid"]
        let reply = try await ask(session, asked, child: child)
        let taken = tr("{minutes} taken back from {child}.", ["minutes": tr("{m} min", context: "duration", ["m": String(minutes)]), "child": child])
        return acted(session, reply, done: tr.language == nil ? "\(child): " + (reply.note ?? "done") + (reply.balance.map { " " + tr("The balance is now {balance}.", ["balance": "\($0)"]) } ?? "")
                                                              : (reply.told != nil ? reply.noteWords(tr) : taken) + (reply.balance.map { " " + tr("The balance is now {balance}.", ["balance": "\($0)"]) } ?? ""), tr)
    }

    /// Minutes of screen time for today only, beyond today's screen limits (not past bedtime).
    func screenBonus(_ session: WebSessions.Session, _ form: FormFields, _ tr: Translator) async throws -> Response {
        guard let child = form["child"], let minutes = form["minutes"].flatMap({ Int64($0) }) else {
            return Self.refused(.badRequest, tr("More screen time needs a child and whole minutes."), tr)
        }
        var asked = ControlRequest(.bonus, minutes: minutes, reason: form["reason"].flatMap { $0.isEmpty ? nil : $0 })
        asked.screen = true
        asked.id = form["rid"]
        let reply = try await ask(session, asked, child: child)
        let gave = tr("Gave {child} {minutes} of screen time for today", ["child": child, "minutes": tr("{m} min", context: "duration", ["m": String(minutes)])])
        return acted(session, reply, done: tr.language == nil ? reply.note ?? gave : reply.told != nil ? reply.noteWords(tr) : gave, tr)
    }

    /// Tonight's bedtime, earlier or later; tomorrow the policy's hours hold again.
    func bedtime(_ session: WebSessions.Session, _ form: FormFields, _ tr: Translator) async throws -> Response {
        guard let child = form["child"] else { return Self.refused(.badRequest, tr("Whose bedtime? (the form names no child)"), tr) }
        guard var until = form["until"].map({ String($0.filter { $0 != " " }) }), !until.isEmpty else {
            sessions.withLock { $0.setFlash(.refused(tr("Bedtime was not changed: choose a time tonight, such as 21:30.")), of: session.id) }
            return Self.redirect("/")
        }
        // A time field cannot say 24:00: its 00:00 is midnight tonight (the daemon's 24:00), not
        // this morning's start.
        if until == "00:00" { until = "24:00" }
        var asked = ControlRequest(.bedtime)
        asked.until = until
        asked.id = form["rid"]
        let reply = try await ask(session, asked, child: child)
        let said = tr.language == nil ? reply.note ?? tr("Bedtime tonight for {child} is {time}", ["child": child, "time": until])
            : reply.told != nil ? reply.noteWords(tr) : tr("Bedtime tonight for {child} is {time}", ["child": child, "time": until == "24:00" ? "00:00" : until])
        return acted(session, reply, done: said, tr)
    }

    /// No screen or game limit for the rest of today: only with the form's tick that says so.
    func freeDay(_ session: WebSessions.Session, _ form: FormFields, _ tr: Translator) async throws -> Response {
        guard let child = form["child"] else { return Self.refused(.badRequest, tr("Whose free day? (the form names no child)"), tr) }
        guard form["sure"] == "yes" else {
            sessions.withLock { $0.setFlash(.refused(tr("Not a free day yet: tick “Yes: no screen or game limit for the rest of today” and press Free day again.")),
                                            of: session.id) }
            return Self.redirect("/")
        }
        var asked = ControlRequest(.freeDay, reason: form["reason"].flatMap { $0.isEmpty ? nil : $0 })
        asked.id = form["rid"]
        let reply = try await ask(session, asked, child: child)
        let free = tr("A free day for {child}", ["child": child])
        return acted(session, reply, done: tr.language == nil ? reply.note ?? free : reply.told != nil ? reply.noteWords(tr) : free, tr)
    }

    // MARK: Responses

    static func html(_ page: String, status: HTTPResponse.Status = .ok) -> Response {
        text(page, type: "text/html; charset=utf-8", status: status)
    }

    static func text(_ body: String, type: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: type], body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    static func redirect(_ to: String, cookie: String? = nil) -> Response {
        var headers: HTTPFields = [.location: to]
        if let cookie { headers.append(HTTPField(name: .setCookie, value: cookie)) }
        return Response(status: .seeOther, headers: headers)
    }

    static func refused(_ status: HTTPResponse.Status, _ why: String, _ tr: Translator = .english) -> Response {
        html(HTML.page(title: tr("Not done"), body: "<main><p class=\"error\" role=\"alert\">\(HTML.escape(why))</p><p><a href=\"/\">\(HTML.escape(tr("Back")))</a></p></main>",
                       signedIn: false, tr: tr), status: status)
    }

    /// A language link: the choice kept in a cookie (400 days), then back to the page it was on.
    /// A link, not a form: it changes nothing but the words this browser is shown.
    func chooseLanguage(_ request: Request) -> Response {
        let back = LanguageChoice.back(request.uri.queryParameters.get("back"))
        guard let chosen = request.uri.queryParameters.get("to"), languages.translator(named: chosen) != nil else { return Self.redirect(back) }
        return Self.redirect(back, cookie: cookie(LanguageChoice.cookie, chosen, path: "/", seconds: 400 * 86_400))
    }
}

/// Headers every answer carries: the Content-Security-Policy, no sniffing, no referrer, no
/// framing, nothing cached. An error becomes a page of its own, with the same headers.
/// Each request's context: Hummingbird's, and the address it came from (for the login's count per browser).
struct PageContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}

struct SecurityHeaders<Context: RequestContext>: RouterMiddleware {
    let policy: String
    /// The words of an error's page: the browser's language.
    let words: @Sendable (Request) -> Translator
    static var referrerPolicy: HTTPField.Name { HTTPField.Name("Referrer-Policy")! }
    static var frameOptions: HTTPField.Name { HTTPField.Name("X-Frame-Options")! }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do { response = try await next(request, context) } catch let e as any HTTPResponseError {
            let tr = words(request)
            // The status's reason phrase is HTTP's own, in English, after its code.
            response = Site.html(HTML.page(title: tr("Not found"), body: "<main><p>\(HTML.escape("\(e.status.code) \(e.status.reasonPhrase)"))</p></main>",
                                           signedIn: false, tr: tr), status: e.status)
        }
        response.headers[.contentSecurityPolicy] = policy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[Self.referrerPolicy] = "no-referrer"
        response.headers[Self.frameOptions] = "DENY"
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        return response
    }
}

extension String {
    func leftPadded(to n: Int) -> String { String(repeating: "0", count: max(0, n - count)) + self }
}
