import Foundation
import SessionBridge
import SessionBridgeHeadless
import SessionBridgeOAuth
import SessionBridgeTestSupport
import SessionBridgeTesting
import SessionBridgeWebKit
import Synchronization
import Testing

/// Authorization code + PKCE through a real HTML sign-in form on the WebKit engine: the
/// authorization endpoint's page loads in a WebKit view, the test fills and submits its form,
/// and the navigation policy catches the redirect to the app's redirect URI before it leaves —
/// AppAuth's embedded user agent, on WebKit.
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) @WebKitActor struct CodeFlowTests {
    static let redirectURI = URL(string: "com.example.app:/oauth/callback")!

    /// Signs in through the authorization endpoint's form in a WebKit view.
    struct WebKitFormAgent: AuthorizationUserAgent {
        let certificatePEM: String
        let caught = CaughtRedirects()

        func authorize(_ url: URL, redirectURI: URL) async throws -> URL {
            try await signIn(url, redirectURI: redirectURI)
        }

        @WebKitActor private func signIn(_ url: URL, redirectURI: URL) async throws -> URL {
            let caught = self.caught
            let delegate = ClosureNavigationDelegate { _, action in
                let target = action.request.url
                guard target.scheme == redirectURI.scheme, target.path == redirectURI.path else { return .allow }
                caught.record(target)
                return .cancel  // the redirect URI never loads: native code takes the code
            }
            let store = WebKitWebsiteDataStore.nonPersistent()
            try store.allowTLSCertificate(pemCertificate: certificatePEM, for: "127.0.0.1")
            let view = try WebKitWebView(configuration: WebKitWebViewConfiguration(websiteDataStore: store, navigationDelegate: delegate))
            defer { Task { @WebKitActor in await view.close() } }
            try await view.load(url)
            _ = try await view.evaluateJavaScript(
                """
                const form = document.querySelector('form');
                form.querySelector('input[name=username]').value = 'demo';
                form.querySelector('input[name=password]').value = 'demo';
                form.requestSubmit();
                true
                """)
            for _ in 0..<200 {
                if let callback = caught.first { return callback }
                try await Task.sleep(for: .milliseconds(25))
            }
            throw OAuthError(.accessDenied, "the sign-in form never redirected to the redirect URI")
        }
    }

    final class CaughtRedirects: Sendable {
        private let urls = Mutex<[URL]>([])
        func record(_ url: URL) { urls.withLock { $0.append(url) } }
        var first: URL? { urls.withLock { $0.first } }
        var all: [URL] { urls.withLock { $0 } }
    }

    @Test func theCodeFlowCompletesThroughARealSignInFormAndThePolicyCatchesTheRedirect() async throws {
        try await SessionHarness.with(signIn: false) { harness in
            var configuration = SessionConfiguration(
                issuer: URL(string: harness.server.issuer)!, clientID: "app", scope: "openid offline_access",
                redirectURI: Self.redirectURI)
            configuration.httpClient = harness.client
            configuration.requestTimeout = .seconds(5)
            let session = SessionController(configuration: configuration)
            let agent = WebKitFormAgent(certificatePEM: harness.tls.certificatePEM)
            let status = try await session.signIn(with: agent)
            #expect(status.isSignedIn)
            #expect(await session.idToken?.subject == "demo")
            // The policy caught exactly one redirect, carrying the code, the state and RFC 9207's iss.
            let callback = try #require(agent.caught.all.first)
            #expect(agent.caught.all.count == 1)
            let items = URLComponents(url: callback, resolvingAgainstBaseURL: false)?.queryItems ?? []
            #expect(Set(items.map(\.name)).isSuperset(of: ["code", "state", "iss"]))
            #expect(harness.server.stats().logins == 1)
            try await session.refresh()
            #expect(try session.vault.load() != nil)
        }
    }
}
