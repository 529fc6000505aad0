import Foundation
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@testable import SessionBridgeHeadless

/// `beforeunload` on a headless page, where a page may be hostile (what WebKit does is in
/// `BeforeUnloadOnBothEnginesTests`).
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct BeforeUnloadTests {
    /// A listener that never returns is ended by the time limit and the navigation goes on;
    /// when that navigation then fails (its delegate cancels its redirect), the document it
    /// stayed with can still navigate: no navigation is refused once the event is over, however
    /// its listener ended.
    @Test func aListenerTheTimeLimitEndedLeavesTheDocumentAbleToNavigate() async throws {
        try await withServer { server in
            let delegate = HopRecorder { $0.request.url.path == "/redirect-chain/2" }
            let recorder = PageEventRecorder()
            let page = WebPage(
                configuration: WebPageConfiguration(
                    navigationDelegate: delegate, eventHandler: recorder.handler, thread: EngineThread(name: "beforeunload"),
                    scriptTimeLimit: .milliseconds(200)))
            try await page.loadHTMLString(
                "<script>addEventListener('beforeunload', () => { for (;;) {} });</script>", baseURL: server.url("/start"))
            await #expect(throws: PageError.self) { try await page.load(server.url("/redirect-chain")) }
            #expect(recorder.scriptErrors.map(\.kind) == [.timeLimitExceeded])
            #expect(await page.url?.path == "/start")
            _ = try await page.evaluateJavaScript("location.href = '/redirect-chain/3'; 0")
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(30)
            while await page.url?.path != "/redirect-chain/3", clock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            #expect(await page.url?.path == "/redirect-chain/3")
            #expect(recorder.scriptErrors.map(\.kind) == [.timeLimitExceeded, .timeLimitExceeded])
            await page.close()
        }
    }
}
