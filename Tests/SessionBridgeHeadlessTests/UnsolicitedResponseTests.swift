import Foundation
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeHeadless

/// A connection on which an answer arrived that no request asked for is closed, never reused:
/// that answer must not reach a later request (on a shared connection it could carry another
/// request's secrets to the page).
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct UnsolicitedResponseTests {
    @Test(arguments: [RawHTTPListener.Unsolicited.sameWrite, .later])
    func anUnsolicitedAnswerNeverReachesALaterFetch(_ unsolicited: RawHTTPListener.Unsolicited) async throws {
        let listener = try RawHTTPListener(unsolicited: unsolicited)
        defer { listener.stop() }
        let page = WebPage()
        try await page.loadHTMLString("<p>wire</p>", baseURL: listener.url)
        let texts = try await page.callAsyncJavaScript(
            """
            const first = await (await fetch("/first")).text();
            await new Promise(resolve => setTimeout(resolve, 300));
            const second = await (await fetch("/second")).text();
            const third = await (await fetch("/third")).text();
            return [first, second, third];
            """)
        #expect(texts == ["ok", "ok", "ok"])
        #expect(listener.requestLines == ["GET /first HTTP/1.1", "GET /second HTTP/1.1", "GET /third HTTP/1.1"])
        // The connection that saw the unsolicited answer carried nothing after it.
        #expect(listener.connections.first.map { RawHTTPListener.requests(in: $0).count } == 1)
        await page.close()
    }
}
