/// What `screentime-setup --web` (root) and its first-run page (`screentime-web --first-run`)
/// say to each other, one JSON line each (docs/system-mode.md): setup gives the page what it found
/// and the page's key, the page gives the parent's answers, setup replies what it did.
public enum FirstRun {
    /// What setup found: the people of this computer, the children and parents set up already,
    /// and the installed apps sorted by their menus (`category`: learning or reward).
    public struct Context: Codable, Sendable, Equatable {
        public var token: String
        public var people: [String]
        public var children: [String]
        public var parents: [String]
        public var apps: [App]
        /// A passphrase must be given (none is set yet, or a new child comes).
        public var passphraseRequired: Bool

        public struct App: Codable, Sendable, Equatable {
            public var name: String
            public var category: String
            public init(name: String, category: String) { self.name = name; self.category = category }
        }

        public init(token: String, people: [String], children: [String], parents: [String], apps: [App], passphraseRequired: Bool) {
            self.token = token; self.people = people; self.children = children; self.parents = parents; self.apps = apps
            self.passphraseRequired = passphraseRequired
        }
    }

    /// What the parent answered: the children and parents by name, each app's category in the
    /// order of `Context.apps` (`learning`, `reward`, or `out`: left out), the passphrase twice.
    public struct Answers: Codable, Sendable, Equatable {
        public var children: [String]
        public var parents: [String]
        public var apps: [String]
        public var passphrase: String
        public var again: String
        public init(children: [String], parents: [String], apps: [String], passphrase: String, again: String) {
            self.children = children; self.parents = parents; self.apps = apps; self.passphrase = passphrase; self.again = again
        }
    }

    /// What setup did (`lines`), or why it did nothing (`error`, in a parent's words).
    public struct Reply: Codable, Sendable, Equatable {
        public var ok: Bool
        public var error: String?
        public var lines: [String]
        public init(ok: Bool, error: String? = nil, lines: [String] = []) { self.ok = ok; self.error = error; self.lines = lines }
    }
}
