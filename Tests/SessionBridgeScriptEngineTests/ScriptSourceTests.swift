import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeScriptEngine

@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct ScriptSourceTests {
    /// Counts its runs in the global object it runs in, and reads a global only one context has.
    static let counter = ScriptSource(
        "globalThis.runs = (globalThis.runs ?? 0) + 1; [runs, typeof marker]", sourceURL: "sessionbridge://test/counter.js")

    @Test func oneParsedScriptRunsInEachContextOfItsThreadAsItsOwn() async throws {
        let thread = EngineThread(name: "script-source")
        let first = await ScriptContext(thread: thread)
        let second = await ScriptContext(thread: thread)
        try await first.run("globalThis.marker = 1")
        let (a, afterFirst) = try await first.evaluate(Self.counter)
        let (b, madeForSecond) = try await second.evaluate(Self.counter)
        let (c, madeAgain) = try await first.evaluate(Self.counter)
        #expect(a == [.number(1), .string("number")])
        #expect(b == [.number(1), .string("undefined")])
        #expect(c == [.number(2), .string("number")])
        // Evaluated as text once, then parsed once for the thread's VM, and that script is what
        // every later evaluation ran.
        #expect(afterFirst == 0)
        #expect(madeForSecond != 0)
        #expect(madeForSecond == madeAgain)
        await first.close()
        await second.close()
    }

    /// A lane has a VM of its own: a script made for its host thread's VM cannot run there
    /// (JavaScriptCore stops the process), so the lane makes its own.
    @Test func aLaneMakesItsOwnScript() async throws {
        let thread = EngineThread(name: "script-source-host")
        let lane = thread.makeLane(name: "script-source-lane")
        let onThread = await ScriptContext(thread: thread)
        let onLane = await ScriptContext(thread: lane)
        _ = try await onThread.evaluate(Self.counter)
        _ = try await onLane.evaluate(Self.counter)
        let (a, madeForThread) = try await onThread.evaluate(Self.counter)
        let (b, madeForLane) = try await onLane.evaluate(Self.counter)
        #expect(a == [.number(2), .string("undefined")])
        #expect(b == [.number(2), .string("undefined")])
        #expect(madeForThread != 0 && madeForLane != 0)
        #expect(madeForThread != madeForLane)
        await onThread.close()
        await onLane.close()
    }

    @Test func itsErrorsNameItsURLAndLinesEveryTime() async throws {
        let throwing = ScriptSource(
            "void 1;\nthrow new TypeError('bad thing');", sourceURL: "sessionbridge://test/throws.js")
        let context = await ScriptContext()
        await context.expectThrowsEveryTime(throwing) { error in
            #expect(error.name == "TypeError")
            #expect(error.message == "bad thing")
            #expect(error.sourceURL == "sessionbridge://test/throws.js")
            #expect(error.line == 2)
        }
        await context.close()
    }

    /// A source JavaScriptCore does not parse is evaluated as text, which reports its error,
    /// every time.
    @Test func aSourceThatDoesNotParseReportsItsSyntaxError() async throws {
        let broken = ScriptSource("let = ;", sourceURL: "sessionbridge://test/broken.js")
        let context = await ScriptContext()
        await context.expectThrowsEveryTime(broken) { error in
            #expect(error.name == "SyntaxError")
            #expect(error.sourceURL == "sessionbridge://test/broken.js")
        }
        #expect(await context.madeScript(for: broken) == 0)
        await context.close()
    }
}

extension ScriptContext {
    /// `source`'s value here, and the bits of the script the thread made for it.
    fileprivate func evaluate(_ source: ScriptSource) throws(ScriptError) -> (ScriptValue, UInt) {
        let value = try unsafe scriptValue(evaluateRaw(source))
        return (value, madeScript(for: source))
    }

    /// Evaluates `source` three times (as text, then making its script, then from it), and
    /// hands each error to `check`; a time it does not throw is an issue.
    fileprivate func expectThrowsEveryTime(_ source: ScriptSource, _ check: (ScriptError) -> Void) {
        for _ in 0..<3 {
            do {
                _ = try evaluate(source)
                Issue.record("expected a throw")
            } catch {
                check(error)
            }
        }
    }

    fileprivate func madeScript(for source: ScriptSource) -> UInt {
        UInt(bitPattern: Int(bitPattern: unsafe thread.madeScript(for: source)))
    }
}
