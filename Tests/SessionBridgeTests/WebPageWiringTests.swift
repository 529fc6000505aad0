import Foundation
import SessionBridge
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

/// The app's own navigation delegate, which refuses one path.
struct RefusingDelegate: NavigationDelegate {
    let refusedPath: String
    let asked: Locked<[String]>

    func webPage(_ page: any WebView, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy {
        asked.update { $0.append(action.request.url.path) }
        return action.request.url.path == refusedPath ? .cancel : .allow
    }
}

@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct WebPageWiringTests {
    @Test func makeWebPageInstallsTheHandlerHoldsNavigationsAndKeepsTheAppsDelegate() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            let asked = Locked<[String]>([])
            let recorder = PageEventRecorder()
            let page = await session.makeWebPage(
                configuration: WebPageConfiguration(
                    navigationDelegate: RefusingDelegate(refusedPath: "/blocked", asked: asked),
                    eventHandler: recorder.handler),
                allowedOrigins: [server.origin])
            _ = try await session.login(username: "demo", password: "demo")

            // Attached: the login's cookies reached the page's store, so /app is served, not /login.
            let navigation = try await page.load(server.url("/app"))
            #expect(navigation.url.path == "/app")
            let pageNames = Set(page.cookieJar.cookies(for: server.url("/")).map(\.name))
            #expect(!pageNames.isEmpty && pageNames == Set(session.cookieJar.cookies(for: server.url("/")).map(\.name)))

            // The handler and the standard scripts are installed for the allowed origin.
            let reply = try await page.callAsyncJavaScript(
                """
                const status = await window.webkit.messageHandlers.session.postMessage({action: "refresh"});
                return [status.ok, status.signedIn, typeof window.sessionBridge.refresh];
                """)
            #expect(reply == [true, true, "function"])

            // The app's delegate is asked first and its cancel wins.
            do throws(PageError) {
                try await page.load(server.url("/blocked"))
                Issue.record("the refused navigation loaded")
            } catch {
                #expect(error.code == .cancelled)
            }
            #expect(asked.value == ["/app", "/blocked"])
            #expect(!recorder.exchanges.contains { $0.url.path == "/blocked" })
            await page.close()
        }
    }

    @Test func anOriginThatWasNotAllowedIsRefused() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            let page = await session.makeWebPage(allowedOrigins: [])
            _ = try await session.login(username: "demo", password: "demo")
            try await page.load(server.url("/app"))
            let refusal = try await page.callAsyncJavaScript(
                """
                try { await window.webkit.messageHandlers.session.postMessage({action: "refresh"}); return "allowed"; }
                catch (e) { return [e.name, e.code]; }
                """)
            #expect(refusal == ["NotAllowedError", "not_allowed"])
            #expect(server.stats().refreshes == 0)
            await page.close()
        }
    }
}
