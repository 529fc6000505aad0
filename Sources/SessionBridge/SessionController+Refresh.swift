public import Foundation
import Logging
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeOAuth
import Synchronization

extension SessionController {
    // MARK: Single-flight refresh

    /// Refreshes the session, once however many callers ask at the same time. With an
    /// ``IsolatedWebSession`` this is the pages' session (see ``refreshNativeSession()``).
    ///
    /// A caller joins the refresh in flight if there is one. A caller arriving within
    /// ``SessionConfiguration/freshnessWindow`` after one finished gets its result with no
    /// request. Otherwise one `grant_type=refresh_token` request is made (under the vault's
    /// lock, so another process sharing a ``FileTokenVault`` waits, then uses the token this
    /// one rotated). The rotated token is stored and every `Set-Cookie` applied to the native
    /// store and every attached page *before* any caller is released.
    ///
    /// With a persistent cookie store, this returns once the store's profile holds the new
    /// cookies on disk too. A page's call and a navigation are answered without waiting for
    /// that write (their stores hold the cookies already): it finishes behind them, under the
    /// vault's lock, so that another process sharing the vault and the profile sees both.
    ///
    /// - Throws: ``SessionError`` with ``SessionError/Code/invalidGrant`` (the session ended:
    ///   cookies cleared on both sides, vault emptied, pages told), ``SessionError/Code/network``
    ///   or ``SessionError/Code/serverError`` (retryable; nothing changed), or
    ///   ``SessionError/Code/signedOut``.
    @discardableResult
    public func refresh() async throws(SessionError) -> SessionStatus {
        let status = try await refreshForPages()
        await profileWrite?.value
        return status
    }

    /// Waits for the refresh in flight, if there is one, and for the cookie profile's write it
    /// leaves behind. A page that asked for a refresh and then navigated away (or closed) has
    /// no reply to wait for, yet its refresh goes on: an app about to read the stores side by
    /// side, or to end the process, waits here first, so that it neither sees the native store
    /// refreshed while a page's is not yet, nor ends with a rotated token unsaved. It returns
    /// when that refresh ends (within ``SessionConfiguration/requestTimeout`` and its
    /// retries); a refresh started after it is not waited for.
    public func waitForRefreshInFlight() async {
        if let inFlight { _ = await inFlight.value }
        await profileWrite?.value
    }

    /// ``refresh()`` without waiting for the persistent cookie profile's write, which a page
    /// does not need: its store has the cookies when this returns.
    func refreshForPages() async throws(SessionError) -> SessionStatus {
        switch try joinOrStartRefresh() {
        case .done(let status): return status
        case .waiting(let refresh, _): return try await refresh.value.get()
        }
    }

    /// Where a refresh asked now stands: answered at once, or the refresh in flight to wait
    /// for, with its waiters (where a page's call leaves its reply).
    enum RefreshTicket {
        case done(SessionStatus)
        case waiting(Task<Result<SessionStatus, SessionError>, Never>, RefreshWaiters)
    }

    /// ``refresh()`` up to the wait: joins the refresh in flight or starts one. A caller that
    /// waits for the task outside the actor (a page's handler) is resumed without a turn of
    /// the actor.
    func joinOrStartRefresh() throws(SessionError) -> RefreshTicket {
        try start()
        guard logoutsRunning == 0 else { throw SessionError.signedOut }
        if let fresh = freshResult() { return .done(fresh) }
        if let inFlight { return .waiting(inFlight, inFlightWaiters) }
        if !hasSession {
            record = (try? vault.load()) ?? nil
            guard hasSession else { throw SessionError.signedOut }
        }
        let waiters = RefreshWaiters()
        let task = Task {
            let result = await self.performRefresh()
            // The pages' calls are answered where the refresh ended, in the same turn of the
            // actor: each page's thread gets one job for all of its callers.
            waiters.end(with: result)
            return result
        }
        // Set before `inFlight`, whose change publishes both to the pages' handlers.
        inFlightWaiters = waiters
        inFlight = task
        return .waiting(task, waiters)
    }

    /// The result of a refresh that finished within the freshness window, if any.
    func freshResult() -> SessionStatus? {
        guard let lastRefresh, hasSession, ContinuousClock.now - lastRefresh.at < configuration.freshnessWindow else { return nil }
        return lastRefresh.status
    }

    /// The one refresh all callers share. Clears ``inFlight`` and records the result in the
    /// same actor turn, so a caller arriving later sees either the task or the fresh result.
    func performRefresh() async -> Result<SessionStatus, SessionError> {
        var (result, signedOutReason) =
            if let cookieRefresh = configuration.cookieRefresh {
                await performCookieRefresh(cookieRefresh)
            } else if isIsolated {
                await refreshPageSession()
            } else {
                await refreshUnderVaultLock()
            }
        if case .success(let status) = result {
            lastRefresh = (status, ContinuousClock.now)
        }
        // The web product's logout route ended the session at the server while this refresh
        // was out: the user signed out on the web, which is what the pages are told.
        if signedOutReason == "invalid_grant", webSignOutPending.load(ordering: .acquiring) || signingOutOnTheWeb {
            signedOutReason = "web_logout"
        }
        publish()
        if let signedOutReason {
            // The waiters are released after the pages were told.
            await notifySignedOut(reason: signedOutReason)
        }
        inFlight = nil
        return result
    }

    func refreshUnderVaultLock() async -> (Result<SessionStatus, SessionError>, signedOutReason: String?) {
        let lock: any TokenVaultLock
        do {
            lock = try await vault.lock(timeout: configuration.vaultLockTimeout)
        } catch {
            return (.failure(SessionError(.storage, "\(error)")), nil)
        }
        // Released when this refresh ends, or, when the cookie profile's write goes on behind
        // it, once that is done: another process sharing the vault and the profile reads the
        // profile under this lock.
        var handedOff = false
        defer { if !handedOff { lock.unlock() } }
        let stored: VaultRecord?
        do {
            stored = try vault.load()
        } catch {
            return (.failure(SessionError(.storage, "\(error)")), nil)
        }
        // Whether the vault is as this controller last saw it (read under the vault's lock).
        let unchangedSinceSeen = vault.changeMark().map { $0 == seenVaultMark.withLock { $0 } } ?? false
        guard let stored else {
            // Another user of the vault signed out: the pages are told as a page action's
            // look at the vault tells them (``noticeSignOutElsewhere()``).
            await endSessionLocally()
            return (.failure(SessionError.signedOut), "signed_out_elsewhere")
        }
        if canRepeatExchangeOnly, stored.refreshToken == record?.refreshToken {
            // The tokens are fresh; only the exchange failed: the refresh token is not spent again.
            do {
                try await exchangeWebSession()
                return (.success(currentStatus), nil)
            } catch {
                return (.failure(error), nil)
            }
        }
        if !isIsolated, let known = record, stored.refreshToken != known.refreshToken,
            let expiry = stored.accessTokenExpiresAt, expiry > configuration.now() + configuration.refreshMargin.timeInterval
        {
            // Another process sharing the vault rotated the token while we waited: use its
            // result instead of spending the old token (which would revoke the family).
            record = stored
            if await takeUpProfileCookies() {
                adoptedRotationCount += 1
                logger.debug("used the refresh token another process rotated")
                return (.success(currentStatus), nil)
            }
        }
        record = stored
        networkRefreshCount += 1
        let generation = sessionGeneration
        let response: TokenResponse
        do {
            response = try await client.requestTokens(.refreshToken(Secret(stored.refreshToken.value)), repeatableWithinGrace: true)
        } catch {
            if error.code == .invalidGrant {
                logger.notice("the server refused the refresh token; the session ended")
                await endSessionLocally()
                return (.failure(error), "invalid_grant")
            }
            logger.warning("refresh failed", metadata: ["code": "\(error.code.rawValue)"])
            return (.failure(error), nil)
        }
        guard generation == sessionGeneration else {
            // The session ended while the request was out (a logout, a sign-out elsewhere): its
            // answer is not stored, and a token it rotated is revoked, not kept.
            logger.notice("the session ended during a refresh; its answer is discarded")
            if let rotated = response.refreshToken { await client.revoke(rotated) }
            return (.failure(SessionError.signedOut), nil)
        }
        // A server that does not rotate answers without a refresh token: the old one stays.
        let token = response.refreshToken ?? stored.refreshToken
        let rotated = VaultRecord(
            refreshToken: token, accessTokenExpiresAt: response.accessTokenExpiresAt, rotatedAt: configuration.now(),
            subject: stored.subject ?? idToken?.subject,
            cookieNames: cookieNames(settingCookies: response.setCookies).union(stored.cookieNames ?? []))
        // Stored before anyone is released (and before the vault lock is).
        do {
            try vault.store(rotated)
            // This controller's own write, under the vault's lock, is no change made elsewhere:
            // what it last saw moves with it (so the next navigation and bridge call need not
            // read the vault again), unless something else had changed the vault before.
            if unchangedSinceSeen { seenVaultMark.withLock { $0 = vault.changeMark() } }
        } catch {
            logger.error("the rotated refresh token could not be stored durably: \(error)")
        }
        record = rotated
        // The refreshed ID token, checked once the rotated token is stored: its claims come
        // with the refresh when the check is quick (the issuer's keys at hand, or a key set
        // fetched within a second: a session adopted in a new process has none). A slower key
        // set is not waited for: it had held the token's storage and the pages waiting for its
        // whole timeout. Its claims follow.
        if let idToken = response.idToken {
            if await client.oauth.canValidateIDTokenWithoutFetching(idToken) {
                await acceptRefreshedIDToken(idToken, generation: generation)
            } else {
                let check = Task { await self.acceptRefreshedIDToken(idToken, generation: generation) }
                await Self.wait(for: check, atMost: .seconds(1))
            }
        }
        // The cookies are in every store before anyone is released; the persistent profile's
        // write of them is not waited for (see ``writeProfileBehind(_:holding:)``).
        let holdsProfile = !isIsolated && !response.setCookies.isEmpty ? attachment : nil
        holdsProfile?.holdSaves()
        defer { if let holdsProfile { handedOff = writeProfileBehind(holdsProfile, holding: lock) } }
        if !isIsolated { await applySetCookies(response.setCookies) }
        acceptAccessToken(response.accessToken, type: response.tokenType, expiresAt: response.accessTokenExpiresAt)
        do {
            if !isIsolated { try await exchangeWebSession() }
        } catch {
            return (.failure(error), nil)
        }
        logger.debug("refreshed the session")
        return (.success(currentStatus), nil)
    }

    /// Writes the cookie profile's held changes off the refresh's path (on the process's
    /// cookie-store writer thread), then releases `lock`. ``refresh()`` waits for it; a page's
    /// call and a navigation do not: the cookies are in every store already. Returns whether it
    /// took `lock` over.
    func writeProfileBehind(_ attachment: CookieStoreAttachment, holding lock: any TokenVaultLock) -> Bool {
        guard attachment.releaseSaves() else { return false }
        profileWrite = Task {
            await withCheckedContinuation { continuation in
                attachment.saveBehind {
                    lock.unlock()
                    continuation.resume()
                }
            }
        }
        return true
    }

    /// Takes up the cookies another user of the vault wrote into the shared profile with its
    /// refresh (called under the vault's lock): the native store reloaded from the profile and,
    /// when it holds a valid session cookie, that cookie and its siblings copied into every
    /// page's store. Returns whether it held one.
    func takeUpProfileCookies() async -> Bool {
        reloadCookiesFromStore()
        guard hasValidSessionCookie(in: cookieJar.cookies(for: configuration.sessionURL)) else { return false }
        for store in pageStores { await copyCookies(to: store, for: configuration.sessionURL, overwrite: true) }
        return true
    }

    /// Reloads the native store from its persistent profile (another process wrote it).
    func reloadCookiesFromStore() {
        guard let cookieStore, let loaded = try? cookieStore.load() else { return }
        let now = configuration.now()
        cookieJar.replaceAll(with: loaded.cookies.filter { !$0.isExpired(at: now) })
    }

    // MARK: Navigation

    /// Gets `page` ready to navigate to `url`, called by ``SessionNavigationDelegate`` before
    /// the request leaves: cookies the page's store lost are written back from the native
    /// store, and when the session cookie is missing or expires within
    /// ``SessionConfiguration/refreshMargin`` the session is refreshed first, so the request
    /// carries the new cookies. The page is attached if it was not.
    ///
    /// - Returns: always `NavigationActionPolicy.allow`: a failed refresh lets the server
    ///   answer as it does for a signed-out user.
    @discardableResult
    public func prepareNavigation(to url: URL, in page: any WebView) async -> NavigationActionPolicy {
        preparedNavigationCount += 1
        attach(page)
        do { try start() } catch { return .allow }
        let store = page.httpCookieStore
        // What the page did to its cookies is followed before anything is copied back.
        if !isNativeStore(store) { await store.deliverPendingChanges() }
        if webSignOutPending.load(ordering: .acquiring) || webSignOut != nil { await webSignedOut() }
        await noticeSignOutElsewhere()
        guard isInSessionScope(url) else { return .allow }
        guard !isNativeStore(store) else {
            if hasSession, !hasValidSessionCookie(in: cookieJar.cookies(for: url)) { await refreshBeforeNavigation() }
            return .allow
        }
        await copyCookies(to: store, for: url, overwrite: false)
        guard hasSession else { return .allow }
        if !hasValidSessionCookie(in: await store.cookies(for: url)) {
            await refreshBeforeNavigation()
            await copyCookies(to: store, for: url, overwrite: false)
        }
        return .allow
    }

    /// Waits for `task` to end, or for `limit`, whichever comes first; the task goes on.
    private static func wait(for task: Task<Void, Never>, atMost limit: Duration) async {
        let settled = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let resume = { @Sendable in
            settled.withLock { continuation in
                continuation?.resume()
                continuation = nil
            }
        }
        await withCheckedContinuation { continuation in
            settled.withLock { $0 = continuation }
            Task {
                await task.value
                resume()
            }
            Task {
                try? await Task.sleep(for: limit)
                resume()
            }
        }
    }

    private func refreshBeforeNavigation() async {
        do {
            _ = try await refreshForPages()
        } catch {
            logger.warning("refresh before navigation failed", metadata: ["code": "\(error.code.rawValue)"])
        }
    }

    /// Writes back into every attached page the session cookies its store lost (the
    /// "web store randomly loses its cookies" case).
    public func restoreCookies() async throws(SessionError) {
        try start()
        for store in pageStores {
            await store.deliverPendingChanges()
            await copyCookies(to: store, for: configuration.sessionURL, overwrite: false)
        }
    }

    nonisolated func isInSessionScope(_ url: URL) -> Bool {
        url.host?.lowercased() == configuration.sessionURL.host?.lowercased()
    }

    /// Whether `cookies` hold an unexpired session cookie that lives past the margin.
    nonisolated func hasValidSessionCookie(in cookies: [Cookie]) -> Bool {
        let limit = configuration.now() + configuration.refreshMargin.timeInterval
        return cookies.contains { cookie in
            cookie.name == configuration.webSessionCookieName && !cookie.value.isEmpty
                && (cookie.expiresAt.map { $0 > limit } ?? true)
        }
    }

    /// Copies the cookies the native store would send to `url` into `target` where `target`
    /// lacks them, or (the session cookie, or everything with `overwrite`) holds an older copy
    /// or, for the session cookie, a copy a script wrote.
    func copyCookies(to target: any HTTPCookieStore, for url: URL, overwrite: Bool) async {
        let existing = await target.cookies(for: url)
        let writes = cookiesToCopy(cookieJar.cookies(for: url), into: existing, overwrite: overwrite)
        if !writes.isEmpty { await target.apply(writes) }
    }

    /// The writes ``copyCookies(to:for:overwrite:)`` makes: the native store's `native`
    /// cookies that `existing` (a page store's, for the same URL) lacks or holds an older copy
    /// of (or, the session cookie, a script's copy). Without `overwrite`, a cookie a page wrote
    /// itself that the native store holds as the page left it is not copied where the page's
    /// store lacks it: the page deleted it (``PageWrittenCookies``).
    nonisolated func cookiesToCopy(_ native: [Cookie], into existing: [Cookie], overwrite: Bool) -> [CookieWriteOperation] {
        var writes: [CookieWriteOperation] = []
        let nativeOnly = nativeOnlyCookieNames
        for cookie in native where !nativeOnly.contains(cookie.name) {
            if let mine = existing.first(where: { $0.hasSameIdentity(as: cookie) }) {
                guard mine.value != cookie.value else { continue }
                let newer = (cookie.expiresAt ?? .distantFuture) > (mine.expiresAt ?? .distantFuture)
                // A script cannot write an HttpOnly cookie: a page's session cookie that is not
                // one, where the native one is, is a script's (written while the store had
                // none), and a session cookie without an expiry would otherwise stay for good.
                let written = cookie.isHttpOnly && !mine.isHttpOnly
                guard overwrite || (cookie.name == configuration.webSessionCookieName && (newer || written)) else { continue }
            } else if !overwrite, pageWrittenCookies.isPagesUnchanged(cookie), cookie.name != configuration.webSessionCookieName,
                !ownedCookieNames.names.withLock({ $0.contains(cookie.name) })
            {
                // The page deleted a cookie it wrote (WebKit may not have said so yet).
                continue
            }
            writes.append(.set(cookie))
        }
        return writes
    }
}

extension Duration {
    var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
