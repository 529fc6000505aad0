import AsyncHTTPClient
import Bridge
import Foundation
import Logging
import WebPage

/// How a ``SessionController`` reaches its server and when it refreshes.
///
/// ```swift
/// var configuration = SessionConfiguration(server: URL(string: "https://auth.example")!)
/// configuration.refreshMargin = .seconds(60)
/// let session = SessionController(configuration: configuration, vault: FileTokenVault(url: vaultURL))
/// ```
public struct SessionConfiguration: Sendable {
    /// The OAuth 2.0 token endpoint (`grant_type=password` and `refresh_token`).
    public var tokenEndpoint: URL
    /// The RFC 7009 revocation endpoint; `nil` skips revocation on logout.
    public var revocationEndpoint: URL?
    /// The `client_id` sent with every grant, if the server wants one.
    public var clientID: String?
    /// The cookie that carries the access token (`__Host-session` by default): its absence or
    /// near expiry in a page's store makes a navigation refresh first.
    public var sessionCookieName: String
    /// Further cookie names that belong to the session and are deleted when it ends (the
    /// names the token endpoint sets are added automatically).
    public var sessionCookieNames: Set<String>
    /// The origin whose navigations carry the session; others are let through untouched.
    /// Defaults to the token endpoint's origin.
    public var sessionURL: URL
    /// A navigation refreshes when the session cookie expires within this margin.
    public var refreshMargin: Duration
    /// Callers arriving this soon after a refresh finished get its result without a request.
    public var freshnessWindow: Duration
    /// How long one token-endpoint request may take.
    public var requestTimeout: Duration
    /// How failed token-endpoint requests are retried.
    public var retry: RetryPolicy
    /// How long the server accepts a refresh token again after rotating it, as long as the
    /// token it issued in its place is unused (Okta's rotation grace period, Auth0's reuse
    /// interval, Ory Hydra's `refresh_token_rotation_grace_period`,
    /// the reference server's `refreshTokenReuseGrace`).
    ///
    /// When a refresh fails after its request was sent (a timeout, a connection lost mid-answer,
    /// an unreadable answer) the server may already have rotated the token. Within this grace
    /// the refresh is asked again with the same token and the server answers with the same
    /// rotation, so nothing is lost. Zero (the default, for servers without a grace) never
    /// sends it again in that refresh: the failure is reported as retryable with the vault
    /// unchanged, and if the server had rotated the token, the next refresh is refused as
    /// reuse and the session ends (`invalid_grant`), as with any revoked session.
    public var refreshTokenReuseGrace: Duration
    /// The longest wait for the vault lock another process holds.
    public var vaultLockTimeout: Duration
    /// The HTTP client; it must not follow redirects. Defaults to ``defaultHTTPClient``.
    ///
    /// Give it a client of its own: a token answer must never travel on a connection that
    /// page traffic shares.
    public var httpClient: HTTPClient
    /// Where the controller logs; tokens are never logged.
    public var logger: Logger

    /// The client token requests use unless configured otherwise: its own connection pool,
    /// never shared with pages (not ``WebPage/defaultHTTPClient``), and no redirects.
    public static let defaultHTTPClient = HTTPClient(
        eventLoopGroupProvider: .singleton,
        configuration: HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10), read: .seconds(30))))

    /// Creates a configuration for explicit endpoints.
    public init(
        tokenEndpoint: URL,
        revocationEndpoint: URL? = nil,
        clientID: String? = nil,
        sessionCookieName: String = "__Host-session",
        sessionCookieNames: Set<String> = [],
        sessionURL: URL? = nil,
        refreshMargin: Duration = .seconds(30),
        freshnessWindow: Duration = .seconds(2),
        requestTimeout: Duration = .seconds(10),
        retry: RetryPolicy = RetryPolicy(),
        refreshTokenReuseGrace: Duration = .zero,
        vaultLockTimeout: Duration = .seconds(30),
        httpClient: HTTPClient = SessionConfiguration.defaultHTTPClient,
        logger: Logger = Logger(label: "sessionbridge.session")
    ) {
        self.tokenEndpoint = tokenEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.clientID = clientID
        self.sessionCookieName = sessionCookieName
        self.sessionCookieNames = sessionCookieNames
        self.sessionURL = sessionURL ?? URL(string: "/", relativeTo: tokenEndpoint)!.absoluteURL
        self.refreshMargin = refreshMargin
        self.freshnessWindow = freshnessWindow
        self.requestTimeout = requestTimeout
        self.retry = retry
        self.refreshTokenReuseGrace = refreshTokenReuseGrace
        self.vaultLockTimeout = vaultLockTimeout
        self.httpClient = httpClient
        self.logger = logger
    }

    /// A configuration for a server with the usual paths: `/oauth/token` and `/oauth/revoke`.
    public init(server baseURL: URL) {
        self.init(
            tokenEndpoint: URL(string: "/oauth/token", relativeTo: baseURL)!.absoluteURL,
            revocationEndpoint: URL(string: "/oauth/revoke", relativeTo: baseURL)!.absoluteURL)
    }
}

/// What a page or the app may know about the session: never a token.
public struct SessionStatus: Sendable, Hashable {
    /// Whether there is a session.
    public var isSignedIn: Bool
    /// When the current access token expires, if known.
    public var accessTokenExpiresAt: Date?

    /// Creates a status.
    public init(isSignedIn: Bool, accessTokenExpiresAt: Date?) {
        self.isSignedIn = isSignedIn
        self.accessTokenExpiresAt = accessTokenExpiresAt
    }

    /// `{ok: true, signedIn, expiresAt}` with `expiresAt` in milliseconds since the epoch.
    public var scriptValue: ScriptValue {
        [
            "ok": true, "signedIn": .bool(isSignedIn),
            "expiresAt": accessTokenExpiresAt.map { .number(($0.timeIntervalSince1970 * 1000).rounded()) } ?? .null,
        ]
    }
}
