/// Faults of the OAuth protocol itself that the ``ReferenceServer`` can be told to commit, to
/// test that a client checks what it must and reports each RFC 6749 §5.2 error as it should.
///
/// ```swift
/// server.setOAuthFaults(OAuthFaults(tokenError: "invalid_client"))
/// ```
public struct OAuthFaults: Sendable, Hashable {
    /// What is wrong with an ID token the server issues.
    public enum IDTokenFault: String, Sendable, Hashable {
        /// Signed with a key the key set does not publish.
        case badSignature
        /// Another `nonce` than the authorization request sent.
        case wrongNonce
        /// Another `iss`.
        case wrongIssuer
        /// Another `aud`.
        case wrongAudience
        /// `exp` an hour ago.
        case expired
        /// With ``multiTenant``: `iss` names another tenant than its `tid`.
        case otherTenant
        /// `sub` names another user than the session's.
        case otherSubject
    }

    /// The tenant a ``multiTenant`` server's tokens are issued in (Microsoft's consumer tenant id).
    public static let tenantID = "9188040d-6c67-4c5b-b112-36a304b66dad"

    /// The token endpoint answers this error code for every request (`invalid_client` with
    /// `401`, any other with `400`), before looking at the request.
    public var tokenError: String?
    /// The status of that answer, if not the RFC's (`200`, as some servers answer errors).
    public var tokenErrorStatus: Int?
    /// The discovery documents name this issuer instead of the server's own.
    public var discoveryIssuer: String?
    /// The authorization endpoint redirects with another `state` than it received.
    public var wrongState: Bool
    /// The authorization endpoint's redirect names this `iss` (RFC 9207) instead of its own.
    public var callbackIssuer: String?
    /// The authorization endpoint's redirect carries no `iss`.
    public var omitCallbackIssuer: Bool
    /// The authorization endpoint redirects with this error (`access_denied`, …) instead of a code.
    public var authorizationError: String?
    /// What is wrong with the ID tokens issued.
    public var idToken: IDTokenFault?
    /// The server is a multi-tenant issuer, as Entra ID's `common` endpoint is: its discovery
    /// document at `/common/.well-known/openid-configuration` names the issuer
    /// `ISSUER/{tenantid}`, and its ID tokens name `ISSUER/<tenant>` with the tenant's id as
    /// their `tid` (``tenantID``).
    public var multiTenant: Bool
    /// The key set (`GET /oauth/jwks`) answers only this many seconds after it is asked.
    public var keySetDelaySeconds: Double?
    /// A refresh's answer carries a new ID token, as Google's, Keycloak's and Hydra's do.
    public var refreshIssuesIDToken = false
    /// The token endpoint answers with this redirect status (`307`, `308`, `302`) to ``tokenRedirectLocation``.
    public var tokenRedirectStatus: Int?
    /// The revocation endpoint answers a token it does not know (revoked, expired) with
    /// `400 invalid_token`, as Google's does, where RFC 7009 §2.2 answers `200`.
    public var revocationRefusesUnknownTokens = false
    /// Where a token endpoint redirect points; `/oauth/token-moved` (same origin, a working
    /// token endpoint) by default.
    public var tokenRedirectLocation: String

    /// Creates faults; by default none.
    public init(
        tokenError: String? = nil, discoveryIssuer: String? = nil, wrongState: Bool = false, callbackIssuer: String? = nil,
        omitCallbackIssuer: Bool = false, authorizationError: String? = nil, idToken: IDTokenFault? = nil,
        tokenRedirectStatus: Int? = nil, tokenRedirectLocation: String = "/oauth/token-moved", tokenErrorStatus: Int? = nil,
        multiTenant: Bool = false
    ) {
        self.multiTenant = multiTenant
        self.tokenError = tokenError
        self.tokenErrorStatus = tokenErrorStatus
        self.discoveryIssuer = discoveryIssuer
        self.wrongState = wrongState
        self.callbackIssuer = callbackIssuer
        self.omitCallbackIssuer = omitCallbackIssuer
        self.authorizationError = authorizationError
        self.idToken = idToken
        self.tokenRedirectStatus = tokenRedirectStatus
        self.tokenRedirectLocation = tokenRedirectLocation
    }

    /// No faults.
    public static var none: OAuthFaults { .init() }
}
