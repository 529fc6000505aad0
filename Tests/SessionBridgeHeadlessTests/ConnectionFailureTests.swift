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

    /// An answer with a status code HTTP does not have (below 100: `HTTP/1.1 000`) fails its
    /// load as a network error, as WebKit refuses it, and the page goes on; AsyncHTTPClient
    /// stopped the process on the body of such an answer.
    @Test func aStatusCodeBelow100FailsTheLoadNotTheProcess() async throws {
        let listener = try RawHTTPListener { line in
            for code in ["000", "001", "099"] where line.contains("/\(code)") {
                return "HTTP/1.1 \(code) X\r\nContent-Length: 2\r\n\r\nhi"
            }
            return RawHTTPListener.ok
        }
        defer { listener.stop() }
        let page = WebPage()
        try await page.loadHTMLString("<p>codes</p>", baseURL: listener.url)
        let outcome = try await page.callAsyncJavaScript(
            """
            const failures = [];
            for (const url of ["/000", "/001", "/099"]) {
              try { await fetch(url); failures.push("loaded"); } catch (error) { failures.push(error.message); }
            }
            return [failures, await (await fetch("/after")).text()];
            """)
        #expect(outcome == [["Load failed", "Load failed", "Load failed"], "ok"])
        do {
            try await page.load(listener.url.appending(path: "000"))
            Issue.record("a navigation to an answer of status 000 loaded")
        } catch {
            #expect(error.code == .network)
            #expect(error.message.contains("status code 0, which HTTP does not have"), "\(error.message)")
        }
        await page.close()
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
