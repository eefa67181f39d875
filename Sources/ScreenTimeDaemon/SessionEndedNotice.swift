import ScreenTimeCore
import ScreenTimeWords

/// Why the child's last session was ended (bedtime, screen time used up), said at their next
/// login. The login screen cannot say it: GDM and LightDM show only what PAM tells them while the
/// child logs in, and screentime does not sit in PAM. So the next session's first notice says it:
/// sent to the new session's desktop as soon as it takes notifications, or, if none has within
/// `waitForDesktop`, kept for `status` once, where the GNOME indicator shows it as new. It is kept
/// in memory only: a daemon started again in between (the computer switched off) does not say it.
public struct SessionEndedNotice: Sendable {
    /// The notice, the sessions that were ended, and since when another session has been there.
    public private(set) var pending: Notice? = nil
    private var ended: Set<String> = []
    private var newSessionSince: Microseconds? = nil

    /// How long a new session's desktop is given to take notifications.
    public static let waitForDesktop = Seconds.of(120)

    public init() {}

    /// A session was ordered ended; `time` is when, in the child's local time ("21:31").
    public mutating func ended(_ order: SessionOrder, time: String, _ tr: Translator = .english) {
        ended.insert(order.session)
        newSessionSince = nil
        pending = switch order.reason {
        case .bedtime:
            Notice(summary: tr("You were logged out at bedtime"),
                   body: tr("It was {time}, after bedtime, so the computer stopped for today.", ["time": time]), urgency: .normal)
        default:
            Notice(summary: tr("You were logged out: your screen time was used up"),
                   body: tr("At {time} your screen time for the day was all used. A parent can give you more.", ["time": time]), urgency: .normal)
        }
    }

    /// What to do now that these sessions are there (monotonic `now`).
    public enum Step: Equatable, Sendable {
        /// Send it to the desktop; `shown` says whether it got there.
        case send(Notice)
        /// The desktop did not take it in time: keep it for `status` (not shown), and be done.
        case keep(Notice)
    }

    public mutating func step(sessions: [String], now: Microseconds) -> Step? {
        guard let pending else { return nil }
        guard sessions.contains(where: { !ended.contains($0) }) else { newSessionSince = nil; return nil }
        let since = newSessionSince ?? now
        newSessionSince = since
        if now - since >= Self.waitForDesktop {
            done()
            return .keep(pending)
        }
        return .send(pending)
    }

    /// The notice reached the child's desktop.
    public mutating func done() {
        pending = nil
        ended = []
        newSessionSince = nil
    }
}
