import ControlProtocol
import ScreenTimeCore
import ScreenTimeLinux

/// A spending decided against the family's balance (docs/household.md): a redemption or an
/// approval paid in points is paid in the family database first, then carried out here.
extension Child {
    /// What the family ledger says of a spending before it is carried out here.
    enum FamilyPayment {
        /// Carry out this event (it says the family ledger paid it), or the one asked (nothing to pay).
        case proceed(Event)
        /// Answer this; nothing is carried out.
        case answer(ControlReply)
    }

    /// A redemption or an approval paid in points is decided against the family's balance, in the
    /// family database, before it is carried out here: two machines spending the last points at
    /// once, one wins. What the engine would refuse anyway (not the balance: the family knows it
    /// better) is left to the engine to refuse. The origin is the parent's request id, so that a
    /// retry after a crash is paid once.
    mutating func familyPays(_ event: Event, request: ControlRequest, caller: ControlServer.Caller) -> FamilyPayment {
        guard let share = household else { return .proceed(event) }
        let placeholder = Int64.max
        let trialKind: Event.Kind
        switch event.kind {
        case .redeem(let minutes, let by, nil): trialKind = .redeem(minutes: minutes, by: by, familySeq: placeholder)
        case .requestDecided(var d) where d.approved && d.pay == .points && d.familySeq == nil:
            d.familySeq = placeholder
            trialKind = .requestDecided(d)
        default: return .proceed(event)
        }
        var trial = live.engine
        var effects: [Effect] = []
        trial.apply(Event(at: event.at, mono: event.mono, trialKind), into: &effects)
        guard Self.refusal(in: effects) == nil,
              let spent = effects.lazy.compactMap({ e -> LedgerEntry? in if case .ledger(let l) = e, l.familySeq == placeholder { return l } else { return nil } }).first
        else { return .proceed(event) }
        // Refused, as the engine's refusals are: "not redeemed: …", "not approved: …; the request still waits".
        let redeem = if case .redeem = event.kind { true } else { false }
        func no(_ why: Why.Code, _ figures: [String: String] = [:]) -> FamilyPayment {
            .answer(.refused(Why(redeem ? .notRedeemed : why == .familyBalance ? .notApprovedPoints : .notApproved, because: Why(why, figures))))
        }
        guard let link = share.link, !link.gone else {
            return no(.familyOutOfReach, ["detail": share.turns.problem ?? "no link to it"])
        }
        let origin = "request:\(caller.credentials.uid):" + (request.id ?? RandomToken.hex())
        let id = link.send(.pay, child: share.child, machine: share.settings.machine,
                           entries: [.init(origin: origin, kind: spent.kind.rawValue, points: spent.points, atMicros: spent.at, note: spent.note ?? "")])
        guard let reply = link.wait(for: id, timeoutMillis: HouseholdShare.payPatience) else {
            householdUnreachable("no answer to a redemption within \(HouseholdShare.payPatience / 1000) s")
            return no(.familyNoAnswer)
        }
        if let error = reply.error {
            householdUnreachable(error)
            return no(.familyFailed, ["detail": error])
        }
        householdAnswered()
        switch reply.outcome {
        case "appended", "duplicate":
            guard let seq = reply.seq else { break }
            if (try? live.store.hasLedgerEntry(familySeq: seq)) == true {
                return no(.familyPaidBefore, ["entry": "\(seq)"])
            }
            let paid: Event.Kind
            switch event.kind {
            case .redeem(let minutes, let by, _): paid = .redeem(minutes: minutes, by: by, familySeq: seq)
            case .requestDecided(var d):
                d.familySeq = seq
                paid = .requestDecided(d)
            default: return .proceed(event)
            }
            HouseholdCrashPoint.reached("family-paid")
            log("the family ledger paid \(-spent.points) points for \(request.command.rawValue) as its entry \(seq) (family balance now \(reply.balance ?? 0))",
                ["event": "household_paid", "family_seq": "\(seq)"])
            return .proceed(Event(at: event.at, mono: event.mono, paid))
        case "refused":
            return no(.familyBalance, ["cost": "\(-spent.points)", "balance": "\(reply.balance ?? 0)", "child": share.child])
        default: break
        }
        return no(.familyNotUnderstood)
    }
}
