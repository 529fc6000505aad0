import Foundation
import SessionBridge
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeTestSupport
import SessionBridgeTesting
import Synchronization
import Testing

/// A cookie-centred web product: the reference server's `POST /login` sets the
/// `__Host-web_refresh` cookie and `POST /session/refresh` rotates it.
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct CookieRefreshTests {
    func cookieRefreshConfiguration(_ server: ReferenceServer) -> SessionConfiguration {
        var configuration = makeConfiguration(server)
        configuration.cookieRefresh = CookieRefresh(cookieName: "__Host-web_refresh", url: server.url("/session/refresh"))
        return configuration
    }

    /// Signs in natively with the web product's own login form.
    func signIn(_ client: SessionHTTPClient, _ server: ReferenceServer) async throws -> SessionHTTPResponse {
        try await client.send(
            SessionHTTPRequest(
                url: server.url("/login"), method: "POST", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: Data("username=demo&password=demo&next=%2Fapp".utf8)))
    }

    @Test func refreshCookieNeverReachesAPageStoreOrScript() async throws {
        try await withServer { server in
            let logs = LogCollector()
            var configuration = cookieRefreshConfiguration(server)
            configuration.logger = logs.logger
            let session = SessionController(configuration: configuration)
            let recorder = PageEventRecorder()
            let (page, contents) = await makePage(session, server, recorder: recorder)
            let client = SessionHTTPClient(session: session)

            let signedIn = try await signIn(client, server)
            #expect(signedIn.cookiesSet.contains("__Host-web_refresh"))
            #expect(session.cookieJar.value("__Host-web_refresh", for: server.url("/")) != nil)
            #expect(page.cookieJar.value("__Host-web_refresh", for: server.url("/")) == nil)
            #expect(page.cookieJar.value("__Host-session", for: server.url("/")) != nil)
            #expect(try await session.status().isSignedIn)
            #expect(try await page.load(server.url("/app")).statusCode == 200)

            let found = try await page.callAsyncJavaScript(
                """
                const seen = [document.cookie];
                const h = window.webkit.messageHandlers.session;
                seen.push(JSON.stringify(await h.postMessage({action: "refresh"})));
                seen.push(document.cookie);
                await new Promise(r => setTimeout(r, 600));
                seen.push(JSON.stringify(await h.postMessage({action: "refresh"})));
                const me = await fetch('/api/me');
                seen.push(String(me.status), await me.text(), document.cookie);
                return seen;
                """)
            #expect(server.stats().webRefreshes == 2)
            #expect(server.stats().reuseEvents == 0)
            var strings: [String] = []
            found.forEachString { strings.append($0) }
            #expect(strings.contains("200"))
            strings += recorder.consoleLines
            strings += recorder.events.map { String(describing: $0) }
            strings += (contents.log?.entries ?? []).map { String(describing: $0) }
            strings += logs.lines.withLock { $0 }
            strings += page.cookieJar.allCookies.map { "\($0.name)=\($0.value)" }
            let tokens = server.issuedRefreshTokens()
            #expect(tokens.count == 3)
            #expect(tokens.allSatisfy { token in !strings.contains { $0.contains(token) } })
            // The page never held it and never sent it; the native store holds the latest.
            #expect(!page.cookieJar.allCookies.contains { $0.name == "__Host-web_refresh" })
            #expect(!recorder.exchanges.contains { $0.cookiesSent.contains("__Host-web_refresh") })
            #expect(session.cookieJar.value("__Host-web_refresh", for: server.url("/")) == tokens.last)
            try await client.shutdown()
            await page.close()
        }
    }

    /// The status a cookie refresh answers carries the new session cookie's expiry, as a
    /// token refresh carries the access token's: it had stayed `null`, so a page could not
    /// schedule its next refresh.
    @Test func aCookieRefreshsStatusSaysWhenTheNewSessionCookieExpires() async throws {
        try await withServer { server in
            let session = SessionController(configuration: cookieRefreshConfiguration(server))
            let client = SessionHTTPClient(session: session)
            _ = try await signIn(client, server)
            func nativeExpiry() -> Date? {
                session.cookieJar.cookies(for: server.url("/")).first { $0.name == "__Host-session" }?.expiresAt
            }
            let first = try await session.refresh()
            #expect(first.accessTokenExpiresAt != nil)
            #expect(first.accessTokenExpiresAt == nativeExpiry())
            try await Task.sleep(for: .milliseconds(1100))
            let second = try await session.refresh()
            #expect(second.accessTokenExpiresAt == nativeExpiry())
            #expect((second.accessTokenExpiresAt ?? .distantPast) > (first.accessTokenExpiresAt ?? .distantFuture))
            #expect(server.stats().webRefreshes == 2)
            try await client.shutdown()
        }
    }

    @Test func refusedRefreshCookieEndsTheSession() async throws {
        try await withServer { server in
            let session = SessionController(configuration: cookieRefreshConfiguration(server))
            let (page, _) = await makePage(session, server)
            let client = SessionHTTPClient(session: session)
            _ = try await signIn(client, server)
            #expect(try await page.load(server.url("/app")).statusCode == 200)
            // The app page's own start-up (its fetch) ends first: a loaded machine ran it after the
            // revocation, and its refresh, not the one asked below, met the revoked grant.
            #expect(await page.runUntilQuiescent(timeout: .seconds(20)))
            #expect(server.revokeAllSessions() == 1)
            let reply = try await page.callAsyncJavaScript(
                """
                try { await window.webkit.messageHandlers.session.postMessage({action: "refresh"}); return "ok"; }
                catch (e) { return [e.code, e.retryable]; }
                """)
            #expect(reply == ["invalid_grant", false])
            #expect(session.cookieJar.value("__Host-web_refresh", for: server.url("/")) == nil)
            #expect(page.cookieJar.value("__Host-session", for: server.url("/")) == nil)
            #expect(try await !session.status().isSignedIn)
            try await client.shutdown()
            await page.close()
        }
    }
}
