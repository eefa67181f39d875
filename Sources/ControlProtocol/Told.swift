import ScreenTimeWords

/// What the daemon tells a parent it did (bonus time given, bedtime moved, games stopped): a code
/// and its figures, put in words by the reader as `Why` is (the reply's `note` keeps the English
/// for readers that do not know the code).
public struct Told: Sendable, Equatable {
    public var code: Code
    public var figures: [String: String]

    public init(_ code: Code, _ figures: [String: String] = [:]) {
        self.code = code
        self.figures = figures
    }

    public enum Code: String, Sendable, CaseIterable {
        case screenBonus = "screen_bonus"
        case bedtimeMoved = "bedtime_moved"
        case freeDay = "free_day"
        case bonusGiven = "bonus_given"
        case gamesAllowed = "games_allowed"
        case gamesStopped = "games_stopped"
        case tookBack = "took_back"
        case policyReloaded = "policy_reloaded"
        case policyUnchanged = "policy_unchanged"
        case forgotten
    }

    /// In the words of `tr`. Figures in seconds (`left`, `taken`) become durations; `child`, when
    /// the daemon watches several, names whom it was for.
    public func words(_ tr: Translator = .english) -> String {
        var f = figures
        for key in ["left", "taken"] { if let s = f[key].flatMap(Int64.init) { f[key] = DurationWords.words(seconds: s, tr) } }
        if let clock = f["until"] {
            f["until"] = ClockWords.words(clock, daysAhead: f["ahead"].flatMap(Int64.init) ?? 0, weekday: f["weekday"] ?? "", tr)
        }
        let named = f["child"] != nil
        switch code {
        case .screenBonus:
            let given = named ? tr("{minutes} min of screen time for {child} today, beyond the limits", f) : tr("{minutes} min of screen time for the child today, beyond the limits", f)
            return given + "; " + (f["left"] != nil ? tr("screen time left today: {left}.", f) : tr("no screen limit holds now.", f))
        case .bedtimeMoved:
            var text = named ? tr("Bedtime tonight for {child} is {time}", f) : tr("Bedtime tonight is {time}", f)
            if f["hours"] == "none" { text += " " + tr("(the policy sets no screen hours: bedtime holds only with [screen] allowed_hours)", f) }
            return text + (f["left"] != nil ? "; " + tr("screen time left: {left}.", f) : ".")
        case .freeDay:
            return named ? tr("A free day for {child}: no screen or game limit until midnight (redeemed minutes still pay for games).", f)
                         : tr("A free day: no screen or game limit until midnight (redeemed minutes still pay for games).", f)
        case .bonusGiven:
            return (named ? tr("{minutes} min of bonus time for {child} today", f) : tr("{minutes} min of bonus time for the child today", f))
                + "; " + tr("game time left today: {left}.", f)
        case .gamesAllowed: return tr("Games may be played again.", f)
        case .gamesStopped: return named ? tr("Games are stopped for {child} until {until}.", f) : tr("Games are stopped until {until}.", f)
        case .tookBack:
            if let points = f["points"].flatMap(Int.init) {
                return tr.plural("Took back {taken}, {points} point given back.", "Took back {taken}, {points} points given back.", points, f)
            }
            return f["refund"] == "none" ? tr("Took back {taken}, no points to give back (they were given, not bought).", f) : tr("Took back {taken}.", f)
        case .policyReloaded: return tr("policy reloaded from {path}", f)
        case .policyUnchanged: return tr("{path} is unchanged; nothing to reload", f)
        case .forgotten:
            let events = Int(f["events"] ?? "") ?? 0, sessions = Int(f["sessions"] ?? "") ?? 0
            var g = f
            g["events"] = tr.plural("{n} event", "{n} events", events, ["n": "\(events)"])
            g["sessions"] = tr.plural("{n} session", "{n} sessions", sessions, ["n": "\(sessions)"])
            return tr("removed {events} and {sessions} from before {day}; the ledger is unchanged", g)
        }
    }
}

extension ControlReply {
    /// Done: what the daemon tells, its code and figures, and the English in `note`.
    public static func done(_ told: Told, balance: Int64? = nil) -> ControlReply {
        var reply = ControlReply(ok: true, balance: balance, note: told.words())
        reply.told = told.code.rawValue
        reply.figures = told.figures.isEmpty ? nil : told.figures
        return reply
    }

    /// What the daemon told, in the words of `tr`; its English `note` when the code is not known here.
    public func noteWords(_ tr: Translator) -> String {
        if let told, let code = Told.Code(rawValue: told) { return Told(code, figures ?? [:]).words(tr) }
        return note ?? ""
    }
}
