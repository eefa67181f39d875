import FoundationEssentials
import HTTPTypes
import Hummingbird
import ParentsPage
import ScreenTimeWords

/// Which language the page speaks to a request (docs/web.md): the parent's choice kept in the
/// `st_lang` cookie (the page's language links set it), else the first language the browser's
/// Accept-Language asks for that has a catalog, else English. The catalogs are read once, at start.
struct PageLanguages: Sendable {
    static let cookie = "st_lang"

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

    /// The words for `request`.
    func translator(for request: Request) -> Translator {
        if let chosen = CookieHeader.value(of: Self.cookie, in: request.headers[.cookie]), let tr = translator(named: chosen) { return tr }
        guard let language = AcceptLanguage.choose(request.headers[.acceptLanguage], available: Set(translators.keys)) else { return .english }
        return translators[language] ?? .english
    }

    /// `en` (English), or a language with a catalog; nil for any other name.
    func translator(named name: String) -> Translator? {
        name == "en" ? .english : translators[name]
    }

    /// Where /language goes back to: the page's own path it was given, never another site
    /// (`//host`, `/\host`, a scheme), else the family page.
    static func back(_ path: String?) -> String {
        guard let path, path.hasPrefix("/"), !path.hasPrefix("//"), !path.hasPrefix("/\\"), path.count <= 512,
              path.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7f && $0 != "\\" }) else { return "/" }
        return path
    }
}
