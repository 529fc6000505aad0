import Foundation
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Synchronization
import Testing

@testable import SessionBridgeHeadless

/// A UI delegate whose alert stays open until the test answers it.
final class HeldPanels: UIDelegate {
    private let (answers, answer) = AsyncStream<Void>.makeStream()
    private let (opened, open) = AsyncStream<String>.makeStream()
    private let openFlag = Atomic<Bool>(false)
    var isOpen: Bool { openFlag.load(ordering: .sequentiallyConsistent) }

    func webPage(_ page: any WebView, runAlertPanelWithMessage message: String, frame: FrameInfo) async {
        openFlag.store(true, ordering: .sequentiallyConsistent)
        open.yield(message)
        for await _ in answers { break }
        openFlag.store(false, ordering: .sequentiallyConsistent)
    }

    /// Waits until an alert opens and returns its message.
    func nextPanel() async -> String? {
        for await message in opened { return message }
        return nil
    }

    /// Answers the open alert.
    func dismiss() { answer.yield() }
}

@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct PanelTests {
    @Test func aPanelOnOnePageDoesNotDelayAnotherPagesBridgeReply() async throws {
        let app = URL(string: "https://app.example/")!
        let controller = UserContentController()
        controller.addScriptMessageHandler(
            ClosureMessageHandler { message in ["pong": message.body] }, name: "ping",
            options: HandlerOptions(allowedOrigins: [SecurityOrigin(url: app)!]))
        // A page on every thread of the shared pool.
        var others: [WebPage] = []
        for thread in EnginePool.shared.threads {
            let page = WebPage(configuration: WebPageConfiguration(userContentController: controller, thread: thread))
            try await page.loadHTMLString("<p>other</p>", baseURL: app)
            others.append(page)
        }
        #expect(Set(others.map { ObjectIdentifier($0.thread) }).count == EnginePool.shared.threads.count)

        let panels = HeldPanels()
        // The panel stays open until dismissed: only the page's lane lets the others go on.
        let page = WebPage(
            configuration: WebPageConfiguration(userContentController: controller, uiDelegate: panels, panelTimeout: .seconds(600)))
        #expect(page.thread.isLane)
        #expect(EnginePool.shared.threads.contains { $0 === page.thread.hostThread })
        try await page.loadHTMLString("<p>asks</p>", baseURL: app)
        let alerting = Task { try await page.evaluateJavaScript("alert('hold on'); 'answered'") }
        #expect(await panels.nextPanel() == "hold on")

        // While the alert is open, every other page gets its bridge reply, timers and promises.
        for (index, other) in others.enumerated() {
            let reply = try await other.callAsyncJavaScript(
                """
                await new Promise(resolve => setTimeout(resolve, 1));
                return await webkit.messageHandlers.ping.postMessage(\(index));
                """, timeout: .seconds(20))
            #expect(reply == ["pong": .number(Double(index))])
        }
        #expect(panels.isOpen)
        panels.dismiss()
        #expect(try await alerting.value == "answered")
        #expect(!panels.isOpen)
        await page.close()
        for other in others { await other.close() }
    }

    @Test func anExplicitThreadIsHonoured() async throws {
        let thread = EngineThread(name: "chosen")
        let page = WebPage(configuration: WebPageConfiguration(uiDelegate: HeldPanels(), thread: thread))
        #expect(page.thread.hostThread === thread)
        #expect(page.thread.isLane)
        let quiet = WebPage(configuration: WebPageConfiguration(thread: thread))
        #expect(quiet.thread === thread)
        let plain = WebPage()
        #expect(EnginePool.shared.threads.contains { $0 === plain.thread })
        await page.close()
        await quiet.close()
        await plain.close()
        thread.shutdown()
    }
}
