import Foundation
import SessionBridge
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

/// The app's own delegate, asked first by the session's: at `path` it makes the page's store
/// lose the session cookie (the "web store loses its cookies" case) in the middle of a chain.
struct LosesSessionCookie: NavigationDelegate {
    let path: String
    let decided = Locked<[String]>([])

    func webPage(_ page: any WebView, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy {
        decided.update { $0.append(action.request.url.path) }
        if action.request.url.path == path {
            let lost = await page.httpCookieStore.allCookies().filter { $0.name == "__Host-session" }
            await page.httpCookieStore.apply(lost.map { .delete($0) })
        }
        return .allow
    }
}

@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct RedirectHopTests {
    @Test func eachRedirectHopIsPreparedLikeTheFirstRequest() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let app = LosesSessionCookie(path: "/redirect-chain/3")
            let recorder = PageEventRecorder()
            let contents = UserContentController()
            session.install(in: contents, allowedOrigins: [server.origin])
            let page = WebPage(
                configuration: WebPageConfiguration(
                    userContentController: contents, navigationDelegate: SessionNavigationDelegate(controller: session, wrapping: app),
                    eventHandler: recorder.handler))
            try await page.load(server.url("/redirect-chain"))
            #expect(app.decided.value == ["/redirect-chain", "/redirect-chain/2", "/redirect-chain/3"])
            // The store lost the cookie while hop 3 was decided; the session wrote it back
            // before hop 3's request left.
            let hops = recorder.exchanges.filter { $0.initiator == .navigation }
            #expect(hops.map(\.url.path) == ["/redirect-chain", "/redirect-chain/2", "/redirect-chain/3"])
            #expect(hops.allSatisfy { $0.cookiesSent.contains("__Host-session") })
            await page.close()
        }
    }

    @Test func aLogoutRouteThatRedirectsIsNotUndoneByTheNextHop() async throws {
        try await withServer { server in
            var configuration = makeConfiguration(server)
            configuration.freshnessWindow = .zero  // no recent refresh answers for the hop
            let session = SessionController(configuration: configuration)
            try await session.login(username: "demo", password: "demo")
            let recorder = PageEventRecorder()
            let (page, _) = await makePage(session, server, recorder: recorder)
            #expect(try await page.load(server.url("/app")).statusCode == 200)
            // GET /logout deletes the session cookie and redirects to /login: the hop to
            // /login is prepared too, and must neither copy the cookie back nor refresh.
            let navigation = try await page.load(server.url("/logout"))
            #expect(navigation.url.path == "/login")
            let hops = recorder.exchanges.filter { $0.initiator == .navigation }.suffix(2)
            #expect(hops.map(\.url.path) == ["/logout", "/login"])
            #expect(hops.last?.cookiesSent.contains("__Host-session") == false)
            #expect(page.cookieJar.value("__Host-session", for: server.url("/")) == nil)
            #expect(session.cookieJar.value("__Host-session", for: server.url("/")) == nil)
            #expect(server.stats().refreshes == 0)
            try await waitUntil { try await !session.status().isSignedIn }
            await page.close()
        }
    }
}
