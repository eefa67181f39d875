import ControlProtocol
import ScreenTimeCore
import ScreenTimeWords

/// What the child is told on the desktop about an effect, in the child's words (docs/enforcement.md).
/// Only words: `Daemon.tell` shows them.
public struct Notice: Equatable, Sendable {
    /// How the desktop shows it (the freedesktop notification urgencies).
    public enum Urgency: String, Sendable { case low, normal, critical }
    public var summary: String
    public var body: String
    public var urgency: Urgency
    /// A button on the notification that asks a parent for more time (a warning's), when the
    /// desktop shows buttons: pressed, it is the child's `ask`, as `stctl ask` would send it.
    public var ask: Ask? = nil

    /// "Ask for 15 more minutes": of game time, or of screen time.
    public struct Ask: Equatable, Sendable {
        public var minutes: Int64
        public var screen: Bool
        /// The notification action's key and its words.
        public var key: String { screen ? "ask-screen-\(minutes)" : "ask-\(minutes)" }
        public var label: String { label(.english) }
        public func label(_ tr: Translator) -> String {
            tr.plural("Ask for {minutes} more minute", "Ask for {minutes} more minutes", Int(minutes), ["minutes": "\(minutes)"])
        }
        public init(minutes: Int64, screen: Bool) { self.minutes = minutes; self.screen = screen }
    }

    /// What a warning's button asks for.
    public static let warningAsk: Int64 = 15

    public init(summary: String, body: String, urgency: Urgency, ask: Ask? = nil) {
        self.summary = summary
        self.body = body
        self.urgency = urgency
        self.ask = ask
    }

    /// The notice for an effect, in the words of `tr` (the child's language); nil for what the
    /// child is not told about.
    public static func about(_ effect: Effect, policy: Policy, _ tr: Translator = .english) -> Notice? {
        func time(_ micros: Microseconds) -> String { DurationWords.words(seconds: micros / Seconds.micro, tr) }
        switch effect {
        case .warn(let w) where w.limit == .appLimit:
            let last = w.remaining <= (policy.enforcement.warnBefore.min() ?? 0)
            let left = time(w.remaining)
            return Notice(summary: w.app.map { tr("{game}: {left} left", ["game": $0, "left": left]) } ?? tr("This game: {left} left", ["left": left]),
                          body: policy.enforcement.action == .pause
                              ? tr("Save your game: it is paused when its own time is used up; other games may go on.")
                              : tr("Save your game: it is closed when its own time is used up; other games may go on."),
                          urgency: last ? .critical : .normal, ask: Ask(minutes: warningAsk, screen: false))
        case .warn(let w) where w.limit.isScreen:
            // The whole computer (docs/spec/screen.md): said in the child's words, with what happens.
            let logout = policy.screen.action == .logout
            if w.remaining <= 0 {
                let grace = ["grace": time(policy.screen.grace)]
                return Notice(summary: w.limit == .bedtime ? tr("It is bedtime") : tr("Your screen time is used up"),
                              body: logout ? tr("Save your work: in {grace} you are logged out. A parent can give more time.", grace)
                                           : tr("Save your work: in {grace} the screen locks. A parent can give more time.", grace),
                              urgency: .critical)
            }
            let last = w.remaining <= (policy.screen.warnBefore.min() ?? 0)
            let left = ["left": time(w.remaining)]
            return Notice(summary: w.limit == .bedtime ? tr("{left} until bedtime", left) : tr("{left} of screen time left", left),
                          body: logout ? tr("Save your work: when the time is up, you are logged out.") : tr("Save your work: when the time is up, the screen locks."),
                          urgency: last ? .critical : .normal,
                          ask: w.limit == .bedtime ? nil : Ask(minutes: warningAsk, screen: true))   // more minutes do not move bedtime
        case .warn(let w):
            let last = w.remaining <= (policy.enforcement.warnBefore.min() ?? 0)
            return Notice(summary: tr("{left} of game time left", ["left": time(w.remaining)]),
                          body: policy.enforcement.action == .pause ? tr("Save your game: when the time is used up, games are paused.")
                                                                     : tr("Save your game: when the time is used up, games are closed."),
                          urgency: last ? .critical : .normal, ask: Ask(minutes: warningAsk, screen: false))
        case .stop(let s) where s.repeatCount == 0:
            let why = ["why": capitalized(ChildWords.stop(s.reason.rawValue, tr)), "game": s.app]
            return s.action == .pause
                ? Notice(summary: tr("{game} was paused", why), body: tr("{why}; it goes on when you have game time again.", why), urgency: .critical)
                : Notice(summary: tr("{game} was closed", why), body: tr("{why}.", why), urgency: .critical)
        case .sessionClosed(let r) where r.category == .learning:
            // What rounds to "0 s" is left out, as `stctl sessions` does.
            let notCounted = r.refused.filter { $0.seconds >= Seconds.micro || $0.reason == .tooShort }
                .map { tr("{time} not counted: {why}.", ["time": time($0.seconds), "why": ChildWords.reason($0.reason.rawValue, tr)]) }
            if r.points > 0 {
                return Notice(summary: tr.plural("+{points} point for {app}", "+{points} points for {app}", Int(r.points), ["points": "\(r.points)", "app": r.app]),
                              body: ([tr("{time} of learning counted.", ["time": time(r.creditedSeconds)])] + notCounted).joined(separator: " "),
                              urgency: .normal)
            }
            return Notice(summary: tr("{app}: no points this time", ["app": r.app]), body: notCounted.joined(separator: " "), urgency: .normal)
        case .ledger(let e) where e.kind == .bonusTime:
            return Notice(summary: tr("{time} more of games today", ["time": time(e.rewardSeconds ?? 0)]),
                          body: tr("A parent gave you bonus time for today. It is played first, and it ends tonight."), urgency: .normal)
        case .ledger(let e) where e.kind == .revoked:
            return Notice(summary: tr("{time} of game time taken back", ["time": time(e.rewardSeconds ?? 0)]),
                          body: e.points > 0
                              ? tr.plural("A parent took back game time you had not played yet; your {points} point came back.", "A parent took back game time you had not played yet; your {points} points came back.", Int(e.points), ["points": "\(e.points)"])
                              : tr("A parent took back game time you had not played yet."),
                          urgency: .normal)
        case .gamesStopped(let at, let until?, _):
            return Notice(summary: tr("Games are stopped"), body: tr("A parent stopped games until {until}.", ["until": clock(policy, until, from: at, tr)]), urgency: .critical)
        case .gamesStopped(_, nil, _):
            return Notice(summary: tr("Games are allowed again"), body: tr("A parent lifted the stop on games."), urgency: .normal)
        case .ledger(let e) where e.kind == .bonus:
            let days = ["points": "\(e.points)", "days": e.note ?? ""]
            return Notice(summary: tr("+{points} points: {days} days in a row!", days),
                          body: tr("You met your learning goal {days} days in a row.", days), urgency: .normal)
        case .request(let r):
            let by = r.by ?? tr("a parent")
            switch r.state {
            case .approved where r.screen == true:
                let minutes = r.minutesGranted ?? r.minutes
                let given = tr.plural("{minutes} was given by {by}", "{minutes} were given by {by}", Int(minutes), ["minutes": "\(minutes)", "by": by])
                return Notice(summary: tr.plural("Yes: {minutes} more minute of screen time today", "Yes: {minutes} more minutes of screen time today", Int(minutes), ["minutes": "\(minutes)"]),
                              body: askedAndGiven(r.minutes, given, tr), urgency: .normal)
            case .approved:
                let minutes = r.minutesGranted ?? r.minutes
                let figures = ["minutes": "\(minutes)", "by": by]
                let given = r.pay == .gift
                    ? tr.plural("{minutes} was given, a gift from {by}", "{minutes} were given, a gift from {by}", Int(minutes), figures)
                    : tr.plural("{minutes} was given, paid with your points", "{minutes} were given, paid with your points", Int(minutes), figures)
                return Notice(summary: tr.plural("Yes: {minutes} more minute of game time", "Yes: {minutes} more minutes of game time", Int(minutes), ["minutes": "\(minutes)"]),
                              body: askedAndGiven(r.minutes, given, tr), urgency: .normal)
            case .denied:
                let figures = ["asked": "\(r.minutes)", "answer": r.answer ?? ""]
                return Notice(summary: r.screen == true ? tr("No more screen time this time") : tr("No more game time this time"),
                              body: r.answer != nil
                                  ? tr.plural("Your request for {asked} minute was denied: {answer}", "Your request for {asked} minutes was denied: {answer}", Int(r.minutes), figures)
                                  : tr.plural("Your request for {asked} minute was denied.", "Your request for {asked} minutes was denied.", Int(r.minutes), figures),
                              urgency: .normal)
            case .expired:
                return Notice(summary: tr("Nobody answered your request"),
                              body: tr.plural("Your request for {asked} minute was not answered in time. You can ask again.", "Your request for {asked} minutes was not answered in time. You can ask again.",
                                              Int(r.minutes), ["asked": "\(r.minutes)"]), urgency: .normal)
            case .pending, .refused:
                return nil     // the child sees these in what `stctl ask` answers
            }
        case .chore(let c):
            switch c.state {
            case .approved:
                return Notice(summary: tr.plural("+{points} point for {chore}", "+{points} points for {chore}", Int(c.points ?? 0), ["points": "\(c.points ?? 0)", "chore": c.chore]),
                              body: tr("A parent approved your chore."), urgency: .normal)
            case .rejected:
                let figures = ["chore": c.chore, "answer": c.answer ?? ""]
                return Notice(summary: tr("{chore} was not approved", figures),
                              body: c.answer != nil ? tr("A parent rejected it: {answer} You can claim it again when it is done.", figures)
                                                    : tr("A parent rejected it. You can claim it again when it is done.", figures), urgency: .normal)
            case .pending:
                return nil
            }
        default:
            return nil
        }
    }

    /// "You asked for 5 minutes; 3 were given by mum.": what was asked and what was given, each
    /// with the plural of its own number.
    static func askedAndGiven(_ asked: Int64, _ given: String, _ tr: Translator) -> String {
        let asked = tr.plural("You asked for {asked} minute", "You asked for {asked} minutes", Int(asked), ["asked": "\(asked)"])
        return tr("{asked}; {given}.", ["asked": asked, "given": given])
    }

    /// "19:00", "07:00 tomorrow", "Monday 07:00" in the words of `tr`.
    static func clock(_ policy: Policy, _ wall: Microseconds, from: Microseconds, _ tr: Translator) -> String {
        let parts = policy.localClockParts(wall, from: from)
        return ClockWords.words(parts.clock, daysAhead: parts.daysAhead, weekday: parts.weekday, tr)
    }

    /// What a child's parents are told: a new request, a chore claimed (nil for anything else), in
    /// the words of `tr` (the parent's language).
    public static func forParents(_ effect: Effect, child: String, system: Bool, _ tr: Translator = .english) -> Notice? {
        let user = system ? " --user \(child)" : ""
        switch effect {
        case .request(let r) where r.state == .pending:
            let figures = ["child": child, "minutes": "\(r.minutes)"]
            let quoted = r.reason.map { tr("“{reason}” ", ["reason": $0]) } ?? ""
            let answer = ["approve": "stctl approve \(r.id)", "deny": "stctl deny \(r.id)"]
            return Notice(summary: r.screen == true
                              ? tr.plural("{child} asks for {minutes} more minute of screen time", "{child} asks for {minutes} more minutes of screen time", Int(r.minutes), figures)
                              : tr.plural("{child} asks for {minutes} more minute of game time", "{child} asks for {minutes} more minutes of game time", Int(r.minutes), figures),
                          body: quoted + (r.screen == true ? tr("Answer with: {approve}, or {deny}", answer) : tr("Answer with: {approve} (or --gift), or {deny}", answer)),
                          urgency: .normal)
        case .chore(let c) where c.state == .pending:
            return Notice(summary: tr("{child} says “{chore}” is done", ["child": child, "chore": c.chore]),
                          body: tr("Approve it with: {approve}, or reject it with: {reject}",
                                   ["approve": "stctl chore approve \"\(c.chore)\"\(user)", "reject": "stctl chore reject \"\(c.chore)\"\(user)"]),
                          urgency: .normal)
        default:
            return nil
        }
    }

    private static func capitalized(_ s: String) -> String { s.prefix(1).uppercased() + s.dropFirst() }
}
