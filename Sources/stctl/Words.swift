import FoundationEssentials
import ScreenTimeCore
import ScreenTimeWords

/// stctl's words in the caller's language (their `LANGUAGE`, `LC_ALL`, `LC_MESSAGES`, `LANG`;
/// docs/translating.md), from the catalogs installed beside the program (`PREFIX/share/locale`,
/// where `make install` and the .deb put them) or, for a build that is not installed, those
/// `make build` compiles beside it (`.build/debug/locale`). `SCREENTIME_LOCALEDIR` names another folder.
let tr = Translator.forLanguages(Translator.languages(environment: ProcessInfo.processInfo.environment), folder: localeFolder())

private func localeFolder() -> String {
    if let folder = ProcessInfo.processInfo.environment["SCREENTIME_LOCALEDIR"], !folder.isEmpty { return folder }
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
    let folder = exe.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    for candidate in [folder + "/locale", folder + "/../share/locale"] where FileManager.default.fileExists(atPath: candidate) { return candidate }
    return Translator.systemFolder
}

/// "40 s", "20 min", "1 h 05 min": a duration in the caller's words (where the rest of the line
/// is translated too; `minutes` is the English one, for what is not yet).
func minutesWords(_ seconds: Int64) -> String {
    let s = seconds
    if s < 60 { return tr("{s} s", ["s": String(s)]) }
    let m = s / 60
    if m < 60 { return tr("{m} min", ["m": String(m)]) }
    return tr("{h} h {mm} min", ["h": String(m / 60), "mm": m % 60 < 10 ? "0\(m % 60)" : "\(m % 60)"])
}
