import ScreenTimeWords

/// Which language the page speaks to a browser (docs/web.md, "In your language"): the parent's
/// choice kept in the `st_lang` cookie (set by the language links at each page's foot), else the
/// first language the browser's Accept-Language asks for that has a catalog, else English.
public enum LanguageChoice {
    public static let cookie = "st_lang"

    /// The language (a catalog's name, `de`), nil for English. A cookie naming `en` is English
    /// whatever the browser asks for; one naming a language without a catalog counts for nothing.
    public static func language(cookie chosen: String?, acceptLanguage: String?, available: Set<String>) -> String? {
        if let chosen {
            if chosen == "en" { return nil }
            if available.contains(chosen) { return chosen }
        }
        return AcceptLanguage.choose(acceptLanguage, available: available)
    }

    /// Where a language link goes back to: the page's own path it was given, never another site
    /// (`//host`, `/\host`, a scheme, a control character), else the family page.
    public static func back(_ path: String?) -> String {
        guard let path, path.hasPrefix("/"), !path.hasPrefix("//"), path.utf8.count <= 512,
              path.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7f && $0 != "\\" }) else { return "/" }
        return path
    }
}
