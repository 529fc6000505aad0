import Foundation
import Logging
import SessionBridgeOAuth

/// The page's own session of an ``IsolatedWebSession``, in memory only.
struct PageSessionTokens: Sendable {
    var accessToken: Secret
    var isDPoP: Bool
    var expiresAt: Date?
    /// `nil` when the server issued none: the next page refresh exchanges again.
    var refreshToken: Secret?
}

extension SessionController {
    // MARK: Isolated web session

    /// Whether the pages have a session of their own (``SessionConfiguration/isolatedWebSession``).
    var isIsolated: Bool { configuration.isolatedWebSession != nil }

    /// Refreshes the native session: its refresh token, its access token for
    /// ``SessionHTTPClient`` and the session exchange. Without an ``IsolatedWebSession`` it
    /// is ``refresh()``; with one, it never touches the page session, and the pages' refreshes
    /// never touch it. Single-flight like ``refresh()``.
    @discardableResult
    public func refreshNativeSession() async throws(SessionError) -> SessionStatus {
        guard isIsolated else { return try await refresh() }
        try start()
        if let nativeInFlight { return try await nativeInFlight.value.get() }
        if record == nil {
            record = (try? vault.load()) ?? nil
            guard record != nil else { throw SessionError.signedOut }
        }
        let task = Task { () -> Result<SessionStatus, SessionError> in
            let (result, reason) = await self.refreshUnderVaultLock()
            self.publish()
            if let reason { await self.notifySignedOut(reason: reason) }
            self.nativeInFlight = nil
            return result
        }
        nativeInFlight = task
        return try await task.value.get()
    }

    /// One refresh of the page session: its own refresh token, or a new exchange when it has
    /// none or the server ended it. The native refresh token is spent only when the native
    /// access token has expired and an exchange needs a valid one.
    func refreshPageSession() async -> (Result<SessionStatus, SessionError>, signedOutReason: String?) {
        if let pageSession, let token = pageSession.refreshToken {
            networkRefreshCount += 1
            let generation = sessionGeneration
            do {
                let response = try await client.requestTokens(.refreshToken(token), repeatableWithinGrace: true)
                guard generation == sessionGeneration else {
                    // The session ended while the request was out: the answer is not kept.
                    if let rotated = response.refreshToken { await client.revoke(rotated) }
                    return (.failure(SessionError.signedOut), nil)
                }
                try await acceptPageSession(response, keeping: token)
                logger.debug("refreshed the page session")
                return (.success(currentStatus), nil)
            } catch  where error.code == .invalidGrant {
                logger.notice("the server ended the page session; exchanging again")
                self.pageSession = nil
            } catch {
                return (.failure(error), nil)
            }
        }
        do {
            try await exchangeForPageSession()
            return (.success(currentStatus), nil)
        } catch {
            return (.failure(error), error.code == .signedOut ? "signed_out" : nil)
        }
    }

    /// Obtains a page session by token exchange from the native access token (refreshing the
    /// native session first when that token has expired), and applies its cookies.
    func exchangeForPageSession() async throws(SessionError) {
        guard let isolated = configuration.isolatedWebSession else { return }
        if !hasFreshAccessToken { try await refreshNativeSession() }
        guard let subject = accessToken else {
            throw SessionError(.invalidResponse, "the token endpoint issued no access token to exchange for a page session")
        }
        let response: TokenResponse
        do {
            response = try await client.requestTokens(
                .tokenExchange(
                    subjectToken: subject, subjectTokenType: TokenGrant.TokenType.accessToken,
                    requestedTokenType: isolated.requestedTokenType))
        } catch {
            logger.warning("the token exchange for a page session failed", metadata: ["code": "\(error.code.rawValue)"])
            throw error
        }
        try await acceptPageSession(response, keeping: nil)
        logger.debug("exchanged the native access token for a page session")
    }

    /// Makes a token answer the page session: its tokens kept in memory, its cookies applied
    /// to the native store and every page, the web product's session exchanged with its token.
    func acceptPageSession(_ response: TokenResponse, keeping previous: Secret?) async throws(SessionError) {
        guard let accessToken = response.accessToken else {
            throw SessionError(.invalidResponse, "the token endpoint issued no access token for the page session")
        }
        pageSession = PageSessionTokens(
            accessToken: accessToken, isDPoP: response.tokenType == "dpop", expiresAt: response.accessTokenExpiresAt,
            refreshToken: response.refreshToken.map { Secret($0.withRevealedValue { $0 }) } ?? previous)
        await applySetCookies(response.setCookies)
        pageExchangePending = configuration.sessionExchange != nil
        try await exchangeWebSession()
    }

    /// Ends the page session of an ``IsolatedWebSession``: its refresh token revoked at the
    /// server, its cookies deleted from the native store and every page. The native session
    /// goes on; when its access token has expired, native code refreshes it.
    public func endWebSession() async {
        guard isIsolated else { return }
        if let inFlight { _ = await inFlight.value }
        let ended = pageSession
        pageSession = nil
        pageExchangePending = false
        let names = sessionCookieNames
        cookieJar.write(sessionCookieDeletions(in: cookieJar.allCookies, names: names))
        for store in pageStores {
            await store.apply(sessionCookieDeletions(in: await store.allCookies(), names: names))
        }
        // The pages' next refresh exchanges a new page session, not the freshness window's
        // answer of the session just ended.
        lastRefresh = nil
        publish()
        if let token = ended?.refreshToken { await client.revoke(RefreshToken(token.exposedValue)) }
        logger.info("the page session ended; the native session goes on")
        if record != nil, !hasFreshAccessToken {
            do { try await refreshNativeSession() } catch {
                logger.warning("the native refresh after the page session failed", metadata: ["code": "\(error.code.rawValue)"])
            }
        }
    }
}
