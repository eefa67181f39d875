/// Fast policies for the live tests, in seconds: one learning app (GCompris) worth a point a second,
/// one game (SuperTuxKart) at a point a minute, closed at once when its time is gone.
enum TestPolicy {
    static func learningAndGame(learning: String, game: String, dailyLimit: String, idleAfter: String, parents: String = "") -> String {
        """
        version = 1
        timezone = "UTC"
        [points]
        learning_per_hour = 3600
        per_reward_minute = 1
        [validation]
        idle_after = "\(idleAfter)"
        min_session = "2s"
        min_focus_dwell = "0s"
        [rewards]
        daily_limit = "\(dailyLimit)"
        [enforcement]
        warn_before = []
        action = "terminate"
        grace = "1s"
        [parents]
        \(parents)
        [[apps]]
        name = "GCompris"
        category = "learning"
        exe = ["\(learning)"]
        [[apps]]
        name = "SuperTuxKart"
        category = "reward"
        exe = ["\(game)"]
        """
    }
}
