import ControlProtocol
@testable import ScreenTimeCore
import ScreenTimeDaemon
import ScreenTimePolicy
import Testing

/// What a child's own side may claim, and what root's hooks and the session's compositor may say
/// (docs/security.md): each case asks whether a child's process could make learning pay, a game
/// cheaper, a limit longer, or a game invisible.
@Suite("A child's claims")
struct ChildClaimsTests {
    static let child = ChildClaims.Sender(uid: 1000, pid: 4242, hook: "gnome")
    static let rootX11 = ChildClaims.Sender(uid: 0, pid: 77, hook: "x11")
    static let rootSway = ChildClaims.Sender(uid: 0, pid: 78, hook: "sway")
    static let today: Microseconds = 20_000 * 86_400 * Seconds.micro
    static let focus = Event.Kind.focusChanged(FocusedWindow(pid: 50, appID: "gcompris", title: nil))

    /// The claims under test, and how often the compositor was asked (a class: `#expect` takes
    /// no mutating calls).
    final class Judge {
        var claims: ChildClaims
        var asked = 0
        init(system: Bool) { claims = ChildClaims(system: system) }

        /// Judges `kind`; the compositor, when asked, says `compositor` (nil: believed).
        func callAsFunction(_ kind: Event.Kind, from sender: ChildClaims.Sender, lockClaimed: Bool = false, believed: Int32? = nil,
                            compositor: String? = "not sealed", today: Microseconds = ChildClaimsTests.today) -> ChildClaims.Verdict {
            claims.judge(kind, from: sender, lockClaimed: lockClaimed, today: today, compositorPID: believed) {
                self.asked += 1
                return compositor
            }
        }
        func startIdle() -> Bool { claims.startIdle() }
        func logindIdle(_ idle: Bool) -> Event.Kind? { claims.logindIdle(.idleChanged(idle: idle, since: nil)) }
        func trustedInput() -> ChildClaims.IdleEnd? { claims.trustedInput() }
    }

    @Test("user mode: everything the child's daemon hears is taken as said, and no compositor is asked")
    func userMode() {
        let judge = Judge(system: false)
        for kind: Event.Kind in [Self.focus, .input(count: 3), .idleChanged(idle: true, since: nil), .lockChanged(locked: true)] {
            #expect(judge(kind, from: Self.child) == .take(kind, endingIdle: nil))
        }
        #expect(judge.asked == 0)
        #expect(!judge.startIdle(), "user mode does not start idle: the child's own hooks say input")
        #expect(judge.logindIdle(false) == .idleChanged(idle: false, since: nil), "logind's idle hint is taken both ways in user mode")
        #expect(judge.logindIdle(true) == .idleChanged(idle: true, since: nil), "and not as a claim: the child's daemon is the child's")
    }

    @Test("system mode: a lock from the child's side is their claim; said again, it is not kept again")
    func lockIsAClaim() {
        let judge = Judge(system: true)
        #expect(judge(.lockChanged(locked: true), from: Self.child)
                == .take(.lockChanged(locked: true, claimed: true), endingIdle: nil),
                "a claimed lock refuses learning but never stops game time")
        #expect(judge(.lockChanged(locked: true), from: Self.child, lockClaimed: true) == .alreadySaid)
        #expect(judge(.lockChanged(locked: false), from: Self.child, lockClaimed: true)
                == .take(.lockChanged(locked: false, claimed: true), endingIdle: nil), "the child may take back their own claim")
        #expect(judge(.lockChanged(locked: true), from: Self.rootX11)
                == .take(.lockChanged(locked: true), endingIdle: nil), "root's lock is a lock")
        #expect(judge.asked == 0, "a claim that only costs the child needs no compositor")
    }

    @Test("system mode: focus and input from the child's side only from a compositor believed; refused with its reason")
    func focusNeedsACompositor() {
        let judge = Judge(system: true)
        #expect(judge(Self.focus, from: Self.child, compositor: "its memory can be read")
                == .refused("its memory can be read"))
        #expect(judge(.idleChanged(idle: false, since: nil), from: Self.child, compositor: "not sealed")
                == .refused("not sealed"), "back from idle credits time: as focus")
        #expect(judge.asked == 2)
        #expect(judge(Self.focus, from: Self.child, believed: 4242, compositor: nil) == .take(Self.focus, endingIdle: nil))
        #expect(judge.asked == 3, "the compositor's own check decides each time (it may be gone)")
    }

    @Test("system mode: input counted only from root's X11 hook (or root itself); from others answered, not counted")
    func inputSources() {
        let judge = Judge(system: true)
        let input = Event.Kind.input(count: 5)
        #expect(judge(input, from: Self.rootX11) == .take(input, endingIdle: nil))
        #expect(judge(input, from: .init(uid: 0, pid: 1, hook: nil)) == .take(input, endingIdle: nil))
        #expect(judge(input, from: Self.rootSway) == .notCounted(source: "the sway hook"),
                "a compositor counts software input too")
        #expect(judge(input, from: Self.child, believed: 4242) == .notCounted(source: "the session's compositor"))
        #expect(judge.asked == 0)
        #expect(judge(input, from: Self.child, believed: 9, compositor: "not the compositor")
                == .refused("not the compositor"), "a process that is not the believed compositor is refused, not quietly dropped")
        #expect(judge(input, from: Self.child, believed: 9, compositor: nil) == .notCounted(source: "the session's compositor"))
    }

    @Test("system mode: an idleness the child claimed ends only at trusted input, with an idle end before that input")
    func claimedIdle() {
        let judge = Judge(system: true)
        let idle = Event.Kind.idleChanged(idle: true, since: nil)
        #expect(judge(idle, from: Self.child) == .take(.idleChanged(idle: true, since: nil, claimed: true), endingIdle: nil),
                "the child's idleness is their claim: it refuses learning, and screen time goes on")
        #expect(judge.claims.idleClaimedByChild)
        #expect(judge(idle, from: Self.child) == .alreadySaid)
        #expect(judge(.input(count: 1), from: Self.rootSway) == .notCounted(source: "the sway hook"))
        #expect(judge.claims.idleClaimedByChild, "input that is not counted does not end it either")
        #expect(judge(.input(count: 1), from: Self.rootX11) == .take(.input(count: 1), endingIdle: .claimed))
        #expect(!judge.claims.idleClaimedByChild)
        #expect(judge(.input(count: 1), from: Self.rootX11) == .take(.input(count: 1), endingIdle: nil),
                "ended once")
        #expect(judge(idle, from: Self.rootX11) == .take(idle, endingIdle: nil))
        #expect(!judge.claims.idleClaimedByChild, "root's idleness is not the child's claim")
    }

    @Test("system mode: idle from the start until the first trusted input; logind's hint may start an idleness, never end one")
    func idleFromTheStart() {
        let judge = Judge(system: true)
        #expect(judge.startIdle())
        #expect(judge.logindIdle(false) == nil, "the child may set their session's idle hint: false is not believed")
        #expect(judge.trustedInput() == .sinceStart)
        #expect(judge.trustedInput() == nil)
        #expect(judge.logindIdle(true) == .idleChanged(idle: true, since: nil, claimed: true), "a claim")
        #expect(judge.trustedInput() == .claimed)
    }

    @Test("system mode: claims are bounded per day; a repeat is free; a new day, a new allowance")
    func claimsBounded() {
        let judge = Judge(system: true)
        var kept = 0
        var locked = false
        for _ in 0..<(ChildQuota.claimsPerDay + 10) {
            if case .take = judge(.lockChanged(locked: !locked), from: Self.child, lockClaimed: locked, compositor: nil) {
                kept += 1
                locked.toggle()
            }
        }
        #expect(kept == ChildQuota.claimsPerDay)
        #expect(judge(.lockChanged(locked: !locked), from: Self.child, lockClaimed: locked)
                == .refused(ChildQuota.refusal(.claim).words()))
        #expect(judge(.lockChanged(locked: locked), from: Self.child, lockClaimed: locked) == .alreadySaid,
                "a repeat is answered even past the allowance: it keeps nothing")
        let tomorrow = judge(.lockChanged(locked: !locked), from: Self.child, lockClaimed: locked, today: Self.today + 86_400 * Seconds.micro)
        #expect(tomorrow == .take(.lockChanged(locked: !locked, claimed: true), endingIdle: nil))
        #expect(judge(.input(count: 1), from: Self.rootX11) == .take(.input(count: 1), endingIdle: nil),
                "root's events are never counted against the child's allowance")
        #expect(judge.asked == 0)
    }
}

/// A request sent again with the same id: answered as the first time, never carried out twice.
@Suite("Requests sent again")
struct RequestRepeatTests {
    static let reply = ControlReply(ok: true, balance: 40, cost: 20)

    @Test("no id, or a new one: carried out; the store is asked only for a well-formed id")
    func new() {
        var asked: [String] = []
        let none = RequestRepeat.judge(id: nil, asked: "redeem 10") { asked.append($0); return nil }
        let fresh = RequestRepeat.judge(id: "a1", asked: "redeem 10") { asked.append($0); return nil }
        let empty = RequestRepeat.judge(id: "", asked: "redeem 10") { asked.append($0); return nil }
        let long = RequestRepeat.judge(id: String(repeating: "x", count: RequestRepeat.maxID + 1), asked: "redeem 10") { asked.append($0); return nil }
        #expect(none == .new && fresh == .new)
        #expect(empty != .new && long != .new)
        #expect(asked == ["a1"])
    }

    @Test("the same request again: its first answer; another request under the id: refused; an answer that cannot be read: refused")
    func again() throws {
        let line = String(decoding: Self.reply.line.dropLast(), as: UTF8.self)
        #expect(RequestRepeat.judge(id: "a1", asked: "redeem 10") { _ in ("redeem 10", line) } == .again(Self.reply))
        guard case .refused(let other) = RequestRepeat.judge(id: "a1", asked: "redeem 20", lookup: { _ in ("redeem 10", line) }) else {
            Issue.record("another request under a used id was not refused")
            return
        }
        #expect(other.code == .requestIDReused && other.words().contains("redeem 10") && other.words().contains("new id"))
        guard case .again(let unreadable) = RequestRepeat.judge(id: "a1", asked: "redeem 10", lookup: { _ in ("redeem 10", "{not json") }) else {
            Issue.record("an unreadable first answer was carried out again")
            return
        }
        #expect(!unreadable.ok && unreadable.error?.contains("stctl history") == true)
    }
}
