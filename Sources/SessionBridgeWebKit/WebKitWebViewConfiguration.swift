public import SessionBridgeHeadless
public import SessionBridgeMessaging

/// How a ``WebKitWebView`` is set up. (WebKit's `WKWebViewConfiguration`.)
///
/// It takes the same `UserContentController` (handlers, content worlds, allow-lists, limits,
/// timeouts, message log, user scripts) and the same `NavigationDelegate` and `UIDelegate`
/// as a headless `WebPageConfiguration`, so one app setup serves pages of either engine.
public struct WebKitWebViewConfiguration: Sendable {
    /// Cookies and other website data: non-persistent or in a directory.
    public var websiteDataStore: WebKitWebsiteDataStore
    /// Message handlers and user scripts, read when the view is created.
    public var userContentController: UserContentController
    public var navigationDelegate: (any NavigationDelegate)?
    public var uiDelegate: (any UIDelegate)?
    /// Receives the `PageEvent`s WebKit exposes (navigation decisions, commits, finishes and
    /// failures, HTTP exchanges with the cookie names the store sent and changed), on the WebKit
    /// thread; keep it quick.
    public var eventHandler: (@Sendable (PageEvent) -> Void)?
    /// The `User-Agent` header and `navigator.userAgent`; `nil` keeps WebKit's own.
    public var userAgent: String?
    /// Longest a navigation may wait for the navigation delegate before it is cancelled.
    public var policyTimeout: Duration
    /// Longest ``WebKitWebView/load(_:)`` waits for the document to finish loading.
    public var loadTimeout: Duration
    /// Longest a script evaluation may take before it is abandoned.
    public var scriptTimeout: Duration
    /// Longest the page's web process may go without answering (a script that does not return
    /// to its event loop) before the view ends that process, as the headless engine's time limit
    /// ends a script: the view reports `PageEvent.scriptError` with
    /// `ScriptError.Kind.timeLimitExceeded`, a load under way fails, and the next load starts a
    /// new process. The view asks the process for an answer every second (half the limit, if
    /// less), and at once again while it does not answer, so a script is ended between the
    /// limit and a second after it. The process must also have left three questions in a row
    /// unanswered, each waiting for the limit (a quarter of a second at least, a second at
    /// most): a late answer or two is a machine that did not run the process for a while (and
    /// then runs it slowly), not a script. So a limit under three seconds ends a script after
    /// three times the limit (three quarters of a second at least); the default limit is not
    /// changed by it. A page waiting on a panel (`alert`, `confirm`, `prompt`)
    /// that the UI delegate has not answered yet is not running: that wait does not count.
    /// `nil` leaves the process running, as WebKit itself does.
    public var scriptTimeLimit: Duration?

    public init(
        websiteDataStore: WebKitWebsiteDataStore = .nonPersistent(),
        userContentController: UserContentController = UserContentController(),
        navigationDelegate: (any NavigationDelegate)? = nil,
        uiDelegate: (any UIDelegate)? = nil,
        eventHandler: (@Sendable (PageEvent) -> Void)? = nil,
        userAgent: String? = nil,
        policyTimeout: Duration = .seconds(30),
        loadTimeout: Duration = .seconds(30),
        scriptTimeout: Duration = .seconds(30),
        scriptTimeLimit: Duration? = .seconds(10)
    ) {
        self.websiteDataStore = websiteDataStore
        self.userContentController = userContentController
        self.navigationDelegate = navigationDelegate
        self.uiDelegate = uiDelegate
        self.eventHandler = eventHandler
        self.userAgent = userAgent
        self.policyTimeout = policyTimeout
        self.loadTimeout = loadTimeout
        self.scriptTimeout = scriptTimeout
        self.scriptTimeLimit = scriptTimeLimit
    }
}
