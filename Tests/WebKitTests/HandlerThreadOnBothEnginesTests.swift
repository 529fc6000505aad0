import Foundation
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeWebKit
import Synchronization
import Testing

/// A reply handler runs on the view's thread until it suspends, and resumes there, on both
/// engines (`ScriptMessageHandlerWithReply` is `nonisolated(nonsending)`): a handler that never
/// suspends answers without a hop, and one that does touches the page's state from its thread.
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct HandlerThreadOnBothEnginesTests {
    @Test(arguments: Engine.allCases)
    func anAsyncHandlerRunsAndResumesOnTheViewsThread(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let onViewThread = Mutex<(@Sendable () -> Bool)?>(nil)
            let contents = UserContentController()
            contents.addScriptMessageHandler(
                ClosureMessageHandler { _ in
                    let check = onViewThread.withLock { $0 } ?? { false }
                    let atStart = check()
                    // A real suspension: the sleep ends on a timer of the concurrency pool.
                    try await Task.sleep(for: .milliseconds(2))
                    return ["atStart": .bool(atStart), "afterSuspending": .bool(check())]
                }, name: "where", options: HandlerOptions(allowedOrigins: [harness.origin]))
            let view = try await harness.makeView(session: false, contents: contents)
            if let page = view as? WebPage {
                let thread = page.thread
                onViewThread.withLock { $0 = { thread.isIsolatingCurrentContext() == true } }
            } else {
                onViewThread.withLock { $0 = { WebKitMainLoop.shared.isIsolatingCurrentContext() == true } }
            }
            try await view.load(harness.url("/login"))
            let answer = try await view.run("return await window.webkit.messageHandlers.where.postMessage(1);")
            // Member by member: WebKit hands replies over without their members' order.
            #expect(answer["atStart"] == true)
            #expect(answer["afterSuspending"] == true)
        }
    }
}
