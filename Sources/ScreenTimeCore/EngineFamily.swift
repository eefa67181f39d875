/// What the engine keeps of the family loop: requests for time, chore claims, the child's own
/// redemptions today. Decided requests and claims are kept a week (for `stctl requests` and
/// `stctl chores`); the replay result has them all, from the effects.
struct FamilyState: Sendable, Codable {
    var requests: [TimeRequest] = []
    var claims: [ChoreClaim] = []
    /// Every `time_requested` seen, for new ids: the daemon names the next request by it.
    var asked: Int64 = 0
    /// The child's own redemptions on `redeemDay`.
    var redeemDay: Int64 = 0
    var redeemedOnDay: Microseconds = 0

    static let keptDays: Int64 = 7

    func childRedeemed(on day: Int64) -> Microseconds { redeemDay == day ? redeemedOnDay : 0 }

    mutating func addChildRedeemed(_ amount: Microseconds, on day: Int64) {
        if redeemDay != day { redeemDay = day; redeemedOnDay = 0 }
        redeemedOnDay += amount
    }

    /// Forgets what was decided more than a week before `day`. A chore done once stays: it may
    /// not be claimed again.
    mutating func forget(before day: Int64, chores: [Chore]) {
        requests.removeAll { $0.state != .pending && $0.day < day - Self.keptDays }
        claims.removeAll { c in
            guard c.state != .pending, c.day < day - Self.keptDays else { return false }
            return !(c.state == .approved && chores.first { $0.name == c.chore }?.every == .once)
        }
    }
}

extension RequestDecision {
    /// `by` of a redemption the child made.
    public static let child = "child"
}

/// The family loop (`docs/spec/family.md`): a child asks, a parent answers; chores claimed and paid.
extension Engine {
    /// Pending requests and chore claims, and those decided in the last week, oldest first.
    public var requests: [TimeRequest] { family.requests }
    public var choreClaims: [ChoreClaim] { family.claims }

    /// What the child redeemed of their own today (`child_redeem_daily_max` bounds it).
    public var childRedeemedToday: Microseconds { family.childRedeemed(on: day.key) }

    /// Whether a chore may be claimed today, and if not, why (nil: it may).
    public func choreNotDue(_ chore: Chore) -> (reason: String, whyCode: String, figures: [String: String])? {
        guard let period = period(of: chore) else {
            var days: [Weekday] = []
            if case .weekdays(let list) = chore.every { days = list }
            let names = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
            return ("\(chore.name) is done on \(days.map { names[$0.rawValue] }.joined(separator: ", ")), not today", "chore_not_today",
                    ["chore": chore.name, "days": days.map(\.name).joined(separator: " ")])
        }
        if let c = family.claims.last(where: { $0.chore == chore.name && $0.period == period && $0.state != .rejected }) {
            let when = chore.every == .once ? "" : chore.every == .week ? " this week" : " today"
            let figures = ["chore": chore.name, "period": chore.every == .once ? "once" : chore.every == .week ? "week" : "day"]
            return c.state == .pending ? ("\(chore.name) was claimed\(when) and waits for a parent", "chore_waits", figures)
                                       : ("\(chore.name) was done and paid\(when)", "chore_paid", figures)
        }
        return nil
    }

    /// The period a claim made today counts for; nil when the chore is not due today.
    func period(of chore: Chore) -> Int64? {
        switch chore.every {
        case .day: return day.key
        case .week: return day.weekKey
        case .once: return 0
        case .weekdays(let days):
            guard let today = Weekday(rawValue: Int(day.key - day.weekKey)), days.contains(today) else { return nil }
            return day.key
        }
    }

    /// How many requests the child has made (refused ones too): the daemon's next id is this + 1.
    public var requestsAsked: Int64 { family.asked }

    /// The policy's chores, each with the claim of it in the current period (nil: none yet) and,
    /// when it may not be claimed now, why.
    public var choresToday: [(chore: Chore, claim: ChoreClaim?, notDue: String?)] {
        policy.chores.map { chore in
            let period = period(of: chore)
            let claim = period.flatMap { p in family.claims.last { $0.chore == chore.name && $0.period == p } }
            return (chore, claim, choreNotDue(chore)?.reason)
        }
    }

    mutating func timeRequested(id: String, minutes: Int64, reason: String?, screen: Bool = false, at t: Microseconds) {
        family.asked += 1
        let what = "ask for \(minutes) min" + (screen ? " of screen time" : "")
        guard !family.requests.contains(where: { $0.id == id }) else {
            refuse(what, .requestExists, "a request with id \(id) exists already", ["id": id], at: t)
            return
        }
        var r = TimeRequest(id: id, at: clock.wall(at: t), minutes: minutes, reason: reason, state: .pending,
                            day: day.key, expiresAt: t + policy.requests.expireAfter)
        if screen { r.screen = true }
        let today = family.requests.filter { $0.day == day.key && $0.state != .refused }.count
        if today >= policy.requests.maxPerDay {
            r.state = .refused
            r.decidedAt = r.at
            refuse(what, .requestsPerDay, "a child may ask \(policy.requests.maxPerDay) times a day, and asked \(today) times today",
                   ["most": "\(policy.requests.maxPerDay)", "today": "\(today)"], at: t)
        }
        family.requests.append(r)
        out.append(.request(r))
    }

    mutating func requestDecided(_ d: RequestDecision, at t: Microseconds) {
        let what = "\(d.approved ? "approve" : "deny") request \(d.id)"
        guard let k = family.requests.firstIndex(where: { $0.id == d.id }), family.requests[k].state == .pending else {
            let known = family.requests.first { $0.id == d.id }
            let state = known.map { "was \($0.state.rawValue) already" } ?? "is not known"
            refuse(what, .requestNotPending, "request \(d.id) \(state)", whyCode: known == nil ? "request_not_known" : nil,
                   ["id": d.id, "state": known?.state.rawValue ?? ""], at: t)
            return
        }
        var r = family.requests[k]
        if d.approved, r.screen == true {
            // Screen minutes: a screen bonus for today, free (docs/spec/screen.md); no ledger entry.
            let minutes = min(d.minutes ?? r.minutes, r.minutes)
            giveScreenBonus(minutes, at: t)
            r.state = .approved
            r.pay = .bonus
            r.minutesGranted = minutes
        } else if d.approved {
            let minutes = min(d.minutes ?? r.minutes, r.minutes)
            switch d.pay {
            case .points:
                guard pay(minutes: minutes, note: d.by, request: what, familySeq: d.familySeq, at: t) else { return }   // stays pending
            case .gift:
                let seconds = minutes * 60 * Seconds.micro
                out.append(.ledger(ledger.append(.gifted, points: 0, at: clock.wall(at: t), note: d.by, rewardSeconds: seconds)))
                budget.grant(seconds, expiresAt: policy.rewards.redemptionExpiresAfter.map { t + $0 })
            case .bonus:
                let seconds = minutes * 60 * Seconds.micro
                out.append(.ledger(ledger.append(.bonusTime, points: 0, at: clock.wall(at: t), note: d.by, rewardSeconds: seconds)))
                budget.grantBonus(seconds)
            }
            r.state = .approved
            r.pay = d.pay
            r.minutesGranted = minutes
        } else {
            r.state = .denied
        }
        r.decidedAt = clock.wall(at: t)
        r.by = d.by
        r.answer = d.reason
        family.requests[k] = r
        out.append(.request(r))
    }

    /// Pending requests nobody decided in time.
    mutating func expireRequests(at t: Microseconds) {
        for k in family.requests.indices where family.requests[k].state == .pending && family.requests[k].expiresAt <= t {
            family.requests[k].state = .expired
            family.requests[k].decidedAt = clock.wall(at: family.requests[k].expiresAt)
            out.append(.request(family.requests[k]))
        }
    }

    var nextRequestExpiry: Microseconds? {
        family.requests.lazy.filter { $0.state == .pending }.map(\.expiresAt).min()
    }

    mutating func choreDone(_ name: String, at t: Microseconds) {
        let what = "chore \(name) done"
        guard let chore = policy.chores.first(where: { $0.name == name }) else {
            let like = closest(to: name, among: policy.chores.map(\.name))
            refuse(what, .choreNotDue, "there is no chore called \(name)" + (like.map { " (did you mean '\($0)'?)" } ?? " (stctl chores lists them)"),
                   whyCode: "chore_unknown", like.map { ["chore": name, "like": $0] } ?? ["chore": name], at: t)
            return
        }
        if let why = choreNotDue(chore) {
            refuse(what, .choreNotDue, why.reason, whyCode: why.whyCode, why.figures, at: t)
            return
        }
        let claim = ChoreClaim(chore: name, at: clock.wall(at: t), state: .pending, period: period(of: chore)!, day: day.key)
        family.claims.append(claim)
        out.append(.chore(claim))
    }

    /// A parent's answer to the oldest pending claim of a chore.
    mutating func choreDecided(_ name: String, approved: Bool, by: String?, reason: String?, at t: Microseconds) {
        let what = "\(approved ? "approve" : "reject") chore \(name)"
        guard let k = family.claims.firstIndex(where: { $0.chore == name && $0.state == .pending }) else {
            refuse(what, .choreNotClaimed, "no claim of \(name) waits for a parent", ["chore": name], at: t)
            return
        }
        var c = family.claims[k]
        if approved {
            // The points the policy gives now; a chore the policy no longer has pays nothing.
            let points = policy.chores.first { $0.name == name }?.points ?? 0
            c.state = .approved
            c.points = points
            out.append(.ledger(ledger.append(.chore, points: points, at: clock.wall(at: t), note: name)))
        } else {
            c.state = .rejected
        }
        c.decidedAt = clock.wall(at: t)
        c.by = by
        c.answer = reason
        family.claims[k] = c
        out.append(.chore(c))
    }
}
