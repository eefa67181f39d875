import ScreenTimeCore

extension ControlReply {
    /// Reads a reply line. Those the daemon writes by hand (`line`: a status, a redemption's
    /// balance, a refusal) are read by hand too; anything else — lists, requests, chores, a field
    /// this reader does not know, a value of another type — through `Codable`
    /// (`ControlProtocol.decode`), which gives the same reply or the error.
    ///
    /// By hand for a measured reason: `Codable` makes the runtime look up, for each type it
    /// decodes, conformances among the program's thousands of records, a third of
    /// `stctl status`'s instructions (callgrind, docs/benchmarks.md).
    public static func read(line: [UInt8]) throws -> ControlReply {
        if line.count <= ControlProtocol.maxFrame,
           let value = try? line.withUnsafeBufferPointer({ buf throws(JSONLineError) in try JSONLineReader.parse(buf) }),
           let reply = HandReader.reply(value) {
            return reply
        }
        return try ControlProtocol.decode(ControlReply.self, from: line)
    }
}

/// Each function answers nil for anything it was not written for (then `Codable` reads it).
private enum HandReader {
    typealias Fields = [(String, JSONValue)]

    static func reply(_ value: JSONValue) -> ControlReply? {
        guard case .object(let fields) = value, unique(fields) else { return nil }
        var reply = ControlReply(ok: false)
        var v: Int?, ok: Bool?
        for (key, value) in fields {
            switch key {
            case "v": guard let n = int(value) else { return nil }; v = Int(exactly: n)
            case "ok": guard case .bool(let b) = value else { return nil }; ok = b
            case "error": guard let s = optionalString(value) else { return nil }; reply.error = s
            case "note": guard let s = optionalString(value) else { return nil }; reply.note = s
            case "balance": guard let n = optionalInt(value) else { return nil }; reply.balance = n
            case "cost": guard let n = optionalInt(value) else { return nil }; reply.cost = n
            case "status":
                if value == .null { continue }
                guard let s = status(value) else { return nil }
                reply.status = s
            default: return nil
            }
        }
        guard let v, let ok else { return nil }
        reply.v = v
        reply.ok = ok
        return reply
    }

    static func status(_ value: JSONValue) -> ControlReply.Status? {
        guard case .object(let fields) = value, unique(fields) else { return nil }
        var ints: [String: Int64] = [:]
        var observers: ControlReply.Status.Observers?
        var hooks: [String]?, blindSpots: [String]?, blindSpotCodes: [BlindSpot]?
        var texts: [String: String?] = ["current_app": nil, "current_category": nil, "current_counts": nil, "current_site": nil, "schedule": nil]
        var notices: [ControlReply.Status.Notice]?
        var currentTrusted: Bool?
        var appTimeLeft: [ControlReply.Status.AppTime]?
        let required = ["balance", "reward_available_seconds", "reward_remaining_seconds", "reward_today_remaining_seconds",
                        "reward_used_today_seconds", "learning_today_seconds", "points_today", "points_per_reward_minute"]
        let optionalInts = ["goal_seconds", "streak_days", "allowance_left_seconds", "allowance_today_seconds"]
        for (key, value) in fields {
            if required.contains(key) {
                guard let n = int(value) else { return nil }
                ints[key] = n
            } else if optionalInts.contains(key) {
                guard let n = optionalInt(value) else { return nil }
                if let n { ints[key] = n }
            } else if texts.keys.contains(key) {
                guard let s = optionalString(value) else { return nil }
                texts[key] = .some(s)     // a nil value would remove the key
            } else {
                switch key {
                case "observers":
                    guard case .object(let o) = value, unique(o), o.count == 4 else { return nil }
                    var flags: [String: Bool] = [:]
                    for (k, v) in o { guard case .bool(let b) = v else { return nil }; flags[k] = b }
                    guard let proc = flags["proc"], let logind = flags["logind"], let focus = flags["focus_hook"],
                          let notifications = flags["notifications"] else { return nil }
                    observers = .init(proc: proc, logind: logind, focusHook: focus, notifications: notifications)
                case "hooks": guard let a = strings(value) else { return nil }; hooks = a
                case "current_trusted": guard case .bool(let b) = value else { return nil }; currentTrusted = b
                case "blind_spots": guard let a = strings(value) else { return nil }; blindSpots = a
                case "blind_spot_codes":
                    guard case .array(let items) = value else { return nil }
                    var out: [BlindSpot] = []
                    for item in items {
                        guard case .object(let b) = item, unique(b), case .string(let name)? = field(b, "code") else { return nil }
                        let code = BlindSpot.Code(rawValue: name) ?? .unknown
                        var figures: [String: String] = [:]
                        switch field(b, "figures") {
                        case nil: guard b.count == 1 else { return nil }
                        case .object(let f)?:
                            guard b.count == 2, unique(f) else { return nil }
                            for (k, v) in f { guard case .string(let s) = v else { return nil }; figures[k] = s }
                        default: return nil
                        }
                        out.append(BlindSpot(code, figures))
                    }
                    blindSpotCodes = out
                case "notices":
                    if value == .null { continue }
                    guard case .array(let items) = value else { return nil }
                    var out: [ControlReply.Status.Notice] = []
                    for item in items {
                        guard case .object(let n) = item, unique(n), n.count == 5, let id = int(field(n, "id")),
                              case .string(let summary)? = field(n, "summary"), case .string(let body)? = field(n, "body"),
                              case .string(let urgency)? = field(n, "urgency"), case .bool(let shown)? = field(n, "shown") else { return nil }
                        out.append(.init(id: id, summary: summary, body: body, urgency: urgency, shown: shown))
                    }
                    notices = out
                case "app_time_left":
                    if value == .null { continue }
                    guard case .array(let items) = value else { return nil }
                    var out: [ControlReply.Status.AppTime] = []
                    for item in items {
                        guard case .object(let a) = item, unique(a), a.count == 2, case .string(let app)? = field(a, "app"),
                              let seconds = int(field(a, "seconds")) else { return nil }
                        out.append(.init(app: app, seconds: seconds))
                    }
                    appTimeLeft = out
                default:
                    return nil      // requests, chores, household, or a field of a newer daemon
                }
            }
        }
        guard required.allSatisfy({ ints[$0] != nil }), let observers, let hooks, let blindSpots else { return nil }
        var s = ControlReply.Status(balance: ints["balance"]!, rewardAvailableSeconds: ints["reward_available_seconds"]!,
                                    rewardRemainingSeconds: ints["reward_remaining_seconds"]!,
                                    rewardTodayRemainingSeconds: ints["reward_today_remaining_seconds"]!,
                                    rewardUsedTodaySeconds: ints["reward_used_today_seconds"]!, learningTodaySeconds: ints["learning_today_seconds"]!,
                                    pointsToday: ints["points_today"]!, pointsPerRewardMinute: ints["points_per_reward_minute"]!,
                                    currentApp: texts["current_app"]!, currentCategory: texts["current_category"]!,
                                    currentCounts: texts["current_counts"]!, observers: observers, hooks: hooks, blindSpots: blindSpots)
        s.blindSpotCodes = blindSpotCodes
        s.schedule = texts["schedule"]!
        s.currentSite = texts["current_site"]!
        s.currentTrusted = currentTrusted
        s.notices = notices
        s.goalSeconds = ints["goal_seconds"]
        s.streakDays = ints["streak_days"]
        s.allowanceLeftSeconds = ints["allowance_left_seconds"]
        s.allowanceTodaySeconds = ints["allowance_today_seconds"]
        s.appTimeLeft = appTimeLeft
        return s
    }

    /// A key twice: left to `Codable`, whatever it makes of it.
    static func unique(_ fields: Fields) -> Bool {
        var seen: [String] = []
        for (k, _) in fields { if seen.contains(k) { return false }; seen.append(k) }
        return true
    }

    static func field(_ fields: Fields, _ key: String) -> JSONValue? { fields.first { $0.0 == key }?.1 }

    static func int(_ value: JSONValue?) -> Int64? {
        guard case .number(let n)? = value else { return nil }
        return n.int64
    }

    /// nil: not read here; .some(nil): null.
    static func optionalInt(_ value: JSONValue) -> Int64?? {
        if value == .null { return .some(nil) }
        guard let n = int(value) else { return nil }
        return .some(n)
    }

    static func optionalString(_ value: JSONValue) -> String?? {
        if value == .null { return .some(nil) }
        guard case .string(let s) = value else { return nil }
        return .some(s)
    }

    static func strings(_ value: JSONValue) -> [String]? {
        guard case .array(let items) = value else { return nil }
        var out: [String] = []
        for item in items { guard case .string(let s) = item else { return nil }; out.append(s) }
        return out
    }
}
