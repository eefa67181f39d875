import Foundation

/// A real component a test needs did not start.
public struct FixtureFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Waits (2 s at most) until Foundation has seen the process end. Not `waitUntilExit`: it can
/// spin forever on a child that is already gone.
public func reap(_ p: Process) {
    Wait.whether(within: 2, every: 0.01) { !p.isRunning }
}
