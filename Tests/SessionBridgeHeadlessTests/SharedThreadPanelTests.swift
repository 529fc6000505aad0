import Foundation
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Synchronization
import Testing

@testable import SessionBridgeHeadless

/// A UI delegate whose panels answer what `answer` returns, once it returns.
final class ScriptedPanels: UIDelegate {
    private let answer: @Sendable (String) async -> String?
    private let shown = Mutex<[String]>([])
    var messages: [String] { shown.withLock { $0 } }

    init(_ answer: @escaping @Sendable (String) async -> String?) { self.answer = answer }

    func webPage(_ page: any WebView, runAlertPanelWithMessage message: String, frame: FrameInfo) async {
        shown.withLock { $0.append(message) }
        _ = await answer(message)
    }

    func webPage(_ page: any WebView, runConfirmPanelWithMessage message: String, frame: FrameInfo) async -> Bool {
        shown.withLock { $0.append(message) }
        return await answer(message) == "yes"
    }

    func webPage(_ page: any WebView, runTextInputPanelWithPrompt prompt: String, defaultText: String?, frame: FrameInfo) async -> String? {
        shown.withLock { $0.append(prompt) }
        return await answer(prompt).map { "\($0):\(defaultText ?? "")" }
    }
}

/// A page's panel pauses that page only, also when other pages share its engine thread.
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct SharedThreadPanelTests {
    static let app = URL(string: "https://app.example/")!

    /// A controller with a `ping` handler that answers after a native hop.
    static func pingController() -> UserContentController {
        let controller = UserContentController()
        controller.addScriptMessageHandler(
            ClosureMessageHandler { message in
                try await Task.sleep(for: .milliseconds(1))
                return ["pong": message.body]
            }, name: "ping", options: HandlerOptions(allowedOrigins: [SecurityOrigin(url: app)!]))
        return controller
    }

    /// Page B's bridge round trip: a timer, then `await postMessage`.
    static func roundTrip(_ page: WebPage, _ value: String) async throws -> ScriptValue {
        try await page.callAsyncJavaScript(
            """
            await new Promise(resolve => setTimeout(resolve, 1));
            return await webkit.messageHandlers.ping.postMessage('\(value)');
            """, timeout: .seconds(20))
    }

    /// Runs `body` with a fresh engine thread and a maker of loaded pages on it; closes the
    /// pages and shuts the thread down afterwards, also when `body` throws.
    static func onOneThread(
        _ body: (_ thread: EngineThread, _ page: (WebPageConfiguration, String) async throws -> WebPage) async throws -> Void
    ) async throws {
        let thread = EngineThread(name: "shared")
        let made = Mutex<[WebPage]>([])
        func page(_ configuration: WebPageConfiguration, _ html: String) async throws -> WebPage {
            var configuration = configuration
            configuration.thread = thread
            let page = WebPage(configuration: configuration)
            made.withLock { $0.append(page) }
            try await page.loadHTMLString(html, baseURL: Self.app)
            return page
        }
        let outcome: Result<Void, any Error>
        do { outcome = .success(try await body(thread, page)) } catch { outcome = .failure(error) }
        for page in made.withLock({ $0 }) { await page.close() }
        thread.shutdown()
        try outcome.get()
    }

    /// Page A of a test: the bridge, and panels that stay open until the test dismisses them.
    static func heldPanelConfiguration(_ controller: UserContentController, _ panels: HeldPanels) -> WebPageConfiguration {
        WebPageConfiguration(userContentController: controller, uiDelegate: panels, panelTimeout: .seconds(20))
    }

    @Test(arguments: [false, true])
    func aPanelDoesNotDelayABridgeReplyOfAPageOnTheSameThread(otherHasUIDelegate: Bool) async throws {
        try await Self.onOneThread { thread, page in
            let controller = Self.pingController()
            let panels = HeldPanels()
            let a = try await page(Self.heldPanelConfiguration(controller, panels), "<p>a</p>")
            let b = try await page(
                WebPageConfiguration(
                    userContentController: controller, uiDelegate: otherHasUIDelegate ? ScriptedPanels { _ in nil } : nil),
                "<p>b</p>")
            #expect(a.thread.hostThread === thread && b.thread.hostThread === thread)

            let aFinished = Atomic<Bool>(false)
            let alerting = Task {
                defer { aFinished.store(true, ordering: .sequentiallyConsistent) }
                return try await a.evaluateJavaScript("alert('hold on'); 'answered'")
            }
            #expect(await panels.nextPanel() == "hold on")

            // B's reply arrives while A's panel is open and A's script is still suspended in it.
            let reply = try await Self.roundTrip(b, "from b")
            #expect(reply == ["pong": "from b"])
            #expect(panels.isOpen)
            let finishedBeforeReply = aFinished.load(ordering: .sequentiallyConsistent)
            #expect(!finishedBeforeReply)

            panels.dismiss()
            #expect(try await alerting.value == "answered")
            // A runs normally once its panel closed.
            #expect(try await Self.roundTrip(a, "from a") == ["pong": "from a"])
        }
    }

    @Test func aDelegateThatAwaitsAnotherPageOnTheThreadDoesNotDeadlock() async throws {
        try await Self.onOneThread { thread, page in
            let b = try await page(
                WebPageConfiguration(userContentController: Self.pingController()),
                "<script>globalThis.answer = 'yes'</script>")
            let seen = Mutex<ScriptValue?>(nil)
            let panels = ScriptedPanels { _ in
                // The delegate works with page B while A's panel is open, as an app would.
                let value = try? await b.evaluateJavaScript("answer")
                let reply = try? await Self.roundTrip(b, "asked")
                seen.withLock { $0 = reply }
                return value?.stringValue
            }
            // A long panel timeout: a deadlock would end in the fallback (`false`), not in "confirmed".
            let a = try await page(WebPageConfiguration(uiDelegate: panels, panelTimeout: .seconds(60)), "<p>a</p>")
            let result = try await a.evaluateJavaScript("confirm('go on?') ? 'confirmed' : 'refused'")
            #expect(result == "confirmed")
            #expect(seen.withLock { $0 } == ["pong": "asked"])
            #expect(panels.messages == ["go on?"])
        }
    }

    @Test func aPagesTimersWaitWhileItsPanelIsOpenAndFireAfter() async throws {
        try await Self.onOneThread { thread, page in
            let controller = Self.pingController()
            let panels = HeldPanels()
            let a = try await page(Self.heldPanelConfiguration(controller, panels), "<p>a</p>")
            let b = try await page(WebPageConfiguration(userContentController: controller), "<p>b</p>")
            // The timer and the bridge reply are due long before the panel closes.
            let alerting = Task {
                try await a.evaluateJavaScript(
                    """
                    globalThis.order = [];
                    setTimeout(() => order.push('timer'), 1);
                    webkit.messageHandlers.ping.postMessage('reply').then(() => order.push('reply'));
                    alert('pause');
                    order.push('closed');
                    order.join(',');
                    """)
            }
            #expect(await panels.nextPanel() == "pause")
            // Well past A's timer and bridge reply, while A's panel is open: B's timers run, A's wait.
            let waited = try await b.callAsyncJavaScript(
                """
                await new Promise(resolve => setTimeout(resolve, 50));
                return 'waited';
                """, timeout: .seconds(20))
            #expect(waited == "waited")
            #expect(panels.isOpen)
            panels.dismiss()
            // Nothing of A ran during its panel: the script saw neither its timer nor its reply.
            #expect(try await alerting.value == "closed")
            #expect(await a.runUntilQuiescent(timeout: .seconds(20)))
            let order = try await a.evaluateJavaScript("order.join(',')").stringValue ?? ""
            #expect(order.hasPrefix("closed,"))
            #expect(Set(order.split(separator: ",")) == ["closed", "timer", "reply"])
        }
    }

    @Test func confirmAndPromptAnswersReachTheScript() async throws {
        try await Self.onOneThread { thread, page in
            let b = try await page(WebPageConfiguration(userContentController: Self.pingController()), "<p>b</p>")
            let panels = ScriptedPanels { message in
                // Each answer comes after a bridge round trip of the other page.
                _ = try? await Self.roundTrip(b, message)
                return message == "sure?" ? "yes" : "typed"
            }
            let a = try await page(WebPageConfiguration(uiDelegate: panels, panelTimeout: .seconds(20)), "<p>a</p>")
            let answers = try await a.evaluateJavaScript("[confirm('sure?'), prompt('name?', 'default'), prompt('other?')]")
            #expect(answers == [true, "typed:default", "typed:"])
            #expect(panels.messages == ["sure?", "name?", "other?"])
        }
    }

    @Test func panelsNestAcrossPagesOfOneThread() async throws {
        try await Self.onOneThread { thread, page in
            let controller = Self.pingController()
            let outer = HeldPanels()
            let inner = HeldPanels()
            let a = try await page(
                WebPageConfiguration(
                    userContentController: controller, uiDelegate: outer, panelTimeout: .seconds(20)), "<p>page</p>")
            let b = try await page(
                WebPageConfiguration(
                    userContentController: controller, uiDelegate: inner, panelTimeout: .seconds(20)), "<p>page</p>")
            let c = try await page(WebPageConfiguration(userContentController: controller), "<p>page</p>")

            let first = Task { try await a.evaluateJavaScript("alert('a'); 'a answered'") }
            #expect(await outer.nextPanel() == "a")
            let second = Task { try await b.evaluateJavaScript("alert('b'); 'b answered'") }
            #expect(await inner.nextPanel() == "b")
            // A third page goes on while both panels are open.
            #expect(try await Self.roundTrip(c, "c") == ["pong": "c"])
            inner.dismiss()
            #expect(try await second.value == "b answered")
            #expect(outer.isOpen)
            #expect(try await Self.roundTrip(b, "b") == ["pong": "b"])
            outer.dismiss()
            #expect(try await first.value == "a answered")
        }
    }

    @Test func thePanelTimeoutBoundsTheWaitWhileOtherPagesKeepTheThreadBusy() async throws {
        try await Self.onOneThread { thread, page in
            let panels = HeldPanels()
            let a = try await page(WebPageConfiguration(uiDelegate: panels, panelTimeout: .milliseconds(200)), "<p>a</p>")
            let b = try await page(WebPageConfiguration(), "<p>b</p>")
            let busy = (0..<3).map { _ in
                Task {
                    var runs = 0
                    while !Task.isCancelled {
                        _ = try? await b.evaluateJavaScript("1")
                        runs += 1
                    }
                    return runs
                }
            }
            // The delegate never answers: the script goes on as if the person dismissed the panel.
            #expect(try await a.evaluateJavaScript("alert('never answered'); 'went on'") == "went on")
            #expect(panels.isOpen)
            for task in busy { task.cancel() }
            var runs = 0
            for task in busy { runs += await task.value }
            #expect(runs > 0)
            panels.dismiss()
        }
    }

    @Test func otherPagesWorkDoesNotCountAgainstAPanelPagesTimeLimit() async throws {
        try await Self.onOneThread { thread, page in
            let panels = HeldPanels()
            let a = try await page(
                WebPageConfiguration(
                    uiDelegate: panels, scriptTimeLimit: .milliseconds(500), panelTimeout: .seconds(20)), "<p>a</p>")
            let b = try await page(WebPageConfiguration(), "<p>b</p>")

            let survived = Task {
                try await a.evaluateJavaScript(
                    """
                    alert('busy elsewhere');
                    let sum = 0;
                    for (let i = 0; i < 100000; i++) sum += i;
                    sum === 4999950000 ? 'survived' : 'wrong';
                    """)
            }
            #expect(await panels.nextPanel() == "busy elsewhere")
            // B keeps the thread busy for longer than A's whole limit while A's entry is open.
            for _ in 0..<3 {
                #expect(
                    try await b.evaluateJavaScript("(() => { const t = Date.now(); while (Date.now() - t < 250) {} return 'spun' })()")
                        == "spun")
            }
            panels.dismiss()
            #expect(try await survived.value == "survived")

            // After a panel the entry is still bounded.
            let runaway = Task { try await a.evaluateJavaScript("alert('then loop'); while (true) {}") }
            #expect(await panels.nextPanel() == "then loop")
            panels.dismiss()
            await #expect { try await runaway.value } throws: { ($0 as? ScriptError)?.kind == .timeLimitExceeded }
            #expect(try await a.evaluateJavaScript("'still usable'") == "still usable")
        }
    }
}
