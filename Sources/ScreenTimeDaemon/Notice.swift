import ControlProtocol
import ScreenTimeCore

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
        public var label: String { "Ask for \(minutes) more minutes" }
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

    /// The notice for an effect; nil for what the child is not told about.
    public static func about(_ effect: Effect, policy: Policy) -> Notice? {
        switch effect {
        case .warn(let w) where w.limit == .appLimit:
            let last = w.remaining <= (policy.enforcement.warnBefore.min() ?? 0)
            return Notice(summary: "\(w.app ?? "This game"): \(DurationText.words(w.remaining)) left",
                          body: "Save your game: it is \(policy.enforcement.action == .pause ? "paused" : "closed") when its own time is used up; other games may go on.",
                          urgency: last ? .critical : .normal, ask: Ask(minutes: warningAsk, screen: false))
        case .warn(let w) where w.limit.isScreen:
            // The whole computer (docs/spec/screen.md): said in the child's words, with what happens.
            let action = policy.screen.action == .logout ? "you are logged out" : "the screen locks"
            if w.remaining <= 0 {
                return Notice(summary: w.limit == .bedtime ? "It is bedtime" : "Your screen time is used up",
                              body: "Save your work: in \(DurationText.words(policy.screen.grace)) \(action). A parent can give more time.",
                              urgency: .critical)
            }
            let last = w.remaining <= (policy.screen.warnBefore.min() ?? 0)
            return Notice(summary: w.limit == .bedtime ? "\(DurationText.words(w.remaining)) until bedtime" : "\(DurationText.words(w.remaining)) of screen time left",
                          body: "Save your work: when the time is up, \(action).", urgency: last ? .critical : .normal,
                          ask: w.limit == .bedtime ? nil : Ask(minutes: warningAsk, screen: true))   // more minutes do not move bedtime
        case .warn(let w):
            let last = w.remaining <= (policy.enforcement.warnBefore.min() ?? 0)
            return Notice(summary: "\(DurationText.words(w.remaining)) of game time left",
                          body: "Save your game: when the time is used up, games are \(policy.enforcement.action == .pause ? "paused" : "closed").",
                          urgency: last ? .critical : .normal, ask: Ask(minutes: warningAsk, screen: false))
        case .stop(let s) where s.repeatCount == 0:
            let why = capitalized(ChildWords.stop(s.reason.rawValue))
            return s.action == .pause
                ? Notice(summary: "\(s.app) was paused", body: "\(why); it goes on when you have game time again.", urgency: .critical)
                : Notice(summary: "\(s.app) was closed", body: "\(why).", urgency: .critical)
        case .sessionClosed(let r) where r.category == .learning:
            // What rounds to "0 s" is left out, as `stctl sessions` does.
            let notCounted = r.refused.filter { $0.seconds >= Seconds.micro || $0.reason == .tooShort }
                .map { "\(DurationText.words($0.seconds)) not counted: \(ChildWords.reason($0.reason.rawValue))." }
            if r.points > 0 {
                return Notice(summary: "+\(r.points) points for \(r.app)",
                              body: (["\(DurationText.words(r.creditedSeconds)) of learning counted."] + notCounted).joined(separator: " "),
                              urgency: .normal)
            }
            return Notice(summary: "\(r.app): no points this time", body: notCounted.joined(separator: " "), urgency: .normal)
        case .ledger(let e) where e.kind == .bonusTime:
            return Notice(summary: "\(DurationText.words(e.rewardSeconds ?? 0)) more of games today",
                          body: "A parent gave you bonus time for today. It is played first, and it ends tonight.", urgency: .normal)
        case .ledger(let e) where e.kind == .revoked:
            return Notice(summary: "\(DurationText.words(e.rewardSeconds ?? 0)) of game time taken back",
                          body: "A parent took back game time you had not played yet" + (e.points > 0 ? "; your \(e.points) points came back." : "."),
                          urgency: .normal)
        case .gamesStopped(let at, let until?, _):
            return Notice(summary: "Games are stopped", body: "A parent stopped games until \(policy.localClock(until, from: at)).", urgency: .critical)
        case .gamesStopped(_, nil, _):
            return Notice(summary: "Games are allowed again", body: "A parent lifted the stop on games.", urgency: .normal)
        case .ledger(let e) where e.kind == .bonus:
            return Notice(summary: "+\(e.points) points: \(e.note ?? "") days in a row!",
                          body: "You met your learning goal \(e.note ?? "") days in a row.", urgency: .normal)
        case .request(let r):
            switch r.state {
            case .approved where r.screen == true:
                let minutes = r.minutesGranted ?? r.minutes
                return Notice(summary: "Yes: \(minutes) more minutes of screen time today",
                              body: "You asked for \(r.minutes) minutes; \(minutes) were given by \(r.by ?? "a parent").", urgency: .normal)
            case .approved:
                let minutes = r.minutesGranted ?? r.minutes
                let paid = r.pay == .gift ? "a gift from \(r.by ?? "a parent")" : "paid with your points"
                return Notice(summary: "Yes: \(minutes) more minutes of game time",
                              body: "You asked for \(r.minutes) minutes; \(minutes) were given, \(paid).", urgency: .normal)
            case .denied:
                return Notice(summary: r.screen == true ? "No more screen time this time" : "No more game time this time",
                              body: "Your request for \(r.minutes) minutes was denied" + (r.answer.map { ": \($0)" } ?? ".") , urgency: .normal)
            case .expired:
                return Notice(summary: "Nobody answered your request",
                              body: "Your request for \(r.minutes) minutes was not answered in time. You can ask again.", urgency: .normal)
            case .pending, .refused:
                return nil     // the child sees these in what `stctl ask` answers
            }
        case .chore(let c):
            switch c.state {
            case .approved:
                return Notice(summary: "+\(c.points ?? 0) points for \(c.chore)", body: "A parent approved your chore.", urgency: .normal)
            case .rejected:
                return Notice(summary: "\(c.chore) was not approved",
                              body: "A parent rejected it" + (c.answer.map { ": \($0)" } ?? ".") + " You can claim it again when it is done.", urgency: .normal)
            case .pending:
                return nil
            }
        default:
            return nil
        }
    }

    /// What a child's parents are told: a new request, a chore claimed (nil for anything else).
    public static func forParents(_ effect: Effect, child: String, system: Bool) -> Notice? {
        let user = system ? " --user \(child)" : ""
        switch effect {
        case .request(let r) where r.state == .pending:
            return Notice(summary: "\(child) asks for \(r.minutes) more minutes of \(r.screen == true ? "screen" : "game") time",
                          body: (r.reason.map { "“\($0)” " } ?? "") + "Answer with: stctl approve \(r.id)\(r.screen == true ? "" : " (or --gift)"), or stctl deny \(r.id)",
                          urgency: .normal)
        case .chore(let c) where c.state == .pending:
            return Notice(summary: "\(child) says “\(c.chore)” is done",
                          body: "Approve it with: stctl chore approve \"\(c.chore)\"\(user), or reject it with: stctl chore reject \"\(c.chore)\"\(user)",
                          urgency: .normal)
        default:
            return nil
        }
    }

    private static func capitalized(_ s: String) -> String { s.prefix(1).uppercased() + s.dropFirst() }
}
