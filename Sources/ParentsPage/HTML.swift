import ScreenTimeCore
import ScreenTimeWords

/// Text made safe for HTML: whatever a child typed (a request's reason), an app's name or the
/// daemon's words can never become markup. Every page goes through `escape` for every value.
public enum HTML {
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// A whole page: the phone's width, the page's own style sheet and script, nothing from elsewhere;
    /// in the language of `tr` (`<html lang>` says which), with the choice of the others when the
    /// page is in each of them (links to /language, which keeps the choice in a cookie and comes
    /// back to `here`, the page's own path; no links without it).
    public static func page(title: String, body: String, signedIn: Bool, csrf: String? = nil, tr: Translator = .english, here: String? = nil) -> String {
        let nav = signedIn ? """
            <nav><a href="/">\(escape(tr("Family")))</a> <a href="/policy">\(escape(tr("Policy")))</a>
            <form method="post" action="/logout" class="inline"><input type="hidden" name="csrf" value="\(escape(csrf ?? ""))"><button type="submit">\(escape(tr("Log out")))</button></form></nav>
            """ : ""
        let shown = tr.language.map { String($0.prefix { $0 != "_" }) } ?? "en"
        let choices = here.map { here in
            languages.map { code, name in
                code == shown ? "<strong lang=\"\(code)\">\(name)</strong>"
                    : "<a href=\"/language?to=\(code)&amp;back=\(escape(urlEncoded(here)))\" lang=\"\(code)\" hreflang=\"\(code)\">\(name)</a>"
            }.joined(separator: " ")
        }
        let footer = choices.map { "\n<footer><nav class=\"languages\" aria-label=\"\(escape(tr("Language")))\">\($0)</nav></footer>" } ?? ""
        return """
            <!doctype html>
            <html lang="\(escape(htmlLanguage(tr)))"\(clockWords(tr))><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <title>\(escape(title)) · screentime</title>
            <link rel="stylesheet" href="/static/style.css">
            <script src="/static/page.js" defer></script>
            </head><body>
            <header><h1>\(escape(title))</h1>\(nav)</header>
            \(body)\(footer)
            </body></html>
            """
    }

    /// The languages the page offers, each in its own words (not translated: a parent looks for
    /// their own language's name).
    // not shown translated: each language's own name, the same on every page (no message)
    public static let languages = [("en", "English"), ("de", "Deutsch"), ("es", "Español"), ("fr", "Français")]

    /// `<html lang>`: `en`, `de`, `es-MX`.
    public static func htmlLanguage(_ tr: Translator) -> String { (tr.language ?? "en").replacing("_", with: "-") }

    /// The words page.js writes a running figure in (its `clock`), as `data-` attributes of `<html>`.
    static func clockWords(_ tr: Translator) -> String {
        " data-clock-s=\"\(escape(tr("{s} s", context: "duration")))\" data-clock-m=\"\(escape(tr("{m} min {ss} s", context: "duration")))\""
            + " data-clock-h=\"\(escape(tr("{h} h {mm} min {ss} s", context: "duration")))\""
    }

    /// A path as a query's value: `/child/emma?day=2026-11-23` → `%2Fchild%2Femma%3Fday%3D2026-11-23`.
    public static func urlEncoded(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            if (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b == 0x2d || b == 0x2e || b == 0x5f {
                out.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                let hex = String(b, radix: 16, uppercase: true)
                out += "%" + (hex.count < 2 ? "0" : "") + hex
            }
        }
        return out
    }

    /// A hidden field with the session's CSRF token: every form that changes something carries it.
    public static func csrfField(_ token: String) -> String {
        "<input type=\"hidden\" name=\"csrf\" value=\"\(escape(token))\">"
    }

    /// "1 h 05 min", "12 min", "40 s" (in English; `duration(_:_:)` in a language).
    public static func duration(_ seconds: Int64) -> String { DurationText.words(seconds * Seconds.micro) }

    /// "1 h 05 min", "12 min", "40 s" in the language of `tr`.
    public static func duration(_ seconds: Int64, _ tr: Translator) -> String {
        let s = max(0, seconds)
        if s < 60 { return tr("{s} s", context: "duration", ["s": String(s)]) }
        let m = s / 60
        if m < 60 { return tr("{m} min", context: "duration", ["m": String(m)]) }
        return tr("{h} h {mm} min", context: "duration", ["h": String(m / 60), "mm": two(m % 60)])
    }

    /// "07", "12": minutes and seconds as a clock writes them.
    static func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }

    /// A figure that runs by the second: "12 min 05 s", "1 h 05 min 09 s", "40 s" (page.js writes
    /// the same as it counts, from `clockWords`).
    public static func clock(_ seconds: Int64, _ tr: Translator = .english) -> String {
        let s = max(0, seconds)
        if s < 60 { return tr("{s} s", context: "duration", ["s": String(s)]) }
        if s < 3600 { return tr("{m} min {ss} s", context: "duration", ["m": String(s / 60), "ss": two(s % 60)]) }
        return tr("{h} h {mm} min {ss} s", context: "duration", ["h": String(s / 3600), "mm": two(s / 60 % 60), "ss": two(s % 60)])
    }
}
