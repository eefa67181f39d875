/// Reading and writing the event log's lines (`docs/spec/replay.md`): one JSON object per line.
/// Unknown fields are ignored; an unknown `event` is refused.
public enum EventLog {
    public struct LineError: Error, Equatable, Sendable {
        public var reason: String
    }

    public static func decode(line: String) throws(LineError) -> Event {
        var s = line
        var result: Result<Event, LineError> = .failure(LineError(reason: ""))
        s.withUTF8 { buf in
            do throws(LineError) { result = .success(try decode(bytes: buf)) } catch { result = .failure(error) }
        }
        return try result.get()
    }

    public static func decode(bytes: UnsafeBufferPointer<UInt8>) throws(LineError) -> Event {
        if let event = EventLogFastLines.decode(bytes) { return event }
        return try decodeTree(bytes: bytes)
    }

    /// Any line, read through the JSON tree (`JSONLineReader`).
    static func decodeTree(bytes: UnsafeBufferPointer<UInt8>) throws(LineError) -> Event {
        let value: JSONValue
        do { value = try JSONLineReader.parse(bytes) } catch { throw LineError(reason: error.message) }
        guard case .object(let fields) = value else {
            throw LineError(reason: "an event must be a JSON object, not \(value.typeName)")
        }
        return try decode(Fields(fields))
    }

    /// `stamped`: the daemon's own clocks, for an event that came without them (from a hook).
    static func decode(_ f: Fields, stamped: (WallTime, Microseconds)? = nil) throws(LineError) -> Event {
        let name = try f.string("event")
        var at: WallTime
        var mono: Microseconds? = nil
        if let (wall, m) = stamped {
            at = wall
            mono = m
        } else {
            let atText = try f.string("at")
            guard let parsed = RFC3339.parse(atText) else {
                throw LineError(reason: "'at' is not an RFC 3339 time with offset: \"\(atText)\"")
            }
            at = parsed
        }
        if stamped == nil, let m = f.value("mono"), m != .null {
            guard case .number(let n) = m, let micros = n.micros, micros >= 0 else {
                throw LineError(reason: "'mono' must be a non-negative number of seconds")
            }
            mono = micros
        }
        let kind: Event.Kind
        switch name {
        case "process_started":
            let exe = try f.string("exe")
            guard !exe.isEmpty else { throw LineError(reason: "'exe' must not be empty") }
            kind = .processStarted(ProcessFacts(
                pid: try f.pid("pid"), exe: exe, startTicks: try f.optionalInt("start_ticks"),
                uid: try f.optionalInt("uid").map { UInt32(clamping: $0) }, comm: try f.optionalString("comm"),
                cmdline: try f.optionalStrings("cmdline"), cgroup: try f.optionalString("cgroup"),
                flatpak: try f.optionalString("flatpak"), exeWritable: try f.optionalBool("exe_writable"),
                contentOf: try f.optionalString("content_of")))
        case "process_exited":
            kind = .processExited(pid: try f.pid("pid"))
        case "process_cpu":
            let ms = try f.int("cpu_ms")
            guard ms >= 0 else { throw LineError(reason: "'cpu_ms' must not be negative") }
            kind = .processCPU(pid: try f.pid("pid"), cpuMillis: ms)
        case "focus_changed":
            guard f.value("pid") != nil else { throw LineError(reason: "missing field 'pid' (a number, or null for nothing focused)") }
            let pid: Int32? = f.value("pid") == .null ? nil : try f.pid("pid")
            let lost = try f.optionalBool("hook_lost") == true && pid == nil
            kind = .focusChanged(FocusedWindow(pid: pid, appID: try f.optionalString("app_id"), title: try f.optionalString("title"),
                                               hookLost: lost ? true : nil, flatpak: try f.optionalString("flatpak"),
                                               titleApps: try f.optionalStrings("title_apps")))
        case "input":
            let count = try f.optionalInt("count") ?? 1
            guard count >= 0 else { throw LineError(reason: "'count' must not be negative") }
            kind = .input(count: count)
        case "idle_changed":
            kind = .idleChanged(idle: try f.bool("idle"), since: try f.optionalTime("since"), claimed: try f.optionalBool("claimed") ?? false)
        case "lock_changed":
            kind = .lockChanged(locked: try f.bool("locked"), claimed: try f.optionalBool("claimed") ?? false)
        case "redeem":
            kind = .redeem(minutes: try f.minutes("minutes"), by: try f.optionalString("by"), familySeq: try f.familySeq())
        case "adjust":
            let points = try f.int("points")
            guard points != 0, abs(points) <= 1_000_000_000 else { throw LineError(reason: "'points' must be a non-zero whole number") }
            kind = .adjust(points: points, reason: try f.string("reason"))
        case "tick":
            kind = .tick
        case "daemon_started":
            kind = .daemonStarted(boot: try f.optionalString("boot"))
        case "game_continued":
            kind = .gameContinued(pid: try f.pid("pid"), since: try f.optionalTime("since"))
        case "clock_faked":
            kind = .clockFaked(bootAhead: try f.seconds("boot_ahead"), wallAhead: try f.seconds("wall_ahead"))
        case "time_requested":
            kind = .timeRequested(id: try f.requestID("id"), minutes: try f.minutes("minutes"), reason: try f.optionalString("reason"),
                                  screen: try f.optionalBool("screen") ?? false)
        case "request_decided":
            let approved = try f.bool("approved")
            var pay = RequestDecision.Pay.points
            if let p = try f.optionalString("pay") {
                guard let v = RequestDecision.Pay(rawValue: p) else { throw LineError(reason: "'pay' must be \"points\", \"gift\" or \"bonus\", not \"\(p)\"") }
                pay = v
            }
            let minutes: Int64? = (f.value("minutes") ?? .null) == .null ? nil : try f.minutes("minutes")
            kind = .requestDecided(RequestDecision(id: try f.requestID("id"), approved: approved, pay: pay, minutes: minutes,
                                                   by: try f.optionalString("by"), reason: try f.optionalString("reason"),
                                                   familySeq: try f.familySeq()))
        case "chore_done":
            kind = .choreDone(chore: try f.string("chore"))
        case "chore_decided":
            kind = .choreDecided(chore: try f.string("chore"), approved: try f.bool("approved"),
                                 by: try f.optionalString("by"), reason: try f.optionalString("reason"))
        case "family_entry":
            let kindText = try f.string("kind")
            guard let entryKind = LedgerEntry.Kind(rawValue: kindText) else { throw LineError(reason: "'kind' is not a kind of ledger entry: \"\(kindText)\"") }
            let machine = try f.string("machine")
            guard !machine.isEmpty else { throw LineError(reason: "'machine' must not be empty") }
            guard let seq = try f.familySeq(key: "seq") else { throw LineError(reason: "missing field 'seq'") }
            let points = try f.int("points")
            guard abs(points) <= 1_000_000_000 else { throw LineError(reason: "'points' must be at most 1000000000 either way") }
            kind = .familyEntry(FamilyLedgerEntry(machine: machine, seq: seq, kind: entryKind, points: points, note: try f.optionalString("note")))
        case "bonus_given":
            kind = .bonusGiven(minutes: try f.minutes("minutes"), by: try f.optionalString("by"), reason: try f.optionalString("reason"))
        case "games_stopped":
            guard let until = try f.optionalTime("until") else { throw LineError(reason: "missing field 'until' (a time, RFC 3339)") }
            kind = .gamesStopped(until: until, by: try f.optionalString("by"))
        case "minutes_revoked":
            kind = .minutesRevoked(minutes: try f.minutes("minutes"), refund: try f.bool("refund"), by: try f.optionalString("by"))
        case "session_started":
            kind = .sessionStarted(session: try f.sessionID(), tty: try f.optionalBool("tty") ?? false, remote: try f.optionalBool("remote") ?? false)
        case "session_ended":
            kind = .sessionEnded(session: try f.sessionID())
        case "site_changed":
            guard f.value("host") != nil else { throw LineError(reason: "missing field 'host' (a host name, or null for no web page)") }
            let host: String? = f.value("host") == .null ? nil : try f.string("host")
            let audible = try f.optionalStrings("audible") ?? []
            for h in (host.map { [$0] } ?? []) + audible where !SiteReport.isHost(h) {
                throw LineError(reason: "'host' and 'audible' hold host names (such as \"www.khanacademy.org\"), not \"\(h)\"")
            }
            guard audible.count <= 1000 else { throw LineError(reason: "'audible' may name at most 1000 hosts") }
            kind = .siteChanged(SiteReport(pid: try f.pid("pid"), host: host, audible: audible, focused: try f.optionalBool("focused")))
        case "site_report_ended":
            kind = .siteReportEnded(pid: try f.pid("pid"))
        case "screen_bonus":
            kind = .screenBonus(minutes: try f.minutes("minutes"), by: try f.optionalString("by"), reason: try f.optionalString("reason"))
        case "bedtime_moved":
            let text = try f.string("until")
            guard let minute = HourWindow.minute(of: text), minute > 0 else {
                throw LineError(reason: "'until' must be a local time like \"21:30\" (HH:MM, 00:01 to 24:00), not \"\(text.prefix(40))\"")
            }
            kind = .bedtimeMoved(until: minute, by: try f.optionalString("by"))
        case "free_day":
            kind = .freeDay(by: try f.optionalString("by"), reason: try f.optionalString("reason"))
        case "lease_granted":
            let granted = try f.seconds("granted"), dayTotal = try f.seconds("day_total"), weekTotal = try f.seconds("week_total")
            guard granted >= 0, dayTotal >= granted, weekTotal >= dayTotal else {
                throw LineError(reason: "'granted', 'day_total' and 'week_total' must be 0 or more, each at least the one before")
            }
            var limit: Reason? = nil
            if let text = try f.optionalString("limit") {
                guard let r = Reason(rawValue: text), r == .dailyLimit || r == .weeklyLimit else {
                    throw LineError(reason: "'limit' must be \"daily_limit\" or \"weekly_limit\", not \"\(text)\"")
                }
                limit = r
            }
            var screen = false
            if let of = try f.optionalString("of") {
                guard of == "game" || of == "screen" else { throw LineError(reason: "'of' must be \"game\" or \"screen\", not \"\(of.prefix(40))\"") }
                screen = of == "screen"
            }
            kind = .leaseGranted(LeaseGrant(day: try f.int("day"), granted: granted, dayTotal: dayTotal, weekTotal: weekTotal, limit: limit,
                                            screen: screen))
        case "app_time_shared":
            guard case .array(let items)? = f.value("others") else { throw LineError(reason: "missing field 'others' (a list of {key, today, week})") }
            var shared: [SharedAppTime] = []
            for item in items {
                guard case .object(let o) = item else { throw LineError(reason: "'others' must hold objects") }
                let g = Fields(o)
                let key = try g.string("key")
                guard key.hasPrefix("app:") || key.hasPrefix("group:") else { throw LineError(reason: "an 'others' key is app:NAME or group:NAME, not \"\(key)\"") }
                let today = try g.seconds("today"), week = try g.seconds("week")
                guard today >= 0, week >= today else { throw LineError(reason: "'today' and 'week' must be 0 or more, the week at least the day") }
                shared.append(SharedAppTime(key: key, today: today, week: week))
            }
            kind = .appTimeShared(day: try f.int("day"), shared)
        default:
            throw LineError(reason: "unknown event '\(name)'" + suggestion(for: name, among: knownEvents))
        }
        return Event(at: at, mono: mono, kind)
    }

    /// The events a desktop hook may send over the control socket.
    /// (`site_changed`: from the browser's native messaging host; the daemon names the browser's pid.)
    public static let hookEvents = ["focus_changed", "input", "idle_changed", "lock_changed", "site_changed"]

    /// An event a hook sent, stamped with the daemon's own clocks: a hook cannot choose `at`.
    public static func decode(hookEvent text: String, at: WallTime, mono: Microseconds) throws(LineError) -> Event {
        let value: JSONValue
        do { value = try JSONLineReader.parse(text) } catch { throw LineError(reason: error.message) }
        guard case .object(var fields) = value else { throw LineError(reason: "an event must be a JSON object, not \(value.typeName)") }
        fields.removeAll { $0.0 == "at" || $0.0 == "mono" }
        guard let name = fields.first(where: { $0.0 == "event" })?.1, case .string(let kind) = name, hookEvents.contains(kind) else {
            throw LineError(reason: "a hook may send \(hookEvents.joined(separator: ", ")) events")
        }
        return try decode(Fields(fields), stamped: (at, mono))
    }

    public static let knownEvents = ["process_started", "process_exited", "process_cpu", "focus_changed", "input",
                                     "idle_changed", "lock_changed", "redeem", "adjust", "tick", "daemon_started",
                                     "game_continued", "clock_faked", "time_requested", "request_decided", "chore_done",
                                     "chore_decided", "family_entry", "lease_granted", "app_time_shared", "bonus_given",
                                     "games_stopped", "minutes_revoked", "session_started", "session_ended", "screen_bonus",
                                     "bedtime_moved", "free_day", "site_changed", "site_report_ended"]

    /// One line of the log for an event, with `at` as it was observed.
    public static func encode(_ e: Event) -> String {
        var w = JSONWriter()
        w.beginObject()
        w.key("at"); w.string(RFC3339.format(micros: e.at.micros, utcOffsetSeconds: e.at.utcOffsetSeconds))
        if let m = e.mono { w.key("mono"); w.micros(m) }
        w.key("event"); w.string(e.name)
        switch e.kind {
        case .processStarted(let p):
            w.key("pid"); w.int(Int64(p.pid))
            w.key("exe"); w.string(p.exe)
            if let v = p.startTicks { w.key("start_ticks"); w.int(v) }
            if let v = p.uid { w.key("uid"); w.int(Int64(v)) }
            if let v = p.comm { w.key("comm"); w.string(v) }
            if let v = p.cmdline { w.key("cmdline"); w.beginArray(); for a in v { w.string(a) }; w.endArray() }
            if let v = p.cgroup { w.key("cgroup"); w.string(v) }
            if let v = p.flatpak { w.key("flatpak"); w.string(v) }
            if let v = p.exeWritable { w.key("exe_writable"); w.bool(v) }
            if let v = p.contentOf { w.key("content_of"); w.string(v) }
        case .processExited(let pid):
            w.key("pid"); w.int(Int64(pid))
        case .processCPU(let pid, let ms):
            w.key("pid"); w.int(Int64(pid)); w.key("cpu_ms"); w.int(ms)
        case .focusChanged(let f):
            w.key("pid"); if let p = f.pid { w.int(Int64(p)) } else { w.null() }
            if let v = f.appID { w.key("app_id"); w.string(v) }
            if let v = f.title { w.key("title"); w.string(v) }
            if let v = f.flatpak { w.key("flatpak"); w.string(v) }
            if f.hookLost == true { w.key("hook_lost"); w.bool(true) }
            if let v = f.titleApps { w.key("title_apps"); w.beginArray(); for a in v { w.string(a) }; w.endArray() }
        case .input(let count):
            w.key("count"); w.int(count)
        case .idleChanged(let idle, let since, let claimed):
            w.key("idle"); w.bool(idle)
            if let s = since { w.key("since"); w.string(RFC3339.format(micros: s.micros, utcOffsetSeconds: s.utcOffsetSeconds)) }
            if claimed { w.key("claimed"); w.bool(true) }
        case .lockChanged(let locked, let claimed):
            w.key("locked"); w.bool(locked)
            if claimed { w.key("claimed"); w.bool(true) }
        case .redeem(let minutes, let by, let familySeq):
            w.key("minutes"); w.int(minutes)
            if let b = by { w.key("by"); w.string(b) }
            if let s = familySeq { w.key("family_seq"); w.int(s) }
        case .adjust(let points, let reason):
            w.key("points"); w.int(points); w.key("reason"); w.string(reason)
        case .gameContinued(let pid, let since):
            w.key("pid"); w.int(Int64(pid))
            if let s = since { w.key("since"); w.string(RFC3339.format(micros: s.micros, utcOffsetSeconds: s.utcOffsetSeconds)) }
        case .clockFaked(let boot, let wall):
            w.key("boot_ahead"); w.micros(boot); w.key("wall_ahead"); w.micros(wall)
        case .timeRequested(let id, let minutes, let reason, let screen):
            w.key("id"); w.string(id)
            w.key("minutes"); w.int(minutes)
            if let r = reason { w.key("reason"); w.string(r) }
            if screen { w.key("screen"); w.bool(true) }
        case .requestDecided(let d):
            w.key("id"); w.string(d.id)
            w.key("approved"); w.bool(d.approved)
            w.key("pay"); w.string(d.pay.rawValue)
            if let m = d.minutes { w.key("minutes"); w.int(m) }
            if let b = d.by { w.key("by"); w.string(b) }
            if let r = d.reason { w.key("reason"); w.string(r) }
            if let s = d.familySeq { w.key("family_seq"); w.int(s) }
        case .choreDone(let chore):
            w.key("chore"); w.string(chore)
        case .choreDecided(let chore, let approved, let by, let reason):
            w.key("chore"); w.string(chore)
            w.key("approved"); w.bool(approved)
            if let b = by { w.key("by"); w.string(b) }
            if let r = reason { w.key("reason"); w.string(r) }
        case .familyEntry(let e):
            w.key("machine"); w.string(e.machine)
            w.key("seq"); w.int(e.seq)
            w.key("kind"); w.string(e.kind.rawValue)
            w.key("points"); w.int(e.points)
            if let n = e.note { w.key("note"); w.string(n) }
        case .bonusGiven(let minutes, let by, let reason):
            w.key("minutes"); w.int(minutes)
            if let b = by { w.key("by"); w.string(b) }
            if let r = reason { w.key("reason"); w.string(r) }
        case .gamesStopped(let until, let by):
            w.key("until"); w.string(RFC3339.format(micros: until.micros, utcOffsetSeconds: until.utcOffsetSeconds))
            if let b = by { w.key("by"); w.string(b) }
        case .minutesRevoked(let minutes, let refund, let by):
            w.key("minutes"); w.int(minutes)
            w.key("refund"); w.bool(refund)
            if let b = by { w.key("by"); w.string(b) }
        case .sessionStarted(let session, let tty, let remote):
            w.key("session"); w.string(session)
            if tty { w.key("tty"); w.bool(true) }
            if remote { w.key("remote"); w.bool(true) }
        case .sessionEnded(let session):
            w.key("session"); w.string(session)
        case .screenBonus(let minutes, let by, let reason):
            w.key("minutes"); w.int(minutes)
            if let b = by { w.key("by"); w.string(b) }
            if let r = reason { w.key("reason"); w.string(r) }
        case .bedtimeMoved(let until, let by):
            w.key("until"); w.string(HourWindow.text(minute: until))
            if let b = by { w.key("by"); w.string(b) }
        case .freeDay(let by, let reason):
            if let b = by { w.key("by"); w.string(b) }
            if let r = reason { w.key("reason"); w.string(r) }
        case .siteChanged(let r):
            w.key("pid"); w.int(Int64(r.pid))
            w.key("host"); if let h = r.host { w.string(h) } else { w.null() }
            if !r.audible.isEmpty { w.key("audible"); w.beginArray(); for h in r.audible { w.string(h) }; w.endArray() }
            if let v = r.focused { w.key("focused"); w.bool(v) }
        case .siteReportEnded(let pid):
            w.key("pid"); w.int(Int64(pid))
        case .leaseGranted(let g):
            w.key("day"); w.int(g.day)
            w.key("granted"); w.micros(g.granted)
            w.key("day_total"); w.micros(g.dayTotal)
            w.key("week_total"); w.micros(g.weekTotal)
            if let l = g.limit { w.key("limit"); w.string(l.rawValue) }
            if g.screen { w.key("of"); w.string("screen") }
        case .appTimeShared(let day, let shared):
            w.key("day"); w.int(day)
            w.key("others"); w.beginArray()
            for s in shared {
                w.beginObject()
                w.key("key"); w.string(s.key)
                w.key("today"); w.micros(s.today)
                w.key("week"); w.micros(s.week)
                w.endObject()
            }
            w.endArray()
        case .daemonStarted(let boot):
            if let b = boot { w.key("boot"); w.string(b) }
        case .tick:
            break
        }
        w.endObject()
        return w.output
    }
}

/// Typed access to an event's fields, with errors that name the field and what it must be.
struct Fields {
    let fields: [(String, JSONValue)]
    init(_ fields: [(String, JSONValue)]) { self.fields = fields }

    func value(_ key: String) -> JSONValue? {
        for (k, v) in fields where k == key { return v }
        return nil
    }

    private func required(_ key: String, _ what: String) throws(EventLog.LineError) -> JSONValue {
        guard let v = value(key) else { throw EventLog.LineError(reason: "missing field '\(key)' (\(what))") }
        return v
    }

    private func wrongType(_ key: String, _ what: String, _ v: JSONValue) -> EventLog.LineError {
        EventLog.LineError(reason: "'\(key)' must be \(what), not \(v.typeName)")
    }

    func string(_ key: String) throws(EventLog.LineError) -> String {
        let v = try required(key, "a string")
        guard case .string(let s) = v else { throw wrongType(key, "a string", v) }
        return s
    }

    func optionalString(_ key: String) throws(EventLog.LineError) -> String? {
        guard let v = value(key), v != .null else { return nil }
        guard case .string(let s) = v else { throw wrongType(key, "a string", v) }
        return s
    }

    /// An RFC 3339 time with its offset, when given.
    func optionalTime(_ key: String) throws(EventLog.LineError) -> WallTime? {
        guard let s = try optionalString(key) else { return nil }
        guard let w = RFC3339.parse(s) else { throw EventLog.LineError(reason: "'\(key)' is not an RFC 3339 time with offset: \"\(s)\"") }
        return w
    }

    func int(_ key: String) throws(EventLog.LineError) -> Int64 {
        let v = try required(key, "a whole number")
        guard case .number(let n) = v, let i = n.int64 else { throw wrongType(key, "a whole number", v) }
        return i
    }

    func optionalInt(_ key: String) throws(EventLog.LineError) -> Int64? {
        guard let v = value(key), v != .null else { return nil }
        guard case .number(let n) = v, let i = n.int64 else { throw wrongType(key, "a whole number", v) }
        return i
    }

    /// An entry's number in the family ledger (1 or more), when the event has one.
    func familySeq(key: String = "family_seq") throws(EventLog.LineError) -> Int64? {
        guard let n = try optionalInt(key) else { return nil }
        guard n >= 1 else { throw EventLog.LineError(reason: "'\(key)' must be 1 or more") }
        return n
    }

    /// A signed number of seconds, as microseconds.
    func seconds(_ key: String) throws(EventLog.LineError) -> Microseconds {
        let v = try required(key, "a number of seconds")
        guard case .number(let n) = v, let micros = n.micros else { throw wrongType(key, "a number of seconds", v) }
        return micros
    }

    /// Minutes of game time: a whole number from 1 to 100000.
    func minutes(_ key: String) throws(EventLog.LineError) -> Int64 {
        let m = try int(key)
        guard m > 0, m <= 100_000 else { throw EventLog.LineError(reason: "'\(key)' must be a whole number from 1 to 100000") }
        return m
    }

    /// A request's id: 1 to 64 characters.
    func requestID(_ key: String) throws(EventLog.LineError) -> String {
        let id = try string(key)
        guard !id.isEmpty, id.count <= 64 else { throw EventLog.LineError(reason: "'\(key)' must be 1 to 64 characters") }
        return id
    }

    func pid(_ key: String) throws(EventLog.LineError) -> Int32 {
        let i = try int(key)
        guard i > 0, i <= Int64(Int32.max) else { throw EventLog.LineError(reason: "'\(key)' must be a process id (a positive whole number)") }
        return Int32(i)
    }

    func bool(_ key: String) throws(EventLog.LineError) -> Bool {
        let v = try required(key, "true or false")
        guard case .bool(let b) = v else { throw wrongType(key, "true or false", v) }
        return b
    }

    /// A logind session id: 1 to 64 characters of letters, digits, `_`, `-` and `.`.
    func sessionID() throws(EventLog.LineError) -> String {
        let id = try string("session")
        guard (1...64).contains(id.utf8.count), id.utf8.allSatisfy({ $0 < 128 && ($0 == 95 || $0 == 45 || $0 == 46 || (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0)) }) else {
            throw EventLog.LineError(reason: "'session' must be a logind session id (1 to 64 letters, digits, '_', '-', '.'), not \"\(id.prefix(40))\"")
        }
        return id
    }

    func optionalBool(_ key: String) throws(EventLog.LineError) -> Bool? {
        guard let v = value(key), v != .null else { return nil }
        guard case .bool(let b) = v else { throw wrongType(key, "true or false", v) }
        return b
    }

    func optionalStrings(_ key: String) throws(EventLog.LineError) -> [String]? {
        guard let v = value(key), v != .null else { return nil }
        guard case .array(let items) = v else { throw wrongType(key, "an array of strings", v) }
        var out: [String] = []
        out.reserveCapacity(items.count)
        for item in items {
            guard case .string(let s) = item else { throw wrongType(key, "an array of strings", v) }
            out.append(s)
        }
        return out
    }
}

/// ` (did you mean 'x'?)` when a close word exists, else nothing.
public func suggestion(for word: String, among candidates: [String]) -> String {
    closest(to: word, among: candidates).map { " (did you mean '\($0)'?)" } ?? ""
}

/// The candidate a mistyped word most likely meant, if one is close enough.
public func closest(to word: String, among candidates: [String]) -> String? {
    var best: (String, Int)? = nil
    for c in candidates {
        let d = editDistance(word.lowercased(), c.lowercased())
        if d <= max(2, c.count / 3), best == nil || d < best!.1 { best = (c, d) }
    }
    return best?.0
}

func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var prev = Array(0...b.count)
    var cur = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        cur[0] = i
        for j in 1...b.count {
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        swap(&prev, &cur)
    }
    return prev[b.count]
}
