import CWebKitGTK
public import Foundation
public import SessionBridgeCookies
public import SessionBridgeHeadless
public import SessionBridgeMessaging
public import SessionBridgeScriptEngine
import WebKitGTKShim

/// A real WebKit web view (WebKitGTK): a DOM, events, forms, `XMLHttpRequest`, `localStorage`,
/// WebKit's own cookie store and held navigations. (WebKit's `WKWebView`.)
///
/// It serves the same `UserContentController`, delegates and `SessionController`-style
/// owners as the headless `WebPage`: both are `WebView`s. The view lives on
/// ``WebKitMainLoop``'s thread; every call from elsewhere hops there, and every wait is bounded
/// by the configuration's timeouts.
///
/// ```swift
/// let view = try await WebKitWebView(configuration: WebKitWebViewConfiguration(
///     userContentController: contents, navigationDelegate: SessionNavigationDelegate(controller: session)))
/// await session.attach(view)
/// try await view.load(serverURL.appending(path: "app"))
/// ```
///
/// What WebKitGTK 2.50 does not attest, and so this view cannot check: which frame posted a
/// message. A message is attributed to the main frame's committed document, so a subframe's
/// message is checked against the main frame's origin. Keep cross-origin frames away from
/// pages whose handlers matter, or allow-list only origins whose subframes you trust.
@WebKitActor
public final class WebKitWebView: WebView {
    /// The view's setup.
    public nonisolated let configuration: WebKitWebViewConfiguration
    /// The store the page's requests and `document.cookie` use.
    public nonisolated var httpCookieStore: any HTTPCookieStore { configuration.websiteDataStore.httpCookieStore }
    /// The committed document's URL, `nil` before the first commit.
    public internal(set) var url: URL? {
        didSet {
            if url != oldValue { committedRoutes.removeAll(keepingCapacity: true) }
        }
    }
    /// Each handler's route (name, frame, world and the origin the log shows) for the committed
    /// document, made at its first message: a message is then its body and a reference, as on
    /// the headless engine (making a route per message was 7 µs of each call). Messages are
    /// attributed to the main frame's committed document.
    var committedRoutes: [ObjectIdentifier: ScriptMessage.Route] = [:]
    /// The document's title.
    public internal(set) var title: String?
    /// Whether ``close()`` was called (or the web process ended).
    public private(set) var isClosed = false

    var view: GPointer
    let contentManager: GPointer
    var pendingLoad: PendingLoad?
    /// Whether the navigation WebKit reports on now failed: its `WEBKIT_LOAD_FINISHED` is no
    /// success.
    var navigationFailed = false
    /// Whether the next `WEBKIT_LOAD_FINISHED` is the end of a replaced navigation, whose
    /// cancellation came after the current one started: WebKit emits it right after the
    /// `load-failed` of that cancellation, and it is not the current navigation's end.
    var replacedNavigationFinishing = false
    var provisionalURL: URL?
    var redirects: [URL] = []
    var lastPolicyWait: Duration = .zero
    /// Calls from the page awaiting a reply.
    public var callsInFlight: Int { pendingReplies.count }
    /// The calls awaiting a reply, by number.
    var pendingReplies: [Int: PendingReply] = [:]
    var nextReplyID = 0
    /// The cookie changes the view's HTTP exchanges reported (each is told once).
    let cookieChangeClaims = CookieChangeClaims()
    /// Main-frame navigations whose policy the navigation delegate is deciding now (a
    /// navigation it holds, for a refresh, counts until it is decided).
    var navigationsBeingDecided = 0
    /// Whether a main-frame load started and has neither committed a document nor failed.
    var isProvisional = false
    /// Whether a navigation is under way that has not brought its document yet: one the
    /// navigation delegate is deciding (or holds), or one allowed whose document has not
    /// committed. A page that navigated last is not idle while this holds.
    public var hasNavigationInProgress: Bool { navigationsBeingDecided > 0 || isProvisional }
    let signals: SignalTarget
    var signalTarget: SignalTarget { signals }
    /// The watch that ends a web process running a script past the time limit.
    var scriptWatch: Task<Void, Never>?
    /// Whether the view ended its web process for ``WebKitWebViewConfiguration/scriptTimeLimit``.
    var endedUnresponsiveProcess = false
    /// Whether the view's web process ended and no document has committed in a new one since:
    /// no page code runs meanwhile, so the time limit's watch counts no silence (a new process
    /// answers only once it has started, which a loaded machine makes slow).
    var awaitingNewWebProcess = false
    /// The page's panels (alert, confirm, prompt) waiting on the UI delegate now, since when one
    /// has been open, and how long they were open before: the time-limit watch does not count a
    /// wait on one.
    var panelsOpen = 0
    var panelsOpenSince = ContinuousClock.now
    var panelsWaited = Duration.zero
    /// The handlers registered with the content manager, and whether each replies.
    var registeredHandlers: [RegisteredHandler: Bool] = [:]
    /// The message signals connected.
    var connectedRoutes: Set<ConnectedRoute> = []
    /// The controller's calls after each handler change.
    var handlerObservation: HandlerObservation?

    /// A ``load(_:)`` waiting for its document.
    final class PendingLoad {
        let once = OneShot<Navigation>()
        /// The URL asked for (`nil` for a reload).
        let target: URL?
        /// Whether WebKit started loading it (its navigation action was allowed).
        var started = false
        /// Its document, once committed.
        var committed: Navigation?

        init(target: URL?) {
            self.target = target
        }

        /// Whether a navigation to `url` is this load's own, not yet started by WebKit.
        func asks(for url: URL) -> Bool {
            !started && target.map { WebKitWebView.isSameTarget($0, url) } == true
        }

        /// Whether `action` is this load's own navigation (before WebKit started it): the
        /// reload it asked for, or a navigation to its URL.
        func isAsked(_ action: NavigationAction) -> Bool {
            target == nil ? !started && action.navigationType == .reload : action.navigationType == .other && asks(for: action.request.url)
        }
    }

    /// Creates a view on the WebKit thread (starting the thread, and a display, on first use).
    public init(configuration: WebKitWebViewConfiguration = WebKitWebViewConfiguration()) throws(WebKitError) {
        self.configuration = configuration
        let context = try unsafe configuration.websiteDataStore.data.webContext()
        let manager = unsafe webkit_user_content_manager_new()!
        self.contentManager = unsafe GPointer(manager)
        guard let created = unsafe sb_web_view_new(context, manager) else {
            throw WebKitError(.webKit, "WebKit could not create a web view")
        }
        self.view = unsafe GPointer(created)
        self.signals = SignalTarget()
        signals.view = self
        if let agent = configuration.userAgent {
            unsafe webkit_settings_set_user_agent(webkit_web_view_get_settings(created), agent)
        }
        installContent(configuration.userContentController)
        connectSignals()
        connectConsole()
        connectResourceLoads()
        watchScripts()
    }

    isolated deinit {
        if !isClosed { destroy() }
    }

    var webView: UnsafeMutablePointer<CWebKitGTK.WebKitWebView> { unsafe view.typed() }

    // MARK: Loading

    /// Loads `url` as a user-initiated top-level navigation and waits for its document.
    @discardableResult
    public func load(_ url: URL) async throws(PageError) -> Navigation {
        try await startLoad(url) { unsafe webkit_web_view_load_uri(self.webView, url.absoluteString) }
    }

    /// Shows `html` as a document whose URL (and origin) is `baseURL`.
    @discardableResult
    public func loadHTMLString(_ html: String, baseURL: URL) async throws(PageError) -> Navigation {
        try await startLoad(baseURL) { unsafe webkit_web_view_load_html(self.webView, html, baseURL.absoluteString) }
    }

    /// Reloads the current document.
    @discardableResult
    public func reload() async throws(PageError) -> Navigation {
        try await startLoad(url) { unsafe webkit_web_view_reload(self.webView) }
    }

    private func startLoad(_ target: URL?, _ start: () -> Void) async throws(PageError) -> Navigation {
        guard !isClosed else { throw PageError(.closed, "the view was closed", url: target) }
        pendingLoad?.once.resume(.failure(WebKitError(.webKit, "superseded")))
        let load = PendingLoad(target: target)
        pendingLoad = load
        let limit = configuration.loadTimeout
        let timer = Task { @WebKitActor [weak self] in
            guard (try? await Task.sleep(for: limit)) != nil else { return }
            if load.once.resume(.failure(WebKitError(.timeout, "the load took longer than \(limit)"))) {
                self?.stopLoading()
            }
        }
        start()
        let result = await withCheckedContinuation { continuation in load.once.install(continuation) }
        timer.cancel()
        if pendingLoad === load { pendingLoad = nil }
        switch result {
        case .success(let navigation): return navigation
        case .failure(let error):
            switch error.code {
            case .timeout: throw PageError(.timeout, error.message, url: target)
            case .closed: throw PageError(.closed, error.message, url: target)
            default:
                if error.message == "superseded" { throw PageError(.superseded, "another load started", url: target) }
                if error.message == "cancelled" { throw PageError(.cancelled, "the navigation was cancelled", url: target) }
                throw PageError(.network, error.message, url: target)
            }
        }
    }

    /// Stops the current load.
    public func stopLoading() {
        guard !isClosed else { return }
        unsafe webkit_web_view_stop_loading(webView)
    }

    // MARK: Scripts

    /// Evaluates `source` in the current document's `world` and returns its value as JSON
    /// carries it (see `ScriptValue`'s JSON notes).
    public func evaluateJavaScript(_ source: String, in world: ContentWorld = .page) async throws -> ScriptValue {
        try await evaluate(source, in: world, timeout: configuration.scriptTimeout)
    }

    /// Runs `body` as the body of an async function in `world` and returns what it resolves with.
    public func callAsyncJavaScript(
        _ body: String, in world: ContentWorld = .page, timeout: Duration = .seconds(30)
    ) async throws -> ScriptValue {
        guard !isClosed else { throw WebKitError(.closed, "the view was closed") }
        guard !awaitingNewWebProcess else { throw Self.webProcessEnded }
        let view = self.view
        let worldName = Self.worldName(world)
        return try unsafe await awaitReady("an async script", timeout: timeout) { cancellable, callback, data in
            unsafe webkit_web_view_call_async_javascript_function(view.typed(), body, -1, nil, worldName, nil, cancellable, callback, data)
        } finish: { _, result in
            var error: UnsafeMutablePointer<GError>? = nil
            let value = unsafe webkit_web_view_call_async_javascript_function_finish(view.typed(), result, &error)
            return unsafe Self.scriptResult(value, error)
        }
    }

    /// Evaluates `source` with an explicit time limit.
    public func evaluate(_ source: String, in world: ContentWorld, timeout: Duration) async throws(WebKitError) -> ScriptValue {
        guard !isClosed else { throw WebKitError(.closed, "the view was closed") }
        guard !awaitingNewWebProcess else { throw Self.webProcessEnded }
        let view = self.view
        let worldName = Self.worldName(world)
        return try unsafe await awaitReady("a script", timeout: timeout) { cancellable, callback, data in
            unsafe webkit_web_view_evaluate_javascript(view.typed(), source, -1, worldName, nil, cancellable, callback, data)
        } finish: { _, result in
            var error: UnsafeMutablePointer<GError>? = nil
            let value = unsafe webkit_web_view_evaluate_javascript_finish(view.typed(), result, &error)
            return unsafe Self.scriptResult(value, error)
        }
    }

    /// A script asked for between the end of the page's web process and the next document
    /// (WebKitGTK itself answers every one with `Unsupported result type`).
    static let webProcessEnded = WebKitError(
        .webKit, "the page's web content process ended and no page has loaded since: load a page to start a new one")

    static func scriptResult(
        _ value: UnsafeMutablePointer<JSCValue>?, _ error: UnsafeMutablePointer<GError>?
    ) -> Result<ScriptValue, WebKitError> {
        guard let value = unsafe value else { return unsafe .failure(WebKitError(.javaScript, takeMessage(error))) }
        defer { unsafe g_object_unref(value) }
        return Result { () throws(WebKitError) in try unsafe scriptValue(of: value, limits: .default) }
    }

    /// A JSC value as a `ScriptValue`, through JSON (a number, a boolean or `null` directly,
    /// as JSON would carry it: a number that is not finite becomes `null`, `-0` becomes `0`).
    static func scriptValue(of value: UnsafeMutablePointer<JSCValue>, limits: ConversionLimits) throws(WebKitError) -> ScriptValue {
        if unsafe jsc_value_is_undefined(value) != 0 { return .undefined }
        if unsafe jsc_value_is_number(value) != 0 {
            let number = unsafe jsc_value_to_double(value)
            return number.isFinite ? .number(number == 0 ? 0 : number) : .null
        }
        if unsafe jsc_value_is_boolean(value) != 0 { return unsafe .bool(jsc_value_to_boolean(value) != 0) }
        if unsafe jsc_value_is_null(value) != 0 { return .null }
        guard let json = unsafe jsc_value_to_json(value, 0) else { return .undefined }
        defer { unsafe g_free(json) }
        return try unsafe ScriptValue(json: String(cString: json), limits: limits)
    }

    /// WebKit's name for a content world: `nil` for the page's own world.
    static func worldName(_ world: ContentWorld) -> String? {
        world == .page ? nil : world.name
    }

    // MARK: Closing

    /// Closes the view: its document stops, pending loads fail with `PageError.Code.closed`.
    public func close() async {
        guard !isClosed else { return }
        // A process running a script that does not return would outlive the view (and its
        // app) until WebKit's own watchdog ended it, seconds later: it is ended now.
        if !(await answers(within: .milliseconds(250))), !isClosed { unsafe webkit_web_view_terminate_web_process(webView) }
        guard !isClosed else { return }
        destroy()
    }

    private func destroy() {
        isClosed = true
        handlerObservation?.cancel()
        scriptWatch?.cancel()
        pendingLoad?.once.resume(.failure(WebKitError(.closed, "the view was closed")))
        pendingLoad = nil
        signals.view = nil
        unsafe gtk_widget_destroy(gcast(webView, to: GtkWidget.self))
        unsafe g_object_unref(view.raw)
        unsafe g_object_unref(contentManager.raw)
    }
}

/// The target of the view's GLib signals: a weak way back to the Swift view, so a signal that
/// fires after the view went away does nothing.
@WebKitActor
final class SignalTarget {
    weak var view: WebKitWebView?

    nonisolated init() {}
}
