import Dispatch
import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeScriptEngine

/// A wait that prefers the engine thread as its task executor resumes on the thread itself,
/// not on the concurrency pool first (one thread hop instead of two, and no wait for a pool
/// thread that the page's JavaScript compiler or a hundred other waiters keep busy).
@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct EngineTaskExecutorTests {
    @Test func nonisolatedCodeInTheScopeRunsOnTheThread() async {
        let thread = EngineThread(name: "sb-task-executor")
        defer { thread.shutdown() }
        #expect(await Self.runsOn(thread) == false)  // the pool, without the preference
        #expect(await thread.resumingHere { await Self.runsOn(thread) })
    }

    @Test func aContinuationResumedOnAnotherThreadWakesTheTaskOnTheEngineThread() async {
        let thread = EngineThread(name: "sb-task-executor")
        defer { thread.shutdown() }
        let before = thread.taskExecutor.jobCount
        #expect(await thread.resumingHere { await Self.resumedFromAnotherThread(on: thread) })
        #expect(thread.taskExecutor.jobCount > before)
        #expect(await Self.resumedFromAnotherThread(on: thread) == false)
    }

    @Test func evaluateAsyncResumesThroughTheThreadsTaskExecutor() async throws {
        let thread = EngineThread(name: "sb-task-executor")
        defer { thread.shutdown() }
        let context = await ScriptContext(thread: thread)
        let executor = thread.taskExecutor
        // The promise settles only once the wait is registered, so the call suspends (a timer
        // could fire before the wait starts on a busy thread, and the call never suspend).
        async let value = context.evaluateAsync("new Promise(resolve => { globalThis.release = resolve })")
        while await context.awaiting.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
        let before = executor.jobCount
        try await context.run("release(42)")
        #expect(try await value.numberValue == 42)
        #expect(executor.jobCount > before)
        await context.close()
    }

    @Test func aLaneSharesItsHostsTaskExecutor() async {
        let thread = EngineThread(name: "sb-task-executor")
        defer { thread.shutdown() }
        let lane = thread.makeLane(name: "lane")
        #expect(lane.taskExecutor === thread.taskExecutor)
        #expect(await lane.resumingHere { await Self.runsOn(thread) })
    }

    /// Whether nonisolated code runs on `thread`.
    @concurrent private static func runsOn(_ thread: EngineThread) async -> Bool {
        thread.isCurrent
    }

    /// Waits for a continuation resumed on a dispatch queue, then tells whether the task woke
    /// on `thread`.
    @concurrent private static func resumedFromAnotherThread(on thread: EngineThread) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(2)) { continuation.resume() }
        }
        return thread.isCurrent
    }
}
