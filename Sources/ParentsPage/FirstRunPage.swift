import ControlProtocol
import ScreenTimeWords

/// The first-run page (issue 40): `screentime-setup --web` for a parent who prefers a browser.
/// The setup command (root) starts the page for this one setup, gives it what it found (`Context`)
/// and a token only its printed address carries (root's consent), and does what the answers say
/// (`Answers`), replying in words (`Reply`). The page asks, the setup command decides and writes.
public enum FirstRunPage {
    public typealias Context = FirstRun.Context
    public typealias Answers = FirstRun.Answers
    public typealias Reply = FirstRun.Reply

    /// The answers of the form: ticked people and names typed, each app's choice, the passphrase.
    public static func answers(_ form: FormFields, context: Context) -> Answers {
        func names(_ kind: String) -> [String] {
            var out = context.people.enumerated().compactMap { i, name in form["\(kind).\(i)"] == "yes" ? name : nil }
            for typed in (form["\(kind)-more"] ?? "").split(whereSeparator: { $0 == " " || $0 == "," }) where !out.contains(String(typed)) {
                out.append(String(typed))
            }
            return out
        }
        let apps = context.apps.indices.map { i in
            let choice = form["app.\(i)"] ?? "out"
            return ["learning", "reward"].contains(choice) ? choice : "out"
        }
        return Answers(children: names("child"), parents: names("parent"), apps: apps, passphrase: form["passphrase"] ?? "", again: form["again"] ?? "")
    }

    /// The form, in the language of `tr` (`error`, setup's reply, is shown as it is given).
    public static func form(_ context: Context, csrf: String, error: String? = nil, tr: Translator = .english) -> String {
        let e = { (text: String) in HTML.escape(text) }
        func people(_ kind: String, _ legend: String, ticked: [String]) -> String {
            var out = "<fieldset><legend>\(e(legend))</legend>"
            for (i, name) in context.people.enumerated() {
                out += "<label class=\"check\"><input type=\"checkbox\" name=\"\(kind).\(i)\" value=\"yes\"\(ticked.contains(name) ? " checked" : "")> \(HTML.escape(name))</label>"
            }
            let others = ticked.filter { !context.people.contains($0) }.joined(separator: " ")
            return out + "<label>\(e(tr("Other accounts (names, separated by spaces)"))) <input name=\"\(kind)-more\" value=\"\(HTML.escape(others))\"></label></fieldset>"
        }
        var body = "<main class=\"setup\"><h2>\(e(tr("Set up screentime")))</h2>"
        if let error { body += "<p class=\"error\" role=\"alert\">\(HTML.escape(error))</p>" }
        body += "<p>\(e(tr("Each child gets rules of their own, which you can change later on the parents' page.")))</p>"
            + "<form method=\"post\" action=\"/setup\"><input type=\"hidden\" name=\"csrf\" value=\"\(HTML.escape(csrf))\">"
            + people("child", tr("Who are the children?"), ticked: context.children)
            + people("parent", tr("Who are the parents?"), ticked: context.parents)
        if !context.apps.isEmpty {
            body += "<fieldset><legend>\(e(tr("The apps on this computer")))</legend><p>\(e(tr("Sorted by their menus; change what is wrong.")))</p>"
            let choices = [("learning", tr("Learning: earns points")), ("reward", tr("Game: uses game time")), ("out", tr("Leave it out"))]
            for (i, app) in context.apps.enumerated() {
                let options = choices.map { value, words in
                    "<option value=\"\(value)\"\(app.category == value ? " selected" : "")>\(e(words))</option>"
                }.joined()
                body += "<label>\(HTML.escape(app.name)) <select name=\"app.\(i)\">\(options)</select></label>"
            }
            body += "</fieldset>"
        }
        let keep = context.passphraseRequired ? "" : " " + tr("Leave both empty to keep the one set.")
        // not shown: the fields' attributes
        let required = context.passphraseRequired ? " required minlength=\"8\"" : ""
        body += "<fieldset><legend>\(e(tr("The parent passphrase")))</legend><p>\(e(tr("For the parents' page, and for a parent at a child's keyboard. At least 8 letters; a child must not guess it.") + keep))</p>"
            + "<label>\(e(tr("Passphrase"))) <input type=\"password\" name=\"passphrase\" autocomplete=\"new-password\"\(required)></label>"
            + "<label>\(e(tr("The same again"))) <input type=\"password\" name=\"again\" autocomplete=\"new-password\"\(context.passphraseRequired ? " required" : "")></label></fieldset>"
            + "<button type=\"submit\">\(e(tr("Set up")))</button></form></main>"
        return HTML.page(title: tr("Set up screentime"), body: body, signedIn: false, tr: tr)
    }

    /// What setup did (`lines`, as setup words them), in the language of `tr`.
    public static func done(_ lines: [String], tr: Translator = .english) -> String {
        let e = { (text: String) in HTML.escape(text) }
        let body = "<main class=\"setup\"><h2>\(e(tr("screentime is set up")))</h2><p class=\"flash\" role=\"status\">\(e(tr("Done.")))</p><ul>"
            + lines.map { "<li>\(HTML.escape($0))</li>" }.joined() + "</ul><p>\(e(tr("This setup page is closed now; the parents' page is where you answer and change the rules.")))</p></main>"
        return HTML.page(title: tr("screentime is set up"), body: body, signedIn: false, tr: tr)
    }
}
