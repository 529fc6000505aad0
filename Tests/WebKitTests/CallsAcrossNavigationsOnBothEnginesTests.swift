import Foundation
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Synchronization
import Testing

/// A call whose document goes away before its reply: the page's promise is rejected with
/// `NavigationError` and the handler's task cancelled, on both engines. On WebKit the reply
/// had been sent whenever the handler answered, to the left document's script, which WebKit
/// kept running: its output arrived among the next document's.
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct CallsAcrossNavigationsOnBothEnginesTests {
    @Test(arguments: Engine.allCases)
    func aCallWhoseDocumentWentAwayIsRejectedAndItsHandlerCancelled(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let handler = SlowHandler()
            let contents = UserContentController()
            contents.addScriptMessageHandler(handler, name: "slow", options: HandlerOptions(allowedOrigins: [harness.origin]))
            let view = try await harness.makeView(session: false, contents: contents)
            try await view.load(harness.url("/login"))
            _ = try await view.evaluate(
                """
                window.webkit.messageHandlers.slow.postMessage(1).then(
                  () => console.log("old document: replied"), (e) => console.log("old document: " + e.name + " " + e.code));
                true
                """)
            #expect(try await eventually { handler.state.withLock { $0.started } }, "\(engine)")
            try await view.load(harness.url("/app"))
            #expect(
                try await eventually { handler.state.withLock { $0.cancelled } },
                "\(engine): the handler went on after its document went away")
            #expect(!handler.state.withLock { $0.finished }, "\(engine)")
        }
    }
}

/// Answers after 20 seconds, unless cancelled.
private final class SlowHandler: ScriptMessageHandlerWithReply {
    struct State {
        var started = false
        var cancelled = false
        var finished = false
    }

    let state = Mutex(State())

    func userContentController(
        _ userContentController: UserContentController, didReceive message: ScriptMessage
    ) async throws -> ScriptValue {
        state.withLock { $0.started = true }
        do {
            try await Task.sleep(for: .seconds(20))
        } catch {
            state.withLock { $0.cancelled = true }
            throw error
        }
        state.withLock { $0.finished = true }
        return 1
    }
}
