import AsyncHTTPClient
public import Foundation

/// A grant sent to the token endpoint (RFC 6749 §4, §6).
public enum TokenGrant: Sendable {
    /// `authorization_code` with its PKCE verifier and redirect URI.
    case authorizationCode(code: Secret, codeVerifier: Secret, redirectURI: URL)
    /// `refresh_token`.
    case refreshToken(Secret)
    /// `password`, the resource owner password credentials grant: for tests and demos only.
    case password(username: String, password: Secret)
    /// `urn:ietf:params:oauth:grant-type:token-exchange` (RFC 8693): a new token for
    /// `subjectToken`, of `requestedTokenType` when given.
    case tokenExchange(subjectToken: Secret, subjectTokenType: String = TokenType.accessToken, requestedTokenType: String? = nil)

    /// The token type identifiers of RFC 8693 §3.
    public enum TokenType {
        /// `urn:ietf:params:oauth:token-type:access_token`.
        public static let accessToken = "urn:ietf:params:oauth:token-type:access_token"
        /// `urn:ietf:params:oauth:token-type:refresh_token`.
        public static let refreshToken = "urn:ietf:params:oauth:token-type:refresh_token"
    }

    /// `urn:ietf:params:oauth:grant-type:token-exchange`.
    public static let tokenExchangeGrantType = "urn:ietf:params:oauth:grant-type:token-exchange"

    /// The `grant_type`.
    public var grantType: String {
        switch self {
        case .authorizationCode: "authorization_code"
        case .refreshToken: "refresh_token"
        case .password: "password"
        case .tokenExchange: Self.tokenExchangeGrantType
        }
    }

    /// The grant's own form fields.
    var fields: [(String, String)] {
        switch self {
        case .authorizationCode(let code, let verifier, let redirectURI):
            [
                ("grant_type", grantType), ("code", code.exposedValue), ("redirect_uri", redirectURI.absoluteString),
                ("code_verifier", verifier.exposedValue),
            ]
        case .refreshToken(let token):
            [("grant_type", grantType), ("refresh_token", token.exposedValue)]
        case .password(let username, let password):
            [("grant_type", grantType), ("username", username), ("password", password.exposedValue)]
        case .tokenExchange(let subject, let subjectType, let requested):
            [("grant_type", grantType), ("subject_token", subject.exposedValue), ("subject_token_type", subjectType)]
                + (requested.map { [("requested_token_type", $0)] } ?? [])
        }
    }
}
