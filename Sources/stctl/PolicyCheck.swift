import ArgumentParser
import FoundationEssentials
import Glibc
import ScreenTimeCore
import ScreenTimeLinux
import ScreenTimePolicy

/// `stctl policy check FILE`: is this policy good, and what does it say, in a few lines.
struct PolicyCheck: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a policy file; print its problems with line numbers, or a summary.",
        discussion: "Exit status 0 when the policy is good, 1 when it has problems. A parent account of [parents] that this computer does not have is a warning, not a problem: the daemon accepts the policy (nobody can act as that parent here), and the policy may be meant for another computer.")

    @Argument(help: "The policy file (TOML).")
    var file: String

    @Flag(name: .long, help: "Print the result as JSON.")
    var json = false

    @Option(name: .long, help: "The first day of the week shown (YYYY-MM-DD; default: today in the policy's time zone).")
    var from: String?

    func run() throws {
        let policy: Policy, text: String
        do throws(PolicyError) {
            let loaded = try PolicyLoader.loadWithText(path: file)
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
            throw ValidationError("--from: not a date like 2026-11-23: \"\(from ?? "")\"")
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
        for warning in warnings { StandardError.write("\(file):\(warning.line.map { "\($0):" } ?? "") warning: \(warning.message)\n") }
        print("\(file): good" + (warnings.isEmpty ? "" : warnings.count == 1 ? " (1 warning)" : " (\(warnings.count) warnings)"))
        print("  time zone     \(policy.timeZone.identifier)")
        print("  strictness    \(policy.validation.strictness.rawValue) (idle after \(DurationText.words(policy.validation.idleAfter)), sessions of at least \(DurationText.words(policy.validation.minSession)))")
        print("  learning      \(policy.points.learningPerHour) points an hour, at most \(DurationText.words(policy.points.dailyLearningCap)) a day")
        print("  games         \(policy.points.perRewardMinute) points a minute" +
              (r.dailyLimit.map { ", at most \(DurationText.words($0)) a day" } ?? "") +
              (r.weeklyLimit.map { ", \(DurationText.words($0)) a week" } ?? "") +
              (r.allowedHours.map { ", only \($0.map(\.text).joined(separator: ", "))" } ?? ""))
        print("  apps          \(count(.learning)) learning, \(count(.reward)) games, \(count(.blocked)) blocked, \(count(.neutral)) neutral")
        print("  the coming week:")
        for (key, rules) in week { print("    " + Self.describe(key, rules)) }
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
        let counts = browsers.unreported == .reward
            ? "a game (\"unreported\"): it uses game time, and is closed when none is left"
            : "blocked (\"unreported\"): it is closed"
        var out = [Warning(line: line, message: "with [[sites]], a browser without screentime's extension (another browser, a copy in the child's folder, "
                           + "or one whose extension is switched off) counts as \(counts), \(DurationText.words(browsers.reportWithin)) after it starts. "
                           + "The screentime package installs the extension in Chromium and Firefox ESR (docs/websites.md).")]
        guard let child else { return out }
        for exe in browsers.exe.map(\.text) where exe.hasPrefix("/") && ProcFS.mode(of: exe) != nil {
            if case .notForced(let why) = ManagedBrowserPolicy.check(browserExe: exe, child: child) {
                out.append(Warning(line: line, message: "\(exe) is installed here, but \(why): here it counts as a browser without the extension."))
            }
        }
        return out
    }

    static func missingParents(_ parents: Policy.Parents, text: String) -> [Warning] {
        let users = parents.users.filter { UserAccount.lookup(name: $0) == nil }.map { name in
            Warning(line: PolicyLoader.line(of: "parents.users", in: text),
                    message: "[parents] users names '\(name)', but this computer has no user '\(name)', so nobody can act as that parent here. "
                        + "Check the spelling (a login name, as `id -un` prints it), or add the user; if the policy is for another computer that has '\(name)', all is well.")
        }
        let groups = parents.groups.filter { UserAccount.groupID(named: $0) == nil }.map { name in
            Warning(line: PolicyLoader.line(of: "parents.groups", in: text),
                    message: "[parents] groups names '\(name)', but this computer has no group '\(name)', so nobody is a parent through it here. "
                        + "Check the spelling (`getent group` lists the groups), or add the group; if the policy is for another computer that has '\(name)', all is well.")
        }
        return users + groups
    }

    /// "Sat 2026-11-28  games 3 h 00 min a day, 08:00-21:00, 1 h 00 min free; learning 2 h 00 min (weekend)"
    static func describe(_ key: Int64, _ r: Policy.DayRules) -> String {
        let day = CalendarDate.weekday(of: key).name.capitalized + " " + CalendarDate.text(of: key)
        var games = r.dailyLimit.map { "games \(DurationText.words($0)) a day" } ?? "games without a daily limit"
        if let h = r.allowedHours { games += h.isEmpty ? ", at no hour" : ", " + h.map(\.text).joined(separator: ", ") }
        if let a = r.dailyAllowance, a > 0 { games += ", \(DurationText.words(a)) free" }
        // The whole computer ([screen], docs/policy.md): said only when something limits it.
        var screen = ""
        if r.screenDailyLimit != nil || r.screenAllowedHours != nil {
            screen = "; screen " + (r.screenDailyLimit.map { "\(DurationText.words($0)) a day" } ?? "without a daily limit")
            if let h = r.screenAllowedHours {
                screen += h.isEmpty ? ", at no hour" : ", " + h.map(\.text).joined(separator: ", ")
                if let last = h.last { screen += " (bedtime \(HourWindow.text(minute: last.endMinute)))" }
            }
        }
        return "\(day)  \(games)\(screen); learning at most \(DurationText.words(r.dailyLearningCap))" + (r.schedule.map { "  (\($0))" } ?? "")
    }

    /// Today's day key in the policy's time zone.
    static func today(in zone: Zone) -> Int64? {
        let micros = KernelClock.wallMicros()
        let seconds = micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000
        let local = seconds + Int64(zone.offset(at: seconds))
        return local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
    }
}
