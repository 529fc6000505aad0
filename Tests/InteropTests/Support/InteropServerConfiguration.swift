import Foundation

/// How to run the interop authorization server: its switches, and the credentials of its users
/// and confidential clients, chosen at random for every run so that none is committed.
struct InteropServerConfiguration: Sendable {
    /// Whether a refresh answer carries a new refresh token (the toolkit's default) or none, so
    /// that the client keeps the one it has.
    var rotatesRefreshTokens = true
    /// Lifetime of the access tokens the server issues, in seconds.
    var accessTokenLifetime = 3600
    /// Grant types the server answers with `unsupported_grant_type`.
    var disabledGrantTypes: [String] = []
    /// The redirect URIs registered for the authorization-code client.
    var redirectURIs = ["com.example.sessionbridge:/oauth/callback"]

    /// The one user.
    var username = "alice"
    var password = InteropServerConfiguration.randomSecret()
    /// Secrets of the `client_secret_basic` and `client_secret_post` clients.
    var basicClientSecret = InteropServerConfiguration.randomSecret()
    var postClientSecret = InteropServerConfiguration.randomSecret()

    /// The launcher's environment for this configuration.
    var environment: [String: String] {
        [
            "INTEROP_USERNAME": self.username,
            "INTEROP_USER_PASSWORD": self.password,
            "INTEROP_SECRET_BASIC": self.basicClientSecret,
            "INTEROP_SECRET_POST": self.postClientSecret,
            "INTEROP_ROTATE_REFRESH_TOKENS": self.rotatesRefreshTokens ? "1" : "0",
            "INTEROP_ACCESS_TOKEN_LIFETIME": String(self.accessTokenLifetime),
            "INTEROP_DISABLED_GRANT_TYPES": self.disabledGrantTypes.joined(separator: " "),
            "INTEROP_REDIRECT_URIS": self.redirectURIs.joined(separator: " "),
        ]
    }

    static func randomSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<24).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}

/// The clients the server registers (see `Tests/Interop/oauth-server/interop_server/fixtures.py`).
enum InteropClient {
    /// A public client allowed the password grant (and refresh).
    static let publicClient = "interop-public"
    /// A confidential client that authenticates with HTTP Basic.
    static let basicClient = "interop-basic"
    /// A confidential client that authenticates with its secret in the form.
    static let postClient = "interop-post"
    /// A public native client of the authorization code flow with PKCE; consent is skipped.
    static let codeClient = "interop-code"
}
