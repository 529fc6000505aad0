import Foundation
import Logging
import SessionBridgeOAuth

extension SessionController {
    // MARK: Authorization code + PKCE

    /// Signs in with the authorization code flow and PKCE (RFC 6749 §4.1, RFC 7636), as
    /// AppAuth does for a native app: the authorization URL (with a fresh `state`, `nonce` and
    /// `S256` challenge) goes to `userAgent`, which returns the navigation to the redirect URI;
    /// its `iss` (RFC 9207) and `state` are checked, the code is exchanged with the client's
    /// authentication, the ID token (when the answer has one) is validated against the
    /// issuer's keys and the nonce, and only then are the refresh token stored and the
    /// cookies applied.
    ///
    /// ```swift
    /// try await session.signIn(with: FormFillingUserAgent(username: "demo", password: Secret("demo")))
    /// print(await session.idToken?.subject ?? "")
    /// ```
    ///
    /// - Throws: ``SessionError``: ``SessionError/Code/invalidResponse`` when a check fails
    ///   (issuer, state, `iss`, ID token), ``SessionError/Code/accessDenied`` when the user or
    ///   the server refused, a configuration code (`invalid_client`, …,
    ///   ``SessionError/Code/invalidConfiguration``), ``SessionError/Code/network``. On any
    ///   failure the vault and the cookie stores are unchanged.
    @discardableResult
    public func signIn(with userAgent: some AuthorizationUserAgent) async throws(SessionError) -> SessionStatus {
        try start()
        let oauth = client.oauth
        let request: AuthorizationRequest
        do {
            request = try await oauth.makeAuthorizationRequest()
        } catch {
            throw SessionError(error)
        }
        let callback: URL
        do {
            callback = try await userAgent.authorize(request.url, redirectURI: request.redirectURI)
        } catch let error as OAuthError {
            throw SessionError(error)
        } catch let error as SessionError {
            throw error
        } catch {
            throw SessionError(.accessDenied, "the sign-in was not completed: \(error)")
        }
        let code: String
        do {
            code = try request.authorizationCode(from: callback)
        } catch {
            logger.warning("the sign-in answer was refused", metadata: ["code": "\(error.code.rawValue)"])
            var refusal = SessionError(error)
            // The authorization server's own reason (`error_description`) came in the callback's
            // URL, which the user agent showed; it names no secret of the client's.
            if let reason = error.serverDescription, !reason.isEmpty { refusal.message += ": \(reason)" }
            throw refusal
        }
        let response = try await client.requestTokens(
            .authorizationCode(code: Secret(code), codeVerifier: request.codeVerifier, redirectURI: request.redirectURI))
        try await beginSession(with: response, nonce: request.nonce)
        logger.info("signed in with the authorization code flow")
        return currentStatus
    }

    // MARK: ID tokens

    /// Validates a sign-in's ID token, if the answer carried one.
    func validateIDToken(_ token: Secret?, nonce: String?) async throws(SessionError) -> IDToken? {
        guard let token else { return nil }
        do {
            return try await client.oauth.validateIDToken(token, nonce: nonce)
        } catch {
            logger.warning("the ID token was refused", metadata: ["code": "\(error.code.rawValue)"])
            throw SessionError(error)
        }
    }

    /// Takes a refresh answer's ID token, checked after the refresh was stored. A token that
    /// fails validation is ignored (with a warning) rather than failing the refresh: the
    /// server has already rotated the refresh token, and dropping the answer would lose the
    /// session. A token checked after its session ended (`generation` passed) is dropped.
    func acceptRefreshedIDToken(_ token: Secret, generation: UInt64) async {
        do {
            let validated = try await client.oauth.validateIDToken(token, nonce: nil)
            guard generation == sessionGeneration else { return }
            // The user the session was signed in as: this process's ID token's, or the one the
            // vault kept from the sign-in (another process's, `login`'s).
            if let subject = idToken?.subject ?? record?.subject, subject != validated.subject {
                logger.warning("the refreshed ID token names another user; its claims were ignored")
                return
            }
            if let previous = idToken, previous.issuer != validated.issuer {
                logger.warning("the refreshed ID token names another issuer; its claims were ignored")
                return
            }
            idToken = validated
        } catch {
            logger.warning("the refreshed ID token was refused; its claims were ignored", metadata: ["code": "\(error.code.rawValue)"])
        }
    }
}

extension SessionError {
    /// A sign-in answered without a refresh token.
    static let noRefreshToken = SessionError(
        .invalidConfiguration, "no refresh token was issued: most providers issue one only with the offline_access scope")
}
