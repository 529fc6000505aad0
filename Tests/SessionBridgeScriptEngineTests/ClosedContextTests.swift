import CJavaScriptCore
import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeScriptEngine

/// A native function outlives its context only as an object another context of the same
/// thread still holds: called then, it throws instead of reaching the closed context.
@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct ClosedContextTests {
    @Test func aClosedContextsFunctionThrowsWhenAnotherContextCallsIt() async throws {
        let thread = EngineThread(name: "sb-closed-test")
        let owner = await ScriptContext(thread: thread)
        let caller = await ScriptContext(thread: thread)
        await owner.defineFunction("answer") { _, _ in 42 }
        let function = await owner.protectedGlobal("answer")
        #expect(await caller.call(function) == "42")
        await owner.close()
        #expect(await caller.call(function) == "threw Error: the script context is closed")
        await caller.close()
        thread.shutdown()
    }

    /// `evaluateAsync` starts its wait with a hop to the thread's task executor, a suspension
    /// point: a job queued before it (a navigation closing the document) runs first. The wait
    /// then ends at once with `contextClosed`; it used to register with the closed context,
    /// whose timeout is never scheduled, and wait forever (seen as a sign-out that never
    /// returned while a navigation replaced the page).
    @Test func aWaitWhoseContextClosedBeforeItStartedEndsAtOnce() async throws {
        let thread = EngineThread(name: "sb-closed-await")
        let context = await ScriptContext(thread: thread)
        let outcome = await BoundedWait.outcome(within: .seconds(10)) {
            await context.evaluateAsyncWithACloseQueuedFirst("new Promise(() => {})")
        }
        #expect(outcome == "threw contextClosed")
        thread.shutdown()
    }
}

/// Runs `operation` and returns its outcome, or "still waiting" once `limit` has passed (the
/// operation is left running): a hang fails the test instead of holding the test run.
enum BoundedWait {
    static func outcome(within limit: Duration, _ operation: @escaping @Sendable () async -> String) async -> String {
        let (outcomes, first) = AsyncStream<String>.makeStream()
        Task { first.yield(await operation()) }
        Task {
            try? await Task.sleep(for: limit)
            first.yield("still waiting")
        }
        var iterator = outcomes.makeAsyncIterator()
        return await iterator.next() ?? "still waiting"
    }
}

extension ScriptContext {
    /// `evaluateAsync(source)` with a job that closes this context queued just before it.
    fileprivate func evaluateAsyncWithACloseQueuedFirst(_ source: String) async -> String {
        Task { self.close() }  // isolated to this context: queued on its thread, after this job
        do {
            return "returned \(try await evaluateAsync(source, timeout: .seconds(5)))"
        } catch {
            return "threw \(error.kind)"
        }
    }

    /// The global `name`, protected for the rest of the test (contexts of one thread share a VM).
    fileprivate func protectedGlobal(_ name: String) -> UInt {
        let value = unsafe JSObjectGetProperty(ctx, JSContextGetGlobalObject(ctx), PropertyName(name).ref, nil)!
        unsafe JSValueProtect(ctx, value)
        return UInt(bitPattern: value)
    }

    /// Calls the function `bits` from this context: its result or what it threw, as text.
    fileprivate func call(_ bits: UInt) -> String {
        let function = unsafe JSValueToObject(ctx, JSValueRef(bitPattern: bits), nil)!
        var exception: JSValueRef? = nil
        let result = unsafe JSObjectCallAsFunction(ctx, function, nil, 0, nil, &exception)
        if let exception = unsafe exception { return "threw " + (unsafe stringOf(ctx, exception) ?? "?") }
        return unsafe stringOf(ctx, result) ?? "?"
    }
}
