import Foundation
import SessionBridge
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeTesting

/// What `run` and `demo` drive: a ``SessionController`` and a ``WebPage`` wired to it by
/// ``SessionController/makeWebPage(configuration:allowedOrigins:handlerName:scripts:)``, as an
/// app wires them, with the reference server when it is embedded.
final class AppWiring: Sendable {
    /// The embedded server, or `nil` for `--server`.
    let server: ReferenceServer?
    /// The web product's origin.
    let baseURL: URL
    let session: SessionController
    let page: WebPage
    let contentController: UserContentController
    /// Every bridge call, redacted.
    let messageLog: MessageLog
    private let recorder = PageEventRecorder()

    /// Wires a session for `configuration`, whose pages come from `baseURL`.
    init(
        server: ReferenceServer?, baseURL: URL, configuration: SessionConfiguration, vault: any TokenVault,
        nativeCookieStore: PersistentCookieStore?, allowedOrigins: [SecurityOrigin],
        configure: @Sendable (inout WebPageConfiguration) -> Void
    ) async {
        self.server = server
        self.baseURL = baseURL
        let session = SessionController(configuration: configuration, vault: vault, cookieStore: nativeCookieStore)
        let log = MessageLog(capacity: 10_000, redaction: RedactionPolicy(secretPrefixes: ["sbrt_"]))
        let contents = UserContentController(log: log)
        var origins = Set(allowedOrigins)
        if let origin = SecurityOrigin(url: baseURL) { origins.insert(origin) }
        let recorder = self.recorder
        var pageConfiguration = WebPageConfiguration(
            userContentController: contents, eventHandler: { event in recorder.record(event) })
        configure(&pageConfiguration)
        let page = await session.makeWebPage(configuration: pageConfiguration, allowedOrigins: origins)
        self.session = session
        self.contentController = contents
        self.messageLog = log
        self.page = page
    }

    /// Starts the embedded reference server and wires a session for it (not signed in).
    static func embedded(
        server configuration: ReferenceServerConfiguration, vault: any TokenVault, nativeCookieStore: PersistentCookieStore?,
        allowedOrigins: [SecurityOrigin], configure: @Sendable (inout WebPageConfiguration) -> Void
    ) async throws -> AppWiring {
        let server = try await ReferenceServer.start(configuration)
        var session = SessionConfiguration(server: server.baseURL)
        session.refreshTokenReuseGrace = configuration.refreshTokenReuseGrace
        return await AppWiring(
            server: server, baseURL: server.baseURL, configuration: session, vault: vault,
            nativeCookieStore: nativeCookieStore, allowedOrigins: allowedOrigins, configure: configure)
    }

    /// Detaches the page (a page session of its own is revoked), closes it and stops the
    /// embedded server.
    func stop() async {
        await session.detach(page)
        await page.close()
        try? await server?.stop()
    }

    /// `path` on the web product's origin.
    func url(_ path: String) -> URL {
        URL(string: path, relativeTo: baseURL)!.absoluteURL
    }

    /// Calls `observer` with every page event from now on.
    func observe(_ observer: @escaping @Sendable (PageEvent) -> Void) {
        recorder.observe(observer)
    }

    /// What the page's cookie store holds.
    func pageCookies() -> [Cookie] { page.cookieJar.allCookies }

    /// What the native store holds.
    func nativeCookies() -> [Cookie] { session.cookieJar.allCookies }

    /// The refresh tokens the embedded server ever issued that reached the page: its console,
    /// errors, bridge bodies and replies, or `document.cookie`. Empty means nothing leaked.
    func leakedRefreshTokens() async -> [String] {
        guard let server else { return [] }
        let seen = await recorder.stringsSeenByPage(page, bridgeCalls: messageLog.entries)
        return server.issuedRefreshTokens().filter { token in seen.contains { $0.contains(token) } }
    }
}
