import AsyncHTTPClient
import Foundation
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

    /// The pages' default client does not retry a refused connection: WebKit reports the refusal
    /// at once, where the client's own retries would hold the page until its 10 s connect
    /// timeout (the load then fails with the same error, 10 s later).
    @Test func thePagesClientDoesNotRetryARefusedConnection() {
        #expect(WebPage.defaultHTTPClientConfiguration.connectionPool.retryConnectionEstablishment == false)
    }
}
