import AsyncHTTPClient
import Foundation

/// A grant sent to the token endpoint (RFC 6749 §4, §6).
public enum TokenGrant: Sendable {
    /// `authorization_code` with its PKCE verifier and redirect URI.
    case authorizationCode(code: Secret, codeVerifier: Secret, redirectURI: URL)
    /// `refresh_token`.
    case refreshToken(Secret)
    /// `password`, the resource owner password credentials grant: for tests and demos only.
    case password(username: String, password: Secret)

    /// The `grant_type`.
    public var grantType: String {
        switch self {
        case .authorizationCode: "authorization_code"
        case .refreshToken: "refresh_token"
        case .password: "password"
        }
    }

    /// The grant's own form fields.
    var fields: [(String, String)] {
        switch self {
        case .authorizationCode(let code, let verifier, let redirectURI):
            [("grant_type", grantType), ("code", code.exposedValue), ("redirect_uri", redirectURI.absoluteString),
             ("code_verifier", verifier.exposedValue)]
        case .refreshToken(let token):
            [("grant_type", grantType), ("refresh_token", token.exposedValue)]
        case .password(let username, let password):
            [("grant_type", grantType), ("username", username), ("password", password.exposedValue)]
        }
    }
}
