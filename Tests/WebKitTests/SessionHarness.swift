import AsyncHTTPClient
import Foundation
import SessionBridge
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeTesting
import SessionBridgeWebKit

/// The reference server over HTTPS, a signed-in ``SessionController`` and WebKit views wired
/// to it (the `session` handler, the standard scripts, the navigation delegate, attached): the
/// headless session tests' setup, on the WebKit engine.
@WebKitActor
final class SessionHarness {
    let server: ReferenceServer
    let session: SessionController
    let client: HTTPClient
    let tls: LoopbackCertificate
    let log = MessageLog(capacity: 10_000, redaction: RedactionPolicy(secretPrefixes: ["sbrt_"]))
    let recorder = PageEventRecorder()
    private(set) var views: [WebKitWebView] = []

    private init(server: ReferenceServer, session: SessionController, client: HTTPClient, tls: LoopbackCertificate) {
        self.server = server
        self.session = session
        self.client = client
        self.tls = tls
    }

    static func with<T: Sendable>(
        _ configuration: ReferenceServerConfiguration = ReferenceServerConfiguration(),
        session configure: (inout SessionConfiguration) -> Void = { _ in },
        signIn: Bool = true,
        _ body: @WebKitActor (SessionHarness) async throws -> T
    ) async throws -> T {
        let tls = try LoopbackTLS.shared.get()
        var serverConfiguration = configuration
        serverConfiguration.tlsConfiguration = tls.serverTLS
        let server = try await ReferenceServer.start(serverConfiguration)
        let client = tls.makeHTTPClient()
        var sessionConfiguration = SessionConfiguration(server: server.baseURL)
        sessionConfiguration.httpClient = client
        sessionConfiguration.requestTimeout = .seconds(5)
        sessionConfiguration.retry = RetryPolicy(baseDelay: .milliseconds(50))
        sessionConfiguration.refreshMargin = .milliseconds(200)
        sessionConfiguration.freshnessWindow = .milliseconds(500)
        sessionConfiguration.refreshTokenReuseGrace = configuration.refreshTokenReuseGrace
        configure(&sessionConfiguration)
        let harness = SessionHarness(
            server: server, session: SessionController(configuration: sessionConfiguration), client: client, tls: tls)
        do {
            if signIn { try await harness.session.login(username: configuration.username, password: configuration.password) }
            let result = try await body(harness)
            await harness.tearDown()
            return result
        } catch {
            await harness.tearDown()
            throw error
        }
    }

    private func tearDown() async {
        for view in views { await view.close() }
        try? await server.stop()
        try? await client.shutdown()
    }

    var origin: SecurityOrigin { SecurityOrigin(url: server.baseURL)! }

    func url(_ path: String) -> URL { server.url(path) }

    /// A view wired to the session, trusting the server's certificate.
    func makeView(
        delegate: Bool = true, scripts: StandardScripts.Selection = [.refresh, .fetchRetry],
        store: WebKitWebsiteDataStore = .nonPersistent()
    ) async throws -> WebKitWebView {
        let contents = UserContentController(log: log)
        session.install(in: contents, allowedOrigins: [origin], scripts: scripts)
        try store.allowTLSCertificate(pemCertificate: tls.certificatePEM, for: "127.0.0.1")
        let view = try WebKitWebView(
            configuration: WebKitWebViewConfiguration(
                websiteDataStore: store, userContentController: contents,
                navigationDelegate: delegate ? SessionNavigationDelegate(controller: session) : nil,
                eventHandler: recorder.handler))
        views.append(view)
        await session.attach(view)
        return view
    }

    /// The value of the cookie `name` the native store would send to the server.
    func nativeValue(_ name: String) -> String? {
        session.cookieJar.cookies(for: url("/")).first { $0.name == name }?.value
    }
}

extension WebKitWebView {
    /// The value of the cookie `name` this view's store would send to `url`.
    func cookieValue(_ name: String, for url: URL) async -> String? {
        await httpCookieStore.cookies(for: url).first { $0.name == name }?.value
    }
}
