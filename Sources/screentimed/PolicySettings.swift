import ControlProtocol
import ScreenTimeCore
import ScreenTimePolicy

/// The keys of a policy the parents' page offers in its forms (issue 40: game and screen limits
/// per day, schedules and bedtime, the learning goal, points per hour and per minute), each with
/// its value as the policy's text writes it.
enum PolicySettings {
    static func of(_ policy: Policy, text: String) -> [ControlReply.PolicySummary.Setting] {
        let editor = PolicyEditor(text: text)
        func setting(_ key: String, _ label: String, _ kind: String) -> ControlReply.PolicySummary.Setting? {
            guard let k = try? PolicyKey(parsing: key) else { return nil }
            return .init(key: key, label: label, kind: kind, value: editor.value(of: k))
        }
        var out = [
            setting("rewards.daily_limit", "Games a day", "duration"),
            setting("rewards.weekly_limit", "Games a week", "duration"),
            setting("rewards.allowed_hours", "Games at these hours", "hours"),
            setting("screen.daily_limit", "Screen time a day", "duration"),
            setting("screen.allowed_hours", "The computer at these hours (the last end is bedtime)", "hours"),
            setting("points.daily_goal", "Learning goal a day", "duration"),
            setting("points.learning_per_hour", "Points for an hour of learning", "number"),
            setting("points.per_reward_minute", "Points a minute of games costs", "number"),
        ]
        for s in policy.schedules {
            let name = s.name
            out.append(setting("schedules[\(name)].daily_limit", "Games a day on \(name)", "duration"))
            out.append(setting("schedules[\(name)].screen_daily_limit", "Screen time a day on \(name)", "duration"))
            out.append(setting("schedules[\(name)].screen_allowed_hours", "The computer on \(name) at these hours (the last end is bedtime)", "hours"))
        }
        return out.compactMap { $0 }
    }
}
