import Foundation
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Synchronization
import Testing

/// `window.webkit.messageHandlers` as a page can inspect it, the same on both engines and as in
/// WebKit: the handlers are reached by name but not listed, and each keeps its identity.
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct MessageHandlersNamespaceOnBothEnginesTests {
    @Test(arguments: Engine.allCases)
    func theNamesAreNotListed(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let calls = Mutex(0)
            let view = try await harness.makeEchoView { calls.withLock { $0 += 1 } }
            let seen = try await view.run(
                """
                const handlers = window.webkit.messageHandlers, echo = handlers.echo;
                let listed = 0;
                for (const name in handlers) listed++;
                return [
                  Object.keys(window.webkit).length, Object.keys(handlers).length, listed, JSON.stringify(handlers),
                  "echo" in handlers, handlers.echo === echo, typeof handlers.missing, Object.keys(echo).length,
                  await echo.postMessage(3),
                ];
                """)
            #expect(seen == [0, 0, 0, "{}", true, true, "undefined", 0, 3])
            #expect(calls.withLock { $0 } == 1)
        }
    }
}
