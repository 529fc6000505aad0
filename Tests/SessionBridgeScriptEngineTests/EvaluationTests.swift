import OrderedCollections
import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeScriptEngine

@Suite(.timeLimit(.minutes(5)), .hangWatchdog) struct EvaluationTests {
    @Test func evaluatesAndReturnsValues() async throws {
        let context = await ScriptContext()
        #expect(try await context.evaluate("1 + 2") == .number(3))
        #expect(try await context.evaluate("'a' + 'b'") == .string("ab"))
        #expect(
            try await context.evaluate("({b: 1, a: [true, null, undefined]})")
                == .object(["b": .number(1), "a": .array([.bool(true), .null, .undefined])]))
        await context.close()
    }

    @Test func exceptionsCarryNameMessageLocationAndStack() async throws {
        let context = await ScriptContext()
        do {
            try await context.run(
                "let x = 1;\nfunction f() { throw new TypeError('bad thing'); }\nf();", sourceURL: "https://app.example/page.js",
                startingLine: 10)
            Issue.record("expected a throw")
        } catch {
            #expect(error.kind == .exception)
            #expect(error.name == "TypeError")
            #expect(error.message == "bad thing")
            #expect(error.sourceURL == "https://app.example/page.js")
            #expect(error.line == 11)
            #expect(error.column != nil)
            #expect(error.stack?.contains("f@") == true)
        }
        await context.close()
    }

    @Test func syntaxErrorsAreReported() async {
        let context = await ScriptContext()
        await #expect(throws: ScriptError.self) { try await context.run("function (", sourceURL: "bad.js") }
        do { try await context.run("let = ;", sourceURL: "bad.js") } catch {
            #expect(error.name == "SyntaxError")
            #expect(error.sourceURL == "bad.js")
        }
        await context.close()
    }

    @Test func thrownPrimitivesBecomeErrors() async {
        let context = await ScriptContext()
        do { try await context.run("throw 'plain string'") } catch {
            #expect(error.kind == .exception)
            #expect(error.message == "plain string")
        }
        await context.close()
    }

    @Test func callsFunctionsByPath() async throws {
        let context = await ScriptContext()
        try await context.run("var app = { add(a, b) { return a + b + this.bias }, bias: 100 }")
        #expect(try await context.call("app.add", [1, 2]) == .number(103))
        await #expect(throws: ScriptError.self) { try await context.call("app.missing") }
        await context.close()
    }

    @Test func deepRecursionIsARangeErrorNotACrash() async throws {
        let context = await ScriptContext()
        do { try await context.run("function r(n) { return r(n + 1) + 1 } r(0)") } catch {
            #expect(error.name == "RangeError")
        }
        #expect(try await context.evaluate("2 * 21") == .number(42))
        await context.close()
    }

    @Test func closedContextRefusesWork() async {
        let context = await ScriptContext()
        await context.close()
        do { try await context.run("1") } catch { #expect(error.kind == .contextClosed) }
    }
}

@Suite(.timeLimit(.minutes(5)), .hangWatchdog) struct AwaitTests {
    /// evaluateAsync waits with the built-ins captured when the context was made: a script that
    /// replaced them before the first wait neither sees the result nor keeps it from settling.
    @Test func evaluateAsyncWaitsWithTheBuiltInsTheContextStartedWith() async throws {
        let context = await ScriptContext()
        try await context.run(
            """
            globalThis.seen = 0;
            Promise.prototype.then = function () { seen++; return this; };
            Promise.resolve = function (value) { seen++; return value; };
            Reflect.apply = function () { seen++; };
            Function.prototype.call = function () { seen++; };
            Function.prototype.apply = function () { seen++; };
            """)
        #expect(try await context.evaluateAsync("(async () => 6 * 7)()", timeout: .seconds(5)) == 42)
        await #expect(throws: ScriptError.self) {
            try await context.evaluateAsync("Promise.reject(new TypeError('no'))", timeout: .seconds(5))
        }
        #expect(try await context.evaluate("seen") == 0)
    }

    /// A promise that settled while its script ran is referenced only by native code until the
    /// wait starts: a collection in between must not free it (it did, and the page's result
    /// came back as `undefined` or as another object's value).
    @Test func aSettledPromiseSurvivesACollectionBeforeTheWait() async throws {
        let context = await ScriptContext()
        await context.setCollectsGarbageBeforeAwaiting(true)
        _ = try await context.evaluateAsync("0")  // makes (and protects) the await helper
        let protectedBefore = await context.protectedCount
        for round in 0..<20 {
            let value = try await context.evaluateAsync("(async () => ({round: \(round), text: 'r' + \(round)}))()", timeout: .seconds(5))
            #expect(value == ["round": .number(Double(round)), "text": .string("r\(round)")])
        }
        #expect(await context.protectedCount == protectedBefore)
        await context.close()
    }

    @Test func evaluateAsyncWaitsForPromisesAndTimers() async throws {
        let context = await ScriptContext()
        #expect(try await context.evaluateAsync("new Promise(r => setTimeout(() => r({done: true}), 10))") == ["done": true])
        #expect(try await context.evaluateAsync("42") == 42)
        do {
            _ = try await context.evaluateAsync("Promise.reject(new TypeError('no'))")
            Issue.record("expected a rejection")
        } catch {
            #expect(error.name == "TypeError")
        }
        do {
            _ = try await context.evaluateAsync("new Promise(() => {})", timeout: .milliseconds(50))
            Issue.record("expected a timeout")
        } catch {
            #expect(error.kind == .timeLimitExceeded)
        }
        await context.close()
    }
}

extension ScriptContext {
    fileprivate func setCollectsGarbageBeforeAwaiting(_ collects: Bool) {
        collectsGarbageBeforeAwaiting = collects
    }
}
