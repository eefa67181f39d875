import FoundationEssentials
import HTTPTypes
import Hummingbird
import ParentsPage
import ScreenTimeWords

/// The languages the page speaks (LanguageChoice says which to whom): their catalogs, read once, at start.
struct PageLanguages: Sendable {
    /// Each language with a catalog (`de`, `es`, `fr`), its words.
    let translators: [String: Translator]

    /// The catalogs in `folder` (each `<language>/LC_MESSAGES/screentime.mo`).
    init(folder: String) {
        var found: [String: Translator] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where !name.hasPrefix(".") {
            let tr = Translator.forLanguages([name], folder: folder)
            if let language = tr.language, language == name { found[name] = tr }
        }
        translators = found
    }

    /// The words for `request` (LanguageChoice: its cookie, else its Accept-Language, else English).
    func translator(for request: Request) -> Translator {
        let language = LanguageChoice.language(cookie: CookieHeader.value(of: LanguageChoice.cookie, in: request.headers[.cookie]),
                                               acceptLanguage: request.headers[.acceptLanguage], available: Set(translators.keys))
        return language.flatMap { translators[$0] } ?? .english
    }

    /// `en` (English), or a language with a catalog; nil for any other name.
    func translator(named name: String) -> Translator? {
        name == "en" ? .english : translators[name]
    }
}
