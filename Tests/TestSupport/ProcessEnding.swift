import Foundation

/// How a test's child process ended, read safely: Foundation stops the whole test run when the
/// termination status of a process still running is read, so a process a test expected to end
/// (and that did not, a failure already recorded) must not take every other test down with it.
public enum ProcessEnding: Equatable, CustomStringConvertible, Sendable {
    case running
    case exited(Int32)
    case signal(Int32)

    public var description: String {
        switch self {
        case .running: "still running"
        case .exited(let code): "exited with \(code)"
        case .signal(let number): "ended by signal \(number)"
        }
    }
}

extension Process {
    /// How it ended, or `.running`.
    public var ending: ProcessEnding {
        if isRunning { return .running }
        return terminationReason == .exit ? .exited(terminationStatus) : .signal(terminationStatus)
    }
}
