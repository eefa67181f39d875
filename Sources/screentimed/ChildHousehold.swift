import ControlProtocol
import Foundation
import Logging
import ScreenTimeCore
import ScreenTimeDaemon
import ScreenTimeLinux
import ScreenTimeStore

/// What a child's daemon keeps of the family database it shares their ledger through
/// (`[household]`, docs/household.md): the link that speaks to it, and whether it answers.
struct HouseholdShare {
    let settings: Policy.Household
    /// The child's name in the family ledger.
    let child: String
    let executable: String
    var link: HouseholdLink? = nil
    /// When to speak to it, what is in flight, and whether it answers (`HouseholdTurns`).
    var turns = HouseholdTurns()

    /// A redemption waits this long for the family's answer (the link gives up after 4 s itself).
    static let payPatience: Int32 = 5_000

    /// The password in the credentials file (its first line).
    static func readCredentials(_ path: String) throws -> String {
        guard let password = HouseholdMessage.Hello.password(inFile: path) else {
            throw CredentialsUnreadable(description: "\(path): cannot read the family database's credentials (does the file exist, and may the daemon read it?)")
        }
        return password
    }

    struct CredentialsUnreadable: Error, CustomStringConvertible { var description: String }

    init(settings: Policy.Household, child: String, executable: String) {
        self.settings = settings
        self.child = child
        self.executable = executable
    }
}

/// A test-only fault (`SCREENTIME_TEST_CRASH=POINT:FILE`, debug builds only): the daemon kills itself (SIGKILL) at
/// POINT of its conversation with the family database, the first time only (FILE, made then,
/// says it did), as a power cut there would: `family-paid` (the family ledger paid a redemption,
/// this state does not have it yet), `before-send` (entries about to be sent), `sent` (the family
/// ledger has them, this state does not know it yet).
enum HouseholdCrashPoint {
    static func reached(_ point: String) {
        #if TEST_FAULTS
        guard let spec = ProcessInfo.processInfo.environment["SCREENTIME_TEST_CRASH"], spec.hasPrefix(point + ":") else { return }
        let marker = String(spec.dropFirst(point.count + 1))
        guard !FileManager.default.fileExists(atPath: marker), FileManager.default.createFile(atPath: marker, contents: nil) else { return }
        kill(getpid(), SIGKILL)
        #endif
    }
}

extension Child {
    /// Shares the ledger through the family database the policy names (`[household]`), or stops
    /// sharing it when the policy names none.
    mutating func joinHousehold() {
        guard let settings = live.engine.policy.household else {
            if household != nil { log("the policy names no family database any more: this machine's ledger is its own again", level: .notice, ["event": "household_left"]) }
            household = nil
            return
        }
        household = HouseholdShare(settings: settings, child: settings.child ?? name, executable: InstalledFiles.beside("screentime-household"))
        log("sharing \(settings.child ?? name)'s ledger through the family database \(settings.database) as machine \(settings.machine)",
            ["event": "household_joined"])
    }

    /// The link's socket, for the run loop's poll (nil: no household, or no link running).
    var householdDescriptor: Int32? { household?.link.flatMap { $0.gone ? nil : $0.descriptor } }

    /// When the household next needs a turn (monotonic).
    var householdDue: Int64? {
        household.map { $0.turns.due(linkRunning: $0.link != nil, leaseWanted: live.engine.leaseWanted != nil) }
    }

    /// Starts the link when there is none, reads what it answered, and starts the next background
    /// request when it is time. Called on every turn of the run loop.
    mutating func followHousehold(now: Int64) {
        guard var share = household else { return }
        if share.link?.gone == true {
            share.link = nil
            share.turns.linkGone(now: now)
            household = share
            householdUnreachable("the household link stopped; it is started again in \(HouseholdTurns.restartAfter / Seconds.micro) s")
            return
        }
        if share.link == nil {
            guard share.turns.startLink(now: now) else { return }
            do {
                let password = try HouseholdShare.readCredentials(share.settings.credentials)
                share.link = try HouseholdLink(executable: share.executable,
                                               hello: .init(database: share.settings.database, password: password, caFile: share.settings.caFile))
                share.turns.linkStarted(now: now)
            } catch {
                household = share
                householdUnreachable("\(error)")
                return
            }
        }
        // A request the link has not answered for long (it gives up after 4 s itself): the
        // database is out of reach; a late answer is not taken.
        let silences = share.turns.silences(now: now)
        household = share
        for why in silences { householdUnreachable(why) }
        for reply in household?.link?.receive() ?? [] { householdReply(reply, now: now) }
        askForLease(now: now)
        guard var s = household, let link = s.link, s.turns.takeTurn(now: now) else { return }
        let marks = live.householdMarks
        let own = (try? live.store.entriesToSend(after: marks.sentThrough, limit: 100)) ?? []
        if let last = own.last {
            HouseholdCrashPoint.reached("before-send")
            let id = link.send(.send, child: s.child, machine: s.settings.machine, entries: own.map(Self.familyEntry))
            s.turns.sending(id: id, through: last.seq, now: now)
        } else {
            // The read shares this computer's game time of limited apps and groups, and brings the others'.
            let apps = live.engine.appTimeToShare
            let id = link.send(.read, child: s.child, machine: s.settings.machine, after: marks.readThrough, limit: 500,
                               appTime: apps.map { .init(day: $0.day, weekStart: $0.weekStart, used: $0.used.map { .init(key: $0.key, today: $0.today) }) })
            s.turns.reading(id: id, appDay: apps?.day, now: now)
        }
        household = s
    }

    /// One of this machine's ledger entries as the family ledger takes it: its origin is its hash
    /// here, which no other entry of any state has.
    static func familyEntry(_ e: StoredLedgerEntry) -> HouseholdMessage.Entry {
        HouseholdMessage.Entry(origin: "entry:" + e.hash, kind: e.entry.kind.rawValue, points: e.entry.points, atMicros: e.entry.at, note: e.entry.note ?? "")
    }

    /// Asks the family database for game time or screen time when the engine wants some (a lease in flight at a time).
    mutating func askForLease(now: Int64) {
        guard var s = household, let link = s.link, !link.gone, s.turns.mayAskLease(now: now),
              let want = live.engine.leaseWanted else { return }
        let id = link.send(.lease, child: s.child, machine: s.settings.machine,
                           lease: .init(day: want.day, weekStart: want.weekStart, want: want.want, dailyLimit: want.dailyLimit,
                                        weeklyLimit: want.weeklyLimit, screen: want.screen ? true : nil))
        s.turns.leaseAsked(id: id, day: want.day, screen: want.screen, now: now)
        household = s
    }

    mutating func householdReply(_ reply: HouseholdMessage.Reply, now: Int64) {
        guard let answered = household?.turns.answer(id: reply.id) else { return }
        switch answered {
        case .nothing:
            return
        case .lease(let day, let screen):
            guard reply.error == nil, let granted = reply.granted, let dayTotal = reply.dayTotal, let weekTotal = reply.weekTotal else {
                household?.turns.leaseFailed(now: now)
                householdUnreachable(reply.error ?? "the family database's answer to a lease was not understood")
                return
            }
            householdAnswered()
            observe(.leaseGranted(LeaseGrant(day: day, granted: granted, dayTotal: dayTotal, weekTotal: weekTotal,
                                             limit: reply.reached.flatMap(Reason.init(rawValue:)), screen: screen)))
        case .flight(let flight):
            if let error = reply.error {
                householdUnreachable(error)
                return
            }
            householdAnswered()
            if let through = flight.sendingThrough {
                HouseholdCrashPoint.reached("sent")
                live.householdMarks.sentThrough = through
                household?.turns.turnNow()          // read next, at once
            } else {
                mirror(reply.rows ?? [])
                if let day = flight.appDay, let others = reply.others {
                    let shared = others.map { SharedAppTime(key: $0.key, today: $0.today, week: $0.week) }
                    if household?.turns.othersPlayed(day: day, shared) == true { observe(.appTimeShared(day: day, shared)) }
                }
            }
        }
    }
    /// The family ledger's entries this machine did not write here become events (`family_entry`),
    /// so that the balance here is the family's, and a replay of this log reaches it too.
    mutating func mirror(_ rows: [HouseholdMessage.Row]) {
        guard let share = household else { return }
        var marks = live.householdMarks
        for row in rows where row.seq > marks.readThrough {
            if row.machine == share.settings.machine {
                let known: Bool
                do {
                    known = row.origin.hasPrefix("entry:") ? try live.store.hasLedgerEntry(hash: String(row.origin.dropFirst(6)))
                                                           : try live.store.hasLedgerEntry(familySeq: row.seq)
                } catch {
                    // Not known either way: read again at the next turn, from this entry on.
                    log("the family ledger's entry \(row.seq) is not read yet: \(error)", level: .error, ["event": "household_read_failed"])
                    break
                }
                if known { marks.readThrough = row.seq; continue }
                log("the family ledger's entry \(row.seq) (\(row.kind), \(row.points) points) was written by this machine, but this state does not have it (a crash between the two, or a state started anew): it is counted here now",
                    level: .warning, ["event": "household_entry_recovered", "family_seq": "\(row.seq)"])
            }
            marks.readThrough = row.seq
            guard let kind = LedgerEntry.Kind(rawValue: row.kind) else {
                log("the family ledger's entry \(row.seq) is of a kind this screentime does not know (\(row.kind)): not counted here; update screentime",
                    level: .error, ["event": "household_entry_unknown", "family_seq": "\(row.seq)"])
                continue
            }
            observe(.familyEntry(FamilyLedgerEntry(machine: row.machine, seq: row.seq, kind: kind, points: row.points, note: row.note.isEmpty ? nil : row.note)))
        }
        live.householdMarks = marks
    }

    mutating func householdAnswered() {
        guard let share = household else { return }
        switch household?.turns.reached() {
        case .again(let since):
            log("the family database answers again (it did not since \(RFC3339.format(micros: since, utcOffsetSeconds: live.engine.utcOffset(at: since))))",
                level: .notice, ["event": "household_reachable"])
        case .first:
            log("the family database answers: \(share.settings.machine) shares \(share.child)'s ledger", level: .notice, ["event": "household_reachable"])
        case nil:
            break
        }
    }

    mutating func householdUnreachable(_ why: String) {
        // Said once when it goes out of reach (status tells the latest reason; the link is tried
        // again every few seconds, and each try would be a line).
        guard household?.turns.unreachable(why, wall: SystemClock.wallMicros()) == true else { return }
        log("the family database is out of reach: \(why); games stop when what is held here runs out, learning is still counted and sent when it is back",
            level: .warning, ["event": "household_unreachable", "reason": "\(why)"])
    }

    /// What `status` says of the family database (nil: none).
    func householdStatus() -> ControlReply.Status.Household? {
        guard let share = household else { return nil }
        let marks = live.householdMarks
        return ControlReply.Status.Household(
            machine: share.settings.machine, child: share.child, reachable: share.turns.reachable,
            unreachableSince: share.turns.unreachableSince.map { RFC3339.format(micros: $0, utcOffsetSeconds: live.engine.utcOffset(at: $0)) },
            problem: share.turns.problem ?? (share.turns.answered ? nil : "not answered yet"),
            unsent: (try? live.store.countEntriesToSend(after: marks.sentThrough)) ?? 0, readThrough: marks.readThrough)
    }
}
