/// A parent's say over today, beyond the points (docs/family.md): bonus time, games stopped until
/// a time, and minutes taken back. Each comes from a parent's command, checked before it was logged.
extension Engine {
    /// Minutes for today only, beyond the day's and week's limits (never beyond the allowed hours),
    /// used before any other game time and gone at the day's end. Free: written in the ledger as
    /// `bonus_time` with 0 points.
    mutating func bonusGiven(minutes: Int64, by: String?, reason: String?, at t: Microseconds) {
        let seconds = minutes * 60 * Seconds.micro
        // More than a day holds cannot be played today.
        let day = Microseconds(86_400) * Seconds.micro
        guard budget.bonusRemaining + seconds <= day else {
            refuse("bonus \(minutes) min", .bonusTooLong, "a day has 24 hours; bonus time for today may not be more", at: t)
            return
        }
        let note = [by, reason].compactMap { $0 }.joined(separator: ": ")
        out.append(.ledger(ledger.append(.bonusTime, points: 0, at: clock.wall(at: t), note: note.isEmpty ? nil : note, rewardSeconds: seconds)))
        budget.grantBonus(seconds)
    }

    /// Games stop now and stay stopped until `until` (calendar time); an `until` not later than
    /// now lets them be played again.
    mutating func gamesStopped(until: Microseconds, by: String?, at t: Microseconds) {
        let wasStopped = stoppedByParent
        gamesStopped = until > clock.wall(at: t) ? GamesStop(until: until, by: by) : nil
        if gamesStopped != nil || wasStopped {
            out.append(.gamesStopped(at: clock.wall(at: t), until: gamesStopped?.until, by: by))
        }
    }

    /// Whether a parent's stop holds now.
    var stoppedByParent: Bool {
        guard let s = gamesStopped else { return false }
        return clock.wall(at: now) < s.until
    }

    /// The engine time at which a parent's stop ends (for the deadlines).
    var gamesStopEnds: Microseconds? { gamesStopped.map { clock.time(atWall: $0.until) } }

    /// A parent's stop that has run out is forgotten.
    mutating func endGamesStopIfDue() {
        if gamesStopped != nil, !stoppedByParent { gamesStopped = nil }
    }

    /// Takes back up to `minutes` of unused redeemed, given and bonus minutes (`revoked` in the
    /// ledger); with `refund`, the points those minutes cost are given back. Nothing to take back
    /// is refused, and nothing written.
    mutating func minutesRevoked(minutes: Int64, refund: Bool, by: String?, at t: Microseconds) {
        let (taken, cost) = budget.revoke(minutes * 60 * Seconds.micro)
        guard taken > 0 else {
            refuse("revoke \(minutes) min", .nothingToRevoke, "there are no unused redeemed or given minutes to take back", at: t)
            return
        }
        let points = refund ? cost : 0
        let how = refund ? "points refunded" : "no refund"
        out.append(.ledger(ledger.append(.revoked, points: points, at: clock.wall(at: t), note: by.map { "\($0) (\(how))" } ?? how, rewardSeconds: taken)))
    }
}

/// Games a parent stopped: until when (calendar µs), and who.
struct GamesStop: Sendable, Codable, Equatable {
    var until: Microseconds
    var by: String?
}
