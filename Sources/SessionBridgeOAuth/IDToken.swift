public import Foundation

/// A validated OpenID Connect ID token: who signed in, for which client, when.
///
/// Only a token that passed ``IDTokenValidator`` is ever made into an `IDToken`. Its compact
/// form is not kept; `description` shows the subject only.
///
/// ```swift
/// if let idToken = await session.idToken {
///     print(idToken.subject, idToken.claims["email"] ?? "")
/// }
/// ```
public struct IDToken: Sendable, Hashable, CustomStringConvertible {
    /// `iss`.
    public var issuer: String
    /// `sub`: the user's stable id at the issuer.
    public var subject: String
    /// `aud`.
    public var audience: [String]
    /// `exp`.
    public var expiresAt: Date
    /// `iat`.
    public var issuedAt: Date
    /// `nonce`, when the token carries one.
    public var nonce: String?
    /// `azp`, when the token carries one.
    public var authorizedParty: String?
    /// Every claim whose value is a string, a number or a boolean, as text (`email`,
    /// `name`, `auth_time`, …).
    public var claims: [String: String]
    /// The payload as the issuer sent it, for claims of other shapes.
    public var payload: Data

    /// `IDToken(sub: …)`.
    public var description: String { "IDToken(sub: \(subject), iss: \(issuer))" }
}
