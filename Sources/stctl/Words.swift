import FoundationEssentials
import ControlProtocol
import ScreenTimeCore
import ScreenTimeWords

/// stctl's words in the caller's language (their `LANGUAGE`, `LC_ALL`, `LC_MESSAGES`, `LANG`;
/// docs/translating.md), from the catalogs installed beside the program (`PREFIX/share/locale`,
/// where `make install` and the .deb put them) or, for a build that is not installed, those
/// `make build` compiles beside it (`.build/debug/locale`). `SCREENTIME_LOCALEDIR` names another folder.
let tr = Translator.forLanguages(Translator.languages(environment: ProcessInfo.processInfo.environment), folder: Translator.catalogFolder())

/// "40 s", "20 min", "1 h 05 min": a duration in the caller's words (where the rest of the line
/// is translated too; `minutes` is the English one, for what is not yet).
func minutesWords(_ seconds: Int64) -> String { DurationWords.words(seconds: seconds, tr) }

/// A chore's period as the daemon names it ("every day", "once a week", "once", "on mon, thu"),
/// in the caller's words; as it is when it is none of these.
func everyWords(_ every: String) -> String {
    switch every {
    // not shown: the daemon's names of a period, matched here to be said in the caller's words
    case "every day": return tr("every day")
    case "once a week": return tr("once a week")
    case "once": return tr("once", context: "chore")
    case "no longer in the policy": return tr("no longer in the policy")   // not shown: the daemon's name, matched
    default:
        guard every.hasPrefix("on ") else { return every }
        let days = every.dropFirst(3).split(separator: ",").map { WeekdayWords.name($0.filter { $0 != " " }, tr) }
        return tr("on {days}", ["days": days.joined(separator: ", ")])
    }
}

/// A category as the policy names it (`learning`, `reward`, `neutral`, `blocked`), in the caller's words.
func categoryWords(_ category: String) -> String {
    switch category {
    case "learning": return tr("learning", context: "category")
    case "reward": return tr("reward", context: "category")
    case "neutral": return tr("neutral", context: "category")
    case "blocked": return tr("blocked", context: "category")
    default: return category
    }
}

/// A date, `YYYY-MM-DD`, as the caller's language writes it in figures (23.11.2026, 23/11/2026);
/// as it is when it is not one.
func dateWords(_ day: some StringProtocol) -> String {
    let parts = day.split(separator: "-")
    guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }) else { return String(day) }
    return tr("{year}-{month}-{day}", context: "date", ["year": String(parts[0]), "month": String(parts[1]), "day": String(parts[2])])
}

/// "2026-11-23 16:06" of an RFC 3339 time, the date as the caller's language writes it.
func dateAndTimeWords(_ at: String) -> String {
    guard at.count >= 16 else { return at }
    return dateWords(at.prefix(10)) + " " + at.dropFirst(11).prefix(5)
}

/// A day of this year, `YYYY-MM-DD`, month and day only (23.11., 23/11), for a report's rows.
func dayWords(_ day: some StringProtocol) -> String {
    let parts = day.split(separator: "-")
    guard parts.count == 3 else { return String(day) }
    return tr("{month}-{day}", context: "date", ["month": String(parts[1]), "day": String(parts[2])])
}

/// What the daemon told, as a sentence: its first letter capitalised, a full stop at its end.
func sentence(_ said: String) -> String {
    guard !said.isEmpty else { return "" }
    return said.prefix(1).uppercased() + said.dropFirst() + (said.hasSuffix(".") ? "" : ".")
}

/// What the daemon cannot see, in the caller's words (from the codes); its English when it sent
/// no codes (older) or one not known here (newer).
func blindSpotWords(_ s: ControlReply.Status) -> [String] {
    guard let codes = s.blindSpotCodes, !codes.contains(where: { $0.code == .unknown }) else { return s.blindSpots }
    return codes.map { $0.words(tr) }
}
