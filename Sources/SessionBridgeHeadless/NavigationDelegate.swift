public import SessionBridgeMessaging

/// Decides what a page may navigate to: where native code refreshes the session and writes
/// cookies *before* the navigation continues. (WebKit's `WKNavigationDelegate`.)
///
/// Every method has a default that allows. The same delegate serves pages of either engine:
/// `page` is the headless ``WebPage`` or a WebKit engine's view.
///
/// The methods are `nonisolated(nonsending)`: they run on the page's thread, as WebKit calls its
/// delegate on the main thread, until they await something elsewhere. A delegate that only
/// answers costs the navigation no thread hop; one that works (a refresh) hops to where that
/// work runs, as it would anyway.
public protocol NavigationDelegate: Sendable {
    /// Allow, cancel, or do work (refresh a session, write cookies) and then allow.
    /// The page's request is sent only after this returns, with the cookies the store holds then.
    nonisolated(nonsending) func webPage(_ page: any WebView, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy
    /// Accept or refuse a response before it becomes the document.
    nonisolated(nonsending) func webPage(
        _ page: any WebView, decidePolicyFor response: NavigationResponse
    ) async -> NavigationResponsePolicy
    /// The new document ran its scripts.
    nonisolated(nonsending) func webPage(_ page: any WebView, didFinish navigation: Navigation) async
    /// The navigation failed.
    nonisolated(nonsending) func webPage(_ page: any WebView, didFail error: PageError) async
    /// The page's web content process ended: the page is blank until it loads again (WebKit's
    /// `webViewWebContentProcessDidTerminate(_:)`, with the reason WebKitGTK gives). A headless
    /// page has no such process: it calls it when it ended its document for its memory limit
    /// (``WebPageConfiguration/memoryLimitMB``).
    nonisolated(nonsending) func webPage(
        _ page: any WebView, webContentProcessDidTerminate reason: WebContentProcessTerminationReason
    ) async
}

extension NavigationDelegate {
    nonisolated(nonsending) public func webPage(
        _ page: any WebView, decidePolicyFor action: NavigationAction
    ) async -> NavigationActionPolicy { .allow }
    nonisolated(nonsending) public func webPage(
        _ page: any WebView, decidePolicyFor response: NavigationResponse
    ) async -> NavigationResponsePolicy { .allow }
    nonisolated(nonsending) public func webPage(_ page: any WebView, didFinish navigation: Navigation) async {}
    nonisolated(nonsending) public func webPage(_ page: any WebView, didFail error: PageError) async {}
    nonisolated(nonsending) public func webPage(
        _ page: any WebView, webContentProcessDidTerminate reason: WebContentProcessTerminationReason
    ) async {}
}

/// Shows what a page asks of the person: `alert`, `confirm`, `prompt`, new windows.
/// (WebKit's `WKUIDelegate`.)
///
/// Panels suspend the page's script, as in a browser, for at most
/// ``WebPageConfiguration/panelTimeout``; a page with a UI delegate runs on a lane of its engine
/// thread, so other pages (on that thread too) and the delegate's work with them go on
/// meanwhile. A delegate must not wait on the same page while its panel is open: the page is
/// paused until the panel closes.
public protocol UIDelegate: Sendable {
    func webPage(_ page: any WebView, runAlertPanelWithMessage message: String, frame: FrameInfo) async
    func webPage(_ page: any WebView, runConfirmPanelWithMessage message: String, frame: FrameInfo) async -> Bool
    func webPage(_ page: any WebView, runTextInputPanelWithPrompt prompt: String, defaultText: String?, frame: FrameInfo) async -> String?
    /// A page asked for a new window (`window.open`); return a page to load it in, or `nil`.
    func webPage(_ page: any WebView, createWebPageFor action: NavigationAction) async -> (any WebView)?
}

extension UIDelegate {
    public func webPage(_ page: any WebView, runAlertPanelWithMessage message: String, frame: FrameInfo) async {}
    public func webPage(_ page: any WebView, runConfirmPanelWithMessage message: String, frame: FrameInfo) async -> Bool { false }
    public func webPage(
        _ page: any WebView, runTextInputPanelWithPrompt prompt: String, defaultText: String?, frame: FrameInfo
    ) async -> String? { nil }
    public func webPage(_ page: any WebView, createWebPageFor action: NavigationAction) async -> (any WebView)? { nil }
}
