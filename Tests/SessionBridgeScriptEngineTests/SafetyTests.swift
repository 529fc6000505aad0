import SessionBridgeTestSupport
import Synchronization
import Testing

@testable import SessionBridgeScriptEngine

@Suite(.timeLimit(.minutes(5)), .hangWatchdog) struct SafetyTests {
    @Test func infiniteLoopEndsWithTimeLimitAndContextStaysUsable() async throws {
        let context = await ScriptContext(thread: EngineThread(name: "time-limit"), configuration: .init(timeLimit: .milliseconds(200)))
        let clock = ContinuousClock()
        let start = clock.now
        do {
            try await context.run("while (true) {}")
            Issue.record("expected the time limit")
        } catch {
            #expect(error.kind == .timeLimitExceeded)
        }
        #expect(clock.now - start < .seconds(120), "the loop must end; the bound is generous for a busy machine")
        #expect(try await context.evaluate("6 * 7") == .number(42))
        await context.close()
    }

    /// Where a runaway script loops when its time limit stops it.
    enum Runaway: String, CaseIterable, Sendable {
        case plain = "for (;;) {}"
        case caughtInNative = "for (;;) { try { read({ get x() { for (;;) {} } }); } catch (e) {} }"
        case timer = "setTimeout(() => { for (;;) {} }, 0)"
        case microtask = "Promise.resolve().then(() => { for (;;) {} })"
        case asyncFunction = "(async () => { await 0; for (;;) {} })()"
        case promiseJobs = "for (let i = 0; i < 6; i++) Promise.resolve().then(() => { for (;;) {} })"
        /// Short jobs, each queueing the next: no job is long, only the chain.
        case awaitChain = "(async () => { for (;;) await 0; })()"
        case asyncGeneratorChain = "(async () => { for await (const _ of (async function* () { for (;;) yield 0; })()); })()"
        /// After a native async function's promise is settled: its reaction, and a chain, run in
        /// the entry that settles it (one call that settles, then runs the checkpoint).
        case afterASettle = "tick().then(() => { for (;;) {} })"
        case awaitChainAfterASettle = "(async () => { await tick(); for (;;) await 0; })()"
    }

    @Test(arguments: Runaway.allCases) func aStoppedScriptLeavesOtherContextsOnItsThreadAlone(_ runawaySource: Runaway) async throws {
        let thread = EngineThread(name: "shared-time-limit")
        let runaway = await ScriptContext(thread: thread, configuration: .init(timeLimit: .milliseconds(50)))
        let neighbour = await ScriptContext(thread: thread, configuration: .init(timeLimit: .seconds(30)))
        let unlimited = await ScriptContext(thread: thread)
        await runaway.defineFunction("read") { _, arguments in arguments.first ?? .undefined }
        await runaway.defineAsyncFunction("tick") { _ in .undefined }
        for round in 0..<5 {
            _ = try? await runaway.run(runawaySource.rawValue)
            #expect(await runaway.runUntilQuiescent(timeout: .seconds(60)))
            // Wherever it looped, the stop is reported against the runaway.
            if runawaySource != .plain && runawaySource != .caughtInNative {
                let stops = await runaway.recentEvents.count { event in
                    if case .uncaughtError(let error) = event { return error.kind == .timeLimitExceeded }
                    return false
                }
                #expect(stops >= round + 1, "round \(round)")
            }
            // The neighbours' work, each entry longer than the runaway's limit, is never stopped.
            for context in [neighbour, unlimited] {
                let sum = try await context.evaluate(
                    "let s\(round) = 0; const t\(round) = Date.now(); while (Date.now() - t\(round) < 120) s\(round)++; 'done'")
                #expect(sum == "done", "round \(round)")
                #expect(
                    try await context.evaluate("(() => { try { throw new Error('plain'); } catch (e) { return e.message; } })()") == "plain"
                )
                let error = await #expect(throws: ScriptError.self) { try await context.run("throw new TypeError('mine')") }
                #expect(error?.kind == .exception && error?.name == "TypeError", "round \(round): \(String(describing: error))")
            }
        }
        for context in [runaway, neighbour, unlimited] { await context.close() }
    }

    /// `call(_:_:)` finds its function along a path the page may have given a getter: that
    /// getter runs inside the call's entry, under the context's time limit, even where the
    /// thread's last entry was another context's without a limit (which had left none set).
    @Test func aGetterOnACallsPathMeetsTheTimeLimit() async throws {
        let thread = EngineThread(name: "time-limit")
        let limited = await ScriptContext(thread: thread, configuration: .init(timeLimit: .milliseconds(200)))
        let unlimited = await ScriptContext(thread: thread)
        // The getter runs for 30 s of wall time: past the limit's 200 ms of CPU time on any
        // machine, but not for good if nothing stops it.
        try await limited.run(
            "Object.defineProperty(globalThis, 'app', { get() { const t = Date.now(); while (Date.now() - t < 30000) {} } });")
        #expect(try await unlimited.evaluate("6 * 7") == .number(42))
        let error = await #expect(throws: ScriptError.self) { try await limited.call("app.start") }
        #expect(error?.kind == .timeLimitExceeded, "\(String(describing: error))")
        #expect(try await limited.evaluate("6 * 7") == .number(42))
        await limited.close()
        await unlimited.close()
    }

    /// A script's result whose getters each run a little short of the limit: read after the
    /// script returned, each getter was timed on its own (40 × 150 ms = 6 s under a 200 ms
    /// limit, and no stop); read in one entry, the whole reading meets the limit. So does a
    /// called function's. (The getters spin on the wall clock, the limit counts CPU time: a
    /// loaded machine only makes the reading longer.)
    @Test func aResultsGettersMeetTheTimeLimitTogether() async throws {
        let context = await ScriptContext(thread: EngineThread(name: "time-limit"), configuration: .init(timeLimit: .milliseconds(200)))
        try await context.run(
            """
            globalThis.slow = () => {
              const o = {};
              for (let i = 0; i < 40; i++) Object.defineProperty(o, 'k' + i, {
                enumerable: true, get() { const t = Date.now(); while (Date.now() - t < 150) {} return i; } });
              return o;
            };
            """)
        for read in [{ () async throws(ScriptError) in try await context.evaluate("slow()") }, { try await context.call("slow") }] {
            let error = await #expect(throws: ScriptError.self) { _ = try await read() }
            #expect(error?.kind == .timeLimitExceeded, "\(String(describing: error))")
        }
        // The context goes on, and an ordinary result reads as before.
        #expect(try await context.evaluate("({a: [1, {b: 'c'}]})") == ["a": [1, ["b": "c"]]])
        await context.close()
    }

    /// A thrown object whose getters (`name`, `message`, `stack`, …) each run a little short of
    /// the limit: read after the script ended, each had a limit of its own (seven reads of 300
    /// ms, 2.1 s, under a 400 ms limit, reported as an ordinary exception); they now share
    /// what is left of the entry's time by the wall clock, and the reading ends as a stop.
    @Test func aThrownObjectsGettersMeetTheTimeLimitTogether() async throws {
        let context = await ScriptContext(thread: EngineThread(name: "time-limit"), configuration: .init(timeLimit: .milliseconds(400)))
        let error = await #expect(throws: ScriptError.self) {
            try await context.run(
                """
                globalThis.ran = 0;
                const slow = value => () => { ran++; const t = Date.now(); while (Date.now() - t < 300) {} return value; };
                const thrown = {};
                for (const name of ["name", "message", "sourceURL", "stack"]) Object.defineProperty(thrown, name, { get: slow("x") });
                for (const name of ["line", "column"]) Object.defineProperty(thrown, name, { get: slow(1) });
                thrown.toString = slow("x");
                throw thrown;
                """)
        }
        #expect(error?.kind == .timeLimitExceeded, "\(String(describing: error))")
        // Once the entry's time is spent each read has a stopped entry's few milliseconds: the
        // reading stops within a getter or two of it, not after all seven.
        #expect(try await context.evaluate("ran") != .number(7))
        // An ordinary error reads as before.
        let plain = await #expect(throws: ScriptError.self) { try await context.run("throw new RangeError('plain')") }
        #expect(plain?.name == "RangeError" && plain?.message == "plain" && plain?.kind == .exception)
        await context.close()
    }

    @Test func infiniteLoopInATimerIsEndedAndReported() async throws {
        let context = await ScriptContext(thread: EngineThread(name: "time-limit"), configuration: .init(timeLimit: .milliseconds(100)))
        try await context.run("setTimeout(() => { for (;;) {} }, 0)")
        #expect(await context.runUntilQuiescent(timeout: .seconds(60)))
        let stopped = await context.recentEvents.contains { event in
            if case .uncaughtError(let error) = event { return error.kind == .timeLimitExceeded }
            return false
        }
        #expect(stopped)
        await context.close()
    }

    /// When each call of a page's `mark` ran: a test of what never runs after a close compares
    /// each call with the moment the close returned, so that a loaded machine, on which a
    /// timer may come due before the close, does not fail it.
    final class Calls: Sendable {
        private let instants = Mutex<[ContinuousClock.Instant]>([])

        func record() { instants.withLock { $0.append(.now) } }

        func after(_ instant: ContinuousClock.Instant) -> Int {
            instants.withLock { $0.count { $0 > instant } }
        }
    }

    @Test func teardownWithPendingWorkFiresNothing() async throws {
        let context = await ScriptContext()
        let calls = Calls()
        await context.defineFunction("mark") { _, _ in
            calls.record()
            return .undefined
        }
        await context.defineAsyncFunction("slow") { _ in
            try? await Task.sleep(for: .milliseconds(50))
            return "late"
        }
        try await context.run(
            """
            setTimeout(mark, 20); setInterval(mark, 5, 'a', {b: 1});
            slow().then(mark, mark);
            """)
        await context.close()
        let closed = ContinuousClock.now
        try await Task.sleep(for: .milliseconds(150))
        #expect(calls.after(closed) == 0)
        #expect(await context.protectedCount == 0, "everything protected is released on close")
    }

    /// A context closed with its global object released later (as a navigation closes the old
    /// document) is closed at once: its timers never fire, its native functions throw. The
    /// global object goes in the thread's next job.
    @Test func aContextClosedReleasingLaterIsClosedAtOnceAndReleasedInTheNextJob() async throws {
        let thread = EngineThread(name: "sb-release-later")
        var context: ScriptContext? = await ScriptContext(thread: thread)
        let calls = Calls()
        await context!.defineFunction("mark") { _, _ in
            calls.record()
            return .undefined
        }
        try await context!.run("setTimeout(mark, 20); globalThis.later = mark")
        let released = await context!.closeReleasingLaterAndLook()
        let closed = ContinuousClock.now
        #expect(released == (closed: true, releasedAtOnce: false))
        await #expect(throws: (any Error).self) { try await context!.evaluate("later()") }
        #expect(await context!.globalObjectIsReleased(), "released in the thread's next job")
        context = nil
        try await Task.sleep(for: .milliseconds(60))
        #expect(calls.after(closed) == 0)
        thread.shutdown()
    }

    @Test func contextsOnDifferentThreadsRunInParallel() async throws {
        let pool = EnginePool(threadCount: 2)
        let first = await ScriptContext(thread: pool.threads[0])
        let second = await ScriptContext(thread: pool.threads[1])
        let source = "let s = 0; for (let i = 0; i < 3e7; i++) s += i % 7; s"
        async let a = first.evaluate(source)
        async let b = second.evaluate(source)
        let (x, y) = try await (a, b)
        #expect(x == y)
        await first.close()
        await second.close()
    }

    @Test func manyContextsShareOneThread() async throws {
        let thread = EngineThread(name: "shared")
        var contexts: [ScriptContext] = []
        for index in 0..<50 {
            let context = await ScriptContext(thread: thread, name: "page-\(index)")
            try await context.run("var id = \(index)")
            contexts.append(context)
        }
        for (index, context) in contexts.enumerated() {
            #expect(try await context.evaluate("id") == .number(Double(index)))
            await context.close()
        }
    }

    /// Numbers a page chooses never stop the process when they become integers: timer ids
    /// (`NaN`, infinities, `1e300`, `-2**64`) clear nothing, and a thrown object's `line` and
    /// `column` outside any integer's range are left out of the error. Each used to trap in
    /// `Int(_:)` and take the app down.
    @Test func numbersAPageChoosesNeverStopTheProcess() async throws {
        let context = await ScriptContext(thread: EngineThread(name: "numbers"), configuration: .init(timeLimit: .seconds(10)))
        let survived = try await context.evaluate(
            """
            globalThis.fired = 0;
            const kept = setTimeout(() => { fired++; }, 0);
            const dropped = setTimeout(() => { fired += 100; }, 0);
            for (const id of [NaN, Infinity, -Infinity, 1e300, -1e300, 2 ** 64, -(2 ** 64), 2 ** 63, -0, 0.5]) {
              clearTimeout(id);
              clearInterval(id);
            }
            clearTimeout(dropped);
            "survived"
            """)
        #expect(survived == "survived")
        #expect(await context.runUntilQuiescent(timeout: .seconds(30)))
        #expect(try await context.evaluate("fired") == .number(1))
        for (line, column) in [("1e300", "NaN"), ("-Infinity", "2 ** 64"), ("7", "9")] {
            do {
                try await context.run(
                    "{ const e = new Error('odd'); Object.defineProperty(e, 'line', {value: \(line)}); e.column = \(column); throw e; }")
                Issue.record("expected the throw")
            } catch {
                #expect(error.message == "odd")
                #expect(error.line == (line == "7" ? 7 : nil))
                #expect(error.column == (column == "9" ? 9 : nil))
            }
        }
        await context.close()
    }
}

extension ScriptContext {
    /// Closes the context, releasing its global object later, and tells what it is right after.
    fileprivate func closeReleasingLaterAndLook() -> (closed: Bool, releasedAtOnce: Bool) {
        close(releasingLater: true)
        return (isClosed, globalContext.isReleased)
    }

    /// Whether the global object is released (read in a job after the ones queued before).
    fileprivate func globalObjectIsReleased() -> Bool {
        globalContext.isReleased
    }
}
