import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeScriptEngine

/// A context's global object, and all a page left in it, is collected once the context is
/// released. JavaScriptCore holds a global object's unhandled-rejection callback strongly, so
/// the context's own callback kept it alive for the VM's life: no closed context was ever
/// collected.
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct CollectedContextTests {
    @Test func closedContextsAreCollected() async throws {
        let thread = EngineThread(name: "sb-collected")
        for index in 0..<40 {
            let context = await ScriptContext(thread: thread)
            // What a page leaves behind: objects, a rejection nobody handled, a pending promise.
            try await context.run(
                """
                globalThis.kept = Array.from({length: 200}, (_, i) => ({i, text: 'x'.repeat(20)}));
                Promise.reject(new Error('unhandled \(index)'));
                new Promise(() => {});
                """)
            await context.close()
        }
        let probe = await ScriptContext(thread: thread)
        // The probe's global object and the thread's rejection sink's, and the few last closed
        // ones that the collector's conservative scan of the thread's stack, or a rejection not
        // yet reported, still reaches: not the 40 of them. A loaded machine may report a
        // rejection a moment later (a full run read 6 once, another 6 for 10 s): collected
        // again until then, for 10 s at most, the probe's stack use between collections
        // overwriting stale slots of the thread's stack.
        var globals = Int.max
        let deadline = ContinuousClock.now + .seconds(10)
        while globals > 5, ContinuousClock.now < deadline {
            globals = try #require(await probe.collectedHeap()).globalObjects
            if globals > 5 {
                try await probe.run("(function deep(n) { return n === 0 ? 0 : 1 + deep(n - 1); })(2000)")
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        #expect(globals <= 8, "\(globals) global objects left after 40 contexts closed")
        await probe.close()
        thread.shutdown()
    }

    /// A context let go of without `close()` is released by its deinit, the same way.
    @Test func contextsLetGoOfWithoutClosingAreCollected() async throws {
        let thread = EngineThread(name: "sb-dropped")
        for _ in 0..<20 {
            let context = await ScriptContext(thread: thread)
            try await context.run("globalThis.kept = Array.from({length: 200}, (_, i) => ({i}));")
        }
        // A deinit may run a moment after the last reference goes; each releases on its own.
        let probe = await ScriptContext(thread: thread)
        var globals = Int.max
        let deadline = ContinuousClock.now + .seconds(10)
        while globals > 5, ContinuousClock.now < deadline {
            globals = await probe.collectedHeap()?.globalObjects ?? Int.max
            if globals > 5 { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(globals <= 5, "\(globals) global objects left after 20 contexts were let go of")
        await probe.close()
        thread.shutdown()
    }
}
