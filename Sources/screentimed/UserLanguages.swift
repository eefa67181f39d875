import FoundationEssentials
import ScreenTimeCore
import ScreenTimeLinux
import ScreenTimeWords

/// Whose language a notice is told in (docs/translating.md). In user mode, the daemon's own: it
/// runs in the child's session, with their environment. In system mode each user's own, never
/// root's: what they picked in their account (AccountsService, as GNOME's Settings writes it), else
/// what their session's processes run with (`LANGUAGE`, `LC_ALL`, `LC_MESSAGES`, `LANG`), else the
/// computer's (`/etc/default/locale`, `/etc/locale.conf`), else English.
///
/// A child may set their own language to any they like: it changes only the words they read.
/// Looked up at most once a minute for each user (notices are few; a look reads /proc, bounded
/// by `SessionEnvironment`); each language's catalog is read once.
final class UserLanguages {
    let system: Bool
    let folder: String
    private var known: [UInt32: (translator: Translator, at: Microseconds)] = [:]
    private var catalogs: [[String]: Translator] = [:]
    private let own: Translator
    static let lookAgainAfter = Seconds.of(60)
    /// Where AccountsService keeps each user's file.
    static let accountsFolder = "/var/lib/AccountsService/users"

    init(system: Bool, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.system = system
        folder = Translator.catalogFolder()
        own = Translator.forLanguages(Translator.languages(environment: environment), folder: folder)
    }

    /// The words for `uid` (in user mode, the daemon's own).
    func translator(for uid: UInt32, now: Microseconds) -> Translator {
        guard system else { return own }
        if let k = known[uid], now - k.at < Self.lookAgainAfter { return k.translator }
        // (A list is the user's to make: the first few are tried, as a person names one or two.)
        let translator = catalog(Array(Self.languages(of: uid).prefix(8)))
        known[uid] = (translator, now)
        return translator
    }

    /// The words of the first of `languages` with a catalog; each list's read once (32 at most kept).
    private func catalog(_ languages: [String]) -> Translator {
        let translator = catalogs[languages] ?? Translator.forLanguages(languages, folder: folder)
        if catalogs.count < 32 { catalogs[languages] = translator }
        return translator
    }

    /// The words of a language a request names (`ControlRequest.language`); English for none, or
    /// for a name longer than any language's (and for one that is no name: `Translator`). Its
    /// catalog is read once.
    func translator(forLanguage name: String?) -> Translator {
        guard let name, !name.isEmpty, name.utf8.count <= 32 else { return .english }
        return catalog([name])
    }

    static func languages(of uid: UInt32) -> [String] {
        if let name = UserAccount.name(of: uid), !name.contains("/"),
           let text = ProcFS.regularFileContents(of: "\(accountsFolder)/\(name)").map({ String(decoding: $0, as: UTF8.self) }) {
            let picked = Translator.languages(accountsService: text)
            if !picked.isEmpty { return picked }
        }
        if let session = sessionLanguages(of: uid) { return session }
        for file in ["/etc/default/locale", "/etc/locale.conf"] {
            if let text = ProcFS.contents(of: file).map({ String(decoding: $0, as: UTF8.self) }) {
                let machine = Translator.languages(localeFile: text)
                if !machine.isEmpty { return machine }
            }
        }
        return []
    }

    /// The languages the first of the user's processes that names one runs with.
    private static func sessionLanguages(of uid: UInt32) -> [String]? {
        SessionEnvironment.first(leader: 0, uid: uid) { environment in
            ["LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"].contains(where: { environment[$0]?.isEmpty == false })
                ? Translator.languages(environment: environment) : nil
        }
    }
}
