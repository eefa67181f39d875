import ControlProtocol
import ScreenTimeWords

/// The line the family page shows once after a form: what was done (a status, green), or why
/// nothing was (an alert, red), so that a refusal never looks like a success.
public enum Flash: Sendable, Equatable {
    case done(String)
    case refused(String)

    /// The daemon's answer to a form: `done` when it carried it out, else its refusal in the
    /// page's words (`PageWords.refusal`).
    public static func answer(ok: Bool, done: String, error: String?, tr: Translator = .english) -> Flash {
        ok ? .done(done) : .refused(PageWords.refusal(error, tr))
    }

    /// The same from the daemon's reply: its refusal's code and figures in the language of `tr`.
    public static func answer(_ reply: ControlReply, done: String, tr: Translator = .english) -> Flash {
        reply.ok ? .done(done) : .refused(PageWords.refusal(reply, tr))
    }

    var html: String {
        switch self {
        case .done(let text): return "<p class=\"flash\" role=\"status\">\(HTML.escape(text))</p>"
        case .refused(let text): return "<p class=\"error\" role=\"alert\">\(HTML.escape(text))</p>"
        }
    }
}

/// The daemon words its refusals for stctl ("approve it as a gift (--gift) or with fewer minutes
/// (--minutes)"); a parent on the page has buttons, not options. Its refusals are said here in
/// the page's words: what each known stctl phrase means on the page, and any other mention of a
/// command or an option left out, so that what remains still says what happened.
public enum PageWords {
    /// The daemon's phrase, and the page's.
    static let phrases: [(stctl: String, page: String)] = [
        ("; approve it as a gift (--gift) or with fewer minutes (--minutes)", ": give it as a gift, or approve fewer minutes"),
        (" (for more minutes, stctl redeem)", " (for more minutes, redeem points)"),
        (" (stctl requests lists them)", " (the requests still waiting are on the family page)"),
        (" (stctl chores lists them)", " (the chores still waiting are on the family page)"),
        (" (sudo stctl …)", ""),
        (" (stctl status says)", ""),
        (": see stctl history", ""),
        (" (stctl history)", ""),
        (" (stctl makes one, a UUID, for each command)", ""),
        ("; or go ahead anyway", "; or tick “Even beyond today's limits” and send it again"),
    ]

    /// A refusal of the daemon's, from its code and figures (`Why`), in the language of `tr`: in
    /// English with the page's phrases above; in another language after the page's "Not done:",
    /// any mention of a command or an option left out as in English.
    public static func refusal(_ reply: ControlReply, _ tr: Translator) -> String {
        guard tr.language != nil else { return refusal(reply.error) }
        let why = withoutCommandWords(reply.refusalWords(tr))
        return tr("Not done: {why}", ["why": why + (why.hasSuffix(".") ? "" : ".")])
    }

    /// In another language than English, words the daemon sent as they are (a reader older than
    /// its codes) follow the page's "Not done:" in the language of `tr`.
    public static func refusal(_ error: String?, _ tr: Translator) -> String {
        guard tr.language != nil else { return refusal(error) }
        let why = error.map(pageWords) ?? tr("refused")
        return tr("Not done: {why}", ["why": why + (why.hasSuffix(".") ? "" : ".")])
    }

    /// "Not approved: it costs 40 points and the balance is 10: give it as a gift, or approve
    /// fewer minutes; the request still waits."
    public static func refusal(_ error: String?) -> String {
        var text = pageWords(error ?? "refused")
        if !text.hasPrefix("not ") && !text.hasPrefix("nothing ") { text = "not done: " + text }
        return text.prefix(1).uppercased() + text.dropFirst() + (text.hasSuffix(".") ? "" : ".")
    }

    /// The daemon's words with each stctl phrase said in the page's words, and any other
    /// mention of a command or an option left out.
    static func pageWords(_ error: String) -> String {
        var text = error
        for p in phrases { text = text.replacing(p.stctl, with: p.page) }
        return withoutCommandWords(text)
    }

    /// Leaves out what a phrase above did not say in the page's words: a parenthesis that names
    /// a command or an option, then the part of a clause (between semicolons) from the colon
    /// before such a word ("several children are watched here: name one with --user NAME"), or
    /// the whole clause when it has no such colon.
    static func withoutCommandWords(_ text: String) -> String {
        func firstCommandWord(_ s: Substring) -> Substring.Index? {
            [s.firstRange(of: "stctl")?.lowerBound, s.firstRange(of: "--")?.lowerBound].compactMap { $0 }.min()
        }
        func commandWords(_ s: Substring) -> Bool { firstCommandWord(s) != nil }
        var out = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "("), let close = rest[open...].firstIndex(of: ")") {
            let inside = rest[open...close]
            var before = rest[..<open]
            if commandWords(inside) {
                if before.hasSuffix(" ") { before = before.dropLast() }
                out += before
            } else {
                out += before + inside
            }
            rest = rest[rest.index(after: close)...]
        }
        out += rest
        return out.split(separator: "; ", omittingEmptySubsequences: false).compactMap { clause -> Substring? in
            guard let word = firstCommandWord(clause) else { return clause }
            return Array(clause[..<word].ranges(of: ": ")).last.map { clause[..<$0.lowerBound] }
        }.joined(separator: "; ")
    }
}
