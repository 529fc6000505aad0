import Foundation
import Hummingbird

/// The token exchange grant's identifiers (RFC 8693).
enum TokenExchange {
    static let grantType = "urn:ietf:params:oauth:grant-type:token-exchange"
    static let accessTokenType = "urn:ietf:params:oauth:token-type:access_token"
    static let refreshTokenType = "urn:ietf:params:oauth:token-type:refresh_token"
}

extension ServerCore {
    /// `grant_type=urn:ietf:params:oauth:grant-type:token-exchange` (RFC 8693): a valid access
    /// token (`subject_token`, of type `access_token`) buys a session of its own for the same
    /// user, with its own refresh token family; rotating or revoking it never touches the
    /// subject's session. `requested_token_type` may be absent, `access_token` or
    /// `refresh_token`; the answer carries both tokens and `issued_token_type`.
    func exchangeToken(form: [String: String], boundKey: String?) -> Response {
        guard let subject = form["subject_token"], !subject.isEmpty else {
            return self.oauthError("invalid_request", "The subject_token parameter is missing.")
        }
        guard form["subject_token_type"] == TokenExchange.accessTokenType else {
            return self.oauthError("invalid_request", "The subject_token_type must be \(TokenExchange.accessTokenType).")
        }
        let requested = form["requested_token_type"] ?? TokenExchange.accessTokenType
        guard requested == TokenExchange.accessTokenType || requested == TokenExchange.refreshTokenType else {
            return self.oauthError("invalid_request", "The requested_token_type is not supported.")
        }
        let subjectClaims: AccessTokenClaims
        switch self.verifyAccessToken(subject, binding: .any) {
        case .success(let claims): subjectClaims = claims
        case .failure(let rejection): return self.oauthError("invalid_grant", "The subject_token was refused: \(rejection.description)")
        }
        if let bound = subjectClaims.cnf?.jkt, bound != boundKey {
            return self.oauthError("invalid_dpop_proof", "The subject_token is bound to a DPoP key; a proof by that key is required.")
        }
        let now = Date()
        let (sessionID, refreshToken) = self.withState { state in
            state.stats.tokenExchanges += 1
            return state.refreshTokens.startSession(
                username: subjectClaims.sub, lifetime: self.configuration.refreshTokenLifetime, now: now, boundKey: boundKey,
                parentSessionID: subjectClaims.sid)
        }
        let (accessToken, claims) = self.makeAccessToken(username: subjectClaims.sub, sessionID: sessionID, now: now, boundKey: boundKey)
        let tokens = IssuedTokens(
            accessToken: accessToken, refreshToken: refreshToken, claims: claims, expiresIn: self.accessLifetimeSeconds)
        return self.tokenAnswer(tokens, issuedTokenType: requested)
    }
}
