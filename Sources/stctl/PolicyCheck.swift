import ArgumentParser
import Foundation
import ScreenTimeCore
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
                FileHandle.standardError.write(Data((error.description + "\n").utf8))
            }
            throw ExitCode(1)
        }
        let count = { (c: AppCategory) in policy.apps.filter { $0.category == c }.count }
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
    }
}
