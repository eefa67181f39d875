@testable import ScreenTimeCore
import ScreenTimeDaemon
import Testing

/// When a child's daemon speaks to the family database, on a fake clock: each figure follows from
/// the constants of `HouseholdTurns` and the moments given.
@Suite("The family database's turns")
struct HouseholdTurnsTests {
    static let s = Seconds.micro
    /// A moment well after the start (monotonic).
    static let t0: Microseconds = 5_000 * Seconds.micro

    @Test("no link: started at once, again only 10 s after a start that failed; started: a turn at once, then every second, one in flight at a time")
    func turns() {
        var h = HouseholdTurns()
        #expect(h.due(linkRunning: false, leaseWanted: false) == 0)
        let r1 = h.startLink(now: Self.t0)
        #expect(r1)
        let r2 = h.startLink(now: Self.t0 + 9 * Self.s)
        #expect(!r2, "the start failed: tried again after 10 s")
        #expect(h.due(linkRunning: false, leaseWanted: false) == Self.t0 + 10 * Self.s)
        let r3 = h.startLink(now: Self.t0 + 10 * Self.s)
        #expect(r3)
        let start = Self.t0 + 10 * Self.s
        h.linkStarted(now: start)
        #expect(h.due(linkRunning: true, leaseWanted: false) == start)
        let r4 = h.takeTurn(now: start)
        #expect(r4)
        h.reading(id: 1, appDay: nil, now: start)
        #expect(h.due(linkRunning: true, leaseWanted: false) == .max, "a request in flight: no turn is due")
        let r5 = h.takeTurn(now: start + 5 * Self.s)
        #expect(!r5)
        let r6 = h.answer(id: 1)
        #expect(r6 == .flight(.init(id: 1, sendingThrough: nil, since: start, appDay: nil)))
        let r7 = h.answer(id: 1)
        #expect(r7 == .nothing, "answered once")
        #expect(h.due(linkRunning: true, leaseWanted: false) == start + HouseholdTurns.turnEvery)
        let r8 = h.takeTurn(now: start + HouseholdTurns.turnEvery - 1)
        #expect(!r8)
        let r9 = h.takeTurn(now: start + HouseholdTurns.turnEvery)
        #expect(r9)
    }

    @Test("a send answered: read next at once (the caller says so after it is saved); a parent's act: a turn now")
    func sendThenRead() {
        var h = HouseholdTurns()
        h.linkStarted(now: Self.t0)
        let r10 = h.takeTurn(now: Self.t0)
        #expect(r10)
        h.sending(id: 7, through: 42, now: Self.t0)
        guard case .flight(let f) = h.answer(id: 7) else { Issue.record("the send was not matched"); return }
        #expect(f.sendingThrough == 42)
        #expect(h.due(linkRunning: true, leaseWanted: false) == Self.t0 + HouseholdTurns.turnEvery, "not before the caller has taken the answer")
        h.turnNow()
        let r11 = h.takeTurn(now: Self.t0 + 1)
        #expect(r11)
    }

    @Test("silence: a request unanswered for more than 10 s is given up, a lease too (asked again 5 s later); a late answer is not taken")
    func silence() {
        var h = HouseholdTurns()
        h.linkStarted(now: Self.t0)
        let r12 = h.takeTurn(now: Self.t0)
        #expect(r12)
        h.reading(id: 3, appDay: 20_000, now: Self.t0)
        #expect(h.mayAskLease(now: Self.t0))
        h.leaseAsked(id: 4, day: 20_000, now: Self.t0 + Self.s)
        #expect(!h.mayAskLease(now: Self.t0 + 2 * Self.s), "one lease at a time")
        #expect(h.silences(now: Self.t0 + HouseholdTurns.silence).isEmpty, "10 s exactly is not yet silence")
        let first = h.silences(now: Self.t0 + HouseholdTurns.silence + 1)
        #expect(first.count == 1 && first[0].contains("has not answered for 10 s"))
        let later = Self.t0 + Self.s + HouseholdTurns.silence + 1
        let lease = h.silences(now: later)
        #expect(lease.count == 1 && lease[0].contains("a lease"))
        let r13 = h.answer(id: 3)
        let r14 = h.answer(id: 4)
        #expect(r13 == .nothing && r14 == .nothing)
        #expect(!h.mayAskLease(now: later + HouseholdTurns.leaseRetryAfter - 1))
        #expect(h.mayAskLease(now: later + HouseholdTurns.leaseRetryAfter))
        #expect(h.due(linkRunning: true, leaseWanted: true) == min(Self.t0 + HouseholdTurns.turnEvery, later + HouseholdTurns.leaseRetryAfter))
    }

    @Test("a lease answered is matched by its id and day; one that failed is asked again 5 s later")
    func lease() {
        var h = HouseholdTurns()
        h.leaseAsked(id: 9, day: 20_001, now: Self.t0)
        let r15 = h.answer(id: 8)
        #expect(r15 == .nothing)
        let r16 = h.answer(id: 9)
        #expect(r16 == .lease(day: 20_001, screen: false))
        h.leaseFailed(now: Self.t0 + Self.s)
        #expect(!h.mayAskLease(now: Self.t0 + 5 * Self.s))
        #expect(h.mayAskLease(now: Self.t0 + 6 * Self.s))
    }

    @Test("the link gone: nothing in flight is answered; started again 5 s later")
    func linkGone() {
        var h = HouseholdTurns()
        h.linkStarted(now: Self.t0)
        let r17 = h.takeTurn(now: Self.t0)
        #expect(r17)
        h.sending(id: 1, through: 5, now: Self.t0)
        h.leaseAsked(id: 2, day: 1, now: Self.t0)
        h.linkGone(now: Self.t0 + Self.s)
        let r18 = h.answer(id: 1)
        let r19 = h.answer(id: 2)
        #expect(r18 == .nothing && r19 == .nothing)
        let r20 = h.startLink(now: Self.t0 + 5 * Self.s)
        #expect(!r20)
        let r21 = h.startLink(now: Self.t0 + 6 * Self.s)
        #expect(r21)
    }

    @Test("reachability: out of reach said once, with the first moment and the latest reason; answering again said with that moment; the first answer said once")
    func reachability() {
        var h = HouseholdTurns()
        #expect(!h.reachable)
        let r22 = h.unreachable("connection refused", wall: 100)
        #expect(r22)
        let r23 = h.unreachable("timeout", wall: 200)
        #expect(!r23, "said once")
        #expect(h.unreachableSince == 100 && h.problem == "timeout")
        let r24 = h.reached()
        #expect(r24 == .again(since: 100))
        #expect(h.reachable && h.problem == nil)
        let r25 = h.reached()
        #expect(r25 == nil, "nothing new")
        var fresh = HouseholdTurns()
        let r26 = fresh.reached()
        #expect(r26 == .first)
        let r27 = fresh.reached()
        #expect(r27 == nil)
    }

    @Test("the others' game time: told to the engine when it is new for the day, not again when the same")
    func othersPlayed() {
        var h = HouseholdTurns()
        let a = [SharedAppTime(key: "games", today: 600 * Self.s, week: 600 * Self.s)]
        let b = [SharedAppTime(key: "games", today: 660 * Self.s, week: 660 * Self.s)]
        let r28 = h.othersPlayed(day: 1, a)
        #expect(r28)
        let r29 = h.othersPlayed(day: 1, a)
        #expect(!r29)
        let r30 = h.othersPlayed(day: 1, b)
        #expect(r30)
        let r31 = h.othersPlayed(day: 2, b)
        #expect(r31, "a new day")
    }
}
