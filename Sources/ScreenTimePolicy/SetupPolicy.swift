/// What `screentimed setup` makes of a computer (issue 40): the installed apps a menu calls
/// Education or Game, and a child's policy made from the default with the parents, their
/// passphrase's hash and those apps. Pure: the command reads the files and asks the questions.
public enum SetupPolicy {
    /// An installed app as its desktop file describes it.
    public struct InstalledApp: Equatable, Sendable {
        public var name: String
        /// `learning` (the menu's Education) or `reward` (Game).
        public var category: String
        /// The program's path, or the Flatpak's id (one of the two).
        public var exe: String?
        public var flatpak: String?
        public init(name: String, category: String, exe: String?, flatpak: String?) {
            self.name = name; self.category = category; self.exe = exe; self.flatpak = flatpak
        }
    }

    /// An app of a desktop file (the freedesktop.org format's `[Desktop Entry]`): its Name, its
    /// category (Education wins over Game: GCompris is both), and its program: `X-Flatpak`, or
    /// the first word of `Exec` as `resolve` finds it (a path, not a name on `PATH`). Nil for one
    /// that is hidden, not an application, in neither category, or whose program is not found.
    public static func app(desktopFile text: String, resolve: (String) -> String?) -> InstalledApp? {
        var fields: [String: String] = [:]
        var inEntry = false
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.blankTrimmed
            if line.hasPrefix("[") { inEntry = line == "[Desktop Entry]"; continue }     // not shown: the desktop file's group
            guard inEntry, !line.hasPrefix("#"), let eq = line.firstIndex(of: "=") else { continue }
            let key = String(line[..<eq]).blankTrimmed
            if fields[key] == nil { fields[key] = String(line[line.index(after: eq)...]).blankTrimmed }
        }
        // not shown: the desktop file's keys and values (freedesktop.org's words), read, never written
        guard fields["Type"] == "Application", fields["NoDisplay"] != "true", fields["Hidden"] != "true",     // not shown: keys
              let name = fields["Name"], !name.isEmpty else { return nil }     // not shown: a key
        let categories = (fields["Categories"] ?? "").split(separator: ";").map(String.init)     // not shown: a key
        let category = categories.contains("Education") ? "learning" : categories.contains("Game") ? "reward" : nil     // not shown: categories
        guard let category else { return nil }
        if let flatpak = fields["X-Flatpak"], !flatpak.isEmpty {
            return InstalledApp(name: name, category: category, exe: nil, flatpak: flatpak)
        }
        guard let program = firstWord(of: fields["Exec"] ?? ""), let path = resolve(program) else { return nil }     // not shown: a key
        return InstalledApp(name: name, category: category, exe: path, flatpak: nil)
    }

    /// The program of an `Exec` line: its first word, quotes taken off, after `env VAR=…`.
    static func firstWord(of exec: String) -> String? {
        var words: [String] = []
        var word = "", quoted = false
        for c in exec {
            if c == "\"" { quoted.toggle(); continue }
            if c == " " && !quoted { if !word.isEmpty { words.append(word); word = "" }; continue }
            word.append(c)
        }
        if !word.isEmpty { words.append(word) }
        if words.first == "env" { words.removeFirst(); while let w = words.first, w.contains("=") { words.removeFirst() } }
        return words.first
    }

    /// A child's policy from the default's text: the parents (`[parents] users`), the
    /// passphrase's hash, and an entry for each app the default does not name yet (by its path or
    /// Flatpak id), named so that no two entries share a name. Every comment of the default kept.
    public static func childPolicy(from defaultText: String, parents: [String], passphraseHash: String?,
                                   apps: [InstalledApp], knownNames: [String]) throws(PolicyEditError) -> String {
        var editor = PolicyEditor(text: defaultText)
        try editor.apply(PolicyEdit(key: PolicyKey(table: "parents", key: "users"), value: "[" + parents.map(PolicyEdit.quoted).joined(separator: ", ") + "]"))
        if let passphraseHash {
            try editor.apply(PolicyEdit(key: PolicyKey(table: "parents", key: "passphrase_hash"), value: PolicyEdit.quoted(passphraseHash)))
        }
        var names = knownNames
        for app in apps {
            if let exe = app.exe, defaultText.contains(PolicyEdit.quoted(exe)) { continue }
            if let id = app.flatpak, defaultText.contains(PolicyEdit.quoted(id)) { continue }
            var name = String(app.name.filter { $0 != "[" && $0 != "]" }.prefix(60)), n = 1
            let base = name
            while names.contains(name) { n += 1; name = "\(base) \(n)" }
            names.append(name)
            try editor.apply(PolicyEdit(key: PolicyKey(table: "apps", entry: name, key: "category"), value: PolicyEdit.quoted(app.category)))
            if let exe = app.exe {
                try editor.apply(PolicyEdit(key: PolicyKey(table: "apps", entry: name, key: "exe"), value: "[\(PolicyEdit.quoted(exe))]"))
            } else if let id = app.flatpak {
                try editor.apply(PolicyEdit(key: PolicyKey(table: "apps", entry: name, key: "flatpak"), value: PolicyEdit.quoted(id)))
            }
        }
        return editor.text
    }

    /// A child's existing policy with new parents and (when given) a new passphrase's hash; the
    /// rest of it as it is.
    public static func withParents(_ text: String, parents: [String]?, passphraseHash: String?) throws(PolicyEditError) -> String {
        var editor = PolicyEditor(text: text)
        if let parents {
            try editor.apply(PolicyEdit(key: PolicyKey(table: "parents", key: "users"), value: "[" + parents.map(PolicyEdit.quoted).joined(separator: ", ") + "]"))
        }
        if let passphraseHash {
            try editor.apply(PolicyEdit(key: PolicyKey(table: "parents", key: "passphrase_hash"), value: PolicyEdit.quoted(passphraseHash)))
        }
        return editor.text
    }
}
