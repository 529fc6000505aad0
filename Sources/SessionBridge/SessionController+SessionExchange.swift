import Foundation
import Logging
import SessionBridgeOAuth

extension SessionController {
    // MARK: Session exchange

    /// Keeps a sign-in's or refresh's access token in memory and marks the web session as
    /// still to be exchanged for it (when an exchange is configured).
    func acceptAccessToken(_ token: Secret?, type: String = "bearer", expiresAt: Date?) {
        accessToken = token
        accessTokenIsDPoP = type.lowercased() == "dpop"
        accessTokenExpiry = expiresAt
        exchangePending = !isIsolated && configuration.sessionExchange != nil && token != nil
    }

    /// Drops the access token (the session ended).
    func forgetAccessToken() {
        accessToken = nil
        accessTokenExpiry = nil
        exchangePending = false
    }

    /// Whether the access token in memory is valid past ``SessionConfiguration/refreshMargin``.
    var hasFreshAccessToken: Bool {
        guard accessToken != nil else { return false }
        return accessTokenExpiry.map { $0 > configuration.now() + configuration.refreshMargin.timeInterval } ?? true
    }

    /// Whether a refresh only has to repeat a failed session exchange: the tokens it would
    /// bring are the ones in memory, still fresh, so the refresh token is not spent again.
    var canRepeatExchangeOnly: Bool { exchangePending && hasFreshAccessToken }

    /// Calls the configured ``SessionExchange`` with the access token and applies every
    /// `Set-Cookie` of its answer (deletions included) to the native store and every attached
    /// page; returns when every store has them. Does nothing when no exchange is configured
    /// or the current tokens were already exchanged.
    ///
    /// - Throws: ``SessionError`` as a failed refresh reports it: ``SessionError/Code/network``
    ///   or ``SessionError/Code/serverError`` (retryable; the next refresh repeats only the
    ///   exchange while the access token is fresh), ``SessionError/Code/invalidResponse``.
    func exchangeWebSession() async throws(SessionError) {
        guard let exchange = configuration.sessionExchange else { return }
        let credential: AccessCredential
        if isIsolated {
            // The page session's token buys the page's cookies; the native token never does.
            guard pageExchangePending, let pageSession else { return }
            credential = AccessCredential(token: pageSession.accessToken, isDPoP: pageSession.isDPoP)
        } else {
            guard exchangePending else { return }
            guard let accessToken else {
                throw SessionError(.invalidResponse, "the token endpoint issued no access token to exchange for a web session")
            }
            credential = AccessCredential(token: accessToken, isDPoP: accessTokenIsDPoP)
        }
        let client = SessionExchangeClient(exchange: exchange, client: configuration.httpClient, timeout: configuration.requestTimeout)
        let lines: [String]
        do {
            lines = try await client.setCookies(
                for: credential.token,
                authorization: { self.authorizationFields(for: credential, method: exchange.method, url: exchange.url) },
                needsNonceRetry: { status, headers in
                    credential.isDPoP && status == 401 && self.needsDPoPNonceRetry(status: status, headers: headers, from: exchange.url)
                })
        } catch {
            logger.warning("the session exchange failed", metadata: ["code": "\(error.code.rawValue)"])
            throw error
        }
        await applySetCookies(lines, from: exchange.url)
        if isIsolated { pageExchangePending = false } else { exchangePending = false }
        logger.debug("exchanged the access token for a web session", metadata: ["cookies": "\(lines.count)"])
    }
}
