import Foundation
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import Synchronization

/// The `session` message handler: lets page scripts ask native code to refresh, report the
/// status or log out, and answers with non-secret facts only.
///
/// ```js
/// const reply = await window.webkit.messageHandlers.session.postMessage({action: "refresh"});
/// // {ok: true, signedIn: true, expiresAt: 1767225600000}
/// ```
///
/// Actions: `refresh`, `status`, `logout`. `status`, and `refresh` right after a refresh
/// finished, reply inside the page's call. A `refresh` that finds one in flight joins it
/// without a task: its reply waits with the refresh's other callers and reaches the page's
/// thread with theirs, in one job (WebKit's `replyHandler` form). Errors reject with a `code`:
/// `invalid_grant` (the session ended), `network`, `server_error` (both `retryable`),
/// `signed_out`, `bad_request`, and the configuration errors `invalid_client`,
/// `unauthorized_client`, `unsupported_grant_type`, `invalid_scope`, `invalid_request`,
/// `invalid_configuration` (`retryable: false`; the session is kept: the app's settings need
/// fixing, not the user).
public struct SessionMessageHandler: ScriptMessageHandlerWithReplyHandler {
    /// The session it speaks for.
    public let controller: SessionController

    /// Creates a handler for `controller`.
    public init(controller: SessionController) {
        self.controller = controller
    }

    enum Action: String {
        case refresh, status, logout
    }

    static func action(of message: ScriptMessage) throws(ScriptMessageError) -> Action {
        guard let name = message.body["action"]?.stringValue, let action = Action(rawValue: name) else {
            throw SessionError(.badRequest, "expected {action: \"refresh\" | \"status\" | \"logout\"}").scriptMessageError
        }
        return action
    }

    /// The reply `message` gets without waiting, if any: the status, or the result of a refresh
    /// that finished within the freshness window. `nil` when the answer needs the session's
    /// actor or a refresh.
    public func immediateReply(to message: ScriptMessage) throws -> ScriptValue? {
        try immediateReply(to: Self.action(of: message))
    }

    /// ``immediateReply(to:)`` for an action already read from its message.
    func immediateReply(to action: Action) throws(ScriptMessageError) -> ScriptValue? {
        let facts = controller.published.withLock { $0 }
        guard facts.isReady, !(facts.isSignedIn && controller.vaultChangedSinceSeen()) else { return nil }
        let status = SessionStatus(isSignedIn: facts.isSignedIn, accessTokenExpiresAt: facts.accessTokenExpiresAt)
        switch action {
        case .status:
            return status.scriptValue
        case .refresh:
            guard facts.isSignedIn else { throw SessionError.signedOut.scriptMessageError }
            if let last = facts.lastRefresh, ContinuousClock.now - last < controller.configuration.freshnessWindow {
                return status.scriptValue
            }
            return nil
        case .logout:
            return nil
        }
    }

    /// Runs on the page's thread and returns at once. An answer known now is replied inside the
    /// page's call; a refresh in flight is joined by leaving `replyHandler` with its waiters
    /// (no task, no turn of the actor); anything else takes one turn of the session's actor,
    /// and a refresh that turn starts is waited for the same way.
    public func userContentController(
        _ userContentController: UserContentController, didReceive message: ScriptMessage, replyHandler: ScriptMessageReply
    ) {
        let action: Action
        do throws(ScriptMessageError) {
            // The action is read once: the immediate answer and the rest both use it.
            action = try Self.action(of: message)
            if let reply = try immediateReply(to: action) { return replyHandler.reply(reply) }
        } catch {
            return replyHandler.reject(error)
        }
        if action == .refresh, let waiters = controller.published.withLock({ $0.joinableRefresh }) {
            return waiters.add(replyHandler)
        }
        let controller = self.controller
        Task.immediate {
            do throws(SessionError) {
                switch try await controller.answerPage(action) {
                case .reply(let value): replyHandler.reply(value)
                case .refreshing(let waiters): waiters.add(replyHandler)
                }
            } catch {
                replyHandler.reject(error.scriptMessageError)
            }
        }
    }
}

extension SessionController {
    /// What a page's request gets from one turn of the actor.
    enum PageAnswer {
        case reply(ScriptValue)
        case refreshing(RefreshWaiters)
    }

    /// A page's request, after noticing a sign-out in another process.
    func answerPage(_ action: SessionMessageHandler.Action) async throws(SessionError) -> PageAnswer {
        await noticeSignOutElsewhere()
        switch action {
        case .status:
            return .reply(try status().scriptValue)
        case .refresh:
            switch try joinOrStartRefresh() {
            case .done(let status): return .reply(status.scriptValue)
            case .waiting(_, let waiters): return .refreshing(waiters)
            }
        case .logout where configuration.isolatedWebSession != nil:
            // A page ends its own session only: the native one goes on.
            await endWebSession()
            return .reply(["ok": true, "signedIn": false])
        case .logout:
            // Signed out here in any case; `revoked` says whether the server took the
            // revocation (false also when it has none), with its error when it failed.
            switch await logout() {
            case .success: return .reply(["ok": true, "signedIn": false, "revoked": true])
            case .failure(let error):
                return .reply(["ok": true, "signedIn": false, "revoked": false, "revocationError": .string(error.code.rawValue)])
            case nil: return .reply(["ok": true, "signedIn": false, "revoked": false])
            }
        }
    }
}

/// A navigation delegate that gets the session ready before each navigation (see
/// ``SessionController/prepareNavigation(to:in:)``), wrapping the app's own delegate.
public struct SessionNavigationDelegate: NavigationDelegate {
    /// The session.
    public let controller: SessionController
    /// The app's delegate, asked first; its `cancel` wins.
    public let wrapped: (any NavigationDelegate)?

    /// Creates a delegate for `controller`, optionally wrapping `delegate`.
    public init(controller: SessionController, wrapping delegate: (any NavigationDelegate)? = nil) {
        self.controller = controller
        self.wrapped = delegate
    }

    nonisolated(nonsending) public func webPage(
        _ page: any WebView, decidePolicyFor action: NavigationAction
    ) async -> NavigationActionPolicy {
        if let wrapped, await wrapped.webPage(page, decidePolicyFor: action) == .cancel { return .cancel }
        if let policy = await controller.navigationPolicyWithoutATurn(to: action.request.url, in: page) { return policy }
        return await controller.prepareNavigation(to: action.request.url, in: page)
    }

    nonisolated(nonsending) public func webPage(
        _ page: any WebView, decidePolicyFor response: NavigationResponse
    ) async -> NavigationResponsePolicy {
        await wrapped?.webPage(page, decidePolicyFor: response) ?? .allow
    }

    nonisolated(nonsending) public func webPage(_ page: any WebView, didFinish navigation: Navigation) async {
        await wrapped?.webPage(page, didFinish: navigation)
    }

    nonisolated(nonsending) public func webPage(_ page: any WebView, didFail error: PageError) async {
        await wrapped?.webPage(page, didFail: error)
    }

    nonisolated(nonsending) public func webPage(
        _ page: any WebView, webContentProcessDidTerminate reason: WebContentProcessTerminationReason
    ) async {
        await wrapped?.webPage(page, webContentProcessDidTerminate: reason)
    }
}

extension SessionController {
    /// Registers the ``SessionMessageHandler`` as `name` (`session`), callable only from
    /// `allowedOrigins`, and adds the standard scripts chosen in `scripts` at document start.
    ///
    /// - Parameters:
    ///   - controller: the pages' user content controller.
    ///   - allowedOrigins: the origins whose documents may call the handler.
    ///   - name: the handler's name.
    ///   - scripts: which ``StandardScripts`` to inject (the refresh script and the `fetch`
    ///     wrapper by default).
    public nonisolated func install(
        in controller: UserContentController, allowedOrigins: Set<SecurityOrigin>, name: String = "session",
        scripts: StandardScripts.Selection = [.refresh, .fetchRetry]
    ) {
        controller.addScriptMessageHandler(
            SessionMessageHandler(controller: self), name: name, options: HandlerOptions(allowedOrigins: allowedOrigins))
        if scripts.contains(.refresh) { controller.addUserScript(StandardScripts.refreshUserScript(handlerName: name)) }
        if scripts.contains(.fetchRetry) { controller.addUserScript(StandardScripts.fetchRetryUserScript()) }
    }
}
