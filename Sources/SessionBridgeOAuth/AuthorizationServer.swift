public import Foundation

/// Where an authorization server is: an issuer to discover it from, explicit endpoints, or both.
///
/// With an ``issuer`` and no explicit endpoints, the endpoints come from its discovery document
/// (see ``AuthorizationServerMetadata``); an endpoint given here overrides the document's.
///
/// ```swift
/// let keycloak = AuthorizationServer(issuer: URL(string: "https://sso.example/realms/app")!)
/// let legacy = AuthorizationServer(tokenEndpoint: URL(string: "https://api.example/oauth/token")!)
/// ```
public struct AuthorizationServer: Sendable, Hashable {
    /// The issuer identifier; its discovery document must name exactly this issuer.
    public var issuer: URL?
    /// The token endpoint (RFC 6749 §3.2).
    public var tokenEndpoint: URL?
    /// The authorization endpoint (RFC 6749 §3.1), for the authorization code flow.
    public var authorizationEndpoint: URL?
    /// The revocation endpoint (RFC 7009).
    public var revocationEndpoint: URL?
    /// The JSON Web Key Set that signs ID tokens.
    public var jwksURI: URL?

    /// Creates a description of a server.
    public init(
        issuer: URL? = nil, tokenEndpoint: URL? = nil, authorizationEndpoint: URL? = nil,
        revocationEndpoint: URL? = nil, jwksURI: URL? = nil
    ) {
        self.issuer = issuer
        self.tokenEndpoint = tokenEndpoint
        self.authorizationEndpoint = authorizationEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.jwksURI = jwksURI
    }

    /// Whether discovery has anything to add: an issuer is set and an endpoint is missing.
    public var needsDiscovery: Bool {
        issuer != nil && (tokenEndpoint == nil || authorizationEndpoint == nil || jwksURI == nil)
    }

    /// The metadata these settings give without discovery.
    var explicitMetadata: AuthorizationServerMetadata {
        AuthorizationServerMetadata(
            issuer: issuer?.absoluteString, authorizationEndpoint: authorizationEndpoint, tokenEndpoint: tokenEndpoint,
            revocationEndpoint: revocationEndpoint, jwksURI: jwksURI)
    }

    /// `metadata` with every endpoint set here in place of the document's.
    func overriding(_ metadata: AuthorizationServerMetadata) -> AuthorizationServerMetadata {
        var merged = metadata
        if let tokenEndpoint { merged.tokenEndpoint = tokenEndpoint }
        if let authorizationEndpoint { merged.authorizationEndpoint = authorizationEndpoint }
        if let revocationEndpoint { merged.revocationEndpoint = revocationEndpoint }
        if let jwksURI { merged.jwksURI = jwksURI }
        return merged
    }
}
