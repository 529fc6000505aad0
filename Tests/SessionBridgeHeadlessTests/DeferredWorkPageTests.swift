import Foundation
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Synchronization
import Testing

@testable import SessionBridgeHeadless

/// A page that loads WebAssembly goes on once its module is compiled, as in a browser: its
/// `await WebAssembly.instantiate(...)` returns and what follows reaches native code.
@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct DeferredWorkPageTests {
    /// A module exporting `answer`, a function that returns 42.
    static let module =
        "new Uint8Array([0,97,115,109,1,0,0,0, 1,5,1,96,0,1,127, 3,2,1,0, 7,10,1,6,97,110,115,119,101,114,0,0, 10,6,1,4,0,65,42,11])"

    /// The bodies the page posted.
    final class Received: Sendable {
        let bodies = Mutex<[ScriptValue]>([])
    }

    static func page(uiDelegate: (any UIDelegate)?, received: Received) -> WebPage {
        let app = URL(string: "https://app.example/")!
        let controller = UserContentController()
        controller.addScriptMessageHandler(
            ImmediateClosureMessageHandler { message in
                received.bodies.withLock { $0.append(message.body) }
                return .bool(true)
            }, name: "wasm", options: HandlerOptions(allowedOrigins: [SecurityOrigin(url: app)!]))
        return WebPage(configuration: WebPageConfiguration(userContentController: controller, uiDelegate: uiDelegate))
    }

    static let html = """
        <script>
        window.loaded = (async () => {
          const made = await WebAssembly.instantiate(\(module));
          const answer = made.instance.exports.answer();
          await window.webkit.messageHandlers.wasm.postMessage({answer});
          return answer;
        })();
        </script>
        """

    @Test(arguments: [false, true])
    func aPageAwaitingWebAssemblyGoesOn(withPanels: Bool) async throws {
        let received = Received()
        // A page with a UI delegate runs on a lane of its thread, with a VM of its own.
        let page = Self.page(uiDelegate: withPanels ? HeldPanels() : nil, received: received)
        try await page.loadHTMLString(Self.html, baseURL: URL(string: "https://app.example/")!)
        let answer = try await page.callAsyncJavaScript("return await window.loaded", timeout: .seconds(10))
        #expect(answer == .number(42))
        #expect(received.bodies.withLock { $0 } == [["answer": 42]])
        await page.close()
    }

    /// A page cannot wait on a shared memory, which would hold its thread where no time limit
    /// ends it: it gets none, on a thread or on a lane.
    @Test(arguments: [false, true])
    func aPageGetsNoSharedMemoryToWaitOn(withPanels: Bool) async throws {
        let page = Self.page(uiDelegate: withPanels ? HeldPanels() : nil, received: Received())
        try await page.loadHTMLString("<p>wait</p>", baseURL: URL(string: "https://app.example/")!)
        let outcome = try await page.callAsyncJavaScript(
            """
            try {
              const memory = new WebAssembly.Memory({initial: 1, maximum: 1, shared: true});
              // Bounded, so that a page given one would answer "timed-out" rather than hold its thread.
              return Atomics.wait(new Int32Array(memory.buffer), 0, 0, 50);
            } catch (error) {
              return error.name + ": " + error.message;
            }
            """, timeout: .seconds(10))
        #expect(outcome == .string("TypeError: shared memory is not available in this page"))
        #expect(try await page.evaluateJavaScript("typeof SharedArrayBuffer") == .string("undefined"))
        await page.close()
    }
}
