import Foundation
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Synchronization
import Testing

/// A stop by the execution time limit is terminal for the entry into JavaScript in which it
/// happened, wherever it lands: in plain JavaScript, or in page code that a native call runs
/// (a conversion's getter, `toJSON`, `valueOf`, `then`, the `message` of a rejection). After the
/// stop no page code of the entry runs: each case calls `after()` (which writes a marker and
/// calls a native `mark`) once the stop has happened, and neither may be seen.
@Suite("A stop is terminal for its entry", .timeLimit(.minutes(3)), .hangWatchdog)
struct StopTests {
    /// How many times page code called the native `mark()`.
    final class Marks: Sendable {
        let count = Atomic<Int>(0)
    }

    /// A context with a short time limit on a thread of its own, with `mark()` and an async
    /// native `reply()` that answers `{ ok: true }`.
    static func makeContext(_ marks: Marks) async -> ScriptContext {
        let context = await ScriptContext(
            thread: EngineThread(name: "stop"), name: "https://app.example/stop",
            configuration: .init(timeLimit: .milliseconds(200)))
        await context.defineFunction("mark") { _, _ in
            marks.count.add(1, ordering: .relaxed)
            return .undefined
        }
        await context.defineAsyncFunction("reply") { _ in ["ok": true] }
        try? await context.run("function after() { globalThis.marker = true; mark(); }")
        return context
    }

    /// Where a stop lands, and the page code that tries to go on after it.
    enum Escape: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case plainLoop
        case consoleToJSON
        case timerDelayValueOf
        case rejectionMessageGetter
        case thenGetterWhileAReplyResolves
        case conversionGetterCaught
        case consoleToJSONThenLoop
        case timerDelayValueOfThenLoop
        case thenGetterThenLoop

        var testDescription: String { rawValue }

        /// Page code that keeps running for a while without calling anything native.
        static let busy = "{ const start = Date.now(); while (Date.now() - start < 1000) {} }"

        var source: String {
            switch self {
            case .plainLoop:
                return "try { for (;;) {} } catch (e) {} after()"
            case .consoleToJSON:
                return "try { console.log({ toJSON() { for (;;) {} } }) } catch (e) {} after()"
            case .timerDelayValueOf:
                return "try { setTimeout(() => {}, { valueOf() { for (;;) {} } }) } catch (e) {} after()"
            case .rejectionMessageGetter:
                // The rejection report reads `message`; a second read is page code after the stop.
                return """
                    const error = new Error("x");
                    Object.defineProperty(error, "message", { get() {
                      globalThis.reads = (globalThis.reads || 0) + 1;
                      if (globalThis.reads > 1) after();
                      for (;;) {}
                    } });
                    Promise.reject(error);
                    """
            case .thenGetterWhileAReplyResolves:
                return """
                    Object.defineProperty(Object.prototype, "then", { configurable: true, get() {
                      if (globalThis.thenRead) after();
                      globalThis.thenRead = true;
                      for (;;) {}
                    } });
                    reply().then(() => after(), () => after());
                    """
            case .conversionGetterCaught:
                return "try { console.log([{ get x() { for (;;) {} } }].map(o => o.x)) } catch (e) {} after()"
            case .consoleToJSONThenLoop:
                return "console.log({ toJSON() { for (;;) {} } }); \(Self.busy) after()"
            case .timerDelayValueOfThenLoop:
                return "setTimeout(() => {}, { valueOf() { for (;;) {} } }); \(Self.busy) after()"
            case .thenGetterThenLoop:
                return """
                    Object.defineProperty(Object.prototype, "then", { configurable: true, get() {
                      if (globalThis.thenRead) { \(Self.busy) after(); }
                      globalThis.thenRead = true;
                      for (;;) {}
                    } });
                    reply().then(() => { \(Self.busy) after() }, () => { \(Self.busy) after() });
                    """
            }
        }
    }

    @Test("no page code runs after a stop", arguments: Escape.allCases)
    func noPageCodeAfterAStop(_ escape: Escape) async throws {
        let marks = Marks()
        let context = await Self.makeContext(marks)
        _ = try? await context.run(escape.source)
        _ = await context.runUntilQuiescent(timeout: .seconds(5))
        // Give a leftover job every chance to run: another entry, timers, a settled reply.
        try await Task.sleep(for: .milliseconds(300))
        _ = try? await context.evaluate("0")
        #expect(marks.count.load(ordering: .relaxed) == 0, "a native function ran after the stop")
        #expect(try await context.evaluate("globalThis.marker === true") == false, "page code ran after the stop")
        // The context is usable after the stop, with its limit.
        #expect(try await context.evaluate("6 * 7") == 42)
        await #expect(throws: ScriptError.self) { try await context.run("for (;;) {}") }
        await context.close()
    }

    /// Chains of short jobs, each queueing the next, counting its links in `globalThis.links`.
    enum Chain: String, CaseIterable, Sendable {
        /// Through `then`.
        case thenChain = "globalThis.links = 0; function f() { globalThis.links++; Promise.resolve().then(f); } f()"
        /// Through `await`, which calls neither native code nor `then`.
        case awaitChain = "globalThis.links = 0; (async () => { for (;;) { await 0; globalThis.links++; } })()"
    }

    @Test("a self-requeueing microtask chain is stopped in the process", arguments: Chain.allCases)
    func microtaskChainIsStopped(_ chain: Chain) async throws {
        let marks = Marks()
        let context = await Self.makeContext(marks)
        try? await context.run(chain.rawValue)
        let stopped = await context.recentEvents.contains { event in
            if case .uncaughtError(let error) = event { return error.kind == .timeLimitExceeded }
            return false
        }
        #expect(stopped, "the chain's stop is reported")
        let links = try await context.evaluate("globalThis.links")
        #expect(links != 0, "the chain ran until its stop")
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await context.evaluate("globalThis.links") == links, "the chain goes on after its stop")
        #expect(try await context.evaluate("6 * 7") == 42)
        await context.close()
    }

    @Test("a chain through queueMicrotask and catch is stopped too")
    func queueMicrotaskAndCatchChainsAreStopped() async throws {
        let marks = Marks()
        let context = await Self.makeContext(marks)
        try? await context.run(
            """
            globalThis.a = 0; globalThis.b = 0;
            function g() { globalThis.a++; queueMicrotask(g); } g();
            function h() { globalThis.b++; Promise.reject(0).catch(h); } h();
            """)
        let before = try await context.evaluate("[globalThis.a, globalThis.b]")
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await context.evaluate("[globalThis.a, globalThis.b]") == before)
        await context.close()
    }
}
