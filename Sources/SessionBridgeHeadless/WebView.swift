public import Foundation
public import SessionBridgeCookies
public import SessionBridgeMessaging
public import SessionBridgeScriptEngine

/// A web view of either engine, as the app and a session owner see it: the headless
/// ``WebPage`` or a WebKit engine's view. (What `WKWebView` is to an app.)
///
/// Everything a ``NavigationDelegate`` or a session owner needs goes through this protocol,
/// so the same delegates and the same session serve pages of both engines. Its cookie store
/// is asynchronous: a WebKit engine's store lives in WebKit's network process.
public protocol WebView: AnyObject, Sendable {
    /// The store the page's requests and `document.cookie` use.
    nonisolated var httpCookieStore: any HTTPCookieStore { get }
    /// The current document's URL, `nil` before the first load.
    var url: URL? { get async }
    /// Whether the view was closed.
    var isClosed: Bool { get async }
    /// Loads `url` as a user-initiated top-level navigation.
    @discardableResult
    func load(_ url: URL) async throws(PageError) -> Navigation
    /// Evaluates a script in the current document's `world`.
    func evaluateJavaScript(_ source: String, in world: ContentWorld) async throws -> ScriptValue
    /// Runs `body` as the body of an async function in `world` and returns what it resolves with.
    func callAsyncJavaScript(_ body: String, in world: ContentWorld, timeout: Duration) async throws -> ScriptValue
    /// Closes the view: nothing of its document runs again.
    func close() async
}

extension WebPage: WebView {
    public nonisolated var httpCookieStore: any HTTPCookieStore { configuration.websiteDataStore.httpCookieStore }
}
