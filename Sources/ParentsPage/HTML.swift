import ScreenTimeCore

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

    /// A whole page: the phone's width, the page's own style sheet and script, nothing from elsewhere.
    public static func page(title: String, body: String, signedIn: Bool, csrf: String? = nil) -> String {
        let nav = signedIn ? """
            <nav><a href="/">Family</a> <a href="/policy">Policy</a>
            <form method="post" action="/logout" class="inline"><input type="hidden" name="csrf" value="\(escape(csrf ?? ""))"><button type="submit">Log out</button></form></nav>
            """ : ""
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <title>\(escape(title)) · screentime</title>
            <link rel="stylesheet" href="/static/style.css">
            <script src="/static/page.js" defer></script>
            </head><body>
            <header><h1>\(escape(title))</h1>\(nav)</header>
            \(body)
            </body></html>
            """
    }

    /// A hidden field with the session's CSRF token: every form that changes something carries it.
    public static func csrfField(_ token: String) -> String {
        "<input type=\"hidden\" name=\"csrf\" value=\"\(escape(token))\">"
    }

    /// "1 h 05 min", "12 min", "40 s".
    public static func duration(_ seconds: Int64) -> String { DurationText.words(seconds * Seconds.micro) }

    /// A figure that runs by the second: "12 min 05 s", "1 h 05 min 09 s", "40 s" (page.js writes
    /// the same as it counts).
    public static func clock(_ seconds: Int64) -> String {
        let s = max(0, seconds)
        if s < 60 { return "\(s) s" }
        let two = { (n: Int64) in n < 10 ? "0\(n)" : "\(n)" }
        if s < 3600 { return "\(s / 60) min \(two(s % 60)) s" }
        return "\(s / 3600) h \(two(s / 60 % 60)) min \(two(s % 60)) s"
    }
}
