import Foundation
import Testing

/// `@Suite(.ownThread)`: each of the suite's tests runs on a thread of its own.
///
/// Why: the tests that run real processes wait for them the plain way (`Wait.until`, `waitpid`,
/// `Process.waitUntilExit`). Swift Testing runs a test on Swift concurrency's shared pool, which
/// has one thread per core: on a 2-core machine two waiting tests held both threads, every other
/// test (and every `await` of the async ones) waited behind them, and `make test` ran its
/// end-to-end tests two at a time. On a thread of its own a test waits without holding the pool.
/// How many tests run at once is then Swift Testing's own limit, which tools/swift-test sets
/// (SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH).
///
/// The thread is the test's task executor (SE-0417), so the test and the child tasks it makes run
/// on it; an `await` there still lets the thread run the test's other tasks meanwhile.
public struct OwnThread: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil else { return try await function() }   // the suite itself: nothing to run
        let thread = ThreadExecutor(name: test.displayName ?? test.name)
        defer { thread.finish() }
        let started = Date()
        defer { TestTimes.record(test.displayName ?? test.name, started: started) }
        try await withTaskExecutorPreference(thread) { try await function() }
    }
}

extension Trait where Self == OwnThread {
    /// Each test on a thread of its own (see `OwnThread`).
    public static var ownThread: Self { OwnThread() }
}

/// A task executor with one thread, which runs the jobs given to it in order until `finish()`.
final class ThreadExecutor: TaskExecutor, @unchecked Sendable {   // its state is under `condition`
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var finished = false

    init(name: String) {
        let thread = Thread { [self] in
            while let job = next() { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
        thread.name = String(name.prefix(15))
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Ends the thread once the jobs given so far have run.
    func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    private func next() -> UnownedJob? {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty && !finished { condition.wait() }
        return jobs.isEmpty ? nil : jobs.removeFirst()
    }
}

/// When TEST_TIMES names a file, each test on a thread of its own adds a line to it: its start and
/// end (seconds since 1970) and its name. Swift Testing's own "passed after" counts from when a
/// test was queued, which under a parallelization limit is not how long it ran; tools/test-times
/// reads this file to show which tests make `make test` long.
enum TestTimes {
    private static let lock = NSLock()

    static func record(_ name: String, started: Date) {
        guard let path = ProcessInfo.processInfo.environment["TEST_TIMES"], !path.isEmpty else { return }
        let line = String(format: "%.3f %.3f ", started.timeIntervalSince1970, Date().timeIntervalSince1970)
            + name.replacingOccurrences(of: "\n", with: " ") + "\n"
        lock.lock()
        defer { lock.unlock() }
        guard let handle = FileHandle(forWritingAtPath: path) ?? {
            FileManager.default.createFile(atPath: path, contents: nil)
            return FileHandle(forWritingAtPath: path)
        }() else { return }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: Data(line.utf8))
    }
}
