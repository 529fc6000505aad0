public import Foundation
import Logging
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeOAuth
import Synchronization

/// The native owner of a login session shared with embedded web pages.
///
/// It keeps the refresh token in a ``TokenVault`` (never in a page), the session cookies in a
/// native `CookieJar` (optionally backed by a `PersistentCookieStore` profile) and fans
/// every change out to the cookie stores of the pages attached to it. ``refresh()`` is
/// single-flight: page scripts (through ``SessionMessageHandler``), native code and the
/// navigation policy (``SessionNavigationDelegate``) share one request to the token endpoint.
///
/// ```swift
/// let session = SessionController(configuration: SessionConfiguration(server: serverURL))
/// try await session.login(username: "demo", password: "demo")
/// let page = await session.makeWebPage(allowedOrigins: [SecurityOrigin(url: serverURL)!])
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
        /// The waiters of the refresh in flight while a caller may join it (none while a
        /// logout runs): a page's call joins it without a turn of the actor.
        var joinableRefresh: RefreshWaiters?
        /// Whether a sign-out on the web ever started (navigations are then always prepared
        /// by the actor, which waits for it).
        var webSignOutStarted = false
    }

    nonisolated let published = Mutex(Published())
    /// The attached pages, for the navigation policy decided without a turn of the actor.
    nonisolated let attachedForPolicy = AttachedPagesForPolicy()
    let client: TokenEndpointClient
    var logger: Logger { configuration.logger }

    var isReady = false
    var attachment: CookieStoreAttachment? {
        didSet { profileForWebChanges.withLock { $0 = attachment } }
    }
    /// ``attachment``, for the observers of the pages' stores, which run on the pages' threads.
    nonisolated let profileForWebChanges = Mutex<CookieStoreAttachment?>(nil)
    /// The persistent cookie profile's write that the last refresh left behind it
    /// (``writeProfileBehind(_:holding:)``), which ``refresh()`` waits for.
    var profileWrite: Task<Void, Never>?
    /// The vault record as this controller last saw it. The cookie names it keeps join
    /// ``tokenEndpointCookieNames`` (a session signed in by another process).
    var record: VaultRecord? {
        didSet {
            if let names = record?.cookieNames, !names.isSubset(of: tokenEndpointCookieNames) {
                tokenEndpointCookieNames.formUnion(names)
            }
        }
    }
    var inFlight: Task<Result<SessionStatus, SessionError>, Never>? {
        didSet { publishJoinableRefresh() }
    }
    /// The pages' calls waiting for ``inFlight`` (replaced as each refresh starts).
    var inFlightWaiters = RefreshWaiters()
    /// Counts the sessions ended here (``endSessionLocally()``): a refresh whose answer arrives
    /// after the session it refreshed ended does not bring that session back, whatever the
    /// vault's lock does (an ``InMemoryTokenVault``'s, or an app's keychain vault's, excludes
    /// nothing).
    var sessionGeneration: UInt64 = 0
    /// How many ``logout(removeAllWebsiteData:)`` calls are running: a refresh asked meanwhile
    /// fails with ``SessionError/signedOut`` instead of spending the token being revoked.
    var logoutsRunning = 0 {
        didSet { publishJoinableRefresh() }
    }
    var lastRefresh: (status: SessionStatus, at: ContinuousClock.Instant)?
    var pages: [ObjectIdentifier: AttachedPage] = [:]
    /// Names of the cookies the session's endpoints set, here or in another process (deleted
    /// when the session ends; kept in the vault record, see ``rememberCookieNames()``).
    var tokenEndpointCookieNames: Set<String> = [] {
        didSet { ownedCookieNames.names.withLock { $0 = configuration.ownedCookieNames.union(tokenEndpointCookieNames) } }
    }
    /// The session's own cookie names besides the session cookie, readable from a page store's
    /// observer (see ``observeWebChanges(of:)``).
    nonisolated let ownedCookieNames: OwnedCookieNames
    /// The cookies pages wrote themselves, as the native store took them (see
    /// ``PageWrittenCookies``).
    nonisolated let pageWrittenCookies = PageWrittenCookies()

    /// Set by a page store's observer, on the page's thread, the moment a response to a page
    /// deletes the session cookie; the next navigation (a redirect hop from the web product's
    /// logout route included) ends the session before it is prepared, so nothing refreshes the
    /// signed-out session back into being.
    nonisolated let webSignOutPending = Atomic<Bool>(false)
    /// The sign-out that follows the web product's deletion of the session cookie, once
    /// started: the observer's task and the next navigation both wait for this one run.
    var webSignOut: Task<Void, Never>?
    /// Whether that sign-out is running (it first waits for the refresh in flight, which the
    /// server, having ended the session, refuses: that refusal is the web logout).
    var signingOutOnTheWeb = false

    /// The vault's change mark when this controller last read the vault for a change made
    /// elsewhere (see ``noticeSignOutElsewhere()``); readable by the session handler's fast path.
    nonisolated let seenVaultMark = Mutex<VaultChangeMark?>(nil)

    /// A set of cookie names shared with observers on other threads.
    final class OwnedCookieNames: Sendable {
        let names: Mutex<Set<String>>
        init(_ names: Set<String>) { self.names = Mutex(names) }
    }
    /// How many refresh requests this controller sent to the token endpoint (attempts with retries count once).
    package internal(set) var networkRefreshCount = 0
    /// How many navigations the actor prepared (``prepareNavigation(to:in:)``), the others having
    /// been decided without a turn (``navigationPolicyWithoutATurn(to:in:)``).
    package internal(set) var preparedNavigationCount = 0
    /// How many refreshes were satisfied by a rotation another process (sharing the vault) made.
    package internal(set) var adoptedRotationCount = 0
    /// The validated ID token of the last sign-in or refresh that carried one (its claims say
    /// who signed in); `nil` when none did. Kept in memory only.
    public internal(set) var idToken: IDToken?
    /// The access token of the last sign-in or refresh, in memory only: sent to the session
    /// exchange and by ``SessionHTTPClient``, never to a page, never logged.
    var accessToken: Secret?
    /// Whether ``accessToken`` is DPoP-bound (`token_type` `DPoP`): presented with a proof.
    var accessTokenIsDPoP = false
    /// When ``accessToken`` expires, if known.
    var accessTokenExpiry: Date?
    /// Whether the current tokens still wait for a successful session exchange.
    var exchangePending = false
    /// The page session of an ``IsolatedWebSession``, in memory only.
    var pageSession: PageSessionTokens?
    /// Whether the page session's tokens still wait for a successful session exchange.
    var pageExchangePending = false
    /// The native refresh in flight in an ``IsolatedWebSession`` (pages refresh apart).
    var nativeInFlight: Task<Result<SessionStatus, SessionError>, Never>?

    /// A page the session fans out to, held weakly, with its cookie store and the observation
    /// that carries the page's own cookie changes to the native store.
    struct AttachedPage {
        weak var page: (any WebView)?
        let store: any HTTPCookieStore
        let observation: CookieObservation?
    }

    /// Creates a controller. Nothing is read until first use (or ``start()``), which loads the
    /// vault and the persistent cookie store before answering anything.
    ///
    /// - Parameters:
    ///   - configuration: endpoints, cookie names, margins, timeouts.
    ///   - vault: where the refresh token lives; in memory by default.
    ///   - cookieJar: the native cookie store; by default one that keeps what WebKit's store
    ///     keeps where WebKit and RFC 6265bis part (a `SameSite=None` cookie without `Secure`,
    ///     any number of one domain: ``CookieJarLimits/webKit``), so that every cookie the token
    ///     endpoint sets, and every cookie a page wrote, reaches the pages as it would reach a
    ///     WebKit page. Pass a page store's jar to make the web store the single source of truth
    ///     (see ``CookieSync``).
    ///   - cookieStore: a profile the native store is loaded from and saved to.
    public init(
        configuration: SessionConfiguration, vault: any TokenVault = InMemoryTokenVault(),
        cookieJar: CookieJar = CookieJar(limits: .webKit, sameSiteNoneRequiresSecure: false), cookieStore: PersistentCookieStore? = nil
    ) {
        self.configuration = configuration
        self.vault = vault
        self.cookieJar = cookieJar
        self.cookieStore = cookieStore
        self.ownedCookieNames = OwnedCookieNames(configuration.ownedCookieNames)
        self.client = TokenEndpointClient(
            client: configuration.httpClient, oauth: OAuthClient(configuration: configuration.oauthConfiguration),
            timeout: configuration.requestTimeout, retry: configuration.retry,
            reuseGrace: configuration.refreshTokenReuseGrace, logger: configuration.logger, now: configuration.now)
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
        // An isolated page is told about its own session's token; a session refreshed with a
        // refresh cookie has no access token, and its web session lasts as long as its cookie.
        SessionStatus(
            isSignedIn: hasSession,
            accessTokenExpiresAt: isIsolated
                ? pageSession?.expiresAt ?? record?.accessTokenExpiresAt : record?.accessTokenExpiresAt ?? webSessionCookieExpiry)
    }

    /// With a ``CookieRefresh``, when the native store's session cookie expires; `nil` otherwise.
    private var webSessionCookieExpiry: Date? {
        guard configuration.cookieRefresh != nil else { return nil }
        let name = configuration.webSessionCookieName
        return cookieJar.cookies(for: configuration.sessionURL).first { $0.name == name }?.expiresAt
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

    /// What ``joinOrStartRefresh()`` would join now, for callers outside the actor. It changes
    /// in the same turn as ``inFlight`` and ``logoutsRunning``, so a caller that reads it joins
    /// exactly the refresh a turn of the actor at that moment would have joined.
    private func publishJoinableRefresh() {
        let joinable = logoutsRunning == 0 && inFlight != nil ? inFlightWaiters : nil
        published.withLock { $0.joinableRefresh = joinable }
    }

    // MARK: Signing in

    /// Signs in with the password grant (for demos and tests) and applies the cookies the
    /// token endpoint set to the native store and every attached page.
    @discardableResult
    public func login(username: String, password: String) async throws(SessionError) -> SessionStatus {
        try start()
        let response = try await client.requestTokens(.password(username: username, password: Secret(password)))
        try await beginSession(with: response, nonce: nil)
        logger.info("signed in")
        return currentStatus
    }

    /// Makes a sign-in's token answer the session, for every grant: the ID token checked, the
    /// refresh token stored (or revoked when it cannot be), the cookies applied to the native
    /// store and every page, the access token kept in memory, the web session exchanged.
    func beginSession(with response: TokenResponse, nonce: String?) async throws(SessionError) {
        guard let token = response.refreshToken else { throw SessionError.noRefreshToken }
        let validated: IDToken?
        do {
            validated = try await validateIDToken(response.idToken, nonce: nonce)
        } catch {
            // The server has issued a session this client refuses to use: it is revoked there,
            // not left open (an offline session can live for months).
            await client.revoke(token)
            throw error
        }
        let newRecord = VaultRecord(
            refreshToken: token, accessTokenExpiresAt: response.accessTokenExpiresAt, rotatedAt: configuration.now(),
            subject: validated?.subject, cookieNames: cookieNames(settingCookies: response.setCookies))
        try await storeNewSession(newRecord)
        record = newRecord
        lastRefresh = nil
        idToken = validated
        // An isolated page never gets the native session's cookies: it gets a session of its own.
        if !isIsolated { await applySetCookies(response.setCookies) }
        acceptAccessToken(response.accessToken, type: response.tokenType, expiresAt: response.accessTokenExpiresAt)
        publish()
        if isIsolated { try await exchangeForPageSession() } else { try await exchangeWebSession() }
    }

    /// Stores a just-issued session in the vault. When the vault cannot be written, the token
    /// is revoked at the server before the error is thrown: a session nobody can use again is
    /// not left open there.
    func storeNewSession(_ newRecord: VaultRecord) async throws(SessionError) {
        do {
            try vault.store(newRecord)
        } catch {
            logger.error("the vault could not store the new session; revoking it at the server")
            await client.revoke(newRecord.refreshToken)
            throw SessionError(.storage, "the session could not be stored (\(error)); it was revoked at the server")
        }
    }

    /// Takes over a session the app obtained another way (its own login flow).
    @discardableResult
    public func adopt(refreshToken: RefreshToken, accessTokenExpiresAt: Date? = nil) throws(SessionError) -> SessionStatus {
        try start()
        let newRecord = VaultRecord(refreshToken: refreshToken, accessTokenExpiresAt: accessTokenExpiresAt, rotatedAt: configuration.now())
        do { try vault.store(newRecord) } catch { throw SessionError(.storage, "\(error)") }
        record = newRecord
        lastRefresh = nil
        publish()
        return currentStatus
    }

    // MARK: Pages

    /// Makes refreshes, restores and logout reach `page`'s cookie store. The page is held
    /// weakly; a closed page is dropped at the next fan-out. Pages of either engine attach the
    /// same way.
    public func attach(_ page: any WebView) {
        let id = ObjectIdentifier(page)
        guard pages[id]?.page == nil else { return }
        let store = page.httpCookieStore
        pages[id] = AttachedPage(page: page, store: store, observation: observeWebChanges(of: store))
        attachedForPolicy.insert(page)
    }

    /// Stops fanning out to `page`.
    ///
    /// With an ``IsolatedWebSession`` that ``IsolatedWebSession/revokesWhenPagesDetach``, the
    /// last page's detach ends the page session (``endWebSession()``), revoked at the server
    /// before it returns (an app quitting right after still leaves no page session open).
    public func detach(_ page: any WebView) async {
        pages.removeValue(forKey: ObjectIdentifier(page))?.observation?.cancel()
        attachedForPolicy.remove(page)
        if configuration.isolatedWebSession?.revokesWhenPagesDetach == true, pageSession != nil, livePages.isEmpty {
            await endWebSession()
        }
    }

    /// Drops the pages that went away.
    func pruneClosedPages() {
        for (id, attached) in pages where attached.page == nil {
            attached.observation?.cancel()
            pages[id] = nil
        }
    }

    /// The attached pages still alive.
    var livePages: [any WebView] {
        pruneClosedPages()
        return pages.values.compactMap(\.page)
    }

    /// The cookie stores of the attached pages (alive ones), without the native store, each once.
    var pageStores: [any HTTPCookieStore] {
        pruneClosedPages()
        var seen = Set<ObjectIdentifier>()
        return pages.values.map(\.store).filter { store in
            !isNativeStore(store) && seen.insert(ObjectIdentifier(store)).inserted
        }
    }

    /// Whether `store` is the native jar itself (the web store as the single source of truth).
    nonisolated func isNativeStore(_ store: any HTTPCookieStore) -> Bool {
        (store as? CookieJarStore)?.jar === cookieJar
    }

    /// Parses each `Set-Cookie` field (never comma-split) once, deletions included, into the
    /// native store, then replays what it did on every attached page's store, all stores at
    /// once; returns when every store has it. Garbage lines are rejected by the parser; the rest
    /// are applied.
    func applySetCookies(_ lines: [String], from origin: URL? = nil) async {
        guard !lines.isEmpty else { return }
        let applied = cookieJar.applyResponseCookies(lines, from: origin ?? configuration.tokenEndpoint)
        tokenEndpointCookieNames.formUnion(applied.names)
        rememberCookieNames()
        await fanOut(applied.operations)
        if applied.rejectedCount > 0 {
            logger.warning("rejected Set-Cookie lines from the token endpoint", metadata: ["count": "\(applied.rejectedCount)"])
        }
    }

    /// Applies `operations` to every attached page's store concurrently and waits for all.
    func fanOut(_ operations: [CookieWriteOperation]) async {
        let operations = withoutNativeOnlyCookies(operations)
        guard !operations.isEmpty else { return }
        let stores = pageStores
        if stores.count == 1 {
            await stores[0].apply(operations)
            return
        }
        await withTaskGroup(of: Void.self) { group in
            for store in stores { group.addTask { await store.apply(operations) } }
        }
    }

    /// Why the session last ended, as the pages were told (`sessionbridge:signedout`'s
    /// `detail.reason`): `logout`, `web_logout`, `invalid_grant` (the server refused the
    /// refresh token), `signed_out_elsewhere`, …; `nil` while no session has ended.
    public private(set) var lastSignOutReason: String?

    /// Tells every attached page that the session ended, through a
    /// `sessionbridge:signedout` event on `window` with `detail.reason`. Pages are told
    /// concurrently, each within ``SessionConfiguration/requestTimeout``: a page whose
    /// listener stalls holds no other page and not the caller.
    func notifySignedOut(reason: String) async {
        lastSignOutReason = reason
        let literal = String(decoding: (try? JSONEncoder().encode(reason)) ?? Data("\"\"".utf8), as: UTF8.self)
        let body = """
            if (typeof window.dispatchEvent !== 'function') return false;
            const type = 'sessionbridge:signedout', detail = {reason: \(literal)};
            window.dispatchEvent(typeof CustomEvent === 'function' ? new CustomEvent(type, {detail}) : {type, detail});
            return true;
            """
        let pages = livePages
        let limit = configuration.requestTimeout
        await withTaskGroup(of: Void.self) { group in
            for page in pages {
                group.addTask {
                    guard await !page.isClosed, await page.url != nil else { return }
                    _ = try? await page.callAsyncJavaScript(body, in: .page, timeout: limit)
                }
            }
        }
    }

    /// The names of the cookies the session's endpoints set, with those `lines` set: what a
    /// record about to be stored keeps (``VaultRecord/cookieNames``).
    func cookieNames(settingCookies lines: [String]) -> Set<String> {
        var names = tokenEndpointCookieNames
        for line in lines {
            if case .success(let parsed) = SetCookieParser.parse(line), !parsed.name.isEmpty { names.insert(parsed.name) }
        }
        return names
    }

    /// Stores the vault record again when the session's endpoints set a cookie its names lack
    /// (a web session's first exchange): another process then knows which cookies are the
    /// session's. A refresh's record has its answer's names already, so this writes nothing.
    func rememberCookieNames() {
        guard var current = record, !tokenEndpointCookieNames.isSubset(of: current.cookieNames ?? []) else { return }
        current.cookieNames = tokenEndpointCookieNames.union(current.cookieNames ?? [])
        do {
            // This controller's own write is no change made elsewhere (as a refresh's).
            let unchangedSinceSeen = vault.changeMark().map { $0 == seenVaultMark.withLock { $0 } } ?? false
            try vault.store(current)
            if unchangedSinceSeen { seenVaultMark.withLock { $0 = vault.changeMark() } }
            record = current
        } catch {
            logger.warning("the vault could not keep the session's cookie names: \(error)")
        }
    }

    // MARK: Ending the session

    /// The names of the session's cookies: configured, and set by the session's endpoints
    /// (in this process or, as the vault record keeps them, in another). While those are not
    /// known (a record written before they were kept), every cookie the native store holds for
    /// the session's site counts.
    var sessionCookieNames: Set<String> {
        var names = configuration.sessionCookieNames.union(tokenEndpointCookieNames)
        names.insert(configuration.sessionCookieName)
        names.insert(configuration.webSessionCookieName)
        if record?.cookieNames == nil && tokenEndpointCookieNames.isEmpty {
            for cookie in cookieJar.cookies(for: configuration.sessionURL) { names.insert(cookie.name) }
        }
        return names
    }

    /// The deletions of the session's cookies among `cookies`.
    nonisolated func sessionCookieDeletions(in cookies: [Cookie], names: Set<String>) -> [CookieWriteOperation] {
        let host = configuration.sessionURL.host?.lowercased() ?? ""
        return cookies.filter { cookie in
            names.contains(cookie.name) && (cookie.domain == host || host.hasSuffix("." + cookie.domain))
        }.map { .delete($0) }
    }

    /// Ends the session locally: vault emptied, session cookies deleted on both sides.
    func endSessionLocally() async {
        sessionGeneration &+= 1
        let names = sessionCookieNames
        do { try vault.clear() } catch { logger.error("the vault could not be cleared: \(error)") }
        record = nil
        lastRefresh = nil
        forgetAccessToken()
        pageSession = nil
        pageExchangePending = false
        cookieJar.write(sessionCookieDeletions(in: cookieJar.allCookies, names: names))
        publish()
        await withTaskGroup(of: Void.self) { group in
            for store in pageStores {
                group.addTask {
                    await store.apply(self.sessionCookieDeletions(in: await store.allCookies(), names: names))
                }
            }
        }
    }

    /// Signs out everywhere: deletes the session cookies in every attached page's store and
    /// the native store, empties the vault, revokes the refresh token at the server (when a
    /// revocation endpoint is configured) and tells the pages (`sessionbridge:signedout` with
    /// reason `logout`).
    ///
    /// The session ends here whatever the server answers: the user asked to sign out. A
    /// revocation the server could not take now is asked again under the retry policy; one
    /// that still fails is logged and returned, as the token may then stay valid at the server
    /// until it expires (RFC 7009 §2.2.1).
    ///
    /// - Parameter removeAllWebsiteData: also wipe every cookie of the attached pages' data
    ///   stores and of the native store ("clear all web data on logout", as some apps do).
    /// - Returns: whether the server revoked the session's tokens; `nil` when it has no
    ///   revocation endpoint (Entra ID) or there was no session.
    @discardableResult
    public func logout(removeAllWebsiteData: Bool = false) async -> Result<Void, SessionError>? {
        try? start()
        logoutsRunning += 1
        defer { logoutsRunning -= 1 }
        if let inFlight { _ = await inFlight.value }
        let lock = try? await vault.lock(timeout: configuration.vaultLockTimeout)
        let token = ((try? vault.load()) ?? nil)?.refreshToken ?? record?.refreshToken
        let pageToken = pageSession?.refreshToken
        await endSessionLocally()
        if removeAllWebsiteData {
            for store in pageStores { await store.removeAllCookies() }
            cookieJar.removeAll()
        }
        lock?.unlock()
        idToken = nil
        var revocations: [TokenEndpointClient.Revocation] = []
        if let token { revocations.append(await client.revoke(token)) }
        if let pageToken { revocations.append(await client.revoke(RefreshToken(pageToken.exposedValue))) }
        logger.info("signed out")
        await notifySignedOut(reason: "logout")
        for case .failed(let error) in revocations { return .failure(error) }
        return revocations.contains { if case .revoked = $0 { true } else { false } } ? .success(()) : nil
    }
}
