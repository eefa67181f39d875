import ScreenTimeWords

/// What the daemon's reasons mean, in words a child understands: for `stctl sessions` and the
/// desktop notifications, in the language of `tr` (English unless given).
public enum ChildWords {
    /// Why learning time was not counted ("12 min not counted: you were idle …").
    public static func reason(_ code: String, _ tr: Translator = .english) -> String {
        switch code {
        case "idle": return tr("you were idle (no keys or mouse)")
        case "locked": return tr("the screen was locked")
        case "unfocused": return tr("the app was not the window in front")
        case "too_short": return tr("the session was too short")
        case "daily_cap": return tr("today's learning limit was already reached")
        case "untrusted_exe": return tr("this copy of the app is not one your parents' policy trusts")
        case "concurrent_reward": return tr("a game was running at the same time")
        case "periodic_input": return tr("the keys or mouse moved like a machine, not a person")
        case "clock_jump": return tr("the clock was changed")
        case "focus_flicker": return tr("the window was in front only for moments")
        case "no_focus_hook": return tr("screentime could not see which window was in front")
        case "hook_gap": return tr("screentime could not see your screen for a while")
        default: return code
        }
    }

    /// Why a game was stopped ("SuperTuxKart was closed: today's game time is used up").
    public static func stop(_ code: String, _ tr: Translator = .english) -> String {
        switch code {
        case "daily_limit": return tr("today's game time is used up")
        case "weekly_limit": return tr("this week's game time is used up")
        case "no_reward_time": return tr("your game time is used up")
        case "outside_hours": return tr("games are not allowed at this hour")
        case "app_limit": return tr("this game's own time is used up (other games may go on)")
        case "blocked": return tr("this app is not allowed")
        case "no_lease": return tr("the family's game time could not be reached from this computer")
        case "stopped_by_parent": return tr("a parent stopped games for now")
        default: return code
        }
    }

    /// Why time was not counted, in a few words for a parent (`stctl report`, the page; the
    /// English is `SessionLine.Refusal.words`; docs/reasons.md says more).
    public static func short(_ code: String, _ tr: Translator = .english) -> String {
        switch code {
        case "idle": tr("idle", context: "not counted")
        case "locked": tr("locked", context: "not counted")
        case "unfocused": tr("not in front", context: "not counted")
        case "too_short": tr("too short", context: "not counted")
        case "daily_cap": tr("over the daily cap", context: "not counted")
        case "untrusted_exe": tr("untrusted copy", context: "not counted")
        case "concurrent_reward": tr("a game running too", context: "not counted")
        case "periodic_input": tr("machine-like input", context: "not counted")
        case "clock_jump": tr("clock changed", context: "not counted")
        case "focus_flicker": tr("flickering focus", context: "not counted")
        case "no_focus_hook": tr("no focus hook", context: "not counted")
        case "hook_gap": tr("hook away", context: "not counted")
        default: ControlReply.SessionLine.Refusal.words[code] ?? code
        }
    }

    /// How the app in front counts, for the child ("learning: earns points while you use it").
    public static func counts(_ category: String, trusted: Bool, _ tr: Translator = .english) -> String {
        switch category {
        case "learning": trusted ? tr("learning: earns points while you use it") : tr("learning, but not from a place the policy trusts: earns nothing")
        case "reward": tr("a game: uses your game time")
        case "neutral": tr("neither learning nor a game: not counted")
        case "blocked": tr("blocked: it is closed")
        default: category
        }
    }
}
