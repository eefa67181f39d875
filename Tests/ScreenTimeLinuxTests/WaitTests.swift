import Foundation
import TestSupport
import Testing

/// The test kit's waits (#37): they end when the thing happens, and fail, saying what, when it does not.
@Suite("Waiting for what a test needs")
struct WaitTests {
    @Test("a condition that holds at once ends the wait at once; one that comes true later, then")
    func holds() throws {
        try Wait.until("a condition that holds") { true }
        let start = Date()
        var looks = 0
        try Wait.until("the third look", within: 5, every: 0.01) {
            looks += 1
            return looks == 3
        }
        #expect(looks == 3)
        #expect(Date().timeIntervalSince(start) < 4)
    }

    @Test("a condition that never holds throws, within its bound and not long after, saying what was awaited")
    func timesOut() {
        let start = Date()
        let error = #expect(throws: Wait.TimedOut.self) { try Wait.until("a thing that never comes", within: 0.3) { false } }
        let took = Date().timeIntervalSince(start)
        #expect(took >= 0.3)
        #expect(took < 10)   // loosely: a loaded machine
        #expect(error?.description == "waited 0.3 s for a thing that never comes, in vain")
    }

    @Test("the value variant returns what was found; whether says false and does not throw")
    func valueAndWhether() throws {
        var looks = 0
        let found: Int = try Wait.for("a value") {
            looks += 1
            return looks < 2 ? nil : 42
        }
        #expect(found == 42)
        #expect(!Wait.whether(within: 0.1) { false })
        #expect(throws: Wait.TimedOut.self) { _ = try Wait.for("nothing", within: 0.1) { Int?.none } }
    }

    @Test("an error the condition throws ends the wait at once")
    func conditionThrows() {
        struct Gone: Error {}
        let start = Date()
        #expect(throws: Gone.self) { try Wait.until("a process that ended", within: 30) { throw Gone() } }
        #expect(Date().timeIntervalSince(start) < 10)
    }
}
