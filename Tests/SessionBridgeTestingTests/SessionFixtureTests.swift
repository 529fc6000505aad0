import Foundation
import SessionBridge
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@Suite(.timeLimit(.minutes(5)), .hangWatchdog) struct SessionFixtureTests {
    @Test func oneCallGivesASignedInPageAndWhatCrossedTheBridge() async throws {
        let fixture = try await SessionFixture.start()
        let reply = try await fixture.page.loadHTMLString("<p>app</p>", baseURL: fixture.url("/home"))
        #expect(reply.url.path == "/home")
        let status = try await fixture.page.callAsyncJavaScript(
            "return await window.webkit.messageHandlers.session.postMessage({action: 'refresh'})")
        #expect(status["ok"] == true)
        #expect(fixture.bridgeCalls.count == 1)
        #expect(fixture.bridgeCalls.first?.name == "session")
        #expect(fixture.pageCookies().contains { $0.name == "__Host-session" })
        #expect(fixture.nativeCookies().contains { $0.name == "__Host-session" })
        #expect(fixture.server?.stats().refreshes == 1)
        let strings = await fixture.stringsSeenByPage()
        #expect(!strings.isEmpty)
        #expect(await fixture.leakedRefreshTokens().isEmpty)
        // The leak search really finds a token when one is there.
        let token = try #require(fixture.server?.issuedRefreshTokens().last)
        #expect(await fixture.leakedRefreshTokens(in: ["prefix " + token]) == [token])
        await fixture.stop()
    }

    /// A refresh the page asked for and left (it goes on natively) has ended when `stop()`
    /// returns: the session holds the refreshed cookie, nothing of it still out.
    @Test func stopWaitsForARefreshThePageLeft() async throws {
        let server = try await ReferenceServer.start()
        defer { Task { try? await server.stop() } }
        let fixture = try await SessionFixture.connect(to: server.baseURL)
        _ = try await fixture.session.login(username: "demo", password: "demo")
        try await fixture.page.loadHTMLString("<p>app</p>", baseURL: fixture.url("/home"))
        let before = try #require(fixture.nativeCookies().first { $0.name == "__Host-session" }?.value)
        server.setFaults(FaultConfiguration(latency: .milliseconds(400)))
        _ = try await fixture.page.evaluateJavaScript(
            "window.webkit.messageHandlers.session.postMessage({action: 'refresh'}).catch(() => {}); 1")
        while server.stats().faults.latency == 0 { try await Task.sleep(for: .milliseconds(2)) }
        await fixture.stop()
        let after = fixture.nativeCookies().first { $0.name == "__Host-session" }?.value
        #expect(after != nil && after != before)
        #expect(server.stats().refreshes == 1)
    }

    @Test func startsSignedOutWhenAsked() async throws {
        let fixture = try await SessionFixture.start(signIn: false)
        try await fixture.page.loadHTMLString("<p>signed out</p>", baseURL: fixture.url("/"))
        let status = try await fixture.page.callAsyncJavaScript(
            "return await window.webkit.messageHandlers.session.postMessage({action: 'status'})")
        #expect(status["signedIn"] == false)
        #expect(fixture.nativeCookies().isEmpty)
        await fixture.stop()
    }
}
