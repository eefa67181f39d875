import ScreenTimeWords

/// Why the daemon refused a command: a code and its figures (what varies: minutes, an id, a name),
/// never an English sentence to be shown. Each reader puts it in its reader's words: stctl in the
/// caller's language, the parents' page in the parent's. The reply's `error` still carries the
/// English (`words(.english)`), for a reader that does not know the code (a script reading
/// `--json`, a client older than the daemon) and for the journal.
///
/// What a person might read is translated; what only a program reads (a desktop hook's or a
/// browser extension's report refused) is `as_said`, its `detail` in English, for their logs.
/// A `detail` figure is quoted as the system said it (a file's error, a policy line's problem).
public struct Why: Sendable, Equatable {
    public var code: Code
    public var figures: [String: String]

    public init(_ code: Code, _ figures: [String: String] = [:]) {
        self.code = code
        self.figures = figures
    }

    /// A refusal made of another (`because`): "not redeemed: it costs 40 points …". The inner
    /// one's code is the figure `because`; both share the figures (their names do not overlap).
    public init(_ code: Code, because inner: Why, _ figures: [String: String] = [:]) {
        self.code = code
        self.figures = inner.figures.merging(figures) { _, outer in outer }
        self.figures["because"] = inner.code.rawValue
    }

    /// From a reply: nil when the code is not one this reader knows (a newer daemon).
    public init?(code: String, figures: [String: String]) {
        guard let c = Code(rawValue: code) else { return nil }
        self.init(c, figures)
    }

    public enum Code: String, Sendable, CaseIterable {
        // The control socket itself.
        case tooManyConnections = "too_many_connections"
        case tooManyOfYours = "too_many_of_yours"
        case requestTooLong = "request_too_long"
        case notARequest = "not_a_request"
        case otherVersion = "other_version"
        case requestIDLength = "request_id_length"
        case requestIDReused = "request_id_reused"
        case requestAnswerLost = "request_answer_lost"
        case notForOneChild = "not_for_one_child"
        case notFamily = "not_family"
        case notSaved = "not_saved"
        // Who may ask.
        case stranger
        case strangerOf = "stranger_of"
        case forParents = "for_parents"
        case forParentsNoPassphrase = "for_parents_no_passphrase"
        case forParentsChildMayAsk = "for_parents_child_may_ask"
        case wrongPassphrase = "wrong_passphrase"
        case passphraseLocked = "passphrase_locked"
        case notParentOfChild = "not_parent_of_child"
        case familyForParents = "family_for_parents"
        case notParentOfAny = "not_parent_of_any"
        case onlyYourself = "only_yourself"
        case noSuchChild = "no_such_child"
        case nameAChild = "name_a_child"
        case sessionNotForChild = "session_not_for_child"
        case logoutNeedsToken = "logout_needs_token"
        case parentSessionOver = "parent_session_over"
        case loginNeedsPassphrase = "login_needs_passphrase"
        case loginMinutes = "login_minutes"
        case loginNoPassphrase = "login_no_passphrase"
        case whichParent = "which_parent"
        case notAParent = "not_a_parent"
        // The child's asks and claims, a day's quota.
        case askedEnoughToday = "asked_enough_today"
        case claimedEnoughToday = "claimed_enough_today"
        case askIsForChild = "ask_is_for_child"
        case askMinutes = "ask_minutes"
        case screenNotLimited = "screen_not_limited"
        case notAsked = "not_asked"
        case reasonTooLong = "reason_too_long"
        case choreDoneIsForChild = "chore_done_is_for_child"
        case choreNeedsName = "chore_needs_name"
        case choreNameTooLong = "chore_name_too_long"
        case notClaimed = "not_claimed"
        case nothingToDecide = "nothing_to_decide"
        // Requests answered.
        case needsRequestID = "needs_request_id"
        case noSuchRequest = "no_such_request"
        case requestDecidedAlready = "request_decided_already"
        case denyTakesNoMinutes = "deny_takes_no_minutes"
        case approveMinutes = "approve_minutes"
        case giftOrBonus = "gift_or_bonus"
        case notApproved = "not_approved"
        case notApprovedPoints = "not_approved_points"
        // Points and time.
        case redeemMinutes = "redeem_minutes"
        case notRedeemed = "not_redeemed"
        case beyondToday = "beyond_today"
        case adjustPoints = "adjust_points"
        case adjustReason = "adjust_reason"
        case bonusMinutes = "bonus_minutes"
        case noBonus = "no_bonus"
        case bedtimeTime = "bedtime_time"
        case bedtimePast = "bedtime_past"
        case stopGamesWeek = "stop_games_week"
        case stopGamesUntil = "stop_games_until"
        case revokeMinutes = "revoke_minutes"
        case nothingTakenBack = "nothing_taken_back"
        case notParentsSay = "not_parents_say"
        // The family database (a household).
        case familyOutOfReach = "family_out_of_reach"
        case familyNoAnswer = "family_no_answer"
        case familyFailed = "family_failed"
        case familyPaidBefore = "family_paid_before"
        case familyBalance = "family_balance"
        case familyNotUnderstood = "family_not_understood"
        // Looking back.
        case daysRange = "days_range"
        case dayAsDate = "day_as_date"
        case forgetNeedsDay = "forget_needs_day"
        case forgetLater = "forget_later"
        case simulateNeedsPolicy = "simulate_needs_policy"
        case simulatePolicyProblem = "simulate_policy_problem"
        // The policy changed from stctl or the page.
        case policyChangeCount = "policy_change_count"
        case policyNotChanged = "policy_not_changed"
        case policySaysThat = "policy_says_that"
        case policyWouldBreak = "policy_would_break"
        case undoNeedsNumber = "undo_needs_number"
        case noSuchChange = "no_such_change"
        case undoneAlready = "undone_already"
        case changedSince = "changed_since"
        case undoWouldBreak = "undo_would_break"
        case changeNotRecorded = "change_not_recorded"
        case changeNotRecordedNorBack = "change_not_recorded_nor_back"
        case changeNotTaken = "change_not_taken"
        /// As said, in English: what only a program reads (a desktop hook's or a browser
        /// extension's report refused), or what cannot be put in other words.
        case asSaid = "as_said"
        // The engine's own (ScreenTimeCore's RefusalCode, finer where its words differ).
        case insufficientPoints = "insufficient_points"
        case childRedeemLimit = "child_redeem_limit"
        case childMayNotRedeem = "child_may_not_redeem"
        case requestsPerDay = "requests_per_day"
        case requestExists = "request_exists"
        case requestNotKnown = "request_not_known"
        case requestNotPending = "request_not_pending"
        case choreUnknown = "chore_unknown"
        case choreNotToday = "chore_not_today"
        case choreWaits = "chore_waits"
        case chorePaid = "chore_paid"
        case choreNotClaimed = "chore_not_claimed"
        case bonusTooLong = "bonus_too_long"
        case nothingToRevoke = "nothing_to_revoke"
    }

    /// In the words of `tr` (English unless given), the figures filled in.
    public func words(_ tr: Translator = .english) -> String {
        var f = figures
        // What the figures name in words: the child ("the child" when the daemon watches one),
        // durations, the inner refusal.
        if f["child"] == nil { f["child"] = tr("the child") }
        if let inner = f["because"].flatMap(Code.init(rawValue:)) {
            var rest = figures
            rest["because"] = nil
            f["because"] = Why(inner, rest).words(tr)
        }
        if let s = f["expires"].flatMap(Int64.init) { f["expires"] = DurationWords.words(seconds: s, tr) }
        // The commands a request may name: the reader's own list (not sent: a client that sends
        // frames without reading its replies must not fill its socket sooner than before).
        if code == .notARequest, f["commands"] == nil { f["commands"] = ControlRequest.Command.allCases.map(\.rawValue).joined(separator: ", ") }
        if let days = f["days"] { f["days"] = days.split(separator: " ").map { WeekdayWords.name(String($0), tr) }.joined(separator: ", ") }
        return sentence(f, tr)
    }

    // One message per code: a plain literal, so tools/messages finds each for the translators.
    private func sentence(_ f: [String: String], _ tr: Translator) -> String {
        switch code {
        case .tooManyConnections: return tr("too many connections; try again", f)
        case .tooManyOfYours: return tr("too many connections from you ({most} at once); close one and try again", f)
        case .requestTooLong: return tr("a request may be at most {most} bytes", f)
        case .notARequest: return tr("not a request: one JSON object per line, with \"v\": {version} and a \"command\" ({commands})", f)
        case .otherVersion: return tr("this screentimed speaks protocol version {version}, not {asked}", f)
        case .requestIDLength: return tr("a request id is 1 to {most} bytes (stctl makes one, a UUID, for each command); nothing was changed", f)
        case .requestIDReused: return tr("request id {id} was used before for another request ({before}); nothing was changed: send a new id for a new request", f)
        case .requestAnswerLost: return tr("request {id} was carried out before, but its answer cannot be read again; nothing more was changed: see stctl history", f)
        case .notForOneChild: return tr("{command} is answered by the daemon, not for one child", f)
        case .notFamily: return tr("{command} is not a family request", f)
        case .notSaved: return tr("nothing was changed, because it cannot be saved: {detail}", f)
        case .stranger: return tr("only the child this daemon watches, and parents, may ask; you are {who}", f)
        case .strangerOf: return tr("only {child} and their parents may ask about {child}; you are {who}", f)
        case .forParents: return tr("{command} is for parents: run it as root (sudo stctl …) or as a user in the policy's [parents] users or groups, or give the parent passphrase; you are {who}", f)
        case .forParentsNoPassphrase: return tr("{command} is for parents, and the policy sets no parent passphrase ([parents] passphrase_hash); you are {who}", f)
        case .forParentsChildMayAsk: return tr("{because}; a child can ask for the time instead: stctl ask {minutes}", f)
        case .wrongPassphrase:
            if f["tries"] == "0" { return tr("wrong parent passphrase; that was the fifth: parent commands by passphrase are locked for 15 minutes", f) }
            return tr.plural("wrong parent passphrase ({tries} more try before a 15-minute lock)", "wrong parent passphrase ({tries} more tries before a 15-minute lock)", Int(f["tries"] ?? "") ?? 0, f)
        case .passphraseLocked:
            let minutes = Int(f["minutes"] ?? "") ?? 0
            return tr.plural("parent commands by passphrase are locked for {minutes} more minute after 5 wrong passphrases", "parent commands by passphrase are locked for {minutes} more minutes after 5 wrong passphrases", minutes, f)
        case .notParentOfChild: return tr("you ({who}) are not a parent of a child named {child} here", f)
        case .familyForParents: return tr("family is for parents: as root, as a user in the policies' [parents] users or groups, or in a parent session (login); you are {who}", f)
        case .notParentOfAny: return tr("you ({who}) are not a parent of any child watched here; a parent by passphrase names the child with --user NAME", f)
        case .onlyYourself: return tr("you may ask only about yourself, not {child}", f)
        case .noSuchChild:
            if f["children"] != nil { return tr("no child named {child} is watched here (children: {children})", f) }
            return tr("no child named {child} is watched here", f)
        case .nameAChild:
            if f["children"] != nil { return tr("several children are watched here: name one with --user NAME ({children})", f) }
            return tr("several children are watched here: name one with --user NAME", f)
        case .sessionNotForChild: return tr("this parent session is not for {child}: log in with {child}'s parent passphrase", f)
        case .logoutNeedsToken: return tr("logout needs the parent session's token", f)
        case .parentSessionOver: return tr("the parent session is over (logged out, timed out, or the daemon started again): log in again with the parent passphrase", f)
        case .loginNeedsPassphrase: return tr("login needs the parent passphrase", f)
        case .loginMinutes: return tr("login takes minutes from {least} to {most}", f)
        case .loginNoPassphrase: return tr("login is by the parent passphrase, and no policy here sets one ([parents] passphrase_hash)", f)
        case .whichParent: return tr("say which parent you are: {parents}", f)
        case .notAParent: return tr("{parent} is not one of the parents the policy names ({parents})", f)
        case .askedEnoughToday: return tr("you have asked {most} times today, and that is all for one day; nothing was kept. Ask a parent, or try again tomorrow", f)
        case .claimedEnoughToday: return tr("your desktop has said idle or locked {most} times today; nothing more is kept today", f)
        case .askIsForChild: return tr("ask is for {child} to ask for game time; a parent gives time with stctl redeem, or answers a request with stctl approve", f)
        case .askMinutes: return tr("ask needs minutes from 1 to 100000", f)
        case .screenNotLimited: return tr("not asked: this computer's screen time is not limited, so there is no screen time to ask for (ask for game time: stctl ask {minutes})", f)
        case .notAsked: return tr("not asked: {because}", f)
        case .reasonTooLong: return tr("the reason is {length} characters long; at most {most}, please", f)
        case .choreDoneIsForChild: return tr("chore done is for {child} to say; a parent answers with stctl chore approve or reject", f)
        case .choreNeedsName: return tr("chore done needs the chore's name (stctl chores lists them)", f)
        case .choreNameTooLong: return tr("{command} needs the chore's name, at most {most} characters (stctl chores lists them)", f)
        case .notClaimed: return tr("not claimed: {because}", f)
        case .nothingToDecide:
            return f["command"] == "reject" ? tr("nothing to reject: {because}", f) : tr("nothing to approve: {because}", f)
        case .needsRequestID: return tr("{command} needs the request's id (stctl requests lists them)", f)
        case .noSuchRequest:
            if f["of"] != nil { return tr("there is no request {id} of {of} (stctl requests lists them)", f) }
            return tr("there is no request {id} here (stctl requests lists them)", f)
        case .requestDecidedAlready:
            let state = f["state"].map { RequestWords.state($0, tr) } ?? ""
            var g = f
            g["state"] = state
            if f["by"] != nil { return tr("request {id} was {state} already (by {by})", g) }
            return tr("request {id} was {state} already", g)
        case .denyTakesNoMinutes: return tr("deny takes no minutes", f)
        case .approveMinutes: return tr("request {id} asked for {most} min: approve from 1 to {most} min (for more minutes, stctl redeem)", f)
        case .giftOrBonus: return tr("approve as a gift or as bonus time, not both", f)
        case .notApproved: return tr("not approved: {because}; the request still waits", f)
        case .notApprovedPoints: return tr("not approved: {because}; approve it as a gift (--gift) or with fewer minutes (--minutes); the request still waits", f)
        case .redeemMinutes: return tr("redeem needs minutes from 1 to 100000", f)
        case .notRedeemed: return tr("not redeemed: {because}", f)
        case .beyondToday:
            var g = f
            g["keeps"] = f["expires"] != nil ? tr("they expire {expires} after they are given", f) : tr("they do not expire", f)
            if f["doing"] == "approved" {
                return tr("today's limits leave room for {room} more minutes of games, so {over} of these {minutes} minutes cannot be played today ({keeps}). Nothing was approved; the request still waits. To let {child} play longer today, give bonus time instead; or go ahead anyway", g)
            }
            return tr("today's limits leave room for {room} more minutes of games, so {over} of these {minutes} minutes cannot be played today ({keeps}). Nothing was redeemed. To let {child} play longer today, give bonus time instead; or go ahead anyway", g)
        case .adjustPoints: return tr("adjust needs non-zero points", f)
        case .adjustReason: return tr("adjust needs a reason", f)
        case .bonusMinutes: return tr("bonus needs minutes from 1 to 1440 (a day); nothing was given", f)
        case .noBonus: return tr("no bonus time was given: {because}", f)
        case .bedtimeTime: return tr("bedtime needs a time tonight such as 21:30 (HH:MM, up to 24:00); nothing was changed", f)
        case .bedtimePast: return tr("it is already past {time} today: bedtime tonight can be from now up to 24:00 (midnight), when a new day starts with its own hours; nothing was changed", f)
        case .stopGamesWeek: return tr("games may be stopped for a week at most; {until} is further off", f)
        case .stopGamesUntil: return tr("until must be a time of day such as 19:00, a date and time such as 2026-11-28T07:00:00+01:00, or now; not \"{until}\"", f)
        case .revokeMinutes: return tr("revoke needs minutes from 1 to 100000; nothing was taken back", f)
        case .nothingTakenBack: return tr("nothing was taken back: {because}", f)
        case .notParentsSay: return tr("{command} is not one of a parent's say over today", f)
        case .familyOutOfReach: return tr("the family database is out of reach ({detail}); points are spent from the family's balance, which only it knows: try again when it answers (stctl status says)", f)
        case .familyNoAnswer: return tr("the family database did not answer in time; if it took the points after all, the same request again (same id) is not paid twice: try again", f)
        case .familyFailed: return tr("{detail}; points are spent from the family's balance, which only the family database knows: try again when it answers", f)
        case .familyPaidBefore: return tr("the family ledger's entry {entry} paid this request before, and it was carried out here (stctl history)", f)
        case .familyBalance:
            return tr("it costs {cost} points and the family's balance is {balance} (the points of all of {child}'s computers)", f)
        case .familyNotUnderstood: return tr("the family database's answer was not understood; nothing was spent here", f)
        case .daysRange: return tr("{command} needs days from 1 to {most}", f)
        case .dayAsDate: return tr("{command} needs a day as YYYY-MM-DD, not \"{day}\"", f)
        case .forgetNeedsDay: return tr("forget needs a day as YYYY-MM-DD (what is before it is removed)", f)
        case .forgetLater: return tr("forget removes what is before a day up to today; {day} is later", f)
        case .simulateNeedsPolicy: return tr("simulate needs the text of a policy", f)
        case .simulatePolicyProblem: return tr("the new policy cannot be used: {detail}", f)
        case .policyChangeCount: return tr("policy_change needs 1 to 50 changes, each a key and a value (none: remove it)", f)
        case .policyNotChanged: return tr("nothing was changed: {detail}", f)
        case .policySaysThat: return tr("nothing would change: the policy already says that", f)
        case .policyWouldBreak: return tr("nothing was changed: with this change the policy would have a problem: {detail}", f)
        case .undoNeedsNumber: return tr("policy undo needs the number of the change (stctl policy history lists them)", f)
        case .noSuchChange: return tr("there is no change number {id} of this policy", f)
        case .undoneAlready: return tr("change {id} was undone already, by change {later}", f)
        case .changedSince: return tr("the policy file was changed after change {id} (by a later change or by hand): undo the later changes first, newest first; nothing was changed", f)
        case .undoWouldBreak: return tr("change {id} is not undone: the policy before it has a problem: {detail}", f)
        case .changeNotRecorded: return tr("nothing was changed: the change could not be recorded ({detail})", f)
        case .changeNotRecordedNorBack: return tr("the policy file was changed but the change could not be recorded ({detail}), nor the file put back: check {file}", f)
        case .changeNotTaken: return tr("the policy file was changed (change {id}), but the daemon did not take it: {detail}", f)
        case .asSaid: return f["detail"] ?? ""
        case .insufficientPoints: return tr.plural("it costs {cost} point and the balance is {balance}", "it costs {cost} points and the balance is {balance}", Int(f["cost"] ?? "") ?? 0, f)
        case .childRedeemLimit: return tr("a child may redeem {most} min a day, and {already} min were redeemed today", f)
        case .childMayNotRedeem: return tr("the policy lets only a parent redeem points (a child may ask: stctl ask)", f)
        case .requestsPerDay: return tr.plural("a child may ask {most} time a day, and asked {today} times today", "a child may ask {most} times a day, and asked {today} times today", Int(f["most"] ?? "") ?? 0, f)
        case .requestExists: return tr("a request with id {id} exists already", f)
        case .requestNotKnown: return tr("request {id} is not known", f)
        case .requestNotPending:
            var g = f
            g["state"] = f["state"].map { RequestWords.state($0, tr) } ?? ""
            return tr("request {id} was {state} already", g)
        case .choreUnknown:
            if f["like"] != nil { return tr("there is no chore called {chore} (did you mean '{like}'?)", f) }
            return tr("there is no chore called {chore} (stctl chores lists them)", f)
        case .choreNotToday: return tr("{chore} is done on {days}, not today", f)
        case .choreWaits:
            switch f["period"] {
            case "day": return tr("{chore} was claimed today and waits for a parent", f)
            case "week": return tr("{chore} was claimed this week and waits for a parent", f)
            default: return tr("{chore} was claimed and waits for a parent", f)
            }
        case .chorePaid:
            switch f["period"] {
            case "day": return tr("{chore} was done and paid today", f)
            case "week": return tr("{chore} was done and paid this week", f)
            default: return tr("{chore} was done and paid", f)
            }
        case .choreNotClaimed: return tr("no claim of {chore} waits for a parent", f)
        case .bonusTooLong: return tr("a day has 24 hours; bonus time for today may not be more", f)
        case .nothingToRevoke: return tr("there are no unused redeemed or given minutes to take back", f)
        }
    }
}

/// A request's state in words ("approved", "denied", …).
public enum RequestWords {
    public static func state(_ state: String, _ tr: Translator = .english) -> String {
        switch state {
        case "pending": return tr("pending", context: "request")
        case "approved": return tr("approved", context: "request")
        case "denied": return tr("denied", context: "request")
        case "expired": return tr("expired", context: "request")
        case "refused": return tr("refused", context: "request")
        default: return state
        }
    }
}

/// A weekday's name from its policy key (`mon` … `sun`).
public enum WeekdayWords {
    public static func name(_ key: String, _ tr: Translator = .english) -> String {
        switch key {
        case "mon": return tr("Monday", context: "weekday")
        case "tue": return tr("Tuesday", context: "weekday")
        case "wed": return tr("Wednesday", context: "weekday")
        case "thu": return tr("Thursday", context: "weekday")
        case "fri": return tr("Friday", context: "weekday")
        case "sat": return tr("Saturday", context: "weekday")
        case "sun": return tr("Sunday", context: "weekday")
        default: return key
        }
    }
}

/// "19:00" today, "07:00 tomorrow", "Monday 07:00" further on: a clock time in the reader's words.
public enum ClockWords {
    public static func words(_ clock: String, daysAhead: Int64, weekday: String, _ tr: Translator = .english) -> String {
        switch daysAhead {
        case 0: return clock
        case 1: return tr("{time} tomorrow", ["time": clock])
        default: return tr("{weekday} {time}", ["weekday": WeekdayWords.name(weekday, tr), "time": clock])
        }
    }
}

/// "40 s", "20 min", "1 h 05 min", "7 days": a duration in the reader's words (whole days from two days on).
public enum DurationWords {
    public static func words(seconds s: Int64, _ tr: Translator = .english) -> String {
        if s >= 2 * 86_400 { return tr.plural("{n} day", "{n} days", Int(s / 86_400)) }
        if s < 60 { return tr("{s} s", ["s": String(s)]) }
        let m = s / 60
        if m < 60 { return tr("{m} min", ["m": String(m)]) }
        return tr("{h} h {mm} min", ["h": String(m / 60), "mm": m % 60 < 10 ? "0\(m % 60)" : "\(m % 60)"])
    }
}

extension ControlReply {
    /// A refusal: its code and figures, and the English for readers that do not know the code.
    public static func refused(_ why: Why) -> ControlReply {
        var reply = ControlReply(ok: false, error: why.words())
        reply.code = why.code.rawValue
        reply.figures = why.figures.isEmpty ? nil : why.figures
        return reply
    }

    public static func refused(_ code: Why.Code, _ figures: [String: String] = [:]) -> ControlReply { refused(Why(code, figures)) }

    /// Why it was refused, in the words of `tr`; the daemon's English when the code is not known here.
    public func refusalWords(_ tr: Translator) -> String {
        // Known only when the refusal it wraps (`because`) is known too.
        if let code, let why = Why(code: code, figures: figures ?? [:]), why.figures["because"].map({ Why.Code(rawValue: $0) != nil }) ?? true {
            return why.words(tr)
        }
        return error ?? tr("the daemon refused, and did not say why")
    }
}
