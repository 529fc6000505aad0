import AsyncHTTPClient
import Foundation
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@testable import SessionBridgeHeadless

@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct ConnectionFailureTests {
    /// A server that refuses the connection fails the load with a network error, as in WebKit.
    @Test func aRefusedConnectionFailsTheLoadAsANetworkError() async throws {
        // A port held by a socket that does not listen (a stopped server's port may be taken
        // by another test's server meanwhile).
        let refusing = try RefusingPort()
        let url = URL(string: "http://127.0.0.1:\(refusing.port)/")!
        let page = WebPage()
        do {
            try await page.load(url)
            Issue.record("a page loaded from a port that refuses connections")
        } catch {
            #expect(error.code == .network)
            #expect(error.message.contains("connection refused"))
        }
        await page.close()
        withExtendedLifetime(refusing) {}
    }

    /// A port no TCP connection can have, whether a page asks for it or a server's `Location`
    /// names it, fails that load with `invalid_url` (the HTTP client stopped the process on one
    /// at an IP address; the page's `fetch` says `Load failed`, as WebKit's does); the page goes on.
    @Test func aPortOutOfRangeFailsTheLoadAndThePageGoesOn() async throws {
        let listener = try RawHTTPListener { line in
            line.contains("/moved")
                ? "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:99999/x\r\nContent-Length: 0\r\n\r\n" : RawHTTPListener.ok
        }
        defer { listener.stop() }
        let page = WebPage()
        try await page.loadHTMLString("<p>ports</p>", baseURL: listener.url)
        let outcome = try await page.callAsyncJavaScript(
            """
            const failures = [];
            for (const url of ["http://127.0.0.1:70000/x", "http://[::1]:65536/", "/moved"]) {
              try { await fetch(url); failures.push("loaded"); } catch (error) { failures.push(error.message === "Load failed"); }
            }
            return [failures, await (await fetch("/after")).text()];
            """)
        #expect(outcome == [[true, true, true], "ok"])
        do {
            try await page.load(URL(string: "http://127.0.0.1:65536/")!)
            Issue.record("a navigation to port 65536 loaded")
        } catch {
            #expect(error.code == .invalidURL)
        }
        await page.close()
    }

    /// The pages' default client does not retry a refused connection: WebKit reports the refusal
    /// at once, where the client's own retries would hold the page until its 10 s connect
    /// timeout (the load then fails with the same error, 10 s later).
    @Test func thePagesClientDoesNotRetryARefusedConnection() {
        #expect(WebPage.defaultHTTPClientConfiguration.connectionPool.retryConnectionEstablishment == false)
    }
}
