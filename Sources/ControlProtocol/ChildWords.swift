/// What the daemon's reasons mean, in words a child understands: for `stctl sessions` and the
/// desktop notifications.
public enum ChildWords {
    /// Why learning time was not counted ("12 min not counted: you were idle …").
    public static func reason(_ code: String) -> String { reasons[code] ?? code }

    /// Why a game was stopped ("SuperTuxKart was closed: today's game time is used up").
    public static func stop(_ code: String) -> String {
        switch code {
        case "daily_limit": return "today's game time is used up"
        case "weekly_limit": return "this week's game time is used up"
        case "no_reward_time": return "your game time is used up"
        case "outside_hours": return "games are not allowed at this hour"
        case "app_limit": return "this game's own time is used up (other games may go on)"
        case "blocked": return "this app is not allowed"
        case "no_lease": return "the family's game time could not be reached from this computer"
        case "stopped_by_parent": return "a parent stopped games for now"
        default: return code
        }
    }

    static let reasons: [String: String] = [
        "idle": "you were idle (no keys or mouse)",
        "locked": "the screen was locked",
        "unfocused": "the app was not the window in front",
        "too_short": "the session was too short",
        "daily_cap": "today's learning limit was already reached",
        "untrusted_exe": "this copy of the app is not one your parents' policy trusts",
        "concurrent_reward": "a game was running at the same time",
        "periodic_input": "the keys or mouse moved like a machine, not a person",
        "clock_jump": "the clock was changed",
        "focus_flicker": "the window was in front only for moments",
        "no_focus_hook": "screentime could not see which window was in front",
        "hook_gap": "screentime could not see your screen for a while",
    ]
}
