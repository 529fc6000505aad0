import Foundation
import SessionBridge
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

/// A token endpoint that answers JSON only, as identity providers do, and a web product whose
/// `POST /session/exchange` turns the access token into its `web_session` cookie.
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct SessionExchangeTests {
    func identityProviderServer(accessTokenLifetime: Duration = .seconds(300)) -> ReferenceServerConfiguration {
        var configuration = ReferenceServerConfiguration()
        configuration.tokenEndpointSetsCookies = false
        configuration.accessTokenLifetime = accessTokenLifetime
        return configuration
    }

    func exchangeConfiguration(_ server: ReferenceServer) -> SessionConfiguration {
        var configuration = makeConfiguration(server)
        configuration.sessionExchange = SessionExchange(url: server.url("/session/exchange"), sessionCookieName: "web_session")
        return configuration
    }

    @Test func pageIsSignedInAgainstATokenEndpointThatSetsNoCookie() async throws {
        try await withServer(identityProviderServer()) { server in
            // Without the exchange, native sign-in succeeds and the page is not signed in.
            let plainSession = SessionController(configuration: makeConfiguration(server))
            try await plainSession.login(username: "demo", password: "demo")
            #expect(plainSession.cookieJar.allCookies.isEmpty)
            let (plainPage, _) = await makePage(plainSession, server)
            #expect(try await plainPage.load(server.url("/app")).url.path == "/login")
            await plainPage.close()

            let session = SessionController(configuration: exchangeConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            #expect(server.stats().sessionExchanges == 1)
            #expect(session.cookieJar.value("web_session", for: server.url("/")) != nil)
            #expect(session.cookieJar.value("__Host-session", for: server.url("/")) == nil)

            let recorder = PageEventRecorder()
            let (page, _) = await makePage(session, server, recorder: recorder)
            let refreshesBefore = server.stats().refreshes
            let landed = try await page.load(server.url("/app"))
            #expect(landed.url.path == "/app")
            #expect(landed.statusCode == 200)
            // The exchanged cookie is recognised: no refresh before the navigation.
            #expect(server.stats().refreshes == refreshesBefore)
            let navigation = try #require(recorder.exchanges.first { $0.url.path == "/app" })
            #expect(navigation.cookiesSent.contains("web_session"))

            let me = try await page.callAsyncJavaScript("const r = await fetch('/api/me'); return [r.status, (await r.json()).sub];")
            #expect(me == [200, "demo"])
            let fetch = try #require(recorder.exchanges.last { $0.url.path == "/api/me" })
            #expect(fetch.cookiesSent.contains("web_session"))
            #expect(server.stats().exchangedCookieRequests >= 2)

            // A page's refresh rotates the tokens, exchanges again, and the page has the new
            // cookie before its promise resolves.
            let before = try #require(page.cookieJar.value("web_session", for: server.url("/")))
            let reply = try await page.callAsyncJavaScript(
                """
                await window.webkit.messageHandlers.session.postMessage({action: "refresh"});
                const r = await fetch('/api/me');
                return r.status;
                """)
            #expect(reply == 200)
            #expect(server.stats().sessionExchanges == 2)
            let after = try #require(page.cookieJar.value("web_session", for: server.url("/")))
            #expect(after != before)
            #expect(after == session.cookieJar.value("web_session", for: server.url("/")))
            await page.close()
        }
    }

    @Test func heldNavigationCarriesTheExchangedCookie() async throws {
        try await withServer(identityProviderServer(accessTokenLifetime: .seconds(1))) { server in
            let session = SessionController(configuration: exchangeConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let recorder = PageEventRecorder()
            let (page, _) = await makePage(session, server, recorder: recorder)
            // The web session cookie expired well before the load (at 1.1 s, a loaded machine
            // could check it as still fresh and send the request after it expired).
            try await Task.sleep(for: .milliseconds(1600))

            let landed = try await page.load(server.url("/app"))
            #expect(landed.url.path == "/app")
            #expect(landed.statusCode == 200)
            #expect(landed.redirects.isEmpty)
            #expect(server.stats().refreshes == 1)
            #expect(server.stats().sessionExchanges == 2)
            let navigation = try #require(recorder.exchanges.first { $0.url.path == "/app" })
            #expect(navigation.cookiesSent.contains("web_session"))
            #expect(navigation.statusCode == 200)
            await page.close()
        }
    }

    @Test func failedExchangeReportsLikeAFailedRefreshAndDoesNotRotateTwice() async throws {
        try await withServer(identityProviderServer()) { server in
            let session = SessionController(configuration: exchangeConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let (page, _) = await makePage(session, server)
            #expect(try await page.load(server.url("/app")).statusCode == 200)
            let vaulted = try #require(try session.vault.load()).refreshToken

            server.failSessionExchanges(1)
            let failed = try await page.callAsyncJavaScript(
                """
                try { await window.webkit.messageHandlers.session.postMessage({action: "refresh"}); return "ok"; }
                catch (e) { return [e.code, e.retryable]; }
                """)
            #expect(failed == ["server_error", true])
            #expect(server.stats().refreshes == 1)
            let rotated = try #require(try session.vault.load()).refreshToken
            #expect(rotated != vaulted)  // the rotation itself was kept

            // The next attempt repeats only the exchange: the fresh tokens are not spent again.
            let retried = try await page.callAsyncJavaScript(
                """
                await window.webkit.messageHandlers.session.postMessage({action: "refresh"});
                return (await fetch('/api/me')).status;
                """)
            #expect(retried == 200)
            #expect(server.stats().refreshes == 1)
            #expect(server.stats().sessionExchanges == 2)
            #expect(try session.vault.load()?.refreshToken == rotated)
            #expect(server.stats().reuseEvents == 0)
            await page.close()
        }
    }

    @Test func refusedAccessTokenIsAClearNonRetryableError() async throws {
        try await withServer(identityProviderServer()) { server in
            var configuration = exchangeConfiguration(server)
            configuration.sessionExchange?.accessTokenPresentation = .header("X-Not-Authorization")
            let session = SessionController(configuration: configuration)
            let error = await #expect(throws: SessionError.self) { try await session.login(username: "demo", password: "demo") }
            #expect(error?.code == .invalidResponse)
            #expect(error?.isRetryable == false)
            #expect(error?.message.contains("HTTP 401") == true)
            #expect(session.cookieJar.value("web_session", for: server.url("/")) == nil)
        }
    }
}
