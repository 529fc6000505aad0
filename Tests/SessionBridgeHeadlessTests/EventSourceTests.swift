import Foundation
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@testable import SessionBridgeHeadless

/// What a headless page's `EventSource` does beyond what the both-engines test compares.
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct EventSourceTests {
    /// A document being left takes its sources with it: the reconnection its ended stream
    /// waited for is never made.
    @Test func leavingTheDocumentEndsItsSources() async throws {
        try await withServer { server in
            let recorder = PageEventRecorder()
            let page = WebPage(configuration: WebPageConfiguration(eventHandler: recorder.handler))
            try await page.loadHTMLString("<title>events</title>", baseURL: server.url("/page"))
            let ended = try await page.callAsyncJavaScript(
                """
                const source = new EventSource("/events?retry=300&count=1");
                return await new Promise(resolve => { source.onerror = () => resolve(source.readyState); });
                """)
            #expect(ended == 0, "the stream ended and the source waits to reconnect")
            try await page.loadHTMLString("<title>next</title>", baseURL: server.url("/next"))
            try await Task.sleep(for: .milliseconds(800))
            #expect(recorder.exchanges.filter { $0.url.path == "/events" }.count == 1, "no reconnection after the document was left")
            await page.close()
        }
    }

    /// A hostile page cannot hold sources without end: past the limit (its sockets' too), the
    /// next source fails at once (`error`, closed).
    @Test func aPagePastItsShareOfSourcesHasTheNextOneFail() async throws {
        try await withServer { server in
            let page = WebPage()
            try await page.loadHTMLString("<title>many</title>", baseURL: server.url("/page"))
            let limit = WebSocketClients.maximumConnections
            let outcome = try await page.callAsyncJavaScript(
                """
                const waiting = [];
                for (let index = 0; index < \(limit); index++) {
                  const source = new EventSource("/events?retry=60000&count=0");
                  waiting.push(new Promise(resolve => { source.onerror = () => resolve(source.readyState); }));
                }
                const states = await Promise.all(waiting);
                const extra = new EventSource("/events?retry=60000&count=0");
                const state = await new Promise(resolve => { extra.onerror = () => resolve(extra.readyState); extra.onopen = () => resolve("open"); });
                return [states.filter(state => state === 0).length, state];
                """, timeout: .seconds(60))
            #expect(outcome == [.number(Double(limit)), 2])
            await page.close()
        }
    }

    /// A stream's `retry` may be long: the page waiting for it is quiet (the runner would wait
    /// for `--timeout`), and a page that closes the source stops the reconnection.
    @Test func aLongRetryLeavesThePageQuiet() async throws {
        try await withServer { server in
            let recorder = PageEventRecorder()
            let page = WebPage(configuration: WebPageConfiguration(eventHandler: recorder.handler))
            try await page.loadHTMLString("<title>events</title>", baseURL: server.url("/page"))
            _ = try await page.evaluateJavaScript(
                """
                var heard = [];
                var source = new EventSource("/events?retry=60000&count=1");
                source.onmessage = event => heard.push(event.data);
                source.onerror = () => heard.push(`error ${source.readyState}`);
                0;
                """)
            let deadline = ContinuousClock.now + .seconds(10)
            while try await page.evaluateJavaScript("heard.at(-1)") != "error 0", ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(try await page.evaluateJavaScript("heard.at(-1)") == "error 0", "the stream ended")
            // Waiting a minute to reconnect, the page is quiet.
            #expect(await page.runUntilQuiescent(timeout: .seconds(20)))
            _ = try await page.evaluateJavaScript("source.close()")
            #expect(recorder.exchanges.filter { $0.url.path == "/events" }.count == 1)
            await page.close()
        }
    }
}
