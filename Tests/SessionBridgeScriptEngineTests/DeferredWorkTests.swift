import Foundation
import SessionBridgeTestSupport
import Synchronization
import Testing

@testable import SessionBridgeScriptEngine

/// JavaScriptCore's deferred work runs on the engine thread, as a browser's event loop runs it:
/// WebAssembly's asynchronous compilation settles its promises, `FinalizationRegistry` calls its
/// callbacks. JavaScriptCore schedules that work on the GLib main context of the thread that made
/// the VM; nothing ran it, so `await WebAssembly.instantiate(...)` never returned.
@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct DeferredWorkTests {
    /// A module exporting `answer`, a function that returns 42.
    static let module =
        "new Uint8Array([0,97,115,109,1,0,0,0, 1,5,1,96,0,1,127, 3,2,1,0, 7,10,1,6,97,110,115,119,101,114,0,0, 10,6,1,4,0,65,42,11])"

    @Test func webAssemblyInstantiateSettles() async throws {
        let thread = EngineThread(name: "sb-wasm")
        let context = await ScriptContext(thread: thread)
        let answer = try await context.evaluateAsync(
            "WebAssembly.instantiate(\(Self.module)).then(made => made.instance.exports.answer())", timeout: .seconds(10))
        #expect(answer == .number(42))
        // Compiled on its own, then instantiated: two deferred steps.
        let again = try await context.evaluateAsync(
            "WebAssembly.compile(\(Self.module)).then(module => WebAssembly.instantiate(module)).then(instance => instance.exports.answer())",
            timeout: .seconds(10))
        #expect(again == .number(42))
        await context.close()
        thread.shutdown()
    }

    @Test func webAssemblyCompileRejectsBadBytes() async throws {
        let thread = EngineThread(name: "sb-wasm-bad")
        let context = await ScriptContext(thread: thread)
        let outcome = try await context.evaluateAsync(
            "WebAssembly.compile(new Uint8Array([0,97,115,109,1,0,0,0,9])).then(() => 'compiled', error => error.constructor.name)",
            timeout: .seconds(10))
        #expect(outcome == .string("CompileError"))
        await context.close()
        thread.shutdown()
    }

    /// A lane has a VM of its own, made on its host thread whichever thread asks for the lane, so
    /// its deferred work runs there too.
    @Test func aLaneRunsItsDeferredWork() async throws {
        let thread = EngineThread(name: "sb-wasm-lanes")
        let lane = thread.makeLane(name: "panels")
        let context = await ScriptContext(thread: lane)
        let answer = try await context.evaluateAsync(
            "WebAssembly.instantiate(\(Self.module)).then(made => made.instance.exports.answer())", timeout: .seconds(10))
        #expect(answer == .number(42))
        // The thread's own VM, beside it, as well.
        let beside = await ScriptContext(thread: thread)
        let other = try await beside.evaluateAsync(
            "WebAssembly.instantiate(\(Self.module)).then(made => made.instance.exports.answer() + 1)", timeout: .seconds(10))
        #expect(other == .number(43))
        await context.close()
        await beside.close()
        thread.shutdown()
    }

    @Test func finalizationRegistryCallbacksRun() async throws {
        let thread = EngineThread(name: "sb-finalize")
        let context = await ScriptContext(thread: thread)
        try await context.run(
            """
            globalThis.finalized = [];
            globalThis.registry = new FinalizationRegistry(held => finalized.push(held));
            (function () { for (let i = 0; i < 20; i++) registry.register({payload: new Array(64).fill(i)}, i); })();
            """)
        var count = 0.0
        for _ in 0..<100 where count == 0 {
            await context.collectGarbage()
            try await Task.sleep(for: .milliseconds(20))
            count = try await context.evaluate("finalized.length").numberValue ?? 0
        }
        #expect(count > 0, "no FinalizationRegistry callback ran after 100 collections")
        await context.close()
        thread.shutdown()
    }

    /// Deferred work is page code too: a callback that never returns is stopped by the time
    /// limit, and the thread goes on with its other work.
    @Test func aRunawayCallbackIsStoppedByTheTimeLimit() async throws {
        let thread = EngineThread(name: "sb-finalize-loop")
        let context = await ScriptContext(thread: thread, configuration: .init(timeLimit: .milliseconds(200)))
        let other = await ScriptContext(thread: thread)
        try await context.run(
            """
            globalThis.started = 0;
            globalThis.registry = new FinalizationRegistry(() => { started++; for (;;) {} });
            (function () { for (let i = 0; i < 20; i++) registry.register({payload: new Array(64).fill(i)}, i); })();
            """)
        var started = 0.0
        for _ in 0..<100 where started == 0 {
            await context.collectGarbage()
            try await Task.sleep(for: .milliseconds(20))
            started = try await context.evaluate("started").numberValue ?? 0
        }
        #expect(started > 0, "no FinalizationRegistry callback ran after 100 collections")
        #expect(try await other.evaluate("6 * 7") == .number(42))
        #expect(try await context.evaluate("6 * 7") == .number(42))
        await context.close()
        await other.close()
        thread.shutdown()
    }

    /// A thread kept busy by a stream of jobs still runs its deferred work.
    @Test func aBusyThreadRunsItsDeferredWork() async throws {
        let thread = EngineThread(name: "sb-wasm-busy")
        let context = await ScriptContext(thread: thread)
        let busy = await ScriptContext(thread: thread)
        let stop = Atomic(false)
        let stream = Task {
            while !stop.load(ordering: .relaxed) {
                _ = try? await busy.evaluate("1 + 1")
            }
        }
        let answer = try await context.evaluateAsync(
            "WebAssembly.instantiate(\(Self.module)).then(made => made.instance.exports.answer())", timeout: .seconds(10))
        stop.store(true, ordering: .relaxed)
        await stream.value
        #expect(answer == .number(42))
        await context.close()
        await busy.close()
        thread.shutdown()
    }
}
