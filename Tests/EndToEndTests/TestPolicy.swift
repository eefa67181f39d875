import Foundation

/// Fast policies for the live tests, in seconds: one learning app (GCompris) worth a point a second,
/// one game (SuperTuxKart) at a point a minute, closed at once when its time is gone.
enum TestPolicy {
    static func learningAndGame(learning: String, game: String, dailyLimit: String, idleAfter: String, parents: String = "") -> String {
        """
        version = 1
        timezone = "\(NoonZone.name)"
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

/// A time zone in which it is now about noon, for tests that read what was learned "today": the
/// day does not change under them, whenever they run (in UTC, a test started at 23:59 would see
/// its learning fall into yesterday). `Etc/GMT-N` is N hours east of UTC (POSIX's sign).
enum NoonZone {
    static let name: String = {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let east = 12 - utc.component(.hour, from: Date())    // -11 ... 12
        return east == 0 ? "UTC" : east > 0 ? "Etc/GMT-\(east)" : "Etc/GMT+\(-east)"
    }()
}
