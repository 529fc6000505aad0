import SessionBridgeHeadless
import SessionBridgeMessaging

extension SessionController {
    /// A headless page wired to this session, as an app wires one.
    ///
    /// The session's message handler (and the selected ``StandardScripts``) is installed in the
    /// configuration's content controller for `allowedOrigins`; the navigation delegate becomes a
    /// ``SessionNavigationDelegate`` wrapping the configuration's own, so each navigation is held
    /// until the session is ready; and the page is attached (``attach(_:)``), so refreshes,
    /// restores and logout reach its cookie store.
    ///
    /// ```swift
    /// let session = SessionController(configuration: SessionConfiguration(server: serverURL),
    ///                                 vault: FileTokenVault(url: vaultURL))
    /// let page = await session.makeWebPage(allowedOrigins: [SecurityOrigin(url: serverURL)!])
    /// try await session.login(username: "demo", password: "demo")
    /// try await page.load(serverURL.appending(path: "app"))
    /// ```
    ///
    /// - Parameters:
    ///   - configuration: the page's configuration; its content controller receives the handler.
    ///   - allowedOrigins: the origins whose documents may call the handler (none by default:
    ///     handlers deny every origin they were not given).
    ///   - handlerName: the name under `window.webkit.messageHandlers`.
    ///   - scripts: the standard page scripts to install beside the handler.
    public nonisolated func makeWebPage(
        configuration: WebPageConfiguration = WebPageConfiguration(), allowedOrigins: Set<SecurityOrigin>,
        handlerName: String = "session", scripts: StandardScripts.Selection = [.refresh, .fetchRetry]
    ) async -> WebPage {
        var configuration = configuration
        install(in: configuration.userContentController, allowedOrigins: allowedOrigins, name: handlerName, scripts: scripts)
        configuration.navigationDelegate = SessionNavigationDelegate(controller: self, wrapping: configuration.navigationDelegate)
        let page = WebPage(configuration: configuration)
        await attach(page)
        return page
    }
}
