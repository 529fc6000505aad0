import Foundation
import SessionBridge
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeTesting
import Synchronization
import Testing

/// A reference server for one test.
func withServer<T>(_ configuration: ReferenceServerConfiguration = .init(), _ body: (ReferenceServer) async throws -> T) async throws -> T {
    try await ReferenceServer.withRunning(configuration, body)
}

extension ReferenceServer {
    var origin: SecurityOrigin { SecurityOrigin(url: baseURL)! }
}

func makeConfiguration(
    _ server: ReferenceServer, timeout: Duration = .seconds(5), retry: RetryPolicy = RetryPolicy(baseDelay: .milliseconds(50))
) -> SessionConfiguration {
    var configuration = SessionConfiguration(server: server.baseURL)
    configuration.requestTimeout = timeout
    configuration.retry = retry
    configuration.refreshMargin = .milliseconds(200)
    configuration.freshnessWindow = .milliseconds(500)
    return configuration
}

/// A page wired to a session: handler, standard scripts, navigation delegate, attached.
func makePage(
    _ session: SessionController, _ server: ReferenceServer, recorder: PageEventRecorder? = nil,
    delegate: Bool = true, scripts: StandardScripts.Selection = [.refresh, .fetchRetry]
) async -> (WebPage, UserContentController) {
    let contents = UserContentController()
    let configuration = WebPageConfiguration(userContentController: contents, eventHandler: recorder?.handler)
    if delegate {
        return (await session.makeWebPage(configuration: configuration, allowedOrigins: [server.origin], scripts: scripts), contents)
    }
    session.install(in: contents, allowedOrigins: [server.origin], scripts: scripts)
    let page = WebPage(configuration: configuration)
    await session.attach(page)
    return (page, contents)
}

/// A signed-in session and a page wired to it, showing a blank document of `server`'s origin.
func signedInPage(_ server: ReferenceServer) async throws -> (SessionController, WebPage) {
    let session = SessionController(configuration: makeConfiguration(server))
    try await session.login(username: "demo", password: "demo")
    let (page, _) = await makePage(session, server)
    try await page.loadHTMLString("<p>app</p>", baseURL: server.url("/start"))
    return (session, page)
}

/// A signed-in session and a page wired to it, showing the reference server's `/app` (its
/// store then holds the session's cookies).
func signedInAppPage(_ server: ReferenceServer) async throws -> (SessionController, WebPage) {
    let session = SessionController(configuration: makeConfiguration(server))
    try await session.login(username: "demo", password: "demo")
    let (page, _) = await makePage(session, server)
    let app = try await page.load(server.url("/app"))
    try #require(app.statusCode == 200)
    return (session, page)
}

/// A signed-in session keeping its refresh token in a `FileTokenVault` and its cookies in a
/// `PersistentCookieStore` (profile `app`), both in `directory`: an app's configuration.
func signedInSession(
    _ server: ReferenceServer, keepingFilesIn directory: URL
) async throws -> (session: SessionController, vault: FileTokenVault, profile: PersistentCookieStore) {
    let vault = FileTokenVault(url: directory.appendingPathComponent("session.vault"))
    let profile = PersistentCookieStore(directory: directory, profile: "app")
    let session = SessionController(configuration: makeConfiguration(server), vault: vault, cookieStore: profile)
    try await session.login(username: "demo", password: "demo")
    return (session, vault, profile)
}

func temporaryDirectory() -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("session-tests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

extension CookieJar {
    func value(_ name: String, for url: URL) -> String? {
        cookies(for: url).first { $0.name == name }?.value
    }
}

/// A value shared with closures that run on other threads.
final class Locked<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    init(_ value: Value) { storage = Mutex(value) }
    var value: Value { storage.withLock { $0 } }
    func update(_ body: (inout Value) -> Void) { storage.withLock { body(&$0) } }
}
