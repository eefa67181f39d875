import ControlProtocol
import Foundation
import ScreenTimeCore
import ScreenTimeDaemon
import ScreenTimeStore

/// The family loop over the control socket (docs/family.md): a child asks and claims chores, a
/// parent answers. Who may ask is checked here, before anything is logged; what a request may do
/// (is the chore due, can the balance pay) is the engine's. Everything that changes the state is
/// saved before it is answered, and a retry with the same request id is answered, not done again.
extension Child {
    /// The longest reason a child or parent may give, in characters.
    static let maxWords = 300
    /// The longest chore name taken, in characters (a policy's are a few words).
    static let maxChoreName = 100

    mutating func answerFamily(_ request: ControlRequest, from caller: ControlServer.Caller, role: Authority.Role,
                               strangerRefused: ControlReply) throws -> ControlReply {
        if let words = request.reason, words.count > Self.maxWords {
            return .refused(.reasonTooLong, ["length": "\(words.count)", "most": "\(Self.maxWords)"])
        }
        let reason = request.reason.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
        switch request.command {
        case .ask:
            guard role == .child else {
                return role == .stranger ? strangerRefused
                    : .refused(.askIsForChild, system ? ["child": name] : [:])
            }
            guard let minutes = request.minutes, (1...100_000).contains(minutes) else { return .refused(.askMinutes) }
            let id = (system ? "\(name)-" : "") + "\(live.engine.requestsAsked + 1)"
            let screen = request.screen == true
            if screen, !live.engine.policy.screen.configured {
                return .refused(.screenNotLimited, ["minutes": "\(minutes)"])
            }
            return try saveAndAnswer(.timeRequested(id: id, minutes: minutes, reason: reason, screen: screen), request,
                                     asked: "ask \(minutes)\(screen ? " screen" : "") \(reason ?? "")",
                                     caller: caller, counted: .request) { [self] effects, engine in
                if let r = Self.refusal(in: effects) { return .refused(Why(.notAsked, because: Self.why(r))) }
                return ControlReply(ok: true, request: engine.requests.last { $0.id == id }.map { requestLine($0, engine) })
            }

        case .requests:
            guard role != .stranger else { return strangerRefused }
            return ControlReply(ok: true, requests: requestLines())

        case .approve, .deny:
            let approve = request.command == .approve
            let what = approve ? "approve" : "deny"
            if let no = refuseUnlessParent(what, request, caller: caller, role: role) { return no }
            guard let id = request.requestID, !id.isEmpty else { return .refused(.needsRequestID, ["command": what]) }
            guard let asked = live.engine.requests.first(where: { $0.id == id }) else {
                return .refused(.noSuchRequest, system ? ["id": id, "of": name] : ["id": id])
            }
            guard asked.state == .pending else {
                
                var figures = ["id": id, "state": asked.state.rawValue]
                figures["by"] = asked.by
                return .refused(.requestDecidedAlready, figures)
            }
            if let m = request.minutes {
                guard approve else { return .refused(.denyTakesNoMinutes) }
                guard (1...asked.minutes).contains(m) else {
                    return .refused(.approveMinutes, ["id": id, "most": "\(asked.minutes)"])
                }
            }
            if request.gift == true, request.bonus == true { return .refused(.giftOrBonus) }
            let pay: RequestDecision.Pay = request.bonus == true ? .bonus : request.gift == true ? .gift : .points
            if approve, pay != .bonus, asked.screen != true,
               let no = beyondToday(request.minutes ?? asked.minutes, request, doing: .approved, paid: pay == .points) { return no }
            let said = "\(what) \(id) \(pay.rawValue) \(request.minutes.map(String.init) ?? "") \(reason ?? "")"
            let decision = RequestDecision(id: id, approved: approve, pay: pay, minutes: request.minutes, by: parentName(caller, role), reason: reason)
            return try saveAndAnswer(.requestDecided(decision), request, asked: said, caller: caller) { [self] effects, engine in
                if let r = Self.refusal(in: effects) {
                    return .refused(Why(r.code == .insufficientPoints ? .notApprovedPoints : .notApproved, because: Self.why(r)))
                }
                return ControlReply(ok: true, balance: engine.ledger.balance,
                                    request: engine.requests.first { $0.id == id }.map { requestLine($0, engine) })
            }

        case .chores:
            guard role != .stranger else { return strangerRefused }
            return ControlReply(ok: true, chores: choreLines())

        case .choreDone:
            guard role == .child else {
                return role == .stranger ? strangerRefused
                    : .refused(.choreDoneIsForChild, system ? ["child": name] : [:])
            }
            guard let chore = request.chore, !chore.isEmpty else { return .refused(.choreNeedsName) }
            // A chore the policy does not have is refused before anything is kept (a claim of
            // one with a made-up name of any length would be kept for nothing).
            guard chore.count <= Self.maxChoreName, live.engine.policy.chores.contains(where: { $0.name == chore }) else {
                guard chore.count <= Self.maxChoreName else {
                    return .refused(Why(.notClaimed, because: Why(.choreUnknown, ["chore": chore.prefix(40) + "…"])))
                }
                var figures = ["chore": chore]
                figures["like"] = closest(to: chore, among: live.engine.policy.chores.map(\.name))
                return .refused(Why(.notClaimed, because: Why(.choreUnknown, figures)))
            }
            return try saveAndAnswer(.choreDone(chore: chore), request, asked: "chore done \(chore)", caller: caller, counted: .request) { [self] effects, engine in
                if let r = Self.refusal(in: effects) { return .refused(Why(.notClaimed, because: Self.why(r))) }
                return ControlReply(ok: true, chores: choreLines(of: engine).filter { $0.chore == chore })
            }

        case .choreApprove, .choreReject:
            let approve = request.command == .choreApprove
            let what = approve ? "chore approve" : "chore reject"
            if let no = refuseUnlessParent(what, request, caller: caller, role: role) { return no }
            guard let chore = request.chore, !chore.isEmpty, chore.count <= Self.maxChoreName else {
                return .refused(.choreNameTooLong, ["command": what, "most": "\(Self.maxChoreName)"])
            }
            return try saveAndAnswer(.choreDecided(chore: chore, approved: approve, by: parentName(caller, role), reason: reason), request,
                                     asked: "\(what) \(chore) \(reason ?? "")", caller: caller) { [self] effects, engine in
                if let r = Self.refusal(in: effects) { return .refused(Why(.nothingToDecide, because: Self.why(r), ["command": approve ? "approve" : "reject"])) }
                return ControlReply(ok: true, balance: engine.ledger.balance, chores: choreLines(of: engine).filter { $0.chore == chore })
            }

        default:
            return .refused(.notFamily, ["command": request.command.rawValue])
        }
    }

    /// The child's own redemption (the policy has `child_may_redeem`), within `child_redeem_daily_max`.
    mutating func childRedeem(_ request: ControlRequest, minutes: Int64, caller: ControlServer.Caller) throws -> ControlReply {
        if let no = beyondToday(minutes, request, doing: .redeemed) { return no }
        let before = live.engine.ledger.balance
        return try saveAndAnswer(.redeem(minutes: minutes, by: RequestDecision.child), request, asked: "redeem \(minutes) child", caller: caller,
                                 counted: .request) { effects, engine in
            if let r = Self.refusal(in: effects) { return .refused(Why(.notRedeemed, because: Self.why(r))) }
            return ControlReply(ok: true, balance: engine.ledger.balance, cost: before - engine.ledger.balance)
        }
    }

    /// Logs what a request asks for, saves it with the answer before answering (a retry with the
    /// same id is answered as the first time, not carried out again), and carries out what it caused.
    /// `counted`: a child's own request, counted against the day's allowance (`ChildQuota`) once it
    /// is known to be new: a retry of one already carried out is answered, not counted again.
    mutating func saveAndAnswer(_ kind: Event.Kind, _ request: ControlRequest, asked: String, caller: ControlServer.Caller,
                                counted: ChildQuota.Kind? = nil,
                                reply: @escaping ([Effect], Engine) -> ControlReply) throws -> ControlReply {
        if let again = try answeredBefore(request, asked: asked, caller: caller) { return again }
        if let counted, !claims.quota.take(counted, onDay: live.engine.today.start) { return .refused(ChildQuota.refusal(counted)) }
        var event = stamp(kind)
        switch familyPays(event, request: request, caller: caller) {
        case .proceed(let paid): event = paid
        case .answer(let reply): return reply
        }
        let effects = try live.ingestSaved(event, answering: Self.answering(request, asked: asked, caller: caller.credentials.uid, reply: reply))
        household?.turns.turnNow()         // what a parent did goes to the family ledger at once
        pending += effects
        return reply(effects, live.engine)
    }

    static func refusal(in effects: [Effect]) -> Refusal? {
        effects.lazy.compactMap { if case .refused(let r) = $0 { return r } else { return nil } }.first
    }

    /// The engine's refusal as the reply says it: its code and figures.
    static func why(_ r: Refusal) -> Why {
        Why(code: r.whyCode, figures: r.figures) ?? Why(.asSaid, ["detail": r.reason])
    }

    // MARK: What the lists show

    func requestLine(_ r: TimeRequest, _ engine: Engine) -> ControlReply.RequestLine {
        func at(_ w: Microseconds) -> String { RFC3339.format(micros: w, utcOffsetSeconds: engine.utcOffset(at: w)) }
        let expires = r.state == .pending ? r.at + engine.policy.requests.expireAfter : nil
        var line = ControlReply.RequestLine(child: system ? name : nil, id: r.id, at: at(r.at), minutes: r.minutes, reason: r.reason,
                                        state: r.state.rawValue, expiresAt: expires.map(at), pay: r.pay?.rawValue,
                                        minutesGranted: r.minutesGranted, decidedAt: r.decidedAt.map(at), by: r.by, answer: r.answer)
        line.screen = r.screen
        return line
    }

    /// Pending requests first (oldest first), then the rest of the last week, newest first.
    func requestLines() -> [ControlReply.RequestLine] {
        let engine = live.engine
        let all = engine.requests
        return (all.filter { $0.state == .pending } + all.filter { $0.state != .pending }.reversed()).map { requestLine($0, engine) }
    }

    /// A chore as a list shows it: where it stands (`state`), and the claim it stands by, if any.
    func choreLine(_ chore: String, points: Int64, every: String, state: String, note: String?, claim: ChoreClaim?,
                   _ engine: Engine) -> ControlReply.ChoreLine {
        func at(_ w: Microseconds) -> String { RFC3339.format(micros: w, utcOffsetSeconds: engine.utcOffset(at: w)) }
        return ControlReply.ChoreLine(child: system ? name : nil, chore: chore, points: points, every: every, state: state, note: note,
                                      claimedAt: claim.map { at($0.at) }, decidedAt: claim?.decidedAt.map(at), by: claim?.by, answer: claim?.answer)
    }

    /// A claim as a list shows it, with its chore's points and period (the policy's now).
    func claimLine(_ c: ChoreClaim, note: String?, _ engine: Engine) -> ControlReply.ChoreLine {
        let chore = engine.policy.chores.first { $0.name == c.chore }
        return choreLine(c.chore, points: c.points ?? chore?.points ?? 0, every: chore?.every.words ?? "no longer in the policy",
                         state: c.state.rawValue, note: note, claim: c, engine)
    }

    /// Each chore of the policy as it stands in this period; then older claims still waiting.
    func choreLines(of engine: Engine? = nil) -> [ControlReply.ChoreLine] {
        let engine = engine ?? live.engine
        var lines: [ControlReply.ChoreLine] = []
        var shown: [ChoreClaim] = []
        for (chore, claim, notDue) in engine.choresToday {
            if let claim { shown.append(claim) }
            let state = claim?.state.rawValue ?? (notDue == nil ? "open" : "not_due")
            lines.append(choreLine(chore.name, points: chore.points, every: chore.every.words, state: state,
                                   note: claim == nil ? notDue : nil, claim: claim, engine))
        }
        for c in engine.choreClaims where c.state == .pending && !shown.contains(c) {
            lines.append(claimLine(c, note: "claimed on an earlier day", engine))
        }
        return lines
    }

    /// What `status` shows of the family loop: requests pending or answered today, claims
    /// waiting or answered today (nil when there are none).
    func familyStatus() -> (requests: [ControlReply.RequestLine]?, chores: [ControlReply.ChoreLine]?) {
        let engine = live.engine
        let today = engine.today
        func recent(_ decided: Microseconds?) -> Bool { decided.map { $0 >= today.start } ?? false }
        let requests = engine.requests.filter { $0.state == .pending || recent($0.decidedAt) }.map { requestLine($0, engine) }
        let chores = engine.choreClaims.filter { $0.state == .pending || recent($0.decidedAt) }.map { claimLine($0, note: nil, engine) }
        return (requests.isEmpty ? nil : requests, chores.isEmpty ? nil : chores)
    }
}
