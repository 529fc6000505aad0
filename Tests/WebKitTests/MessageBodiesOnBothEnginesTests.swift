import Foundation
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Synchronization
import Testing

/// What a page may send, the same on both engines: a body the bridge cannot carry as it is
/// throws a `DataCloneError` at once and reaches no handler (on WebKit it would otherwise
/// leave the page's promise unsettled, or arrive changed: `NaN` as `null`, a `BigInt` as
/// nothing), and handler errors keep their `code`.
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct MessageBodiesOnBothEnginesTests {
    static let refused = [
        "{f: () => 1}", "[Symbol('s')]", "{b: 10n}", "[1, 10n]", "{d: [new Date(0)]}", "[Infinity]", "{n: NaN}",
        "(() => { const o = {}; o.a = o; o.b = o; return o; })()",
    ]

    @Test(arguments: Engine.allCases)
    func bodiesThatCannotCrossThrowAndReachNoHandler(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let calls = Mutex(0)
            let contents = UserContentController()
            contents.addScriptMessageHandler(
                ClosureMessageHandler { message in
                    calls.withLock { $0 += 1 }
                    return message.body
                }, name: "echo", options: HandlerOptions(allowedOrigins: [harness.origin]))
            let view = try await harness.makeView(session: false, contents: contents)
            try await view.load(harness.url("/login"))
            let list = "[" + Self.refused.map { "() => (\($0))" }.joined(separator: ", ") + "]"
            let names = try await view.run(
                """
                const results = [];
                for (const make of \(list)) {
                  try { window.webkit.messageHandlers.echo.postMessage(make()); results.push("sent"); } catch (e) { results.push(e.name); }
                }
                return results;
                """)
            #expect(names == .array(Array(repeating: "DataCloneError", count: Self.refused.count)))
            // What can cross does, with each getter read once and shared parts copied.
            let reply = try await view.run(
                """
                let reads = 0;
                const shared = {n: 1};
                const reply = await window.webkit.messageHandlers.echo.postMessage({a: shared, b: shared, get g() { return ++reads; }});
                const text = "a\\u0000b\\u{1F600}";
                return [reply.a.n, reply.b.n, reply.g, reads, (await window.webkit.messageHandlers.echo.postMessage(text)) === text];
                """)
            #expect(reply == [1, 1, 1, 1, true])
            #expect(calls.withLock { $0 } == 2)
        }
    }

    @Test(arguments: Engine.allCases)
    func aCallWithoutABodyIsATypeError(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let contents = UserContentController()
            contents.addScriptMessageHandler(
                ClosureMessageHandler { $0.body }, name: "echo", options: HandlerOptions(allowedOrigins: [harness.origin]))
            let view = try await harness.makeView(session: false, contents: contents)
            try await view.load(harness.url("/login"))
            let outcome = try await view.run(
                """
                try { await window.webkit.messageHandlers.echo.postMessage(); return "resolved"; } catch (e) { return e.name; }
                """)
            #expect(outcome == "TypeError")
        }
    }

    /// WebKit may drop a handler's JavaScript wrapper in a collection and make a new one: the
    /// errors still arrive decoded.
    @Test(arguments: Engine.allCases)
    func handlerErrorsKeepTheirCodeAfterACollection(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let contents = UserContentController()
            contents.addScriptMessageHandler(
                ClosureMessageHandler { _ in throw ScriptMessageError(code: "refused", message: "no", retryable: true) }, name: "fail",
                options: HandlerOptions(allowedOrigins: [harness.origin]))
            let view = try await harness.makeView(session: false, contents: contents)
            try await view.load(harness.url("/login"))
            let codes = try await view.run(
                """
                const codes = [];
                for (let round = 0; round < 3; round++) {
                  let garbage = [];
                  for (let i = 0; i < 300000; i++) { garbage.push({i, s: "x" + i}); if (garbage.length > 1000) garbage = []; }
                  try { await window.webkit.messageHandlers.fail.postMessage({}); } catch (e) { codes.push(e.code); }
                }
                return codes;
                """)
            #expect(codes == ["refused", "refused", "refused"])
        }
    }
}
