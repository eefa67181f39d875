import FoundationEssentials
import ControlProtocol
import ScreenTimeCore
import ScreenTimeWords

/// stctl's words in the caller's language (their `LANGUAGE`, `LC_ALL`, `LC_MESSAGES`, `LANG`;
/// docs/translating.md), from the catalogs installed beside the program (`PREFIX/share/locale`,
/// where `make install` and the .deb put them) or, for a build that is not installed, those
/// `make build` compiles beside it (`.build/debug/locale`). `SCREENTIME_LOCALEDIR` names another folder.
let tr = Translator.forLanguages(Translator.languages(environment: ProcessInfo.processInfo.environment),
                                 folder: Translator.catalogFolder(environment: ProcessInfo.processInfo.environment,
                                                                  executable: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""))

/// "40 s", "20 min", "1 h 05 min": a duration in the caller's words (where the rest of the line
/// is translated too; `minutes` is the English one, for what is not yet).
func minutesWords(_ seconds: Int64) -> String { DurationWords.words(seconds: seconds, tr) }
