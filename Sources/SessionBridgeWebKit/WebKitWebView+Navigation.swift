import CWebKitGTK
import Foundation
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import WebKitGTKShim

/// Navigation: WebKit's `decide-policy` holds each decision (referenced, the handler returns
/// TRUE) while the `NavigationDelegate` decides asynchronously, then uses or ignores it. So a
/// session owner refreshes and writes cookies before the held request leaves.
extension WebKitWebView {
    func connectSignals() {
        let target = unsafe Unmanaged.passUnretained(signals).toOpaque()
        let release: GClosureNotify = { data, _ in
            if let data = unsafe data { unsafe Unmanaged<SignalTarget>.fromOpaque(data).release() }
        }
        func retained() -> UnsafeMutableRawPointer { unsafe Unmanaged.passRetained(signals).toOpaque() }
        _ = unsafe target
        unsafe sb_connect_decide_policy(
            webView,
            { _, decision, type, data in
                guard let data = unsafe data, let decision = unsafe decision else { return 0 }
                let target = unsafe Unmanaged<SignalTarget>.fromOpaque(data).takeUnretainedValue()
                let held = unsafe GPointer(decision)
                let kind = type.rawValue
                return WebKitActor.assumeIsolated { target.view?.decidePolicy(held, type: kind) ?? 0 }
            }, unsafe retained(), unsafe release)
        unsafe sb_connect_load_changed(
            webView,
            { _, event, data in
                guard let data = unsafe data else { return }
                let target = unsafe Unmanaged<SignalTarget>.fromOpaque(data).takeUnretainedValue()
                let kind = event.rawValue
                WebKitActor.assumeIsolated { target.view?.loadChanged(kind) }
            }, unsafe retained(), unsafe release)
        unsafe sb_connect_load_failed(
            webView,
            { _, _, uri, error, data in
                guard let data = unsafe data else { return 0 }
                let target = unsafe Unmanaged<SignalTarget>.fromOpaque(data).takeUnretainedValue()
                let uri = unsafe uri.map { unsafe String(cString: $0) }
                let domain = unsafe error.map { unsafe $0.pointee.domain } ?? 0
                let code = unsafe error.map { unsafe $0.pointee.code } ?? 0
                let message = unsafe error.flatMap { unsafe $0.pointee.message }.map { unsafe String(cString: $0) } ?? "the load failed"
                WebKitActor.assumeIsolated { target.view?.loadFailed(uri: uri, domain: domain, code: code, message: message) }
                return 0
            }, unsafe retained(), unsafe release)
        unsafe sb_connect_notify(
            webView, "title",
            { object, _, data in
                guard let data = unsafe data, let object = unsafe object else { return }
                let target = unsafe Unmanaged<SignalTarget>.fromOpaque(data).takeUnretainedValue()
                let title = unsafe webkit_web_view_get_title(gcast(object, to: CWebKitGTK.WebKitWebView.self)).map {
                    unsafe String(cString: $0)
                }
                WebKitActor.assumeIsolated { target.view?.titleChanged(title) }
            }, unsafe retained(), unsafe release)
        unsafe sb_connect_web_process_terminated(
            webView,
            { _, reason, data in
                guard let data = unsafe data else { return }
                let target = unsafe Unmanaged<SignalTarget>.fromOpaque(data).takeUnretainedValue()
                let crashed = reason == WEBKIT_WEB_PROCESS_CRASHED, overMemory = reason == WEBKIT_WEB_PROCESS_EXCEEDED_MEMORY_LIMIT
                WebKitActor.assumeIsolated {
                    target.view?.webProcessTerminated(crashed ? .crashed : overMemory ? .exceededMemoryLimit : .terminatedByApp)
                }
            }, unsafe retained(), unsafe release)
        unsafe sb_connect_script_dialog(
            webView,
            { _, dialog, data in
                guard let data = unsafe data, let dialog = unsafe dialog else { return 0 }
                let target = unsafe Unmanaged<SignalTarget>.fromOpaque(data).takeUnretainedValue()
                let held = unsafe GPointer(dialog)
                return WebKitActor.assumeIsolated { target.view?.scriptDialog(held) ?? 0 }
            }, unsafe retained(), unsafe release)
        // An HTTP authentication challenge (`WWW-Authenticate: Basic`) goes on without a
        // credential: its 401 reaches the page, as in a `WKWebView` whose navigation delegate
        // does not handle challenges (WebKitGTK's own dialog would hold the load forever).
        unsafe sb_connect_authenticate_without_credential(webView)
    }

    // MARK: Policy

    func decidePolicy(_ decision: GPointer, type: UInt32) -> gboolean {
        switch type {
        case WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION.rawValue, WEBKIT_POLICY_DECISION_TYPE_NEW_WINDOW_ACTION.rawValue:
            let newWindow = type == WEBKIT_POLICY_DECISION_TYPE_NEW_WINDOW_ACTION.rawValue
            let navigationDecision = unsafe decision.raw.assumingMemoryBound(to: WebKitNavigationPolicyDecision.self)
            guard
                let action = unsafe navigationAction(
                    webkit_navigation_policy_decision_get_navigation_action(navigationDecision), newWindow: newWindow)
            else {
                return 0
            }
            guard configuration.navigationDelegate != nil || newWindow else {
                configuration.eventHandler?(.navigationPolicy(action, policy: .allow, waited: .zero))
                return 0
            }
            unsafe g_object_ref(decision.raw)
            navigationsBeingDecided += 1
            Task { @WebKitActor in await self.decideNavigation(decision, action: action) }
            return 1
        case WEBKIT_POLICY_DECISION_TYPE_RESPONSE.rawValue:
            let responseDecision = unsafe decision.raw.assumingMemoryBound(to: WebKitResponsePolicyDecision.self)
            guard let delegate = configuration.navigationDelegate,
                unsafe webkit_response_policy_decision_is_main_frame_main_resource(responseDecision) != 0,
                let response = unsafe navigationResponse(webkit_response_policy_decision_get_response(responseDecision))
            else {
                return 0
            }
            unsafe g_object_ref(decision.raw)
            Task { @WebKitActor in
                let policy = await self.withPolicyTimeout(.cancel) { await delegate.webPage(self, decidePolicyFor: response) }
                self.settle(decision, use: policy == .allow)
            }
            return 1
        default:
            return 0
        }
    }

    private func decideNavigation(_ decision: GPointer, action: NavigationAction) async {
        let started = ContinuousClock.now
        var policy = NavigationActionPolicy.allow
        if let delegate = configuration.navigationDelegate {
            policy = await withPolicyTimeout(.cancel) { await delegate.webPage(self, decidePolicyFor: action) }
        }
        if action.navigationType == .newWindow {
            // New windows open only through the UI delegate, which gets a page of its own.
            if policy == .allow, let ui = configuration.uiDelegate, let page = await ui.webPage(self, createWebPageFor: action) {
                _ = try? await page.load(action.request.url)
            }
            policy = .cancel
        }
        let waited = ContinuousClock.now - started
        lastPolicyWait = waited
        navigationsBeingDecided -= 1
        configuration.eventHandler?(.navigationPolicy(action, policy: policy, waited: waited))
        settle(decision, use: policy == .allow)
        // The app's load, cancelled before it started: it fails. A cancelled navigation of the
        // page's own (to another URL), decided while the app's load waits, fails only itself.
        if policy == .cancel, action.isMainFrame, action.navigationType != .newWindow, let load = pendingLoad, load.isAsked(action) {
            load.once.resume(.failure(WebKitError(.webKit, "cancelled")))
        }
    }

    /// Whether WebKit's request URL `url` is the URL `target` an app's load asked for, as
    /// WebKit writes it: scheme and host in lower case, an empty path as `/`, no fragment.
    nonisolated static func isSameTarget(_ target: URL, _ url: URL) -> Bool {
        func key(_ url: URL) -> String? {
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return nil }
            components.scheme = components.scheme?.lowercased()
            components.host = components.host?.lowercased()
            if components.path.isEmpty { components.path = "/" }
            components.fragment = nil
            return components.string
        }
        return target == url || (key(target).map { $0 == key(url) } ?? false)
    }

    /// Uses or ignores a held decision and drops the reference taken when it was held.
    private func settle(_ decision: GPointer, use: Bool) {
        let policyDecision = unsafe decision.raw.assumingMemoryBound(to: WebKitPolicyDecision.self)
        if use { unsafe webkit_policy_decision_use(policyDecision) } else { unsafe webkit_policy_decision_ignore(policyDecision) }
        unsafe g_object_unref(decision.raw)
    }

    /// Runs a delegate call, answering `fallback` when it takes longer than the policy timeout.
    private func withPolicyTimeout<T: Sendable>(_ fallback: T, _ body: @escaping @Sendable @WebKitActor () async -> T) async -> T {
        let once = OneShot<T>()
        let limit = configuration.policyTimeout
        let timer = Task { @WebKitActor in
            guard (try? await Task.sleep(for: limit)) != nil else { return }
            once.resume(.success(fallback))
        }
        let work = Task { @WebKitActor in once.resume(.success(await body())) }
        let result = await withCheckedContinuation { continuation in once.install(continuation) }
        timer.cancel()
        _ = work
        return (try? result.get()) ?? fallback
    }

    private func navigationAction(_ action: OpaquePointer?, newWindow: Bool) -> NavigationAction? {
        guard let action = unsafe action, let request = unsafe webkit_navigation_action_get_request(action),
            let uri = unsafe webkit_uri_request_get_uri(request), let url = unsafe URL(string: String(cString: uri))
        else { return nil }
        let method = unsafe webkit_uri_request_get_http_method(request).map { unsafe String(cString: $0) } ?? "GET"
        let type: NavigationAction.NavigationType
        if newWindow {
            type = .newWindow
        } else {
            switch unsafe webkit_navigation_action_get_navigation_type(action) {
            case WEBKIT_NAVIGATION_TYPE_LINK_CLICKED: type = .linkActivated
            case WEBKIT_NAVIGATION_TYPE_FORM_SUBMITTED, WEBKIT_NAVIGATION_TYPE_FORM_RESUBMITTED: type = .formSubmitted
            case WEBKIT_NAVIGATION_TYPE_BACK_FORWARD: type = .backForward
            case WEBKIT_NAVIGATION_TYPE_RELOAD: type = .reload
            default:
                let asked = pendingLoad?.asks(for: url) ?? false
                type = unsafe asked || webkit_navigation_action_is_redirect(action) != 0 ? .other : .scriptInitiated
            }
        }
        return unsafe NavigationAction(
            request: PageRequest(url: url, method: method),
            navigationType: type,
            isUserInitiated: webkit_navigation_action_is_user_gesture(action) != 0 || type == .other,
            // WebKitGTK does not say which frame a navigation targets; only new windows are
            // known not to be the main frame.
            isMainFrame: !newWindow,
            sourceURL: self.url,
            isRedirect: webkit_navigation_action_is_redirect(action) != 0)
    }

    /// The response as the delegate sees it. WebKitGTK 2.50 strips `Set-Cookie` before the
    /// embedder sees a response, so `setCookieNames` is empty in practice on this engine; the
    /// names a response set reach the `PageEvent.http(_:)` events, read from the store.
    private func navigationResponse(_ response: UnsafeMutablePointer<WebKitURIResponse>?) -> NavigationResponse? {
        guard let response = unsafe response, let uri = unsafe webkit_uri_response_get_uri(response),
            let url = unsafe URL(string: String(cString: uri))
        else { return nil }
        var headers: [HTTPHeader] = []
        var cookieNames: [String] = []
        if let fields = unsafe webkit_uri_response_get_http_headers(response) {
            var iterator = SoupMessageHeadersIter()
            unsafe soup_message_headers_iter_init(&iterator, fields)
            var name: UnsafePointer<CChar>? = nil
            var value: UnsafePointer<CChar>? = nil
            while unsafe soup_message_headers_iter_next(&iterator, &name, &value) != 0 {
                guard let name = unsafe name, let value = unsafe value else { continue }
                let fieldName = unsafe String(cString: name)
                if fieldName.lowercased() == "set-cookie" {
                    let line = unsafe String(cString: value)
                    // A nameless cookie's pair is its value: its name is empty, never the pair.
                    cookieNames.append(SetCookieParser.cookieName(of: line))
                } else {
                    unsafe headers.append(HTTPHeader(fieldName, String(cString: value)))
                }
            }
        }
        return unsafe NavigationResponse(
            url: url, statusCode: Int(webkit_uri_response_get_status_code(response)), headers: headers,
            setCookieNames: cookieNames)
    }

    // MARK: Load progress

    func loadChanged(_ event: UInt32) {
        let current = unsafe webkit_web_view_get_uri(webView).flatMap { unsafe URL(string: String(cString: $0)) }
        switch event {
        case WEBKIT_LOAD_STARTED.rawValue:
            pendingLoad?.started = true
            navigationFailed = false
            replacedNavigationFinishing = false
            redirects = []
            provisionalURL = current
            isProvisional = true
        case WEBKIT_LOAD_REDIRECTED.rawValue:
            if let provisionalURL { redirects.append(provisionalURL) }
            provisionalURL = current
        case WEBKIT_LOAD_COMMITTED.rawValue:
            awaitingNewWebProcess = false
            isProvisional = false
            url = current
            rejectRepliesOfTheLeftDocument()
            let committed = navigation()
            if let load = pendingLoad, load.started { load.committed = committed }
            configuration.eventHandler?(.documentCommitted(committed))
        case WEBKIT_LOAD_FINISHED.rawValue:
            isProvisional = false
            // The end of a replaced navigation, reported late (after its `load-failed`).
            if replacedNavigationFinishing {
                replacedNavigationFinishing = false
                return
            }
            // The end of a navigation that failed (WebKit reports it after `load-failed`).
            if navigationFailed { return }
            let navigation = navigation()
            if let load = pendingLoad, load.started { load.once.resume(.success(navigation)) }
            configuration.eventHandler?(.navigationFinished(navigation))
            if let delegate = configuration.navigationDelegate {
                Task { @WebKitActor in await delegate.webPage(self, didFinish: navigation) }
            }
        default:
            break
        }
    }

    private func navigation() -> Navigation {
        var status = 200
        if let resource = unsafe webkit_web_view_get_main_resource(webView),
            let response = unsafe webkit_web_resource_get_response(resource)
        {
            let code = unsafe Int(webkit_uri_response_get_status_code(response))
            if code > 0 { status = code }
        }
        return Navigation(url: url ?? provisionalURL ?? URL(string: "about:blank")!, statusCode: status, redirects: redirects, title: title)
    }

    func loadFailed(uri: String?, domain: GQuark, code: Int32, message: String) {
        let failedURL = uri.flatMap(URL.init(string:))
        let cancelled =
            (domain == webkit_network_error_quark() && code == WEBKIT_NETWORK_ERROR_CANCELLED.rawValue)
            || (domain == webkit_policy_error_quark() && code == WEBKIT_POLICY_ERROR_FRAME_LOAD_INTERRUPTED_BY_POLICY_CHANGE.rawValue)
        let error = PageError(cancelled ? .cancelled : .network, cancelled ? "the navigation was cancelled" : message, url: failedURL)
        // WebKit cancels the navigation a new one replaces, and may report that cancellation
        // after the new one has started (the report comes from another process): a cancelled
        // URL the current navigation never went through is the replaced one's, and neither
        // fails the current navigation nor hides its end.
        let replaced = cancelled && failedURL.map { !isCurrentNavigation($0) } ?? false
        // Its `WEBKIT_LOAD_FINISHED`, which WebKit emits right after, is not the current one's
        // end either: taken as that, it ended the new load at the old page's URL (seen under load).
        if replaced { replacedNavigationFinishing = true } else { navigationFailed = true }
        if !replaced { isProvisional = false }
        // A failure before the pending load started is the navigation it replaced, which WebKit
        // cancels when the new one begins: not the pending load's.
        if !replaced, let load = pendingLoad, load.started {
            if cancelled, let committed = load.committed, let failedURL,
                Self.withoutFragment(failedURL) == Self.withoutFragment(committed.url)
            {
                // Its document arrived and ran; what WebKit cancelled is the rest of its loading,
                // which the page's own navigation (a script's redirect while a request of the
                // document was out) replaced. The load asked for was done: as on the headless
                // engine, it returns its document (the delegate still hears of the cancellation).
                load.once.resume(.success(committed))
            } else {
                load.once.resume(.failure(WebKitError(.webKit, cancelled ? "cancelled" : message)))
            }
        }
        configuration.eventHandler?(.navigationFailed(error))
        if let delegate = configuration.navigationDelegate {
            Task { @WebKitActor in await delegate.webPage(self, didFail: error) }
        }
    }

    /// Whether `failed` is a URL of the navigation under way: where it started, one it was
    /// redirected from, or the document it committed (fragments aside).
    private func isCurrentNavigation(_ failed: URL) -> Bool {
        let candidates = [provisionalURL, url, pendingLoad?.target].compactMap { $0 } + redirects
        let key = Self.withoutFragment(failed)
        return candidates.contains { Self.withoutFragment($0) == key }
    }

    private static func withoutFragment(_ url: URL) -> String {
        let text = url.absoluteString
        return text.firstIndex(of: "#").map { String(text[..<$0]) } ?? text
    }

    /// What WebKit reports when it cancels the main frame's navigation of `uri`: `load-failed`,
    /// then `WEBKIT_LOAD_FINISHED` (tests replay it to put WebKit's reports in an order they
    /// cannot force).
    func navigationWasCancelled(uri: String) {
        loadFailed(
            uri: uri, domain: webkit_network_error_quark(), code: Int32(WEBKIT_NETWORK_ERROR_CANCELLED.rawValue),
            message: "Load request cancelled")
        loadChanged(WEBKIT_LOAD_FINISHED.rawValue)
    }

    func titleChanged(_ title: String?) {
        self.title = title
    }

    /// WebKit's report that the web process ended (`reason` as WebKit gave it; an end the
    /// time limit's watch asked for is told as such): the pending load fails with the reason,
    /// and the event handler and the navigation delegate hear of it.
    func webProcessTerminated(_ reported: WebContentProcessTerminationReason) {
        let reason = endedUnresponsiveProcess && reported == .terminatedByApp ? .exceededTimeLimit : reported
        endedUnresponsiveProcess = false
        isProvisional = false
        awaitingNewWebProcess = true
        pendingLoad?.once.resume(.failure(WebKitError(.webKit, reason.description)))
        pendingLoad = nil
        configuration.eventHandler?(.webContentProcessTerminated(reason, url: url))
        if let delegate = configuration.navigationDelegate {
            Task { @WebKitActor in await delegate.webPage(self, webContentProcessDidTerminate: reason) }
        }
    }

    // MARK: The time limit

    /// While the view is open, asks its web process to evaluate `0` (in a world of its own,
    /// which no page script sees) every second or so, and at once again while it does not
    /// answer: a process silent for ``WebKitWebViewConfiguration/scriptTimeLimit``, and to three
    /// questions in a row (each waits for the limit, a quarter of a second at least and a second
    /// at most), runs a script that does not return, and is ended. (A late answer or two is a
    /// process the machine did not run for a while, as a loaded machine does, and the answer
    /// after such a pause can itself be late; a script that does not return answers no
    /// question.) Time the page spends waiting on a panel the UI
    /// delegate has not answered is not silence; a question a navigation's new process dropped
    /// is answered by the next one. (WebKit checks a process's answers itself only around input
    /// events and for background pages.)
    func watchScripts() {
        guard let limit = configuration.scriptTimeLimit else { return }
        let interval = min(limit / 2, .seconds(1))
        let question = min(max(limit, .milliseconds(250)), .seconds(1))
        scriptWatch = Task { @WebKitActor [weak self] in
            let clock = ContinuousClock()
            var silence = Duration.zero
            var unanswered = 0
            while true {
                if silence == .zero, (try? await Task.sleep(for: interval)) == nil { return }
                guard let self, !self.isClosed else { return }
                let asked = clock.now
                let panelsBefore = self.panelTime(at: asked)
                // Only silence counts: no document yet, a process that ended or a view closed
                // meanwhile answer at once, with other errors.
                // A process starting after one ended runs no page code: not silence either.
                if await self.answers(within: question) || self.awaitingNewWebProcess {
                    silence = .zero
                    unanswered = 0
                    continue
                }
                let now = clock.now
                silence += (now - asked) - (self.panelTime(at: now) - panelsBefore)
                unanswered += 1
                guard silence >= limit, unanswered >= Self.unansweredQuestionsToEnd, !self.isClosed else { continue }
                silence = .zero
                unanswered = 0
                self.endUnresponsiveWebProcess()
            }
        }
    }

    /// How many questions in a row a process leaves unanswered before it is ended (with the
    /// silence past the limit): it matters for limits under three seconds only, whose silence
    /// is reached in fewer questions.
    static let unansweredQuestionsToEnd = 3

    /// How long the page has waited on panels in all, up to `now`.
    private func panelTime(at now: ContinuousClock.Instant) -> Duration {
        panelsWaited + (panelsOpen > 0 ? now - panelsOpenSince : .zero)
    }

    /// Whether the page's web process runs script: it evaluates `0` (in a world of its own,
    /// which no page script sees) within `limit`, or fails otherwise than by silence (no
    /// document yet, a process that ended). A page whose script does not return answers
    /// nothing, however quiet it looks from outside.
    public func answers(within limit: Duration) async -> Bool {
        do throws(WebKitError) {
            _ = try await evaluate("0", in: Self.watchWorld, timeout: limit)
            return true
        } catch {
            return error.code != .timeout
        }
    }

    /// The world the watch evaluates in.
    static let watchWorld = ContentWorld.world(name: "sessionbridge-time-limit")

    /// Ends the web process of a page whose script ran past the time limit, and says so.
    private func endUnresponsiveWebProcess() {
        endedUnresponsiveProcess = true
        let error = ScriptError(
            kind: .timeLimitExceeded, name: "TimeLimitExceeded",
            message: "the page's web process stopped answering past the time limit (a script did not return) and was ended")
        configuration.eventHandler?(.scriptError(error, unhandledRejection: false, url: url ?? URL(string: "about:blank")!))
        unsafe webkit_web_view_terminate_web_process(webView)
    }

    // MARK: Panels

    func scriptDialog(_ dialog: GPointer) -> gboolean {
        let held = unsafe dialog.opaque
        let kind = unsafe webkit_script_dialog_get_dialog_type(held)
        let message = unsafe webkit_script_dialog_get_message(held).map { unsafe String(cString: $0) } ?? ""
        // Only a prompt has a default text (WebKit logs a critical warning for the others).
        let defaultText =
            kind == WEBKIT_SCRIPT_DIALOG_PROMPT
            ? unsafe webkit_script_dialog_prompt_get_default_text(held).map { unsafe String(cString: $0) } : nil
        let frame = FrameInfo(url: url ?? URL(string: "about:blank")!)
        unsafe webkit_script_dialog_ref(held)
        let ui = configuration.uiDelegate
        // The page waits on the app meanwhile, as a headless page's limit is lifted for a panel.
        if panelsOpen == 0 { panelsOpenSince = ContinuousClock.now }
        panelsOpen += 1
        Task { @WebKitActor in
            defer {
                self.panelsOpen -= 1
                if self.panelsOpen == 0 { self.panelsWaited += ContinuousClock.now - self.panelsOpenSince }
            }
            switch kind {
            case WEBKIT_SCRIPT_DIALOG_ALERT:
                await ui?.webPage(self, runAlertPanelWithMessage: message, frame: frame)
            case WEBKIT_SCRIPT_DIALOG_CONFIRM:
                let confirmed = await ui?.webPage(self, runConfirmPanelWithMessage: message, frame: frame) ?? false
                unsafe webkit_script_dialog_confirm_set_confirmed(dialog.opaque, confirmed ? 1 : 0)
            case WEBKIT_SCRIPT_DIALOG_BEFORE_UNLOAD_CONFIRM:
                // A page that asks to stay (its `beforeunload` cancelled, after a user's
                // gesture) is left, as a WKWebView whose delegate has no such panel leaves it:
                // it is not the page's `confirm`, and no page may keep the app from navigating.
                unsafe webkit_script_dialog_confirm_set_confirmed(dialog.opaque, 1)
            case WEBKIT_SCRIPT_DIALOG_PROMPT:
                if let text = await ui?.webPage(self, runTextInputPanelWithPrompt: message, defaultText: defaultText, frame: frame) {
                    unsafe webkit_script_dialog_prompt_set_text(dialog.opaque, text)
                }
            default:
                break
            }
            unsafe webkit_script_dialog_close(dialog.opaque)
            unsafe webkit_script_dialog_unref(dialog.opaque)
        }
        // Handled: GTK shows no dialog of its own (which would block the loop).
        return 1
    }
}
