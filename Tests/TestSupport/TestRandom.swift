import Foundation

/// Randomness a test can repeat: a person's rhythm of input, say. The seed is `TEST_SEED`'s when
/// it is set, else drawn; either way it is printed when the generator is made, so the log of a
/// failure says how to run the same timings again (`TEST_SEED=N swift test --filter …`).
/// (SplitMix64: small, and enough for timings.)
public struct TestRandom: RandomNumberGenerator {
    public let seed: UInt64
    private var state: UInt64

    /// `purpose` names the test in the printed line.
    public init(_ purpose: String) {
        var system = SystemRandomNumberGenerator()
        seed = ProcessInfo.processInfo.environment["TEST_SEED"].flatMap { UInt64($0) } ?? system.next()
        state = seed
        print("\(purpose): random seed \(seed) (TEST_SEED=\(seed) repeats it)")
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
