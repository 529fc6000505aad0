public import Foundation
public import SessionBridge
public import SessionBridgeCookies
public import SessionBridgeHeadless
public import SessionBridgeMessaging
import Synchronization

/// A whole round trip in one call: the reference server on loopback, a `SessionController`
/// signed in natively, and a `WebPage` wired to it with the `session` handler and the
/// navigation delegate; and what each part saw, for assertions.
///
/// ```swift
/// let fixture = try await SessionFixture.start()
/// defer { Task { await fixture.stop() } }
/// try await fixture.page.load(fixture.url("/app"))
/// #expect(fixture.server?.stats().refreshes == 0)
/// #expect(fixture.leakedRefreshTokens().isEmpty)
/// ```
public final class SessionFixture: Sendable {
    /// The embedded server, or `nil` when the fixture points at another one.
    public let server: ReferenceServer?
    /// The server's base URL.
    public let baseURL: URL
    /// The native session owner.
    public let session: SessionController
    /// The page, wired to the session.
    public let page: WebPage
    /// The page's handlers and user scripts.
    public let contentController: UserContentController
    /// Every bridge call, redacted.
    public let messageLog: MessageLog
    private let recorder = PageEventRecorder()

    /// Starts the embedded server and signs in as its demo user (unless `signIn` is false).
    /// The session is configured for the server: its endpoints and its
    /// ``ReferenceServerConfiguration/refreshTokenReuseGrace``.
    public static func start(
        server configuration: ReferenceServerConfiguration = ReferenceServerConfiguration(),
        signIn: Bool = true,
        session sessionConfiguration: (@Sendable (inout SessionConfiguration) -> Void)? = nil,
        vault: any TokenVault = InMemoryTokenVault(),
        nativeCookieStore: PersistentCookieStore? = nil,
        allowedOrigins: [SecurityOrigin] = [],
        configure: @Sendable (inout WebPageConfiguration) -> Void = { _ in }
    ) async throws -> SessionFixture {
        let server = try await ReferenceServer.start(configuration)
        var session = SessionConfiguration(server: server.baseURL)
        // The controller knows the grace of the server it talks to.
        session.refreshTokenReuseGrace = configuration.refreshTokenReuseGrace
        sessionConfiguration?(&session)
        do {
            let fixture = try await SessionFixture(
                server: server, baseURL: server.baseURL, sessionConfiguration: session,
                vault: vault, nativeCookieStore: nativeCookieStore,
                allowedOrigins: allowedOrigins, configure: configure)
            if signIn { _ = try await fixture.session.login(username: configuration.username, password: configuration.password) }
            return fixture
        } catch {
            try? await server.stop()
            throw error
        }
    }

    /// Points a fixture at a server that is already running (nothing is started or signed in).
    public static func connect(
        to baseURL: URL, sessionConfiguration: SessionConfiguration? = nil, vault: any TokenVault = InMemoryTokenVault(),
        nativeCookieStore: PersistentCookieStore? = nil,
        allowedOrigins: [SecurityOrigin] = [], configure: @Sendable (inout WebPageConfiguration) -> Void = { _ in }
    ) async throws -> SessionFixture {
        try await SessionFixture(
            server: nil, baseURL: baseURL, sessionConfiguration: sessionConfiguration, vault: vault,
            nativeCookieStore: nativeCookieStore, allowedOrigins: allowedOrigins, configure: configure)
    }

    private init(
        server: ReferenceServer?, baseURL: URL, sessionConfiguration: SessionConfiguration? = nil,
        vault: any TokenVault = InMemoryTokenVault(), nativeCookieStore: PersistentCookieStore? = nil, allowedOrigins: [SecurityOrigin],
        configure: @Sendable (inout WebPageConfiguration) -> Void
    ) async throws {
        self.server = server
        self.baseURL = baseURL
        let session = SessionController(
            configuration: sessionConfiguration ?? SessionConfiguration(server: baseURL), vault: vault,
            cookieStore: nativeCookieStore)
        let log = MessageLog(capacity: 10_000, redaction: RedactionPolicy(secretPrefixes: ["sbrt_"]))
        let contents = UserContentController(log: log)
        var origins = Set(allowedOrigins)
        if let origin = SecurityOrigin(url: baseURL) { origins.insert(origin) }
        self.session = session
        self.contentController = contents
        self.messageLog = log
        let recorder = self.recorder
        var configuration = WebPageConfiguration(userContentController: contents, eventHandler: { event in recorder.record(event) })
        configure(&configuration)
        self.page = await session.makeWebPage(configuration: configuration, allowedOrigins: origins)
    }

    /// Stops the page and the embedded server, and waits for the cookie profiles' writes. A
    /// refresh the page asked for and left (it goes on natively) ends first, against the server
    /// it was sent to (``SessionController/waitForRefreshInFlight()``).
    public func stop() async {
        await page.close()
        await session.waitForRefreshInFlight()
        try? await server?.stop()
        // The profiles' cookie writes made behind the page land before the fixture is gone.
        await CookieStoreAttachment.flushAll()
    }

    /// `path` on the server.
    public func url(_ path: String) -> URL {
        URL(string: path, relativeTo: baseURL)!.absoluteURL
    }

    /// Calls `observer` with every page event from now on.
    public func observe(_ observer: @escaping @Sendable (PageEvent) -> Void) {
        recorder.observe(observer)
    }

    // MARK: What each part saw

    /// Every page event so far.
    public var pageEvents: [PageEvent] { recorder.events }

    /// What crossed the bridge: every call, redacted.
    public var bridgeCalls: [MessageLog.Entry] { messageLog.entries }

    /// What the page's cookie store holds.
    public func pageCookies() -> [Cookie] { page.cookieJar.allCookies }

    /// What the native store holds.
    public func nativeCookies() -> [Cookie] { session.cookieJar.allCookies }

    /// Every string that reached the page's scripts or its observers: console lines, errors,
    /// bridge bodies and replies, and the page's `document.cookie`.
    public func stringsSeenByPage() async -> [String] {
        await recorder.stringsSeenByPage(page, bridgeCalls: bridgeCalls)
    }

    /// The refresh tokens the embedded server ever issued that appear in `strings` (or in
    /// ``stringsSeenByPage()`` when `strings` is `nil`). Empty means nothing leaked.
    public func leakedRefreshTokens(in strings: [String]? = nil) async -> [String] {
        guard let server else { return [] }
        let haystack = if let strings { strings } else { await stringsSeenByPage() }
        return server.issuedRefreshTokens().filter { token in haystack.contains { $0.contains(token) } }
    }
}
