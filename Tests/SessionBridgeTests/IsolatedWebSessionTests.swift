import Foundation
import SessionBridgeHeadless
import SessionBridgeOAuth
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@testable import SessionBridge

@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct IsolatedWebSessionTests {
    func isolatedConfiguration(_ server: ReferenceServer) -> SessionConfiguration {
        var configuration = makeConfiguration(server)
        configuration.isolatedWebSession = IsolatedWebSession()
        configuration.freshnessWindow = .zero
        return configuration
    }

    func nativeRefreshToken(_ vault: InMemoryTokenVault) throws -> String {
        try #require(try vault.load()).refreshToken.withRevealedValue { $0 }
    }

    @Test func anIsolatedPagesRefreshesNeverTouchTheNativeRefreshToken() async throws {
        try await withServer { server in
            let vault = InMemoryTokenVault()
            let session = SessionController(configuration: isolatedConfiguration(server), vault: vault)
            try await session.login(username: "demo", password: "demo")
            let native = try nativeRefreshToken(vault)
            #expect(server.stats().tokenExchanges == 1)
            let (page, _) = await makePage(session, server)
            #expect(try await page.load(server.url("/app")).statusCode == 200)

            // The page's cookie is a session of its own, obtained from the native one.
            let pageRefreshToken = try #require(await session.pageSession?.refreshToken).exposedValue
            let nativeSession = try #require(server.sessionID(ofRefreshToken: native))
            #expect(server.parentSessionID(ofRefreshToken: pageRefreshToken) == nativeSession)
            let cookie = try #require(page.cookieJar.value("__Host-session", for: server.url("/")))
            #expect(server.verifyAccessToken(cookie)?.sid == server.sessionID(ofRefreshToken: pageRefreshToken))

            for _ in 0..<3 {
                let reply = try await page.callAsyncJavaScript(
                    """
                    const reply = await window.webkit.messageHandlers.session.postMessage({action: "refresh"});
                    return reply.ok === true;
                    """)
                #expect(reply == true)
            }
            #expect(server.stats().refreshes == 3)
            #expect(!server.presentedRefreshTokens().contains(native))
            #expect(server.refreshTokenState(native) == .current)
            #expect(try nativeRefreshToken(vault) == native)
            #expect(server.stats().reuseEvents == 0)
            #expect(try await page.load(server.url("/app")).statusCode == 200)

            // Native code refreshes its own session; the page session is untouched.
            try await session.refreshNativeSession()
            #expect(server.refreshTokenState(native) == .rotated)
            #expect(try await page.callAsyncJavaScript("return (await fetch('/api/me')).status") == 200)
            #expect(server.stats().tokenExchanges == 1)
            await page.close()
        }
    }

    @Test func aPageLogoutEndsThePageSessionOnly() async throws {
        try await withServer { server in
            let vault = InMemoryTokenVault()
            let session = SessionController(configuration: isolatedConfiguration(server), vault: vault)
            try await session.login(username: "demo", password: "demo")
            let native = try nativeRefreshToken(vault)
            let (page, _) = await makePage(session, server)
            #expect(try await page.load(server.url("/app")).statusCode == 200)
            let pageRefreshToken = try #require(await session.pageSession?.refreshToken).exposedValue
            // The page's own start-up request (`/api/me`) settles first: answered 401 after the
            // logout below, it would make the page ask for a refresh, and so a third exchange.
            let started = try await page.callAsyncJavaScript(
                """
                for (let i = 0; i < 400 && window.appState.status === undefined; i++) {
                    await new Promise(resolve => setTimeout(resolve, 5));
                }
                return window.appState.status;
                """)
            #expect(started == "ready")

            // The web product's logout, then the bridge's: both end the page's session only.
            _ = try await page.callAsyncJavaScript("await fetch('/session/logout', {method: 'POST'});")
            #expect(server.refreshTokenState(native) == .current)
            let status = try await page.callAsyncJavaScript(
                """
                const reply = await window.webkit.messageHandlers.session.postMessage({action: "logout"});
                return reply.signedIn;
                """)
            #expect(status == false)
            #expect(server.refreshTokenState(pageRefreshToken) == .revoked)
            #expect(page.cookieJar.value("__Host-session", for: server.url("/")) == nil)
            #expect(server.refreshTokenState(native) == .current)
            #expect(try await session.status().isSignedIn)

            // The native session goes on: a native request with its own token, and a refresh.
            let client = SessionHTTPClient(session: session, configuration: .init(sendsAccessToken: true))
            let me = try? await client.send(SessionHTTPRequest(url: server.url("/api/me")))
            try await client.shutdown()
            #expect(me?.status == 200)
            try await session.refreshNativeSession()
            #expect(server.refreshTokenState(native) == .rotated)

            // The next page navigation gets a new page session by exchange.
            #expect(try await page.load(server.url("/app")).statusCode == 200)
            #expect(server.stats().tokenExchanges == 2)
            await page.close()
        }
    }

    /// A page's refresh right after its logout gets it a new page session by exchange, not the
    /// ended session's answer from the freshness window (signed in, with no cookie to show).
    @Test func aRefreshAfterThePagesLogoutExchangesANewPageSession() async throws {
        try await withServer { server in
            let session = SessionController(configuration: isolatedConfiguration(server), vault: InMemoryTokenVault())
            try await session.login(username: "demo", password: "demo")
            let (page, _) = await makePage(session, server)
            #expect(try await page.load(server.url("/app")).statusCode == 200)
            let reply = try await page.callAsyncJavaScript(
                """
                const bridge = window.webkit.messageHandlers.session;
                await bridge.postMessage({action: "refresh"});
                await bridge.postMessage({action: "logout"});
                const exchangesBefore = (await (await fetch('/debug/stats')).json()).tokenExchanges;
                const again = await bridge.postMessage({action: "refresh"});
                return [again.signedIn, (await fetch('/api/me', {credentials: 'include'})).status, exchangesBefore];
                """)
            guard case .array(let values) = reply, values.count == 3 else { Issue.record("\(reply)"); return }
            #expect(Array(values.prefix(2)) == [true, 200])
            #expect(Double(server.stats().tokenExchanges) > (values[2].numberValue ?? .infinity))
            await page.close()
        }
    }

    @Test func theLastPageDetachingRevokesThePageSessionAndNativeCodeGoesOn() async throws {
        try await withServer { server in
            let vault = InMemoryTokenVault()
            let session = SessionController(configuration: isolatedConfiguration(server), vault: vault)
            try await session.login(username: "demo", password: "demo")
            let native = try nativeRefreshToken(vault)
            let (page, _) = await makePage(session, server)
            #expect(try await page.load(server.url("/app")).statusCode == 200)
            let pageRefreshToken = try #require(await session.pageSession?.refreshToken).exposedValue

            // Revoked before the detach returns: a runner or an app ending right after leaves
            // no page session open at the server.
            await session.detach(page)
            #expect(server.refreshTokenState(pageRefreshToken) == .revoked)
            #expect(server.refreshTokenState(native) == .current)
            try await session.refreshNativeSession()
            #expect(server.refreshTokenState(native) == .rotated)
            #expect(try await session.status().isSignedIn)
            await page.close()
        }
    }
}
