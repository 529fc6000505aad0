import Foundation
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@testable import SessionBridgeHeadless

@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct AppScriptTests {
    /// `callAsyncJavaScript` waits for the script's promise with `Promise.resolve` and `then` as
    /// they were before the document's scripts ran: a page that replaces them cannot see the
    /// app's results or keep its call from settling.
    @Test func aPageThatReplacesPromiseThenDoesNotStopTheAppsCalls() async throws {
        try await withServer { server in
            let page = WebPage()
            try await page.loadHTMLString(
                """
                <script>
                Promise.prototype.then = function () { globalThis.seen = (globalThis.seen || 0) + 1; return this; };
                Promise.resolve = function (value) { globalThis.seen = (globalThis.seen || 0) + 1; return value; };
                Function.prototype.call = function () { globalThis.seen = (globalThis.seen || 0) + 1; };
                </script>
                """, baseURL: server.url("/"))
            let value = try await page.callAsyncJavaScript("return 6 * 7", timeout: .seconds(5))
            #expect(value == .number(42))
            #expect(try await page.evaluateJavaScript("typeof globalThis.seen") == .string("undefined"))
            await page.close()
        }
    }
}
