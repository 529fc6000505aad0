import Dispatch
import Foundation
import SessionBridgeTestSupport
import Synchronization
import Testing

@testable import SessionBridgeScriptEngine

/// An engine thread takes one job or one due timer at a time, so that one that waits in
/// `runOthers(until:timeout:)` leaves the rest where the wait's own loop runs them.
@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct EngineThreadTurnsTests {
    /// A flag shared between the test and the thread.
    final class Flag: Sendable {
        let value = Atomic(false)
        var isSet: Bool { value.load(ordering: .acquiring) }
        func set() { value.store(true, ordering: .releasing) }
    }

    /// Code that runs as jobs of one executor of the thread (the thread's own, or a lane).
    actor Runner {
        let executor: EngineThread
        init(on executor: EngineThread) { self.executor = executor }
        nonisolated var unownedExecutor: UnownedSerialExecutor { unsafe executor.asUnownedSerialExecutor() }

        /// Holds the thread until `release` is set (at most 10 s), after setting `holding`.
        func hold(until release: Flag, holding: Flag) {
            holding.set()
            let end = DispatchTime.now().uptimeNanoseconds + 10_000_000_000
            while !release.isSet && DispatchTime.now().uptimeNanoseconds < end { usleep(200) }
        }

        func mark(_ flag: Flag) { flag.set() }

        /// Waits on the thread, running the others' work, until `flag` is set (at most 10 s).
        func wait(for flag: Flag) -> Bool {
            executor.runOthers(until: { flag.isSet }, timeout: .seconds(10))
        }
    }

    /// A lane's job that waits for another lane's timer, both ready in the same turn of the
    /// thread: the timer runs inside the wait (it had waited behind the job, outside the queue,
    /// until the wait's timeout).
    @Test func aTimerDueWhenAWaitingJobWasTakenRunsInsideTheWait() async throws {
        let thread = EngineThread(name: "sb-turns")
        defer { thread.shutdown() }
        let waiting = Runner(on: thread.makeLane(name: "waiting"))
        let other = thread.makeLane(name: "timers")
        let holder = Runner(on: thread)
        let release = Flag()
        let holding = Flag()
        let fired = Flag()
        let held = Task { await holder.hold(until: release, holding: holding) }
        try await poll { holding.isSet }
        // While the thread is held: a timer due at once, then the job that waits for it.
        other.schedule(after: .zero) { fired.set() }
        let before = thread.queuedJobCount
        let waited = Task { await waiting.wait(for: fired) }
        try await poll { thread.queuedJobCount != before }
        release.set()
        await held.value
        let start = ContinuousClock.now
        #expect(await waited.value)
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    /// Jobs and due timers take turns: timers that keep rescheduling themselves, so that one is
    /// always due, do not keep a job from running.
    @Test func jobsRunBetweenTimersThatAreAlwaysDue() async throws {
        let thread = EngineThread(name: "sb-turns-stream")
        defer { thread.shutdown() }
        let ticker = Ticker(thread: thread)
        for _ in 0..<4 { ticker.tick() }
        try await poll { ticker.ticks >= 1000 }
        let ran = Flag()
        let runner = Runner(on: thread)
        Task { await runner.mark(ran) }
        try await poll { ran.isSet }
        #expect(ran.isSet, "a job waited 10 s behind timers")
        ticker.stop.set()
    }

    /// Timers that reschedule themselves at once.
    final class Ticker: Sendable {
        let thread: EngineThread
        let stop = Flag()
        private let count = Atomic(0)
        init(thread: EngineThread) { self.thread = thread }
        var ticks: Int { count.load(ordering: .relaxed) }

        func tick() {
            count.add(1, ordering: .relaxed)
            if !stop.isSet { thread.schedule(after: .zero) { self.tick() } }
        }
    }
}
