import Foundation
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeTestSupport
import SessionBridgeTesting
import SessionBridgeWebKit
import Synchronization
import Testing

/// A real HTML login form on the WebKit engine: the test fills and submits it, the server's
/// answer sets the session cookies in WebKit's store, and the redirect that follows is caught
/// by the navigation policy (as an app catches its OAuth redirect URI).
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) @WebKitActor struct LoginFormTests {
    @Test func aFilledAndSubmittedLoginFormSignsInAndItsRedirectIsCaughtByThePolicy() async throws {
        try await SessionHarness.with(signIn: false) { harness in
            let seen = Mutex<[NavigationAction]>([])
            let delegate = ClosureNavigationDelegate { _, action in
                seen.withLock { $0.append(action) }
                return action.request.url.path == "/app" ? .cancel : .allow  // the redirect is caught here
            }
            let store = WebKitWebsiteDataStore.nonPersistent()
            try store.allowTLSCertificate(pemCertificate: harness.tls.certificatePEM, for: "127.0.0.1")
            let view = try WebKitWebView(configuration: WebKitWebViewConfiguration(websiteDataStore: store, navigationDelegate: delegate))
            try await view.load(harness.url("/login?next=/app"))
            _ = try await view.evaluateJavaScript(
                """
                document.querySelector('input[name=username]').value = 'demo';
                document.querySelector('input[name=password]').value = 'demo';
                document.getElementById('login').requestSubmit();
                true
                """)
            for _ in 0..<100 {
                if seen.withLock({ $0.contains { $0.request.url.path == "/app" } }) { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            let actions = seen.withLock { $0 }
            let submit = try #require(actions.first { $0.request.url.path == "/login" && $0.request.method == "POST" })
            #expect(submit.navigationType == .formSubmitted)
            #expect(actions.contains { $0.request.url.path == "/app" })
            #expect(harness.server.stats().logins == 1)
            let cookies = await store.httpCookieStore.cookies(for: harness.url("/"))
            #expect(cookies.first { $0.name == "__Host-session" }?.isHttpOnly == true)
            #expect(view.url?.path == "/login")  // the caught redirect never loaded /app
            await view.close()
        }
    }
}
