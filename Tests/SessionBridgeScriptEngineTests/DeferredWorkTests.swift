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

    /// Registers 20 objects nobody keeps with `registry`.
    static let registerGarbage =
        "(function () { for (let i = 0; i < 20; i++) registry.register({payload: new Array(64).fill(i)}, i); })();"

    /// Collects garbage until `expression` (a count) is above zero, up to 100 times; returns it.
    static func collect(_ context: ScriptContext, until expression: String) async throws -> Double {
        for _ in 0..<100 {
            await context.collectGarbage()
            try await Task.sleep(for: .milliseconds(20))
            let count = try await context.evaluate(expression).numberValue ?? 0
            if count > 0 { return count }
        }
        return 0
    }

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
            \(Self.registerGarbage)
            """)
        let count = try await Self.collect(context, until: "finalized.length")
        #expect(count > 0, "no FinalizationRegistry callback ran after 100 collections")
        await context.close()
        thread.shutdown()
    }

    /// What a callback throws is reported as an uncaught error, as a browser reports it (it was
    /// only printed by JavaScriptCore to standard error), and the other callbacks still run. The
    /// constructor still looks and behaves as the built-in one.
    @Test func whatACallbackThrowsIsReportedAsUncaught() async throws {
        let thread = EngineThread(name: "sb-finalize-throw")
        let context = await ScriptContext(thread: thread)
        try await context.run(
            """
            globalThis.finalized = 0;
            globalThis.registry = new FinalizationRegistry(held => { finalized++; throw new RangeError("finalizer " + held); });
            \(Self.registerGarbage)
            """)
        let count = try await Self.collect(context, until: "finalized")
        #expect(count > 0, "no FinalizationRegistry callback ran after 100 collections")
        _ = await context.runUntilQuiescent(timeout: .seconds(10))
        let reported = await context.recentEvents.compactMap { event -> ScriptError? in
            if case .uncaughtError(let error) = event { return error }
            return nil
        }
        #expect(reported.count == Int(try await context.evaluate("finalized").numberValue ?? -1))
        #expect(reported.allSatisfy { $0.name == "RangeError" && $0.message.hasPrefix("finalizer ") })
        let looks = try await context.evaluate(
            """
            [String(FinalizationRegistry).includes("[native code]"), FinalizationRegistry.name, FinalizationRegistry.length,
             registry instanceof FinalizationRegistry, registry.constructor === FinalizationRegistry,
             (() => { try { FinalizationRegistry(() => {}); return "called"; } catch (e) { return e.name; } })(),
             (() => { try { new FinalizationRegistry(1); return "made"; } catch (e) { return e.name; } })(),
             new (class extends FinalizationRegistry {})(() => {}) instanceof FinalizationRegistry]
            """)
        #expect(looks == [true, "FinalizationRegistry", 1, true, true, "TypeError", "TypeError", true])
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
            \(Self.registerGarbage)
            """)
        let started = try await Self.collect(context, until: "started")
        #expect(started > 0, "no FinalizationRegistry callback ran after 100 collections")
        #expect(try await other.evaluate("6 * 7") == .number(42))
        #expect(try await context.evaluate("6 * 7") == .number(42))
        await context.close()
        await other.close()
        thread.shutdown()
    }

    /// A global object made right after the time limit stopped a runaway callback (as a page
    /// makes its next document's) is made: the stop left the VM's termination pending, on
    /// which JavaScriptCore had aborted the process as the global object was made.
    @Test func aContextIsMadeRightAfterARunawayCallbackWasStopped() async throws {
        let thread = EngineThread(name: "sb-finalize-then-make")
        let context = await ScriptContext(thread: thread, configuration: .init(timeLimit: .milliseconds(100)))
        try await context.run(
            """
            globalThis.registry = new FinalizationRegistry(() => { for (;;) {} });
            globalThis.register = () => { for (let i = 0; i < 2; i++) registry.register({payload: new Array(64).fill(i)}, i); };
            """)
        for _ in 0..<10 {
            try await context.run("register()")
            await context.collectGarbage()
            // The callbacks run as the thread's main context's work, between jobs; the next
            // job makes a context.
            try await Task.sleep(for: .milliseconds(50))
            let made = await ScriptContext(thread: thread)
            #expect(try await made.evaluate("6 * 7") == .number(42))
            await made.close()
        }
        await context.close()
        thread.shutdown()
    }

    /// A context without a limit entered last does not lift it from another context's deferred
    /// work: that runs under the last limit an entry asked for.
    @Test func deferredWorkKeepsALimitAfterAnEntryWithoutOne() async throws {
        let thread = EngineThread(name: "sb-finalize-nolimit")
        let context = await ScriptContext(thread: thread, configuration: .init(timeLimit: .milliseconds(200)))
        let unlimited = await ScriptContext(thread: thread, configuration: .init(timeLimit: nil))
        let started = Atomic(0)
        await context.defineFunction("begin") { _, _ in
            started.add(1, ordering: .relaxed)
            return .undefined
        }
        try await context.run(
            """
            globalThis.registry = new FinalizationRegistry(() => { begin(); for (;;) {} });
            \(Self.registerGarbage)
            """)
        for _ in 0..<100 where started.load(ordering: .relaxed) == 0 {
            // The last entry before the collection's deferred work is the unlimited context's.
            _ = try await unlimited.evaluate("0")
            await unlimited.collectGarbage()
            try await Task.sleep(for: .milliseconds(20))
        }
        let calls = started.load(ordering: .relaxed)
        #expect(calls > 0, "no FinalizationRegistry callback ran after 100 collections")
        // Unbounded, the callback would hold the thread forever: ask with a bound of our own.
        let answered = Atomic(false)
        Task {
            if try await unlimited.evaluate("6 * 7") == .number(42) { answered.store(true, ordering: .relaxed) }
        }
        try await poll(within: .seconds(20)) { answered.load(ordering: .relaxed) }
        let answer = answered.load(ordering: .relaxed)
        #expect(answer, "the thread did not answer within 20 s")
        guard answer else { return }
        await context.close()
        await unlimited.close()
        thread.shutdown()
    }

    /// A compilation in flight is pending work, as a browser's page is not idle while it compiles
    /// a module: a context waiting to be quiet waits for it.
    @Test func aCompilationKeepsTheContextBusyUntilItSettles() async throws {
        let context = await ScriptContext(thread: EngineThread(name: "sb-wasm-quiet"))
        try await context.run(
            """
            globalThis.done = [];
            WebAssembly.instantiate(\(Self.module)).then(made => done.push(made.instance.exports.answer()));
            WebAssembly.compile(new Uint8Array([0,97,115,109,1,0,0,0,9])).catch(error => done.push(error.name));
            """)
        #expect(await context.pendingWork.tasks == 2)
        #expect(await context.runUntilQuiescent(timeout: .seconds(10)))
        let done = try await context.evaluate("done.slice().sort().join()")
        #expect(done == .string("42,CompileError"))
        #expect(await context.pendingWork.tasks == 0)
        await context.close()
    }

    /// The promise a page gets from a compilation settles as the compilation's does: a rejection
    /// nobody handles is still reported, and the functions look as they did.
    @Test func aRejectedCompilationNobodyHandlesIsReported() async throws {
        let context = await ScriptContext(thread: EngineThread(name: "sb-wasm-rejected"))
        try await context.run("WebAssembly.compile(new Uint8Array([1, 2, 3]))")
        #expect(await context.runUntilQuiescent(timeout: .seconds(10)))
        let reasons = await context.recentEvents.compactMap { event -> String? in
            if case .unhandledRejection(let error) = event { return error.name }
            return nil
        }
        #expect(reasons == ["CompileError"])
        let shape = try await context.evaluate(
            """
            const own = Object.getOwnPropertyDescriptor(globalThis, "WebAssembly");
            [WebAssembly.compile.name, WebAssembly.compile.length, WebAssembly.instantiate.name, WebAssembly.instantiate.length,
             typeof own.value, own.writable, own.enumerable].join()
            """)
        #expect(shape == .string("compile,1,instantiate,1,object,true,false"))
        // A page may replace it, as in a browser.
        #expect(try await context.evaluate("WebAssembly = 7; WebAssembly") == .number(7))
        await context.close()
    }

    /// Deferred work may run a document's code after its context is gone (closed, or let go of):
    /// its native functions then throw, and nothing of the context is touched.
    @Test func deferredWorkOfAContextThatIsGoneCallsNothingOfIt() async throws {
        let thread = EngineThread(name: "sb-wasm-gone")
        for index in 0..<80 {
            let context = await ScriptContext(thread: thread)
            await context.defineFunction("reached") { _, _ in .null }
            try await context.run(
                """
                for (let i = 0; i < 4; i++)
                  WebAssembly.instantiate(\(Self.module)).then(() => { reached(); console.log('reached'); }, () => {});
                """)
            if index.isMultiple(of: 2) { await context.close() }
        }
        // The compilations finish after their contexts are gone; then the thread goes on.
        try await Task.sleep(for: .milliseconds(300))
        let probe = await ScriptContext(thread: thread)
        let answer = try await probe.evaluateAsync(
            "WebAssembly.instantiate(\(Self.module)).then(made => made.instance.exports.answer())", timeout: .seconds(10))
        #expect(answer == .number(42))
        await probe.close()
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
