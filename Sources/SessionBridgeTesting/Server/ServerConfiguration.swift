public import HummingbirdTLS
public import Logging

/// Configuration for a ``ReferenceServer``.
///
/// The defaults describe a realistic backend: one demo account (`demo` / `demo`), five-minute
/// access tokens, thirty-day refresh tokens, bound to a random port on the loopback interface.
///
/// ```swift
/// var configuration = ReferenceServerConfiguration()
/// configuration.accessTokenLifetime = .seconds(1)
/// let server = try await ReferenceServer.start(configuration)
/// ```
public struct ReferenceServerConfiguration: Sendable {
    /// Username of the single demo account.
    public var username: String
    /// Password of the single demo account.
    public var password: String
    /// Display name returned by `GET /api/me`.
    public var displayName: String
    /// Lifetime of access tokens (the JWT and the `__Host-session` cookie). Sub-second parts are
    /// rounded up to whole seconds, because JWT `exp` and cookie `Max-Age` are in seconds.
    public var accessTokenLifetime: Duration
    /// Lifetime of a refresh token family (a session), counted from each rotation.
    public var refreshTokenLifetime: Duration
    /// How long a rotated refresh token may be presented again without being taken for theft:
    /// while the token it was rotated into is unused, the server answers with that same
    /// successor; once it was used, with a plain `invalid_grant` that revokes nothing. This is the grace period real providers offer (Okta's
    /// "grace period for token rotation", Auth0's "reuse interval", Ory Hydra's
    /// `refresh_token_rotation_grace_period`) so a client whose answer was lost can ask again.
    /// Zero (the default) is the strictest server: any second use revokes the family.
    public var refreshTokenReuseGrace: Duration
    /// Host to bind to.
    public var host: String
    /// Port to bind to; `0` picks a free port.
    public var port: Int
    /// Faults injected from the start. Change them later with ``ReferenceServer/setFaults(_:)``.
    public var faults: FaultConfiguration
    /// Whether `GET /debug/stats` answers with the counters of ``ServerStats``.
    public var exposeDebugStats: Bool
    /// When set, the token endpoint requires this `client_id` (form field or HTTP Basic user)
    /// and answers `invalid_client` otherwise. `nil` accepts any client.
    public var clientID: String?
    /// Whether a successful `POST /oauth/token` also sets the `__Host-web_refresh` cookie
    /// holding the new refresh token. Off by default: the native side owns the refresh token.
    /// Turn it on to reproduce a backend whose web app refreshes by itself, where native and
    /// web refreshes of one family corrupt the session.
    public var tokenEndpointSetsWebRefreshCookie: Bool
    /// Registered clients. When not empty, the token and revocation endpoints authenticate
    /// every request as its client registered (``RegisteredClient/Authentication``), and the
    /// authorization endpoint accepts only these clients and their redirect URIs. Empty (the
    /// default): any client, or none, as ``clientID`` says.
    public var clients: [RegisteredClient]
    /// Whether each refresh rotates the refresh token (the default). Off, a refresh answers
    /// without `refresh_token` and the same token stays valid, as Google and non-rotating Auth0
    /// tenants do.
    public var rotatesRefreshTokens: Bool
    /// The algorithm ID tokens are signed with; the public key is published at `/oauth/jwks`.
    public var idTokenAlgorithm: IDTokenAlgorithm
    /// Whether the token endpoint's answers set the web session's cookies (the default, the
    /// reference server's own shortcut). Off, the token endpoint answers JSON only, as identity
    /// providers do (RFC 6749 §5.1): the page gets its session from `POST /session/exchange`.
    public var tokenEndpointSetsCookies = true
    /// Whether DPoP proofs must carry the server's nonce (RFC 9449 §8, §9): a proof without it
    /// is answered `use_dpop_nonce` with a `DPoP-Nonce`. Proofs are checked and tokens bound
    /// whenever a client sends one, nonce or not.
    public var dpopNonces = false
    /// How far a DPoP proof's `iat` may be from the server's clock, either way.
    public var dpopProofWindow: Duration = .seconds(60)
    /// Protocol faults from the start. Change them later with ``ReferenceServer/setOAuthFaults(_:)``.
    public var oauthFaults: OAuthFaults
    /// Logger used by the server. Token values are never logged.
    public var logger: Logger
    /// When set, the server speaks HTTPS with this configuration (its ``ReferenceServer/baseURL``
    /// is `https://`). Its `Secure` cookies then reach engines that send them only over HTTPS,
    /// as WebKit does.
    public var tlsConfiguration: TLSConfiguration? = nil

    /// Create a configuration.
    public init(
        username: String = "demo",
        password: String = "demo",
        displayName: String = "Demo User",
        accessTokenLifetime: Duration = .seconds(300),
        refreshTokenLifetime: Duration = .seconds(30 * 24 * 3600),
        refreshTokenReuseGrace: Duration = .zero,
        host: String = "127.0.0.1",
        port: Int = 0,
        faults: FaultConfiguration = .none,
        exposeDebugStats: Bool = true,
        clientID: String? = nil,
        tokenEndpointSetsWebRefreshCookie: Bool = false,
        clients: [RegisteredClient] = [],
        rotatesRefreshTokens: Bool = true,
        idTokenAlgorithm: IDTokenAlgorithm = .es256,
        oauthFaults: OAuthFaults = .none,
        logger: Logger? = nil
    ) {
        self.username = username
        self.password = password
        self.displayName = displayName
        self.accessTokenLifetime = accessTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
        self.refreshTokenReuseGrace = refreshTokenReuseGrace
        self.host = host
        self.port = port
        self.faults = faults
        self.exposeDebugStats = exposeDebugStats
        self.clientID = clientID
        self.tokenEndpointSetsWebRefreshCookie = tokenEndpointSetsWebRefreshCookie
        self.clients = clients
        self.rotatesRefreshTokens = rotatesRefreshTokens
        self.idTokenAlgorithm = idTokenAlgorithm
        self.oauthFaults = oauthFaults
        if let logger {
            self.logger = logger
        } else {
            var logger = Logger(label: "SessionBridgeTesting.ReferenceServer")
            logger.logLevel = .warning
            self.logger = logger
        }
    }
}

extension ReferenceServerConfiguration {
    /// `https` when the server speaks TLS, `http` otherwise.
    var scheme: String { tlsConfiguration == nil ? "http" : "https" }
}

extension Duration {
    /// Whole seconds, rounded up, at least 1.
    var wholeSecondsRoundedUp: Int {
        let (seconds, attoseconds) = self.components
        let whole = Int(seconds) + (attoseconds > 0 ? 1 : 0)
        return max(whole, 1)
    }
}
