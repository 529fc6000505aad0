import Foundation

/// A client registered with the ``ReferenceServer``: how it authenticates, where it may be
/// redirected, which grants it may use.
///
/// ```swift
/// var configuration = ReferenceServerConfiguration()
/// configuration.clients = [
///     RegisteredClient(id: "web", authentication: .clientSecretBasic(secret: "s3cr3t"),
///                      redirectURIs: ["com.example.app:/callback"]),
/// ]
/// ```
public struct RegisteredClient: Sendable, Hashable {
    /// How the client authenticates at the token and revocation endpoints.
    public enum Authentication: Sendable, Hashable {
        /// A public client: `client_id` only.
        case none
        /// HTTP Basic with the form-urlencoded id and secret.
        case clientSecretBasic(secret: String)
        /// `client_secret` in the form.
        case clientSecretPost(secret: String)
        /// A signed `client_assertion` (RFC 7523), checked with this PEM public key (P-256 or RSA).
        case privateKeyJWT(publicKeyPEM: String)

        /// The registered method name.
        public var methodName: String {
            switch self {
            case .none: "none"
            case .clientSecretBasic: "client_secret_basic"
            case .clientSecretPost: "client_secret_post"
            case .privateKeyJWT: "private_key_jwt"
            }
        }
    }

    /// The `client_id`.
    public var id: String
    /// How it authenticates.
    public var authentication: Authentication
    /// The exact redirect URIs the authorization endpoint accepts.
    public var redirectURIs: [String]
    /// The grant types it may use; others are refused with `unauthorized_client`.
    public var grantTypes: Set<String>

    /// Registers a client.
    public init(
        id: String, authentication: Authentication = .none, redirectURIs: [String] = [],
        grantTypes: Set<String> = ["authorization_code", "refresh_token", "password"]
    ) {
        self.id = id
        self.authentication = authentication
        self.redirectURIs = redirectURIs
        self.grantTypes = grantTypes
    }
}
