import Foundation
import Synchronization
public import Testing

/// Ends the test run when a test has not returned well after its time limit.
///
/// Swift Testing records a time limit's overrun and cancels the test's task, but it cannot end
/// a task that never looks at its cancellation: a test awaiting something that never comes
/// holds the whole run, until `Scripts/test`'s outer kill. With this trait, such a test ends the
/// process 30 seconds after its time limit, naming itself, so that a hang fails fast.
///
/// ```swift
/// @Suite(.timeLimit(.minutes(2)), .hangWatchdog, .hangWatchdog) struct SignInTests { … }
/// ```
public struct HangWatchdogTrait: TestTrait, SuiteTrait, TestScoping {
    /// How long a test may go on after its time limit before the run ends.
    public static let grace: Duration = .seconds(30)
    /// The limit of a test that sets none (every suite here sets one).
    public static let defaultLimit: Duration = .seconds(600)

    public var isRecursive: Bool { true }

    /// Each test case is watched on its own; a suite is not.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let limit = test.timeLimit ?? Self.defaultLimit
        let name = "\(test.id)"
        let watch = HangWatchdog.shared.watch(name, limit: limit, deadline: .now + limit + Self.grace)
        defer { HangWatchdog.shared.end(watch) }
        try await function()
    }
}

extension Trait where Self == HangWatchdogTrait {
    /// Ends the run when a test has not returned 30 seconds after its time limit (see
    /// ``HangWatchdogTrait``).
    public static var hangWatchdog: Self { HangWatchdogTrait() }
}

/// The tests that are running, with the time each must have returned by, checked by a thread
/// of its own (a hung test may hold every thread of the concurrency pool).
public final class HangWatchdog: Sendable {
    /// A watched test.
    public struct WatchedTest: Sendable, Equatable {
        /// The test's name and place.
        public var name: String
        /// Its time limit.
        public var limit: Duration
    }

    /// The process's watchdog: it prints the tests that hang and ends the process.
    public static let shared = HangWatchdog(interval: .seconds(1)) { overdue in
        var text = ""
        for test in overdue {
            text += "HangWatchdog: \(test.name) has not returned \(HangWatchdogTrait.grace) after its time limit (\(test.limit)).\n"
        }
        text += "HangWatchdog: ending the test run (exit 1), so that a hang fails fast instead of holding the run.\n"
        FileHandle.standardError.write(Data(text.utf8))
        _exit(1)
    }

    private struct Watch {
        var name: String
        var limit: Duration
        var deadline: ContinuousClock.Instant
    }

    private struct State {
        var watches: [Int: Watch] = [:]
        var next = 0
        var started = false
        var stopped = false
    }

    private let state = Mutex(State())
    private let interval: Duration
    private let onOverdue: @Sendable ([WatchedTest]) -> Void

    /// A watchdog that checks every `interval` and calls `onOverdue`, once, with the tests past
    /// their deadline.
    public init(interval: Duration, onOverdue: @escaping @Sendable ([WatchedTest]) -> Void) {
        self.interval = interval
        self.onOverdue = onOverdue
    }

    /// Watches a test until ``end(_:)``; returns its token.
    public func watch(_ name: String, limit: Duration, deadline: ContinuousClock.Instant) -> Int {
        let (id, start) = state.withLock { state in
            state.next += 1
            state.watches[state.next] = Watch(name: name, limit: limit, deadline: deadline)
            defer { state.started = true }
            return (state.next, !state.started)
        }
        if start {
            let thread = Thread { [self] in run() }
            thread.name = "HangWatchdog"
            thread.start()
        }
        return id
    }

    /// The tests being watched, in the order they started.
    public var running: [WatchedTest] {
        state.withLock { state in
            state.watches.sorted { $0.key < $1.key }.map { WatchedTest(name: $0.value.name, limit: $0.value.limit) }
        }
    }

    /// Stops watching the test of `token`.
    public func end(_ token: Int) {
        state.withLock { _ = $0.watches.removeValue(forKey: token) }
    }

    /// Stops the thread (the shared watchdog never stops).
    public func stop() {
        state.withLock { $0.stopped = true }
    }

    private func run() {
        let (seconds, attoseconds) = interval.components
        let pause = Double(seconds) + Double(attoseconds) / 1e18
        while true {
            Thread.sleep(forTimeInterval: pause)
            let now = ContinuousClock.now
            let (overdue, stopped) = state.withLock { state in
                let overdue = state.watches.values.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
                if !overdue.isEmpty { state.stopped = true }
                return (overdue.map { WatchedTest(name: $0.name, limit: $0.limit) }, state.stopped)
            }
            if !overdue.isEmpty { onOverdue(overdue) }
            if stopped { return }
        }
    }
}
