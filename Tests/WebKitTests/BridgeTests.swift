import Foundation
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeWebKit
import Synchronization
import Testing

@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct SessionBridgeMessagingTests {
    @Test func messageRoundTripRepliesAndRejectsWithCodes() async throws {
        try await withSite(pages: ["/app": "<title>app</title>"]) { site in
            let log = MessageLog()
            let contents = UserContentController(log: log)
            contents.addScriptMessageHandler(
                ClosureMessageHandler { message in
                    if message.body["fail"] == true {
                        throw ScriptMessageError(code: "nope", message: "refused on purpose", retryable: true, data: ["hint": "later"])
                    }
                    if message.body["crash"] == true { throw CancellationError() }
                    return ["echo": message.body, "origin": .string(message.frameInfo.securityOrigin?.description ?? "")]
                }, name: "echo", options: HandlerOptions(allowedOrigins: [site.origin]))
            try await withView(WebKitWebViewConfiguration(userContentController: contents)) { view in
                try await view.load(site.url("/app"))
                let reply = try await view.callAsyncJavaScript(
                    """
                    const ok = await window.webkit.messageHandlers.echo.postMessage({n: 1, s: "two", list: [true, null]});
                    let failure;
                    try { await window.webkit.messageHandlers.echo.postMessage({fail: true}); } catch (e) {
                        failure = [e instanceof Error, e.name, e.message, e.code, e.retryable, e.data.hint];
                    }
                    return {ok, failure};
                    """)
                // WebKitGTK's message path does not keep object key order.
                #expect(
                    reply["ok"]?.sortedKeys == [
                        "echo": ["list": [true, nil], "n": 1, "s": "two"], "origin": .string(site.origin.description),
                    ])
                #expect(reply["failure"] == [true, "Error", "refused on purpose", "nope", true, "later"])
                let entries = log.entries
                #expect(entries.count == 2)
                #expect(entries.first?.origin == site.origin.description)
                #expect(entries.last?.outcome == .rejected(code: "nope", message: "refused on purpose"))
            }
        }
    }

    @Test func primitiveBodiesAndRepliesCrossAsJSONWouldCarryThem() async throws {
        try await withSite(pages: ["/app": "<title>app</title>"]) { site in
            let contents = UserContentController()
            contents.addScriptMessageHandler(
                ImmediateClosureMessageHandler { message in message.body }, name: "echo",
                options: HandlerOptions(allowedOrigins: [site.origin]))
            contents.addScriptMessageHandler(
                ImmediateClosureMessageHandler { message in
                    .array([.number(.nan), .number(-0.0), .number(2.5), .bool(false), .null, .undefined])
                }, name: "odd", options: HandlerOptions(allowedOrigins: [site.origin]))
            try await withView(WebKitWebViewConfiguration(userContentController: contents)) { view in
                try await view.load(site.url("/app"))
                let reply = try await view.callAsyncJavaScript(
                    """
                    const h = window.webkit.messageHandlers.echo;
                    const echoed = [];
                    for (const body of [42, -0, 1.5e300, true, false, null, "text"]) echoed.push(await h.postMessage(body));
                    const refused = [];
                    for (const body of [NaN, Infinity]) { try { h.postMessage(body); } catch (e) { refused.push(e.name); } }
                    const odd = await window.webkit.messageHandlers.odd.postMessage(0);
                    return {echoed, refused, negativeZero: Object.is(echoed[1], -0), undefinedReply: await h.postMessage(undefined) === undefined, odd};
                    """)
                #expect(reply["echoed"] == [42, 0, 1.5e300, true, false, nil, "text"])
                // Non-finite numbers do not cross, as on the headless engine (JSON would make them null).
                #expect(reply["refused"] == ["DataCloneError", "DataCloneError"])
                #expect(reply["negativeZero"] == false)
                #expect(reply["undefinedReply"] == true)
                #expect(reply["odd"] == [nil, 0, 2.5, false, nil, nil])
            }
        }
    }

    @Test func aDisallowedOriginIsRefusedAndTheHandlerNeverRuns() async throws {
        try await withSite { site in
            let contents = UserContentController()
            let calls = CallCounter()
            contents.addScriptMessageHandler(
                ClosureMessageHandler { _ in
                    calls.increment(); return true
                },
                name: "session", options: HandlerOptions(allowedOrigins: [site.origin]))
            try await withView(WebKitWebViewConfiguration(userContentController: contents)) { view in
                try await view.loadHTMLString("<p>evil</p>", baseURL: URL(string: "https://evil.example/")!)
                let result = try await view.callAsyncJavaScript(
                    """
                    try { await window.webkit.messageHandlers.session.postMessage({action: "refresh", origin: "\(site.baseURL.absoluteString)"}); return "allowed"; }
                    catch (e) { return [e.name, e.code]; }
                    """)
                #expect(result == ["NotAllowedError", "not_allowed"])
                #expect(calls.count == 0)
                #expect(contents.log?.entries.last?.origin == "https://evil.example")
            }
        }
    }

    @Test func handlersOfAnIsolatedWorldAreInvisibleToThePage() async throws {
        try await withSite { site in
            let contents = UserContentController()
            contents.addScriptMessageHandler(
                ImmediateClosureMessageHandler { _ in "secret-world" }, contentWorld: .defaultClient, name: "native",
                options: HandlerOptions(allowedOrigins: [site.origin]))
            try await withView(WebKitWebViewConfiguration(userContentController: contents)) { view in
                try await view.load(site.url("/page"))
                let pageSees = try await view.evaluateJavaScript("typeof (window.webkit && window.webkit.messageHandlers.native)")
                let worldGets = try await view.callAsyncJavaScript(
                    "return await window.webkit.messageHandlers.native.postMessage(1)", in: .defaultClient)
                #expect(pageSees == "undefined")
                #expect(worldGets == "secret-world")
            }
        }
    }

    @Test func aSlowHandlerTimesOutWithARetryableError() async throws {
        try await withSite { site in
            let contents = UserContentController()
            contents.addScriptMessageHandler(
                ClosureMessageHandler { _ in
                    try await Task.sleep(for: .seconds(20))
                    return "late"
                }, name: "slow", options: HandlerOptions(allowedOrigins: [site.origin], timeout: .milliseconds(200)))
            try await withView(WebKitWebViewConfiguration(userContentController: contents)) { view in
                try await view.load(site.url("/page"))
                let result = try await view.callAsyncJavaScript(
                    """
                    try { await window.webkit.messageHandlers.slow.postMessage({}); return "replied"; }
                    catch (e) { return [e.name, e.code, e.retryable]; }
                    """)
                #expect(result == ["TimeoutError", "timeout", true])
            }
        }
    }

    @Test func userScriptsRunAtDocumentStartInTheirWorld() async throws {
        try await withSite(pages: ["/start": "<script>window.__seen = window.__early;</script><title>start</title>"]) { site in
            let contents = UserContentController()
            contents.addUserScript(
                UserScript(source: "window.__early = document.readyState + ':' + (document.body === null)", injectionTime: .atDocumentStart)
            )
            contents.addUserScript(UserScript(source: "window.__isolated = 'client'", injectionTime: .atDocumentStart, in: .defaultClient))
            contents.addUserScript(UserScript(source: "window.__late = document.title", injectionTime: .atDocumentEnd))
            try await withView(WebKitWebViewConfiguration(userContentController: contents)) { view in
                try await view.load(site.url("/start"))
                #expect(
                    try await view.evaluateJavaScript("[window.__seen, typeof window.__isolated, window.__late]") == [
                        "loading:true", "undefined", "start",
                    ])
                #expect(try await view.evaluateJavaScript("window.__isolated", in: .defaultClient) == "client")
            }
        }
    }

    @Test func scriptsEvaluateAndErrorsThrow() async throws {
        try await withSite { site in
            try await withView { view in
                try await view.load(site.url("/page"))
                #expect(try await view.evaluateJavaScript("41 + 1") == 42)
                #expect(try await view.evaluateJavaScript("undefined") == .undefined)
                #expect(try await view.evaluateJavaScript("({a: 'x', b: [1, 2.5]})") == ["a": "x", "b": [1, 2.5]])
                #expect(try await view.callAsyncJavaScript("const r = await fetch('/echo'); return r.status;") == 200)
                await #expect(throws: WebKitError.self) { try await view.evaluateJavaScript("throw new TypeError('boom')") }
                await #expect(throws: WebKitError.self) {
                    try await view.callAsyncJavaScript("await new Promise(() => {})", timeout: .milliseconds(300))
                }
            }
        }
    }
}

/// Counts calls from any thread.
final class CallCounter: Sendable {
    private let value = Mutex(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}
