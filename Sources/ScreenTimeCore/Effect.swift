/// What the engine tells the shell to do. The shell persists, notifies, signals and replies; it
/// decides nothing.
public enum Effect: Sendable, Equatable {
    case sessionClosed(SessionRecord)
    case ledger(LedgerEntry)
    case warn(Warning)
    case stop(StopOrder)
    /// Pause mode: time is available again, let the paused process run.
    case resume(pid: Int32, at: Microseconds)
    /// A parent's request the engine refused; nothing changed.
    case refused(Refusal)
    /// The wall clock jumped by `by` (µs) against the monotonic clock: the calendar followed it forward, or holds until it catches up.
    case clockJumped(at: Microseconds, by: Microseconds)
    /// A clock reading that cannot be true was seen (and counted nothing).
    case clockFault(ClockFault)
    /// A day of the policy's calendar is over: what was used of reward time on it (for reports).
    case dayEnded(DayTotals)
    /// A child's request for time is new, or was decided, expired or refused (who is told: the
    /// parents of a new one, the child of an answer).
    case request(TimeRequest)
    /// A chore was claimed, approved or rejected.
    case chore(ChoreClaim)
    /// A parent stopped the games until `until` (calendar µs), or (`until` nil) let them be played
    /// again before that: the child is told.
    case gamesStopped(at: Microseconds, until: Microseconds?, by: String?)
    /// Lock one of the child's login sessions (docs/spec/screen.md), or end it.
    case lockSession(SessionOrder)
    case endSession(SessionOrder)
    /// A site must not be shown (docs/spec/sites.md): the browser's extension shows its own page
    /// in the tabs of that host instead. The browser itself is never stopped for a site.
    case siteStop(SiteStop)
}

/// `site_stop`: a blocked site, or a reward site while no game time is left for it.
public struct SiteStop: Sendable, Equatable {
    public var at: Microseconds
    /// The browser's process, as its report named it.
    public var pid: Int32
    public var host: String
    /// The `[[sites]]` entry (or "an unnamed website").
    public var site: String
    public var reason: Reason

    public init(at: Microseconds, pid: Int32, host: String, site: String, reason: Reason) {
        self.at = at; self.pid = pid; self.host = host; self.site = site; self.reason = reason
    }
}

/// The figures of a day that only the engine knows, saved when the day is over.
public struct DayTotals: Sendable, Equatable {
    /// Where the day began (trusted wall time, µs).
    public var start: Microseconds
    /// Reward time used on it.
    public var rewardUsed: Microseconds
    /// Screen time on it (nil: not known, an older log's day).
    public var screen: ScreenDayTotals? = nil

    public init(start: Microseconds, rewardUsed: Microseconds, screen: ScreenDayTotals? = nil) {
        self.start = start
        self.rewardUsed = rewardUsed
        self.screen = screen
    }
}

public struct Warning: Sendable, Equatable {
    public var at: Microseconds
    public var remaining: Microseconds
    /// What will stop the games when it runs out.
    public var limit: Reason
    /// `app_limit`: the app that will be stopped (the others may go on).
    public var app: String? = nil
}

public struct StopOrder: Sendable, Equatable {
    public var at: Microseconds
    public var pid: Int32
    public var app: String
    public var reason: Reason
    public var action: Policy.StopAction
    /// How many times this process has been told before (0: the first time).
    public var repeatCount: Int
}

public struct Refusal: Sendable, Equatable {
    public var at: Microseconds
    public var request: String
    /// The code (`refused[].reason`).
    public var code: RefusalCode
    /// The same in words, with the figures: "it costs 40 points and the balance is 25".
    public var reason: String
    /// For readers in other languages: the code of its words (`code`, or a finer one where the
    /// words differ: `chore_unknown`, `chore_paid`, …) and the figures in them, by name
    /// (`cost`, `balance`). ControlProtocol's `Why` puts them in words.
    public var whyCode: String
    public var figures: [String: String]

    public init(at: Microseconds, request: String, code: RefusalCode, reason: String, whyCode: String? = nil, figures: [String: String] = [:]) {
        self.at = at
        self.request = request
        self.code = code
        self.reason = reason
        self.whyCode = whyCode ?? code.rawValue
        self.figures = figures
    }
}

/// One usage session of a learning or reward app, judged.
public struct SessionRecord: Sendable, Equatable {
    public enum Verdict: String, Sendable { case credited, partial, rejected }

    public var app: String
    public var category: AppCategory
    public var pid: Int32
    /// Trusted wall times (µs since the epoch).
    public var start: Microseconds
    public var end: Microseconds
    public var seconds: Microseconds
    public var creditedSeconds: Microseconds
    public var points: Int64
    public var verdict: Verdict
    /// Why time was not credited, in the order the rules ran, with how much each took.
    public var refused: [(reason: Reason, seconds: Microseconds)]
    /// Noticed but not held against the child (lenient periodic input).
    public var flags: [Reason]

    public var reasons: [Reason] { refused.map(\.reason) }

    public init(app: String, category: AppCategory, pid: Int32, start: Microseconds, end: Microseconds, seconds: Microseconds,
                creditedSeconds: Microseconds, points: Int64, verdict: Verdict, refused: [(reason: Reason, seconds: Microseconds)], flags: [Reason]) {
        self.app = app; self.category = category; self.pid = pid; self.start = start; self.end = end; self.seconds = seconds
        self.creditedSeconds = creditedSeconds; self.points = points; self.verdict = verdict; self.refused = refused; self.flags = flags
    }

    public static func == (a: SessionRecord, b: SessionRecord) -> Bool {
        a.app == b.app && a.category == b.category && a.pid == b.pid && a.start == b.start && a.end == b.end
            && a.seconds == b.seconds && a.creditedSeconds == b.creditedSeconds && a.points == b.points
            && a.verdict == b.verdict && a.reasons == b.reasons && a.refused.map(\.seconds) == b.refused.map(\.seconds)
            && a.flags == b.flags
    }
}
