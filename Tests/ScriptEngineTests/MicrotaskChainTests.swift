import Testing
@testable import ScriptEngine

/// Chains of microtasks that never call `then` or native code: JavaScriptCore times each of
/// their microtasks as an entry of its own, so only the check after garbage collections sees them.
@Suite(.timeLimit(.minutes(2))) struct MicrotaskChainTests {
    /// Endless chains, each counting its steps in `globalThis.steps`.
    enum Chain: String, CaseIterable, Sendable {
        case recursiveAsync = "async function f() { steps++; await null; f(); } f();"
        case awaitedPromises = "(async () => { for (;;) { steps++; await Promise.resolve(); } })();"
        case asyncGenerator = "async function* g() { for (;;) yield steps++; } (async () => { for await (const x of g()); })();"
        case withQueueMicrotask = "(async () => { for (;;) { steps++; await Promise.resolve(); queueMicrotask(() => { steps++; }); } })();"
    }

    @Test(arguments: Chain.allCases) func endlessChainIsStoppedAndTheThreadRunsOn(_ chain: Chain) async throws {
        let thread = EngineThread(name: "microtask-chain")
        let page = await ScriptContext(thread: thread, configuration: .init(timeLimit: .milliseconds(300)))
        let neighbour = await ScriptContext(thread: thread)
        try await page.run("globalThis.steps = 0; globalThis.after = false; \(chain.rawValue) queueMicrotask(() => {}); ")
        // The call returned: the chain was ended in its own entry, and reported as a stop.
        let stops = await page.recentEvents.count { event in
            if case .uncaughtError(let error) = event { return error.kind == .timeLimitExceeded }
            return false
        }
        #expect(stops == 1)
        // Nothing of the chain runs any more: later entries neither resume it nor are ended by it.
        let steps = try await page.evaluate("steps")
        #expect((steps.numberValue ?? 0) > 1000, "the chain ran before it was stopped: \(steps)")
        try await page.run("after = true")
        #expect(await page.runUntilQuiescent(timeout: .seconds(60)))
        #expect(try await page.evaluate("steps") == steps)
        #expect(try await page.evaluate("after") == .bool(true))
        // Another page's script on the same thread runs normally.
        #expect(try await neighbour.evaluate("1 + 1") == .number(2))
        await page.close()
        await neighbour.close()
    }

    @Test func tenThousandAwaitsWithinTheLimitComplete() async throws {
        let context = await ScriptContext(thread: EngineThread(name: "awaits"), configuration: .init(timeLimit: .seconds(10)))
        let sum = try await context.evaluateAsync("""
            (async () => {
              let sum = 0;
              for (let i = 0; i < 10000; i++) sum += await i;
              for (let i = 0; i < 10000; i++) sum += await Promise.resolve(1);
              return sum;
            })()
            """)
        #expect(sum == .number(49_995_000 + 10_000))
        let stopped = await context.recentEvents.contains { event in
            if case .uncaughtError(let error) = event { return error.kind == .timeLimitExceeded }
            return false
        }
        #expect(!stopped)
        await context.close()
    }

    /// A collection long after an entry ended (here after one that threw) stops nothing.
    @Test func collectionAfterAnEntryEndedStopsNothing() async throws {
        let context = await ScriptContext(thread: EngineThread(name: "collections"), configuration: .init(timeLimit: .milliseconds(50)))
        await #expect(throws: ScriptError.self) { try await context.run("throw new Error('ends the entry')") }
        try await Task.sleep(for: .milliseconds(120))
        await context.collectGarbage()
        #expect(try await context.evaluate("const a = []; for (let i = 0; i < 1000; i++) a.push({ i }); a.length") == .number(1000))
        let stopped = await context.recentEvents.contains { event in
            if case .uncaughtError(let error) = event { return error.kind == .timeLimitExceeded }
            return false
        }
        #expect(!stopped)
        await context.close()
    }
}
