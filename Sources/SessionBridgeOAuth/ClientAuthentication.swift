public import Foundation
import JWTKit

/// How a client proves who it is to the token and revocation endpoints (RFC 6749 §2.3,
/// OpenID Connect Core §9, RFC 7523).
///
/// ```swift
/// let auth: ClientAuthentication = .clientSecretBasic(Secret(try String(contentsOfFile: path, encoding: .utf8)))
/// ```
public enum ClientAuthentication: Sendable, CustomStringConvertible {
    /// A public client: `client_id` in the form, no secret.
    case none
    /// HTTP Basic with the form-urlencoded client id and secret (RFC 6749 §2.3.1).
    case clientSecretBasic(Secret)
    /// `client_id` and `client_secret` in the form.
    case clientSecretPost(Secret)
    /// A signed JWT assertion (`client_assertion`, RFC 7523) made with the client's private key.
    case privateKeyJWT(ClientPrivateKey)

    /// The method's registered name: `none`, `client_secret_basic`, `client_secret_post`, `private_key_jwt`.
    public var methodName: String {
        switch self {
        case .none: "none"
        case .clientSecretBasic: "client_secret_basic"
        case .clientSecretPost: "client_secret_post"
        case .privateKeyJWT: "private_key_jwt"
        }
    }

    /// The method's name; never a secret.
    public var description: String { methodName }

    /// Adds the client's credentials to a request to `endpoint`.
    ///
    /// - Parameters:
    ///   - form: the request's form fields; `client_id` and, as the method wants, `client_secret`
    ///     or `client_assertion` are appended.
    ///   - headers: the request's headers, as name and value; `Authorization: Basic` for
    ///     `client_secret_basic` is appended.
    ///   - clientID: the client's id.
    ///   - audience: the assertion's `aud` for `private_key_jwt` (see ``ClientAssertionAudience``).
    public func authenticate(
        form: inout [(String, String)], headers: inout [(String, String)], clientID: String?, audience: String
    ) async throws(OAuthError) {
        switch self {
        case .none:
            if let clientID { form.append(("client_id", clientID)) }
        case .clientSecretBasic(let secret):
            let clientID = try Self.require(clientID, for: self)
            let credentials = FormEncoding.encode(clientID) + ":" + FormEncoding.encode(secret.exposedValue)
            headers.append(("Authorization", "Basic " + Data(credentials.utf8).base64EncodedString()))
        case .clientSecretPost(let secret):
            let clientID = try Self.require(clientID, for: self)
            form.append(("client_id", clientID))
            form.append(("client_secret", secret.exposedValue))
        case .privateKeyJWT(let key):
            let clientID = try Self.require(clientID, for: self)
            let assertion = try await ClientAssertion.sign(clientID: clientID, audience: audience, key: key)
            form.append(("client_id", clientID))
            form.append(("client_assertion_type", ClientAssertion.type))
            form.append(("client_assertion", assertion.exposedValue))
        }
    }

    private static func require(_ clientID: String?, for method: ClientAuthentication) throws(OAuthError) -> String {
        guard let clientID, !clientID.isEmpty else {
            throw OAuthError(.invalidConfiguration, "\(method.methodName) needs a client id")
        }
        return clientID
    }
}

/// The `aud` of a `private_key_jwt` client assertion. Providers disagree on it, and most
/// accept only their own choice.
public enum ClientAssertionAudience: String, Sendable, Hashable, CaseIterable {
    /// The token endpoint's URL, for revocation too: RFC 7523 §3 and OpenID Connect Core §9
    /// (Keycloak, Ory Hydra, Entra ID). The default.
    case tokenEndpoint = "token-endpoint"
    /// The URL of the endpoint the request goes to: the token endpoint's, the revocation
    /// endpoint's (Okta).
    case endpoint
    /// The issuer identifier (Auth0; the IETF's update of RFC 7523); the token endpoint's URL
    /// when no issuer is known.
    case issuer
}

/// A client assertion (RFC 7523 §2.2): `iss` and `sub` are the client id, `aud` as the
/// configuration's ``ClientAssertionAudience`` says, a fresh `jti`, and a one-minute `exp`.
public enum ClientAssertion {
    /// `urn:ietf:params:oauth:client-assertion-type:jwt-bearer`.
    public static let type = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

    /// How long an assertion is valid.
    public static let lifetime: TimeInterval = 60

    struct Claims: JWTPayload {
        var iss: String
        var sub: String
        var aud: String
        var jti: String
        var iat: Int
        var exp: Int

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// Signs an assertion for `clientID` with `key`, addressed to `audience`.
    public static func sign(
        clientID: String, audience: String, key: ClientPrivateKey, now: Date = Date()
    ) async throws(OAuthError) -> Secret {
        let issuedAt = Int(now.timeIntervalSince1970)
        let claims = Claims(
            iss: clientID, sub: clientID, aud: audience, jti: Base64URL.random(byteCount: 18),
            iat: issuedAt, exp: issuedAt + Int(lifetime))
        var header = JWTHeader()
        header.typ = "JWT"
        do {
            return Secret(try await key.signingKeys().sign(claims, kid: key.keyID.map { JWKIdentifier(string: $0) }, header: header))
        } catch {
            throw OAuthError(.invalidConfiguration, "the client assertion could not be signed with the \(key.algorithm.rawValue) key")
        }
    }
}
