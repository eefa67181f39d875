import ArgumentParser
import FoundationEssentials
import Glibc
import ScreenTimeCore
import ScreenTimeLinux
import ScreenTimePolicy
import ScreenTimeWords

/// `stctl policy check FILE`: is this policy good, and what does it say, in a few lines.
struct PolicyCheck: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "check",
            abstract: tr("Check a policy file; print its problems with line numbers, or a summary."),
            discussion: tr("Exit status 0 when the policy is good, 1 when it has problems. A parent account of [parents] that this computer does not have is a warning, not a problem: the daemon accepts the policy (nobody can act as that parent here), and the policy may be meant for another computer."))
    }

    @Argument(help: ArgumentHelp(tr("The policy file (TOML).")))
    var file: String

    @Flag(name: .long, help: ArgumentHelp(tr("Print the result as JSON.")))
    var json = false

    @Option(name: .long, help: ArgumentHelp(tr("The first day of the week shown (YYYY-MM-DD; default: today in the policy's time zone).")))
    var from: String?

    func run() throws {
        let policy: Policy, text: String
        do throws(PolicyError) {
            let loaded = try PolicyLoader.loadWithText(path: file, tr: tr)
            policy = loaded.policy
            text = loaded.text
        } catch {
            if json {
                var w = JSONWriter()
                w.beginObject()
                w.key("file"); w.string(file)
                w.key("ok"); w.bool(false)
                w.key("problems"); w.beginArray()
                for p in error.problems {
                    w.beginObject(); w.key("line"); w.int(Int64(p.line)); w.key("message"); w.string(p.message); w.endObject()
                }
                w.endArray()
                w.endObject()
                print(w.output)
            } else {
                StandardError.write(error.description + "\n")
            }
            throw ExitCode(1)
        }
        let count = { (c: AppCategory) in policy.apps.filter { $0.category == c }.count }
        guard let first = from.map({ CalendarDate.key(of: $0) }) ?? Self.today(in: policy.timeZone) else {
            throw ValidationError(tr("--from: not a date like 2026-11-23: \"{from}\"", ["from": from ?? ""]))
        }
        let week = (0..<7).map { (first + Int64($0), policy.rules(forDay: first + Int64($0))) }
        let warnings = Self.missingParents(policy.parents, text: text) + Self.browsersWithoutExtension(policy, text: text)
        if json {
            var w = JSONWriter()
            w.beginObject()
            w.key("file"); w.string(file)
            w.key("ok"); w.bool(true)
            w.key("warnings"); w.beginArray()
            for warning in warnings {
                w.beginObject()
                w.key("line"); if let l = warning.line { w.int(Int64(l)) } else { w.null() }
                w.key("message"); w.string(warning.message)
                w.endObject()
            }
            w.endArray()
            w.key("time_zone"); w.string(policy.timeZone.identifier)
            w.key("strictness"); w.string(policy.validation.strictness.rawValue)
            w.key("apps"); w.beginObject()
            for c in AppCategory.allCases { w.key(c.rawValue); w.int(Int64(count(c))) }
            w.endObject()
            w.key("week"); w.beginArray()
            for (key, rules) in week {
                w.beginObject()
                w.key("date"); w.string(CalendarDate.text(of: key))
                w.key("weekday"); w.string(CalendarDate.weekday(of: key).name)
                w.key("schedule"); if let s = rules.schedule { w.string(s) } else { w.null() }
                w.key("daily_limit_seconds"); if let v = rules.dailyLimit { w.int(v / Seconds.micro) } else { w.null() }
                w.key("allowed_hours"); if let h = rules.allowedHours { w.beginArray(); for x in h { w.string(x.text) }; w.endArray() } else { w.null() }
                w.key("daily_allowance_seconds"); w.int((rules.dailyAllowance ?? 0) / Seconds.micro)
                w.key("daily_learning_cap_seconds"); w.int(rules.dailyLearningCap / Seconds.micro)
                w.key("screen_daily_limit_seconds"); if let v = rules.screenDailyLimit { w.int(v / Seconds.micro) } else { w.null() }
                w.key("screen_allowed_hours"); if let h = rules.screenAllowedHours { w.beginArray(); for x in h { w.string(x.text) }; w.endArray() } else { w.null() }
                w.endObject()
            }
            w.endArray()
            w.endObject()
            print(w.output)
            return
        }
        let r = policy.rewards
        // "FILE:LINE:" as compilers write it (editors read it), then the words.
        for warning in warnings { StandardError.write("\(file):\(warning.line.map { "\($0):" } ?? "") " + tr("warning: {message}", ["message": warning.message]) + "\n") }
        print(warnings.isEmpty ? tr("{file}: good", ["file": file])
                               : tr.plural("{file}: good ({n} warning)", "{file}: good ({n} warnings)", warnings.count, ["file": file]))
        let games = [tr.plural("{n} point a minute", "{n} points a minute", Int(policy.points.perRewardMinute))]
            + [r.dailyLimit.map { tr("at most {limit} a day", ["limit": Self.duration($0)]) },
               r.weeklyLimit.map { tr("{limit} a week", ["limit": Self.duration($0)]) },
               r.allowedHours.map { tr("only {hours}", ["hours": $0.map(\.text).joined(separator: ", ")]) }].compactMap { $0 }
        let summary = [
            (tr("time zone", context: "policy summary"), policy.timeZone.identifier),
            (tr("strictness", context: "policy summary"),
             tr("{strictness} (idle after {idle}, sessions of at least {session})",
                ["strictness": policy.validation.strictness.rawValue, "idle": Self.duration(policy.validation.idleAfter), "session": Self.duration(policy.validation.minSession)])),
            (tr("learning", context: "policy summary"),
             tr.plural("{n} point an hour, at most {cap} a day", "{n} points an hour, at most {cap} a day", Int(policy.points.learningPerHour),
                       ["cap": Self.duration(policy.points.dailyLearningCap)])),
            (tr("games", context: "policy summary"), games.joined(separator: ", ")),
            (tr("apps", context: "policy summary"),
             tr("{learning} learning, {games} games, {blocked} blocked, {neutral} neutral",
                ["learning": "\(count(.learning))", "games": "\(count(.reward))", "blocked": "\(count(.blocked))", "neutral": "\(count(.neutral))"])),
        ]
        // The values in one column, at least two spaces after the longest name (14 wide, as in English).
        let width = max(14, (summary.map(\.0.count).max() ?? 0) + 2)
        for (name, value) in summary { print("  " + name + String(repeating: " ", count: width - name.count) + value) }
        print("  " + tr("the coming week:"))
        for (key, rules) in week { print("    " + Self.describe(key, rules)) }
    }

    /// `1 h 05 min`, `12 min`, `40 s` in the caller's words (never whole days: a weekly limit of
    /// 50 h is 50 h).
    static func duration(_ micros: Microseconds) -> String {
        let s = micros / Seconds.micro
        if s < 60 { return tr("{s} s", ["s": String(s)]) }
        let m = s / 60
        if m < 60 { return tr("{m} min", ["m": String(m)]) }
        return tr("{h} h {mm} min", ["h": String(m / 60), "mm": m % 60 < 10 ? "0\(m % 60)" : "\(m % 60)"])
    }

    /// A parent account the policy names and this computer does not have (getpwnam_r,
    /// getgrnam_r): a mistyped name is no parent at all, and the daemon says nothing of it.
    struct Warning: Equatable {
        var line: Int?
        var message: String
    }

    /// With `[[sites]]`, what a browser without screentime's extension counts as (it is easy to
    /// miss: a second browser, or one whose extension is off, becomes a game or is closed), and each
    /// browser of `[browsers] exe` installed here on which no managed policy of root's forces the
    /// extension (judged as system mode judges it, for a user who is not root).
    static func browsersWithoutExtension(_ policy: Policy, text: String, child: UserAccount? = UserAccount.lookup(name: "nobody")) -> [Warning] {
        guard let browsers = policy.browsers else { return [] }
        let line = PolicyLoader.line(of: "browsers", in: text) ?? PolicyLoader.line(of: "sites", in: text)
        let within = ["within": duration(browsers.reportWithin)]
        var out = [Warning(line: line, message: browsers.unreported == .reward
            ? tr("with [[sites]], a browser without screentime's extension (another browser, a copy in the child's folder, or one whose extension is switched off) counts as a game (\"unreported\"): it uses game time, and is closed when none is left, {within} after it starts. The screentime package installs the extension in Chromium and Firefox ESR (docs/websites.md).", within)
            : tr("with [[sites]], a browser without screentime's extension (another browser, a copy in the child's folder, or one whose extension is switched off) counts as blocked (\"unreported\"): it is closed, {within} after it starts. The screentime package installs the extension in Chromium and Firefox ESR (docs/websites.md).", within))]
        guard let child else { return out }
        for exe in browsers.exe.map(\.text) where exe.hasPrefix("/") && ProcFS.mode(of: exe) != nil {
            if case .notForced(let why) = ManagedBrowserPolicy.check(browserExe: exe, child: child) {
                // `why` is ScreenTimeLinux's English (ManagedBrowserPolicy.check).
                out.append(Warning(line: line, message: tr("{browser} is installed here, but {why}: here it counts as a browser without the extension.", ["browser": exe, "why": why])))
            }
        }
        return out
    }

    static func missingParents(_ parents: Policy.Parents, text: String) -> [Warning] {
        let users = parents.users.filter { UserAccount.lookup(name: $0) == nil }.map { name in
            Warning(line: PolicyLoader.line(of: "parents.users", in: text),
                    message: tr("[parents] users names '{name}', but this computer has no user '{name}', so nobody can act as that parent here. Check the spelling (a login name, as `id -un` prints it), or add the user; if the policy is for another computer that has '{name}', all is well.", ["name": name]))
        }
        let groups = parents.groups.filter { UserAccount.groupID(named: $0) == nil }.map { name in
            Warning(line: PolicyLoader.line(of: "parents.groups", in: text),
                    message: tr("[parents] groups names '{name}', but this computer has no group '{name}', so nobody is a parent through it here. Check the spelling (`getent group` lists the groups), or add the group; if the policy is for another computer that has '{name}', all is well.", ["name": name]))
        }
        return users + groups
    }

    /// "Sat 2026-11-28  games 3 h 00 min a day, 08:00-21:00, 1 h 00 min free; learning 2 h 00 min (weekend)"
    static func describe(_ key: Int64, _ r: Policy.DayRules) -> String {
        let day = tr("{weekday} {date}", context: "date", ["weekday": shortWeekday(CalendarDate.weekday(of: key)), "date": dateWords(CalendarDate.text(of: key))])
        var games = [r.dailyLimit.map { tr("games {limit} a day", ["limit": duration($0)]) } ?? tr("games without a daily limit")]
        if let h = r.allowedHours { games.append(h.isEmpty ? tr("at no hour") : h.map(\.text).joined(separator: ", ")) }
        if let a = r.dailyAllowance, a > 0 { games.append(tr("{allowance} free", ["allowance": duration(a)])) }
        var parts = [games.joined(separator: ", ")]
        // The whole computer ([screen], docs/policy.md): said only when something limits it.
        if r.screenDailyLimit != nil || r.screenAllowedHours != nil {
            var screen = [r.screenDailyLimit.map { tr("screen {limit} a day", ["limit": duration($0)]) } ?? tr("screen without a daily limit")]
            if let h = r.screenAllowedHours {
                let hours = h.map(\.text).joined(separator: ", ")
                screen.append(h.last.map { tr("{hours} (bedtime {time})", ["hours": hours, "time": HourWindow.text(minute: $0.endMinute)]) } ?? tr("at no hour"))
            }
            parts.append(screen.joined(separator: ", "))
        }
        parts.append(tr("learning at most {cap}", ["cap": duration(r.dailyLearningCap)]))
        let line = day + "  " + parts.joined(separator: "; ")
        return line + (r.schedule.map { "  (\($0))" } ?? "")
    }

    /// "Mon" … "Sun" in the caller's words.
    static func shortWeekday(_ day: Weekday) -> String {
        switch day {
        case .mon: return tr("Mon", context: "weekday")
        case .tue: return tr("Tue", context: "weekday")
        case .wed: return tr("Wed", context: "weekday")
        case .thu: return tr("Thu", context: "weekday")
        case .fri: return tr("Fri", context: "weekday")
        case .sat: return tr("Sat", context: "weekday")
        case .sun: return tr("Sun", context: "weekday")
        }
    }

    /// Today's day key in the policy's time zone.
    static func today(in zone: Zone) -> Int64? {
        let micros = KernelClock.wallMicros()
        let seconds = micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000
        let local = seconds + Int64(zone.offset(at: seconds))
        return local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
    }
}
