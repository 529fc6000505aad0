import Foundation
import SessionBridge
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeOAuth
import SessionBridgeTestSupport
import Testing

extension Interop {
    /// The page signed in to a web product that trusts the third-party server's tokens, by the
    /// session exchange after each real sign-in and refresh there (the server sets no cookie).
    @Suite(.timeLimit(.minutes(3)), .hangWatchdog) struct SessionExchangeInterop {
        @Test func thePageIsSignedInByExchangeAfterARealRefresh() async throws {
            try await InteropServer.withRunning { server async throws in
                try await WebProduct.withRunning(userinfo: server.url("/o/userinfo/")) { product in
                    var configuration = SessionConfiguration(
                        issuer: server.issuer, clientID: InteropClient.publicClient, scope: "openid read", sessionURL: product.baseURL)
                    configuration.freshnessWindow = .zero
                    configuration.sessionExchange = SessionExchange(
                        url: product.url("/session/exchange"), sessionCookieName: WebProduct.cookieName)
                    let session = SessionController(configuration: configuration)
                    try await session.login(username: server.configuration.username, password: server.configuration.password)
                    #expect(product.record.exchanges == 1)

                    // A real refresh at the provider, then the exchange with its new access token.
                    try await session.refresh()
                    #expect(product.record.exchanges == 2)
                    #expect(product.record.refusedExchanges == 0)
                    let latest = try #require(product.record.sessions.last)
                    #expect(session.cookieJar.cookies(for: product.baseURL).first { $0.name == WebProduct.cookieName }?.value == latest)

                    let contents = UserContentController()
                    session.install(in: contents, allowedOrigins: [SecurityOrigin(url: product.baseURL)!])
                    let page = WebPage(
                        configuration: WebPageConfiguration(
                            userContentController: contents, navigationDelegate: SessionNavigationDelegate(controller: session)))
                    await session.attach(page)
                    let landed = try await page.load(product.url("/app"))
                    #expect(landed.statusCode == 200)
                    #expect(landed.url.path == "/app")
                    let me = try await page.callAsyncJavaScript(
                        "const r = await fetch('/api/me'); return r.status + ':' + (await r.json()).sub;")
                    let subject = try #require(await session.idToken?.subject)
                    #expect(me == .string("200:\(subject)"))
                    // The product saw the exchanged cookie on the navigation and on the page's fetch.
                    #expect(product.record.signedInRequests == ["/app", "/api/me"])
                    #expect(server.log.contains("POST /o/token/"))
                    await page.close()
                }
            }
        }
    }
}
