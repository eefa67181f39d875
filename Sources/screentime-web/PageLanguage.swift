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

    /// The catalogs' folder, as stctl finds its own: `SCREENTIME_LOCALEDIR`, else beside the program
    /// (`locale`, where `make build` compiles them for a build that is not installed, or
    /// `../share/locale`, where `make install` and the .deb put them), else the system's.
    static func folder() -> String {
        if let folder = ProcessInfo.processInfo.environment["SCREENTIME_LOCALEDIR"], !folder.isEmpty { return folder }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        let folder = exe.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        for candidate in [folder + "/locale", folder + "/../share/locale"] where FileManager.default.fileExists(atPath: candidate) { return candidate }
        return Translator.systemFolder
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
