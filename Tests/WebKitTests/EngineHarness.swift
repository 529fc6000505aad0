import AsyncHTTPClient
import Foundation
import SessionBridge
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeTesting
import SessionBridgeWebKit
import Synchronization
import Testing

/// The page engines a session scenario runs on, from the same test code.
enum Engine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// The headless page: JavaScriptCore, no DOM, the library's own cookie jar.
    case headless
    /// A WebKitGTK web view: a real DOM, WebKit's own (asynchronous) cookie store.
    case webkit

    var testDescription: String { rawValue }
}

/// The reference server over HTTPS (WebKit keeps `Secure` cookies only there; the headless page
/// gets a client that trusts the same loopback certificate), a signed-in ``SessionController``,
/// and views of one ``Engine`` wired to it: the `session` handler, the standard scripts, the
/// navigation delegate, attached.
final class EngineHarness: Sendable {
    let engine: Engine
    let server: ReferenceServer
    let session: SessionController
    let client: HTTPClient
    let tls: LoopbackCertificate
    let log = MessageLog(capacity: 10_000, redaction: RedactionPolicy(secretPrefixes: ["sbrt_"]))
    let recorder = PageEventRecorder()
    /// The data store of the views made with `sharingStore` (each other view has one of its own).
    private let sharedHeadlessStore = WebsiteDataStore.nonPersistent()
    private let sharedWebKitStore = WebKitWebsiteDataStore.nonPersistent()
    private let views = Mutex<[any WebView]>([])

    /// Removes all website data of the views made with `sharingStore` (an app's "clear all web
    /// data" on logout).
    func removeAllSharedData() async throws {
        switch engine {
        case .headless: sharedHeadlessStore.removeAllData()
        case .webkit: try await sharedWebKitStore.removeAllData()
        }
    }

    private init(engine: Engine, server: ReferenceServer, session: SessionController, client: HTTPClient, tls: LoopbackCertificate) {
        self.engine = engine
        self.server = server
        self.session = session
        self.client = client
        self.tls = tls
    }

    static func with<T: Sendable>(
        _ engine: Engine,
        _ configuration: ReferenceServerConfiguration = ReferenceServerConfiguration(),
        session configure: (inout SessionConfiguration) -> Void = { _ in },
        signIn: Bool = true,
        _ body: (EngineHarness) async throws -> T
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
        let harness = EngineHarness(
            engine: engine, server: server, session: SessionController(configuration: sessionConfiguration),
            client: client, tls: tls)
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
        for view in views.withLock({ $0 }) { await view.close() }
        try? await server.stop()
        try? await client.shutdown()
    }

    var origin: SecurityOrigin { SecurityOrigin(url: server.baseURL)! }

    func url(_ path: String) -> URL { server.url(path) }

    /// A view without the session showing `/login`, whose page may call `echo`: a handler that
    /// replies with the body and calls `onCall` first.
    func makeEchoView(sharingStore: Bool = false, onCall: @escaping @Sendable () -> Void = {}) async throws -> any WebView {
        try await makeLoginView(
            handler: ClosureMessageHandler { message in
                onCall()
                return message.body
            }, name: "echo", sharingStore: sharingStore)
    }

    /// A view without the session showing `/login`, whose page may call `handler` as `name`.
    func makeLoginView(handler: any ScriptMessageHandlerWithReply, name: String, sharingStore: Bool = false) async throws -> any WebView {
        let contents = UserContentController()
        contents.addScriptMessageHandler(handler, name: name, options: HandlerOptions(allowedOrigins: [origin]))
        let view = try await makeView(session: false, contents: contents, sharingStore: sharingStore)
        try await view.load(url("/login"))
        return view
    }

    /// A view wired to the session showing the app page `/app` once its own start-up (its
    /// `fetch`, and the refresh a `401` asks for) has ended, so that what a test does next is
    /// all it counts.
    func makeStartedAppView() async throws -> any WebView {
        let view = try await makeView()
        #expect(try await view.load(url("/app")).statusCode == 200)
        #expect(try await view.waitForAppStartUp(path: "/app"))
        return view
    }

    /// A view of the harness's engine. With `session`, it is wired to the session (handler,
    /// `scripts`, and with `delegate` the navigation delegate) and attached; `userScripts` are
    /// added either way. A WebKit view's store is `webKitStore` when given.
    func makeView(
        session wired: Bool = true, delegate: Bool = true, scripts: StandardScripts.Selection = [.refresh, .fetchRetry],
        userScripts: [UserScript] = [], contents: UserContentController? = nil, sharingStore: Bool = false,
        webKitStore: WebKitWebsiteDataStore? = nil
    ) async throws -> any WebView {
        let contents = contents ?? UserContentController(log: log)
        if wired { session.install(in: contents, allowedOrigins: [origin], scripts: scripts) }
        for script in userScripts { contents.addUserScript(script) }
        let navigationDelegate: (any NavigationDelegate)? = wired && delegate ? SessionNavigationDelegate(controller: session) : nil
        let view: any WebView
        switch engine {
        case .headless:
            var configuration = WebPageConfiguration(
                websiteDataStore: sharingStore ? sharedHeadlessStore : .nonPersistent(), userContentController: contents,
                navigationDelegate: navigationDelegate, eventHandler: recorder.handler)
            configuration.httpClient = client
            configuration.webSocketTLSConfiguration = tls.clientTLS
            view = WebPage(configuration: configuration)
        case .webkit:
            view = try await Self.makeWebKitView(
                WebKitWebViewConfiguration(
                    websiteDataStore: webKitStore ?? (sharingStore ? sharedWebKitStore : .nonPersistent()),
                    userContentController: contents,
                    navigationDelegate: navigationDelegate, eventHandler: recorder.handler), tls: tls)
        }
        views.withLock { $0.append(view) }
        if wired { await session.attach(view) }
        return view
    }

    @WebKitActor
    private static func makeWebKitView(_ configuration: WebKitWebViewConfiguration, tls: LoopbackCertificate) throws -> WebKitWebView {
        try configuration.websiteDataStore.allowTLSCertificate(pemCertificate: tls.certificatePEM, for: "127.0.0.1")
        return try WebKitWebView(configuration: configuration)
    }

    /// The value of the cookie `name` the native store would send to the server.
    func nativeValue(_ name: String) -> String? {
        session.cookieJar.cookies(for: url("/")).first { $0.name == name }?.value
    }
}

extension WebView {
    /// Runs `body` as an async function in the page's world (30 seconds at most).
    func run(_ body: String) async throws -> ScriptValue {
        try await callAsyncJavaScript(body, in: .page, timeout: .seconds(30))
    }

    func evaluate(_ source: String) async throws -> ScriptValue {
        try await evaluateJavaScript(source, in: .page)
    }

    /// The value of the cookie `name` this view's store would send to `url`.
    func cookieValue(_ name: String, for url: URL) async -> String? {
        await httpCookieStore.cookies(for: url).first { $0.name == name }?.value
    }

    /// Waits until the committed document's path is `path`; `false` after `timeout`.
    func waitForPath(_ path: String, timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await url?.path == path { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}

extension WebView {
    /// The reference server's app page's `appState.expiresAt` (the expiry of the access token
    /// the server saw on the document's request), once the document at `path` has run its
    /// script; `nil` after ten seconds.
    func appStateExpiry(path: String) async throws -> Double? {
        try await poll("window.appState && appState.path === '\(path)' ? appState.expiresAt : null")?.numberValue
    }

    /// Waits until the reference server's app page at `path` has finished its own start-up
    /// (its `fetch` of `/api/me`, and the refresh it asks for on a `401`): `appState.status` is
    /// set. `false` after ten seconds.
    func waitForAppStartUp(path: String) async throws -> Bool {
        try await poll("window.appState && appState.path === '\(path)' && appState.status ? appState.status : null") != nil
    }

    /// Evaluates `probe` every 25 ms until it gives something other than `null` or
    /// `undefined`; `nil` after ten seconds.
    private func poll(_ probe: String) async throws -> ScriptValue? {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let value = try? await evaluate(probe), value != .null, value != .undefined { return value }
            try await Task.sleep(for: .milliseconds(25))
        }
        return nil
    }
}

extension ScriptValue {
    /// The element at `index` of an array; `nil` for anything else.
    func element(_ index: Int) -> ScriptValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }
}

/// The repository's example page scripts (`Examples/`), read from the checkout.
enum ExampleScripts {
    static var directory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Examples")
    }

    static func source(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    /// An example as the body of an async function that returns its console lines (the same on
    /// both engines: WebKit gives the embedder no console).
    static func body(_ name: String) throws -> String {
        """
        const __lines = [];
        const console = { log: (...args) => __lines.push(args.map(String).join(" ")) };
        \(try source(name))
        return __lines;
        """
    }
}
