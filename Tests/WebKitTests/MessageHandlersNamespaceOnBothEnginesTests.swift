import Foundation
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Synchronization
import Testing

/// `window.webkit.messageHandlers` as a page can inspect it, the same on both engines and as in
/// WebKit: the names are not listed, the objects carry WebKit's class names, and `postMessage`
/// taken off a handler and called on something else rejects with a `TypeError`.
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct MessageHandlersNamespaceOnBothEnginesTests {
    @Test(arguments: Engine.allCases)
    func theNamespaceLooksAsInWebKit(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let calls = Mutex(0)
            let view = try await harness.makeEchoView { calls.withLock { $0 += 1 } }
            let seen = try await view.run(
                """
                const handlers = window.webkit.messageHandlers, echo = handlers.echo, tag = o => Object.prototype.toString.call(o);
                let listed = 0;
                for (const name in handlers) listed++;
                return [
                  Object.keys(window.webkit).length, Object.keys(handlers).length, listed, JSON.stringify(handlers),
                  "echo" in handlers, handlers.echo === echo, typeof handlers.missing, Object.keys(echo).length,
                  tag(window.webkit), tag(handlers), tag(echo),
                ];
                """)
            #expect(
                seen == [
                    0, 0, 0, "{}", true, true, "undefined", 0,
                    "[object WebKitNamespace]", "[object UserMessageHandlersNamespace]", "[object UserMessageHandler]",
                ])

            let called = try await view.run(
                """
                const echo = window.webkit.messageHandlers.echo, post = Object.getPrototypeOf(echo).postMessage;
                let refused;
                try { await post.call({postMessage: echo.postMessage}, 1); refused = "sent"; } catch (e) { refused = [e instanceof TypeError, e.message]; }
                return [refused, await post.call(echo, 2), await echo.postMessage(3)];
                """)
            #expect(
                called == [
                    [true, "Can only call UserMessageHandler.postMessage on instances of UserMessageHandler"], 2, 3,
                ])
            #expect(calls.withLock { $0 } == 2)
        }
    }
}
