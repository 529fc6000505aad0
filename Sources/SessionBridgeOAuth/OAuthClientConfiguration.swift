public import AsyncHTTPClient
public import Foundation
public import Logging
import SessionBridgeHTTP

/// Who the client is and what it asks for: the settings of an ``OAuthClient``.
///
/// ```swift
/// var configuration = OAuthClientConfiguration(
///     server: AuthorizationServer(issuer: URL(string: "https://tenant.okta.example/oauth2/default")!),
///     clientID: "0oa…", redirectURI: URL(string: "com.example.app:/callback")!)
/// configuration.scope = "openid profile offline_access"
/// ```
public struct OAuthClientConfiguration: Sendable {
    /// The authorization server.
    public var server: AuthorizationServer
    /// The client id; `nil` sends none (a server that does not authenticate clients).
    public var clientID: String?
    /// How the client authenticates at the token and revocation endpoints.
    public var authentication: ClientAuthentication
    /// The `aud` of a `private_key_jwt` assertion: the token endpoint's URL by default.
    public var assertionAudience: ClientAssertionAudience = .tokenEndpoint
    /// The scope asked for (`openid offline_access …`); Okta, Auth0 and Entra ID issue refresh
    /// tokens only with `offline_access`.
    public var scope: String?
    /// RFC 8707 resource indicators, sent with the authorization and token requests.
    public var resources: [URL]
    /// Further parameters the provider wants (Auth0's `audience`, `prompt`, …), sent with the
    /// authorization request and every token request but refreshes.
    public var additionalParameters: [String: String]
    /// The registered redirect URI of the authorization code flow.
    public var redirectURI: URL?
    /// The clock difference tolerated on ID token times.
    public var clockSkew: Duration
    /// How long one request (discovery, keys, revocation) may take.
    public var requestTimeout: Duration
    /// The HTTP client; it must not follow redirects.
    public var httpClient: HTTPClient
    /// The key token requests prove possession of (DPoP, RFC 9449), when the server should
    /// bind the tokens to it; `nil` (the default) sends no proof.
    public var dpopKey: DPoPKey?

    /// A shared client that follows no redirect: a token endpoint's redirect is the caller's
    /// decision (see ``OAuthClient/tokenRequest(_:to:)``).
    public static let defaultHTTPClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: defaultHTTPClientConfiguration)

    /// No redirects, a connection the server refuses fails the request at once instead of
    /// being retried by the client until its connect timeout, and an answer with a status code
    /// below 100 fails its request (`refusingMalformedStatusCodes()`).
    package static var defaultHTTPClientConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.refusingMalformedStatusCodes()
        return configuration
    }
    /// Where the client logs; never a secret.
    public var logger: Logger

    /// Creates a configuration.
    public init(
        server: AuthorizationServer, clientID: String? = nil, authentication: ClientAuthentication = .none, scope: String? = nil,
        resources: [URL] = [], additionalParameters: [String: String] = [:], redirectURI: URL? = nil,
        clockSkew: Duration = .seconds(60), requestTimeout: Duration = .seconds(10),
        httpClient: HTTPClient = OAuthClientConfiguration.defaultHTTPClient, logger: Logger = Logger(label: "sessionbridge.oauth"),
        dpopKey: DPoPKey? = nil
    ) {
        self.dpopKey = dpopKey
        self.server = server
        self.clientID = clientID
        self.authentication = authentication
        self.scope = scope
        self.resources = resources
        self.additionalParameters = additionalParameters
        self.redirectURI = redirectURI
        self.clockSkew = clockSkew
        self.requestTimeout = requestTimeout
        self.httpClient = httpClient
        self.logger = logger
    }
}
