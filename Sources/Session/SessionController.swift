import Bridge
import Cookies
import Foundation
import Logging
import SessionBridgeOAuth
import Synchronization
import WebPage

/// The native owner of a login session shared with embedded web pages.
///
/// It keeps the refresh token in a ``TokenVault`` (never in a page), the session cookies in a
/// native ``CookieJar`` (optionally backed by a ``PersistentCookieStore`` profile) and fans
/// every change out to the cookie stores of the pages attached to it. ``refresh()`` is
/// single-flight: page scripts (through ``SessionMessageHandler``), native code and the
/// navigation policy (``SessionNavigationDelegate``) share one request to the token endpoint.
///
/// ```swift
/// let session = SessionController(configuration: SessionConfiguration(server: serverURL))
/// try await session.login(username: "demo", password: "demo")
/// let contents = UserContentController()
/// session.install(in: contents, allowedOrigins: [SecurityOrigin(url: serverURL)!])
/// let page = WebPage(configuration: WebPageConfiguration(
///     userContentController: contents, navigationDelegate: SessionNavigationDelegate(controller: session)))
/// await session.attach(page)
/// try await page.load(serverURL.appending(path: "app"))
/// ```
public actor SessionController {
    /// How the controller reaches its server.
    public nonisolated let configuration: SessionConfiguration
    /// Where the refresh token lives.
    public nonisolated let vault: any TokenVault
    /// The native cookie store: the source of truth for session cookies.
    public nonisolated let cookieJar: CookieJar
    /// The profile the native store persists to, if any.
    public nonisolated let cookieStore: PersistentCookieStore?

    /// Facts readable without suspending (for the message handler's immediate replies).
    struct Published: Sendable {
        var isReady = false
        var isSignedIn = false
        var accessTokenExpiresAt: Date?
        var lastRefresh: ContinuousClock.Instant?
    }

    nonisolated let published = Mutex(Published())
    let client: TokenEndpointClient
    var logger: Logger { configuration.logger }

    var isReady = false
    var attachment: CookieStoreAttachment?
    /// The vault record as this controller last saw it.
    var record: VaultRecord?
    var inFlight: Task<Result<SessionStatus, SessionError>, Never>?
    var lastRefresh: (status: SessionStatus, at: ContinuousClock.Instant)?
    var pages: [ObjectIdentifier: WeakPage] = [:]
    /// Names of the cookies the token endpoint set (deleted when the session ends).
    var tokenEndpointCookieNames: Set<String> = []
    /// How many refresh requests this controller sent to the token endpoint (attempts with retries count once).
    public internal(set) var networkRefreshCount = 0
    /// How many refreshes were satisfied by a rotation another process (sharing the vault) made.
    public internal(set) var adoptedRotationCount = 0
    /// The validated ID token of the last sign-in or refresh that carried one (its claims say
    /// who signed in); `nil` when none did. Kept in memory only.
    public internal(set) var idToken: IDToken?

    struct WeakPage {
        weak var page: WebPage?
        let jar: CookieJar
    }

    /// Creates a controller. Nothing is read until first use (or ``start()``), which loads the
    /// vault and the persistent cookie store before answering anything.
    ///
    /// - Parameters:
    ///   - configuration: endpoints, cookie names, margins, timeouts.
    ///   - vault: where the refresh token lives; in memory by default.
    ///   - cookieJar: the native cookie store. Pass a page store's jar to make the web store the
    ///     single source of truth (see ``CookieSync``).
    ///   - cookieStore: a profile the native store is loaded from and saved to.
    public init(
        configuration: SessionConfiguration, vault: any TokenVault = InMemoryTokenVault(),
        cookieJar: CookieJar = CookieJar(), cookieStore: PersistentCookieStore? = nil
    ) {
        self.configuration = configuration
        self.vault = vault
        self.cookieJar = cookieJar
        self.cookieStore = cookieStore
        self.client = TokenEndpointClient(
            client: configuration.httpClient, oauth: OAuthClient(configuration: configuration.oauthConfiguration),
            timeout: configuration.requestTimeout, retry: configuration.retry,
            reuseGrace: configuration.refreshTokenReuseGrace, logger: configuration.logger)
    }

    // MARK: Startup

    /// Loads the persistent cookie store and the vault. Every other method calls it first, so
    /// nothing is ever answered from a store that has not finished loading.
    public func start() throws(SessionError) {
        guard !isReady else { return }
        if let cookieStore {
            do {
                let attachment = try cookieJar.attach(to: cookieStore, includeSessionCookies: true)
                if let warning = attachment.loadResult.warning { logger.warning("\(warning)") }
                self.attachment = attachment
            } catch {
                throw SessionError(.storage, "the cookie store could not be loaded: \(error)")
            }
        }
        do {
            record = try vault.load()
        } catch {
            throw SessionError(.storage, "\(error)")
        }
        isReady = true
        publish()
    }

    /// The session's current facts.
    public func status() throws(SessionError) -> SessionStatus {
        try start()
        return currentStatus
    }

    var currentStatus: SessionStatus {
        SessionStatus(isSignedIn: record != nil, accessTokenExpiresAt: record?.accessTokenExpiresAt)
    }

    func publish() {
        let status = currentStatus
        let last = lastRefresh?.at
        published.withLock {
            $0.isReady = isReady
            $0.isSignedIn = status.isSignedIn
            $0.accessTokenExpiresAt = status.accessTokenExpiresAt
            $0.lastRefresh = last
        }
    }

    // MARK: Signing in

    /// Signs in with the password grant (for demos and tests) and applies the cookies the
    /// token endpoint set to the native store and every attached page.
    @discardableResult
    public func login(username: String, password: String) async throws(SessionError) -> SessionStatus {
        try start()
        let response = try await client.requestTokens(.password(username: username, password: Secret(password)))
        guard let token = response.refreshToken else { throw SessionError.noRefreshToken }
        let validated = try await validateIDToken(response.idToken, nonce: nil)
        let newRecord = VaultRecord(refreshToken: token, accessTokenExpiresAt: response.accessTokenExpiresAt)
        do { try vault.store(newRecord) } catch { throw SessionError(.storage, "\(error)") }
        record = newRecord
        lastRefresh = nil
        idToken = validated
        applySetCookies(response.setCookies)
        publish()
        logger.info("signed in")
        return currentStatus
    }

    /// Takes over a session the app obtained another way (its own login flow).
    @discardableResult
    public func adopt(refreshToken: RefreshToken, accessTokenExpiresAt: Date? = nil) throws(SessionError) -> SessionStatus {
        try start()
        let newRecord = VaultRecord(refreshToken: refreshToken, accessTokenExpiresAt: accessTokenExpiresAt)
        do { try vault.store(newRecord) } catch { throw SessionError(.storage, "\(error)") }
        record = newRecord
        lastRefresh = nil
        publish()
        return currentStatus
    }

    // MARK: Pages

    /// Makes refreshes, restores and logout reach `page`'s cookie store. The page is held
    /// weakly; a closed page is dropped at the next fan-out.
    public func attach(_ page: WebPage) {
        pages[ObjectIdentifier(page)] = WeakPage(page: page, jar: page.cookieJar)
    }

    /// Stops fanning out to `page`.
    public func detach(_ page: WebPage) {
        pages[ObjectIdentifier(page)] = nil
    }

    /// The attached pages still alive.
    var livePages: [WebPage] {
        pages = pages.filter { $0.value.page != nil }
        return pages.values.compactMap(\.page)
    }

    /// The cookie stores of the attached pages (alive ones), without the native store.
    var pageJars: [CookieJar] {
        livePages.map(\.cookieJar).filter { $0 !== cookieJar }
    }

    /// Parses each `Set-Cookie` field (never comma-split), deletions included, into the native
    /// store and every attached page's store. Garbage lines are rejected by the parser; the
    /// rest are applied.
    func applySetCookies(_ lines: [String]) {
        let origin = configuration.tokenEndpoint
        var rejected = 0
        for outcome in cookieJar.setCookies(lines, from: origin) {
            switch outcome {
            case .stored(let cookie), .replaced(let cookie, _): tokenEndpointCookieNames.insert(cookie.name)
            case .deleted(let cookie): if let cookie { tokenEndpointCookieNames.insert(cookie.name) }
            case .rejected: rejected += 1
            }
        }
        for jar in pageJars { jar.setCookies(lines, from: origin) }
        if rejected > 0 { logger.warning("rejected Set-Cookie lines from the token endpoint", metadata: ["count": "\(rejected)"]) }
    }

    /// Tells every attached page that the session ended, through a
    /// `sessionbridge:signedout` event on `window` with `detail.reason`.
    func notifySignedOut(reason: String) async {
        let literal = String(decoding: (try? JSONEncoder().encode(reason)) ?? Data("\"\"".utf8), as: UTF8.self)
        for page in livePages {
            guard await !page.isClosed, await page.url != nil else { continue }
            _ = try? await page.evaluateJavaScript(
                "typeof window.dispatchEvent === 'function' && window.dispatchEvent({type: 'sessionbridge:signedout', detail: {reason: \(literal)}})")
        }
    }

    // MARK: Ending the session

    /// The names of the session's cookies: configured, set by the token endpoint, and held by
    /// the native store for the session's origin.
    var sessionCookieNames: Set<String> {
        var names = configuration.sessionCookieNames.union(tokenEndpointCookieNames)
        names.insert(configuration.sessionCookieName)
        for cookie in cookieJar.cookies(for: configuration.sessionURL) { names.insert(cookie.name) }
        return names
    }

    /// Deletes the session's cookies from `jar`.
    func deleteSessionCookies(in jar: CookieJar, names: Set<String>) {
        let host = configuration.sessionURL.host?.lowercased() ?? ""
        for cookie in jar.allCookies where names.contains(cookie.name) && (cookie.domain == host || host.hasSuffix("." + cookie.domain)) {
            jar.remove(name: cookie.name, domain: cookie.domain, path: cookie.path)
        }
    }

    /// Ends the session locally: vault emptied, session cookies deleted on both sides.
    func endSessionLocally() {
        let names = sessionCookieNames
        do { try vault.clear() } catch { logger.error("the vault could not be cleared: \(error)") }
        record = nil
        lastRefresh = nil
        deleteSessionCookies(in: cookieJar, names: names)
        for jar in pageJars { deleteSessionCookies(in: jar, names: names) }
        publish()
    }

    /// Signs out everywhere: deletes the session cookies in every attached page's store and
    /// the native store, empties the vault, revokes the refresh token at the server (when a
    /// revocation endpoint is configured) and tells the pages (`sessionbridge:signedout` with
    /// reason `logout`).
    ///
    /// - Parameter removeAllWebsiteData: also wipe every cookie of the attached pages' data
    ///   stores and of the native store (the seeds' "clear all web data on logout").
    public func logout(removeAllWebsiteData: Bool = false) async {
        try? start()
        if let inFlight { _ = await inFlight.value }
        let lock = try? await vault.lock(timeout: configuration.vaultLockTimeout)
        let token = ((try? vault.load()) ?? nil)?.refreshToken ?? record?.refreshToken
        endSessionLocally()
        if removeAllWebsiteData {
            for page in livePages { page.configuration.websiteDataStore.removeAllData() }
            cookieJar.removeAll()
        }
        lock?.unlock()
        idToken = nil
        if let token { await client.revoke(token) }
        logger.info("signed out")
        await notifySignedOut(reason: "logout")
    }
}
