import Dispatch
import Foundation
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Synchronization
import Testing

/// Handlers that answer through a reply handler (WebKit's `replyHandler`), the same on both
/// engines: at once or later from another thread, the first answer counts, an error keeps its
/// code, a reply dropped unanswered rejects at once, and the call's timeout still applies.
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct ReplyHandlerOnBothEnginesTests {
    /// Answers as the body's `how` says.
    final class Scripted: ScriptMessageHandlerWithReplyHandler {
        let queue = DispatchQueue(label: "reply-handler-tests")
        let held = Mutex<[ScriptMessageReply]>([])

        func userContentController(_ controller: UserContentController, didReceive message: ScriptMessage, replyHandler: ScriptMessageReply)
        {
            let n = message.body["n"] ?? .null
            switch message.body["how"]?.stringValue {
            case "now":
                replyHandler.reply(["now": n])
            case "later":
                queue.asyncAfter(deadline: .now() + .milliseconds(20)) { replyHandler.reply(["later": n]) }
            case "twice":
                replyHandler.reply(["first": n])
                replyHandler.reply(["second": n])
                replyHandler.reject(ScriptMessageError(code: "late", message: "too late"))
            case "refuse":
                queue.async { replyHandler.reject(ScriptMessageError(code: "refused", message: "no", retryable: true)) }
            case "fail":
                replyHandler.reject(CocoaError(.fileNoSuchFile))
            case "drop":
                queue.async { _ = replyHandler }
            default:
                held.withLock { $0.append(replyHandler) }  // never answered, never released
            }
        }
    }

    @Test(arguments: Engine.allCases)
    func repliesArriveFromAnyThreadAndTheFirstCounts(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let contents = UserContentController()
            contents.addScriptMessageHandler(
                Scripted(), name: "answer", options: HandlerOptions(allowedOrigins: [harness.origin], timeout: .milliseconds(500)))
            let view = try await harness.makeView(session: false, contents: contents)
            try await view.load(harness.url("/login"))
            let started = ContinuousClock.now
            let results = try await view.run(
                """
                const ask = async (how) => {
                  const begun = Date.now();
                  try { return [await window.webkit.messageHandlers.answer.postMessage({how, n: 7})]; }
                  catch (e) { return [e.name, e.code, e.retryable, Date.now() - begun < 400]; }
                };
                return [await ask("now"), await ask("later"), await ask("twice"), await ask("refuse"), await ask("fail"), await ask("drop"),
                        await ask("hold")];
                """)
            #expect(
                results == [
                    [["now": 7]], [["later": 7]], [["first": 7]], ["Error", "refused", true, true],
                    ["Error", "internal_error", false, true], ["Error", "no_reply", false, true], ["TimeoutError", "timeout", true, false],
                ])
            #expect(ContinuousClock.now - started < .seconds(20))
        }
    }
}
