import FoundationEssentials

/// Where a program finds its catalogs, and a person's languages from what their account and
/// session say (the reading of files is the caller's; this only understands them).
extension Translator {
    /// The catalogs for the running program: `SCREENTIME_LOCALEDIR` when set; else those `make
    /// build` compiles beside it (`<its folder>/locale`), or those installed beside it
    /// (`<its folder>/../share/locale`: `make install`, the .deb); else `systemFolder`.
    /// The same for this process: its environment and its program (`/proc/self/exe`).
    public static func catalogFolder() -> String {
        catalogFolder(environment: ProcessInfo.processInfo.environment,
                      executable: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "")
    }

    public static func catalogFolder(environment: [String: String], executable: String) -> String {
        if let folder = environment["SCREENTIME_LOCALEDIR"], !folder.isEmpty { return folder }
        let folder = executable.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        for candidate in [folder + "/locale", folder + "/../share/locale"] where !folder.isEmpty && FileManager.default.fileExists(atPath: candidate) {
            return candidate
        }
        return systemFolder
    }

    /// The languages an AccountsService user file asks for (`/var/lib/AccountsService/users/NAME`,
    /// what GNOME's Settings writes when a user picks a language): its `Languages` (a list, newer
    /// AccountsService) or `Language`, best first; empty when it says none.
    public static func languages(accountsService text: String) -> [String] {
        var inUser = false
        var one: [String] = [], list: [String] = []
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = trimmed(raw)
            if line.hasPrefix("[") { inUser = line == "[User]"; continue }
            guard inUser, let equals = line.firstIndex(of: "=") else { continue }
            let key = trimmed(line[..<equals])
            let value = trimmed(line[line.index(after: equals)...])
            // not shown: AccountsService's keys
            if key == "Languages" { list = value.split(separator: ";").map(String.init).filter { !$0.isEmpty } }
            if key == "Language", !value.isEmpty { one = [value] }  // not shown: a key
        }
        return list.isEmpty ? one : list
    }

    /// The languages a machine's locale file sets (`/etc/default/locale`, `/etc/locale.conf`:
    /// `LANG=de_DE.UTF-8` lines, values maybe quoted), as `languages(environment:)` reads them.
    public static func languages(localeFile text: String) -> [String] {
        var environment: [String: String] = [:]
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = trimmed(raw)
            guard !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { continue }
            var value = trimmed(line[line.index(after: equals)...])
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first { value = String(value.dropFirst().dropLast()) }
            environment[String(line[..<equals])] = value
        }
        guard ["LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"].contains(where: { environment[$0] != nil }) else { return [] }
        return languages(environment: environment)
    }
}

/// Without the spaces and tabs around it.
private func trimmed(_ text: some StringProtocol) -> String {
    let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
    return String(text.drop(while: blank).reversed().drop(while: blank).reversed())
}
