import ControlProtocol
import ScreenTimeWords

/// The line the family page shows once after a form: what was done (a status, green), or why
/// nothing was (an alert, red), so that a refusal never looks like a success.
public enum Flash: Sendable, Equatable {
    case done(String)
    case refused(String)

    /// The daemon's answer to a form without its reply's code: `done` when it carried it out,
    /// else its words after the page's "Not done:" (`PageWords.refusal`).
    public static func answer(ok: Bool, done: String, error: String?, tr: Translator = .english) -> Flash {
        ok ? .done(done) : .refused(PageWords.refusal(error, tr))
    }

    /// The same from the daemon's reply: its refusal's code and figures in the language of `tr`.
    public static func answer(_ reply: ControlReply, done: String, tr: Translator = .english) -> Flash {
        reply.ok ? .done(done) : .refused(PageWords.refusal(reply, tr))
    }

    var html: String {
        switch self {
        case .done(let text): return "<p class=\"flash\" role=\"status\">\(HTML.escape(text))</p>"
        case .refused(let text): return "<p class=\"error\" role=\"alert\">\(HTML.escape(text))</p>"
        }
    }
}

/// The daemon words its refusals for stctl ("approve it as a gift (--gift) or with fewer minutes
/// (--minutes)"); a parent on the page has buttons, not options. A refusal comes with its code and
/// figures (`Why`): the page says each code whose stctl words name a command or an option in words
/// of its own (a message per code, in the language of `tr`), and every other code as stctl does.
/// The daemon's English is never looked into; only a refusal without a code this page knows (a
/// daemon older or newer than the page) is shown as sent, with any command or option it mentions
/// left out.
public enum PageWords {
    /// A refusal of the daemon's, from its code and figures, in the page's words in the language
    /// of `tr`: "Not approved: it costs 40 points and the balance is 10: give it as a gift, or
    /// approve fewer minutes; the request still waits."
    public static func refusal(_ reply: ControlReply, _ tr: Translator = .english) -> String {
        // Known only when the refusal it wraps (`because`) is known too.
        guard let code = reply.code, let why = Why(code: code, figures: reply.figures ?? [:]),
              why.figures["because"].map({ Why.Code(rawValue: $0) != nil }) ?? true else { return refusal(reply.error, tr) }
        return sentence(words(why, tr), saysItself: saysItself.contains(why.code), tr)
    }

    /// The daemon's words without a code (a daemon older than its codes, a code newer than the
    /// page) after the page's "Not done:", any mention of a command or an option left out.
    public static func refusal(_ error: String?, _ tr: Translator = .english) -> String {
        sentence(error.map(withoutCommandWords) ?? tr("refused"), saysItself: false, tr)
    }

    /// "Not done: …." around a refusal; one that says itself what was not done ("not approved: …")
    /// is shown as it is, its first letter a capital.
    static func sentence(_ why: String, saysItself: Bool, _ tr: Translator) -> String {
        let end = why.hasSuffix(".") ? "" : "."
        guard saysItself else { return tr("Not done: {why}", ["why": why + end]) }
        return why.prefix(1).uppercased() + why.dropFirst() + end
    }

    /// The codes whose words begin with what was not done ("not approved", "nothing was changed").
    static let saysItself: Set<Why.Code> = [.notSaved, .screenNotLimited, .notAsked, .notClaimed, .nothingToDecide, .notApproved, .notApprovedPoints,
                                           .notRedeemed, .nothingTakenBack, .policyNotChanged, .policySaysThat, .policyWouldBreak, .changeNotRecorded]

    /// A refusal in the page's words: each code whose stctl words name a command or an option has
    /// a message of the page's (what stctl lists is on the family page; a command to run is left
    /// out); a refusal that wraps another (`because`) says the inner one in the page's words too.
    /// Every other code as `Why` says it.
    static func words(_ why: Why, _ tr: Translator) -> String {
        var f = why.figures
        if f["child"] == nil { f["child"] = tr("the child") }
        if let s = f["expires"].flatMap(Int64.init) { f["expires"] = DurationWords.words(seconds: s, tr) }
        if let inner = f["because"].flatMap(Why.Code.init(rawValue:)) {
            var rest = why.figures
            rest["because"] = nil
            f["because"] = words(Why(inner, rest), tr)
        }
        switch why.code {
        // Refusals that wrap another.
        case .forParentsChildMayAsk: return tr("{because}; a child can ask for the time instead", f)
        case .notAsked: return tr("not asked: {because}", f)
        case .notClaimed: return tr("not claimed: {because}", f)
        case .nothingToDecide: return f["command"] == "reject" ? tr("nothing to reject: {because}", f) : tr("nothing to approve: {because}", f)
        case .notApproved: return tr("not approved: {because}; the request still waits", f)
        case .notApprovedPoints: return tr("not approved: {because}: give it as a gift, or approve fewer minutes; the request still waits", f)
        case .notRedeemed: return tr("not redeemed: {because}", f)
        case .noBonus: return tr("no bonus time was given: {because}", f)
        case .nothingTakenBack: return tr("nothing was taken back: {because}", f)
        // What stctl says with a command or an option, in the page's words.
        case .requestIDLength: return tr("a request id is 1 to {most} bytes; nothing was changed", f)
        case .requestAnswerLost: return tr("request {id} was carried out before, but its answer cannot be read again; nothing more was changed", f)
        case .forParents: return tr("{command} is for parents: run it as root or as a user in the policy's [parents] users or groups, or give the parent passphrase; you are {who}", f)
        case .notParentOfAny: return tr("you ({who}) are not a parent of any child watched here", f)
        case .nameAChild: return tr("several children are watched here", f)
        case .askIsForChild: return tr("ask is for {child} to ask for game time", f)
        case .screenNotLimited: return tr("not asked: this computer's screen time is not limited, so there is no screen time to ask for", f)
        case .choreDoneIsForChild: return tr("chore done is for {child} to say", f)
        case .choreNeedsName: return tr("chore done needs the chore's name (the chores still waiting are on the family page)", f)
        case .choreNameTooLong: return tr("{command} needs the chore's name, at most {most} characters (the chores still waiting are on the family page)", f)
        case .needsRequestID: return tr("{command} needs the request's id (the requests still waiting are on the family page)", f)
        case .noSuchRequest:
            if f["of"] != nil { return tr("there is no request {id} of {of} (the requests still waiting are on the family page)", f) }
            return tr("there is no request {id} here (the requests still waiting are on the family page)", f)
        case .approveMinutes: return tr("request {id} asked for {most} min: approve from 1 to {most} min (for more minutes, redeem points)", f)
        case .beyondToday:
            f["keeps"] = f["expires"] != nil ? tr("they expire {expires} after they are given", f) : tr("they do not expire", f)
            if f["doing"] == "approved" {
                return tr("today's limits leave room for {room} more minutes of games, so {over} of these {minutes} minutes cannot be played today ({keeps}). Nothing was approved; the request still waits. To let {child} play longer today, give bonus time instead; or tick “Even beyond today's limits” and send it again", f)
            }
            return tr("today's limits leave room for {room} more minutes of games, so {over} of these {minutes} minutes cannot be played today ({keeps}). Nothing was redeemed. To let {child} play longer today, give bonus time instead; or tick “Even beyond today's limits” and send it again", f)
        case .familyOutOfReach: return tr("the family database is out of reach ({detail}); points are spent from the family's balance, which only it knows: try again when it answers", f)
        case .familyPaidBefore: return tr("the family ledger's entry {entry} paid this request before, and it was carried out here", f)
        case .undoNeedsNumber: return tr("policy undo needs the number of the change", f)
        case .childMayNotRedeem: return tr("the policy lets only a parent redeem points", f)
        case .choreUnknown where f["like"] == nil: return tr("there is no chore called {chore} (the chores still waiting are on the family page)", f)
        default: return why.words(tr)
        }
    }

    /// Leaves out of words without a code any mention of a command or an option (`stctl`, `--`),
    /// the same in every language: a parenthesis that names one, then the part of a clause
    /// (between semicolons) from the colon before such a word ("several children are watched here:
    /// name one with --user NAME"), or the whole clause when it has no such colon.
    static func withoutCommandWords(_ text: String) -> String {
        func firstCommandWord(_ s: Substring) -> Substring.Index? {
            // not shown: a command's and an option's mark, looked for, never shown
            [s.firstRange(of: "stctl")?.lowerBound, s.firstRange(of: "--")?.lowerBound].compactMap { $0 }.min()
        }
        func commandWords(_ s: Substring) -> Bool { firstCommandWord(s) != nil }
        var out = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "("), let close = rest[open...].firstIndex(of: ")") {
            let inside = rest[open...close]
            var before = rest[..<open]
            if commandWords(inside) {
                if before.hasSuffix(" ") { before = before.dropLast() }
                out += before
            } else {
                out += before + inside
            }
            rest = rest[rest.index(after: close)...]
        }
        out += rest
        return out.split(separator: "; ", omittingEmptySubsequences: false).compactMap { clause -> Substring? in
            guard let word = firstCommandWord(clause) else { return clause }
            return Array(clause[..<word].ranges(of: ": ")).last.map { clause[..<$0.lowerBound] }
        }.joined(separator: "; ")
    }
}
