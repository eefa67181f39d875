/// Why time was not credited, or why an app was stopped (`docs/spec/replay.md`, reason codes).
public enum Reason: String, Sendable, CaseIterable, Hashable, Codable {
    // Learning time not credited.
    case idle, locked, unfocused
    case tooShort = "too_short"
    case dailyCap = "daily_cap"
    case untrustedExe = "untrusted_exe"
    case concurrentReward = "concurrent_reward"
    case periodicInput = "periodic_input"
    case clockJump = "clock_jump"
    case focusFlicker = "focus_flicker"
    /// Added by screentime: the learning app ran, but no desktop hook reported focus, and the
    /// policy's strictness needs one.
    case noFocusHook = "no_focus_hook"
    /// Added by screentime: the desktop hook went away during the session (it ended, or was
    /// killed); until one reported the focus again, nothing could be seen, and nothing is credited.
    case hookGap = "hook_gap"
    // Stops.
    case noRewardTime = "no_reward_time"
    case dailyLimit = "daily_limit"
    case weeklyLimit = "weekly_limit"
    case outsideHours = "outside_hours"
    /// (stop, warn) this app's own limit or its group's, for the day or the week (`docs/spec/family.md`).
    case appLimit = "app_limit"
    /// Added by screentime (household): this machine holds none of the family's game time, and
    /// the family database did not answer (docs/household.md).
    case noLease = "no_lease"
    /// Added by screentime: a parent stopped the games until a time (`stctl stop-games`).
    case stoppedByParent = "stopped_by_parent"
    case blocked
    // Screen time (docs/spec/screen.md): warnings (`screen_daily_limit`, `screen_weekly_limit`,
    // `bedtime`) and the reasons a session is locked or ended (`screen_limit`, `screen_weekly_limit`, `bedtime`).
    case screenDailyLimit = "screen_daily_limit"
    case screenWeeklyLimit = "screen_weekly_limit"
    case screenLimit = "screen_limit"
    case bedtime
}
