public import AsyncHTTPClient
public import Foundation
public import Logging
import NIOCore
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeOAuth

/// How a ``SessionController`` reaches its server and when it refreshes.
///
/// ```swift
/// var configuration = SessionConfiguration(server: URL(string: "https://auth.example")!)
/// configuration.refreshMargin = .seconds(60)
/// let session = SessionController(configuration: configuration, vault: FileTokenVault(url: vaultURL))
/// ```
///
/// For an identity provider, name its issuer (the endpoints come from its discovery document)
/// and the client it registered:
///
/// ```swift
/// var configuration = SessionConfiguration(
///     issuer: URL(string: "https://sso.example/realms/app")!, clientID: "app",
///     redirectURI: URL(string: "com.example.app:/callback")!, sessionURL: URL(string: "https://app.example")!)
/// configuration.scope = "openid offline_access"
/// configuration.clientAuthentication = .clientSecretBasic(Secret(secret))
/// ```
public struct SessionConfiguration: Sendable {
    /// The authorization server: an issuer to discover, explicit endpoints, or both (explicit
    /// endpoints override the discovery document's).
    public var authorizationServer: AuthorizationServer
    /// The OAuth 2.0 token endpoint. Setting it overrides discovery. Read before discovery
    /// with only an `AuthorizationServer.issuer` configured, it is the issuer.
    public var tokenEndpoint: URL {
        get { authorizationServer.tokenEndpoint ?? authorizationServer.issuer ?? Self.unconfigured }
        set { authorizationServer.tokenEndpoint = newValue }
    }
    /// The RFC 7009 revocation endpoint, when configured; with an issuer, discovery may supply
    /// one. Without either, logout revokes nothing.
    public var revocationEndpoint: URL? {
        get { authorizationServer.revocationEndpoint }
        set { authorizationServer.revocationEndpoint = newValue }
    }
    /// The `client_id` sent with every grant, if the server wants one.
    public var clientID: String?
    /// How the client authenticates at the token and revocation endpoints (`none` by default).
    public var clientAuthentication: ClientAuthentication
    /// The `aud` of a `private_key_jwt` assertion: the token endpoint's URL by default; Okta
    /// wants each endpoint's own (`.endpoint`), Auth0 the issuer (`.issuer`).
    public var assertionAudience: ClientAssertionAudience = .tokenEndpoint
    /// The scope asked for at sign-in (`openid offline_access …`).
    public var scope: String?
    /// RFC 8707 resource indicators sent with the authorization and token requests.
    public var resources: [URL]
    /// Further parameters the provider wants at sign-in (Auth0's `audience`, …).
    public var additionalParameters: [String: String]
    /// The registered redirect URI of ``SessionController/signIn(with:)``.
    public var redirectURI: URL?
    /// The clock difference tolerated on ID token times.
    public var idTokenClockSkew: Duration
    /// The wall clock the session reads for access-token expiries and rotation times. `Date()`
    /// by default; tests inject a fixed or advancing one. (Cookie stores take their own:
    /// `CookieJar`'s `clock`.)
    public var now: @Sendable () -> Date = { Date() }
    /// The cookie that carries the access token (`__Host-session` by default): its absence or
    /// near expiry in a page's store makes a navigation refresh first.
    public var sessionCookieName: String
    /// Further cookie names that belong to the session and are deleted when it ends (the
    /// names the token endpoint sets are added automatically).
    public var sessionCookieNames: Set<String>
    /// The web product's session exchange, called after every sign-in and every refresh, when
    /// the token endpoint's answer does not itself sign the page in (identity providers answer
    /// JSON only). `nil` (the default): the token endpoint's `Set-Cookie` lines are the web session.
    public var sessionExchange: SessionExchange? = nil
    /// A cookie-based refresh, for web products whose session is cookie-centred: when set,
    /// refreshes send the native-only refresh cookie to its URL instead of a refresh token to
    /// the token endpoint.
    public var cookieRefresh: CookieRefresh? = nil
    /// A page session of its own, cloned from the native session by token exchange (RFC
    /// 8693), so pages can never rotate or revoke the native session. `nil` (the default):
    /// pages share the native session.
    public var isolatedWebSession: IsolatedWebSession? = nil
    /// The key the session proves possession of its tokens with (DPoP, RFC 9449): sent with
    /// every token request and with ``SessionHTTPClient``'s requests that carry a DPoP-bound
    /// access token. The server binds the refresh token to it, so a stolen refresh token is
    /// useless without the key. `nil` (the default): bearer tokens.
    public var dpopKey: DPoPKey? = nil
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
    /// never shared with pages (not `WebPage.defaultHTTPClient`), and no redirects.
    public static let defaultHTTPClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: defaultHTTPClientConfiguration)

    /// The pages' settings, on a pool of its own: no redirects, and a connection the server
    /// refuses fails the attempt at once, so the session's ``RetryPolicy`` decides what follows
    /// (the client's own retries would hold each attempt until the connect timeout, 10 s, before
    /// it failed with the same refusal).
    static var defaultHTTPClientConfiguration: HTTPClient.Configuration { WebPage.defaultHTTPClientConfiguration }

    /// Creates a configuration for explicit endpoints.
    public init(
        tokenEndpoint: URL,
        revocationEndpoint: URL? = nil,
        clientID: String? = nil,
        clientAuthentication: ClientAuthentication = .none,
        scope: String? = nil,
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
        self.authorizationServer = AuthorizationServer(tokenEndpoint: tokenEndpoint, revocationEndpoint: revocationEndpoint)
        self.clientID = clientID
        self.clientAuthentication = clientAuthentication
        self.scope = scope
        self.resources = []
        self.additionalParameters = [:]
        self.redirectURI = nil
        self.idTokenClockSkew = .seconds(60)
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

    /// A configuration for an authorization server found by discovery from `issuer` (RFC 8414
    /// and OpenID Connect Discovery), with any explicit endpoint overriding the document's.
    ///
    /// - Parameters:
    ///   - issuer: the issuer identifier, exactly as the provider's discovery document names it.
    ///   - clientID: the registered client.
    ///   - clientAuthentication: how the client authenticates (`none` for a public client).
    ///   - scope: the scope asked for (`openid offline_access` for most providers).
    ///   - redirectURI: the registered redirect URI, for ``SessionController/signIn(with:)``.
    ///   - sessionURL: the web product's origin, whose navigations carry the session.
    ///   - tokenEndpoint: overrides the discovered token endpoint.
    ///   - authorizationEndpoint: overrides the discovered authorization endpoint.
    ///   - revocationEndpoint: overrides the discovered revocation endpoint.
    public init(
        issuer: URL, clientID: String, clientAuthentication: ClientAuthentication = .none, scope: String? = nil,
        redirectURI: URL? = nil, sessionURL: URL? = nil, tokenEndpoint: URL? = nil, authorizationEndpoint: URL? = nil,
        revocationEndpoint: URL? = nil
    ) {
        self.init(
            tokenEndpoint: tokenEndpoint ?? issuer, clientID: clientID, clientAuthentication: clientAuthentication,
            scope: scope, sessionURL: sessionURL ?? URL(string: "/", relativeTo: issuer)!.absoluteURL)
        self.authorizationServer = AuthorizationServer(
            issuer: issuer, tokenEndpoint: tokenEndpoint, authorizationEndpoint: authorizationEndpoint,
            revocationEndpoint: revocationEndpoint)
        self.redirectURI = redirectURI
    }

    /// The cookie whose absence or near expiry makes a navigation refresh first: the session
    /// exchange's cookie when it names one, else ``sessionCookieName``.
    public var webSessionCookieName: String { sessionExchange?.sessionCookieName ?? sessionCookieName }

    /// The configured names of cookies native code owns: a page's writes to them are not
    /// followed into the native store.
    var ownedCookieNames: Set<String> {
        var names = sessionCookieNames
        if let cookieRefresh { names.insert(cookieRefresh.cookieName) }
        return names
    }

    /// What ``tokenEndpoint`` reads when nothing is configured.
    static let unconfigured = URL(string: "http://invalid.invalid/")!

    /// The settings of the OAuth client the controller uses.
    var oauthConfiguration: OAuthClientConfiguration {
        var configuration = OAuthClientConfiguration(
            server: authorizationServer, clientID: clientID, authentication: clientAuthentication, scope: scope, resources: resources,
            additionalParameters: additionalParameters, redirectURI: redirectURI, clockSkew: idTokenClockSkew,
            requestTimeout: requestTimeout, httpClient: httpClient, logger: logger, dpopKey: dpopKey)
        configuration.assertionAudience = assertionAudience
        return configuration
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
