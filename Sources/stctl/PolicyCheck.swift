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
        discussion: "Exit status 0 when the policy is good, 1 when it has problems.")

    @Argument(help: "The policy file (TOML).")
    var file: String

    @Flag(name: .long, help: "Print the result as JSON.")
    var json = false

    @Option(name: .long, help: "The first day of the week shown (YYYY-MM-DD; default: today in the policy's time zone).")
    var from: String?

    func run() throws {
        let policy: Policy
        do throws(PolicyError) {
            policy = try PolicyLoader.load(path: file)
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
        if json {
            var w = JSONWriter()
            w.beginObject()
            w.key("file"); w.string(file)
            w.key("ok"); w.bool(true)
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
                w.endObject()
            }
            w.endArray()
            w.endObject()
            print(w.output)
            return
        }
        let r = policy.rewards
        print("\(file): good")
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

    /// "Sat 2026-11-28  games 3 h 00 min a day, 08:00-21:00, 1 h 00 min free; learning 2 h 00 min (weekend)"
    static func describe(_ key: Int64, _ r: Policy.DayRules) -> String {
        let day = CalendarDate.weekday(of: key).name.capitalized + " " + CalendarDate.text(of: key)
        var games = r.dailyLimit.map { "games \(DurationText.words($0)) a day" } ?? "games without a daily limit"
        if let h = r.allowedHours { games += h.isEmpty ? ", at no hour" : ", " + h.map(\.text).joined(separator: ", ") }
        if let a = r.dailyAllowance, a > 0 { games += ", \(DurationText.words(a)) free" }
        return "\(day)  \(games); learning at most \(DurationText.words(r.dailyLearningCap))" + (r.schedule.map { "  (\($0))" } ?? "")
    }

    /// Today's day key in the policy's time zone.
    static func today(in zone: Zone) -> Int64? {
        let micros = KernelClock.wallMicros()
        let seconds = micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000
        let local = seconds + Int64(zone.offset(at: seconds))
        return local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
    }
}
