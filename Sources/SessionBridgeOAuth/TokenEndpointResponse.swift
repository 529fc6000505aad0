public import Foundation

/// A successful token answer (RFC 6749 §5.1), read as AppAuth and oauth4webapi read it:
/// `token_type` compared without case, `expires_in` as a number or a numeric string, unknown
/// members ignored. Tokens are ``Secret``s.
public struct TokenEndpointResponse: Sendable {
    /// `access_token`.
    public var accessToken: Secret
    /// `token_type`, lowercased (`bearer`, `dpop`, …).
    public var tokenType: String
    /// `expires_in`, when the server gave a usable one.
    public var expiresIn: Duration?
    /// `refresh_token`; `nil` when the server did not rotate it (RFC 6749 §6 allows that: keep
    /// the one you have).
    public var refreshToken: Secret?
    /// `id_token`, not yet validated.
    public var idToken: Secret?
    /// `scope`, when the server granted another scope than asked.
    public var scope: String?

    /// Creates an answer.
    public init(
        accessToken: Secret, tokenType: String, expiresIn: Duration? = nil, refreshToken: Secret? = nil,
        idToken: Secret? = nil, scope: String? = nil
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType.lowercased()
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.scope = scope
    }

    /// Reads a `200` answer's JSON body.
    ///
    /// - Throws: ``OAuthError`` with ``OAuthError/Code/invalidResponse`` when the body is not a
    ///   JSON object or lacks `access_token` or `token_type`.
    public init(json data: Data) throws(OAuthError) {
        guard let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw OAuthError(.invalidResponse, "the token endpoint answered without a readable token")
        }
        guard let access = json["access_token"] as? String, !access.isEmpty else {
            throw OAuthError(.invalidResponse, "the token endpoint's answer has no access_token")
        }
        guard let type = json["token_type"] as? String, !type.isEmpty else {
            throw OAuthError(.invalidResponse, "the token endpoint's answer has no token_type")
        }
        let refresh = (json["refresh_token"] as? String).flatMap { $0.isEmpty ? nil : Secret($0) }
        let idToken = (json["id_token"] as? String).flatMap { $0.isEmpty ? nil : Secret($0) }
        self.init(
            accessToken: Secret(access), tokenType: type, expiresIn: Self.expiresIn(json["expires_in"]),
            refreshToken: refresh, idToken: idToken, scope: json["scope"] as? String)
    }

    /// `expires_in` as a JSON number or a numeric string (some servers quote it); anything else,
    /// a negative or an absurd value, is unknown.
    static func expiresIn(_ value: Any?) -> Duration? {
        let seconds: Double?
        if let number = value as? NSNumber {
            seconds = number.doubleValue
        } else if let text = value as? String {
            seconds = Double(text.trimmingCharacters(in: .whitespaces))
        } else {
            seconds = nil
        }
        guard let seconds, seconds.isFinite, seconds >= 0, seconds < 100 * 365 * 86_400 else { return nil }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
