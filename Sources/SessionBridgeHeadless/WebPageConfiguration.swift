public import AsyncHTTPClient
import Foundation
public import NIOSSL
public import SessionBridgeMessaging
public import SessionBridgeScriptEngine

/// How a ``WebPage`` is set up. (WebKit's `WKWebViewConfiguration`.)
public struct WebPageConfiguration: Sendable {
    /// Cookies: shared, non-persistent or a profile.
    public var websiteDataStore: WebsiteDataStore
    /// Message handlers and user scripts.
    public var userContentController: UserContentController
    public var navigationDelegate: (any NavigationDelegate)?
    public var uiDelegate: (any UIDelegate)?
    /// The HTTP client; it must not follow redirects itself (the page follows them so that
    /// every hop's `Set-Cookie` is applied in order). Defaults to ``WebPage/defaultHTTPClient``.
    public var httpClient: HTTPClient
    /// Receives every ``PageEvent``, on the page's thread; keep it quick.
    public var eventHandler: (@Sendable (PageEvent) -> Void)?
    /// The engine thread. By default a page takes the next thread of the shared pool. A page
    /// with a ``uiDelegate`` runs on a lane of the thread (a VM of its own): while one of its
    /// panels (`alert`, `confirm`, `prompt`) is open, the thread keeps running the other pages
    /// on it and holds this page's own work until the panel closes.
    public var thread: EngineThread?
    /// How long one entry into a script may run before it is ended.
    public var scriptTimeLimit: Duration
    /// The process's resident memory, in megabytes, past which the page's running script is
    /// ended and its document with it, as WebKit ends a web process past its memory limit
    /// (``WebContentProcessTerminationReason/exceededMemoryLimit``); `nil` for no limit.
    ///
    /// A headless page runs in the app's process, so the figure is the process's: set it
    /// above what the app itself holds. Without a limit, a page that allocates without end
    /// grows the process until the time limit stops it (about 1.5 GB a second here).
    public var memoryLimitMB: Int?
    /// How long one HTTP request may take.
    public var requestTimeout: Duration
    /// Most redirects one load follows.
    public var maxRedirects: Int
    /// Largest response body a page loads (documents, scripts, fetch).
    public var maxResponseBytes: Int
    /// Longest an `alert`, `confirm` or `prompt` waits for the ``uiDelegate``'s answer; then
    /// the script goes on as if the person dismissed it.
    public var panelTimeout: Duration
    /// The `navigator.userAgent` string and `User-Agent` header. By default WebKit's shape
    /// with this engine's name after it (``defaultUserAgent``), as a `WKWebView` adds its
    /// `applicationNameForUserAgent`: pages and servers that look for WebKit find it.
    public var userAgent: String

    /// `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko)
    /// SessionBridge/1.0` (the system and processor as `navigator.platform` names them).
    public static let defaultUserAgent =
        "Mozilla/5.0 (X11; \(DocumentEnvironment.navigatorPlatform)) AppleWebKit/605.1.15 (KHTML, like Gecko) SessionBridge/1.0"
    /// The TLS settings of the page's WebSocket connections (`wss:`); `nil` for the system's
    /// trusted roots. (Its HTTP requests use ``httpClient``'s own.)
    public var webSocketTLSConfiguration: TLSConfiguration?

    public init(
        websiteDataStore: WebsiteDataStore = .nonPersistent(),
        userContentController: UserContentController = UserContentController(),
        navigationDelegate: (any NavigationDelegate)? = nil,
        uiDelegate: (any UIDelegate)? = nil,
        httpClient: HTTPClient = WebPage.defaultHTTPClient,
        eventHandler: (@Sendable (PageEvent) -> Void)? = nil,
        thread: EngineThread? = nil,
        scriptTimeLimit: Duration = .seconds(10),
        memoryLimitMB: Int? = nil,
        requestTimeout: Duration = .seconds(30),
        maxRedirects: Int = 20,
        maxResponseBytes: Int = 8 << 20,
        panelTimeout: Duration = .seconds(30),
        userAgent: String = WebPageConfiguration.defaultUserAgent
    ) {
        self.websiteDataStore = websiteDataStore
        self.userContentController = userContentController
        self.navigationDelegate = navigationDelegate
        self.uiDelegate = uiDelegate
        self.httpClient = httpClient
        self.eventHandler = eventHandler
        self.thread = thread
        self.scriptTimeLimit = scriptTimeLimit
        self.memoryLimitMB = memoryLimitMB
        self.requestTimeout = requestTimeout
        self.maxRedirects = maxRedirects
        self.maxResponseBytes = maxResponseBytes
        self.panelTimeout = panelTimeout
        self.userAgent = userAgent
    }
}
