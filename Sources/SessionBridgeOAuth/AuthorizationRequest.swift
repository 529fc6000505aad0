import Crypto
public import Foundation

/// One authorization code request (RFC 6749 §4.1) with PKCE (RFC 7636, `S256`), `state` and
/// an OpenID Connect `nonce`, each fresh and random.
///
/// Load ``url`` in a user agent (see ``AuthorizationUserAgent``), catch the navigation to the
/// redirect URI, then check the callback with ``authorizationCode(from:)`` and exchange the
/// code with ``codeVerifier``.
///
/// ```swift
/// let request = AuthorizationRequest(authorizationEndpoint: endpoint, clientID: "app",
///                                    redirectURI: URL(string: "com.example.app:/callback")!, scope: "openid offline_access")
/// let callback = try await userAgent.authorize(request.url, redirectURI: request.redirectURI)
/// let code = try request.authorizationCode(from: callback)
/// ```
public struct AuthorizationRequest: Sendable {
    /// The authorization endpoint.
    public let authorizationEndpoint: URL
    /// The client id.
    public let clientID: String
    /// The registered redirect URI the callback comes to.
    public let redirectURI: URL
    /// The requested scope, if any.
    public let scope: String?
    /// RFC 8707 resource indicators.
    public let resources: [URL]
    /// Further parameters the provider wants (`audience`, `prompt`, …).
    public let additionalParameters: [String: String]
    /// The issuer the callback's `iss` must name (RFC 9207), when known.
    public let issuer: String?
    /// Whether the callback must carry `iss` (the server said it sends it).
    public let requiresIssuerParameter: Bool
    /// The `state` sent, checked on the callback.
    public let state: String
    /// The `nonce` sent, checked in the ID token.
    public let nonce: String
    /// The PKCE code verifier, sent only with the code exchange.
    public let codeVerifier: Secret

    /// Creates a request with a fresh state, nonce and code verifier.
    public init(
        authorizationEndpoint: URL, clientID: String, redirectURI: URL, scope: String? = nil, resources: [URL] = [],
        additionalParameters: [String: String] = [:], issuer: String? = nil, requiresIssuerParameter: Bool = false
    ) {
        self.authorizationEndpoint = authorizationEndpoint
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scope = scope
        self.resources = resources
        self.additionalParameters = additionalParameters
        self.issuer = issuer
        self.requiresIssuerParameter = requiresIssuerParameter
        self.state = Base64URL.random(byteCount: 24)
        self.nonce = Base64URL.random(byteCount: 24)
        self.codeVerifier = Secret(Base64URL.random(byteCount: 32))
    }

    /// The PKCE `S256` challenge: base64url(SHA-256(verifier)).
    public var codeChallenge: String {
        Self.codeChallenge(for: codeVerifier)
    }

    /// The `S256` challenge of `verifier`.
    public static func codeChallenge(for verifier: Secret) -> String {
        Base64URL.encode(SHA256.hash(data: Data(verifier.exposedValue.utf8)))
    }

    /// The URL to load: the endpoint with every parameter in its query.
    public var url: URL {
        var fields: [(String, String)] = [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI.absoluteString),
        ]
        if let scope { fields.append(("scope", scope)) }
        fields += [("state", state), ("nonce", nonce), ("code_challenge", codeChallenge), ("code_challenge_method", "S256")]
        fields += resources.map { ("resource", $0.absoluteString) }
        fields += additionalParameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        let existing = authorizationEndpoint.query.map { $0 + "&" } ?? ""
        var components = URLComponents(url: authorizationEndpoint, resolvingAgainstBaseURL: true)
        components?.percentEncodedQuery = existing + FormEncoding.encode(fields)
        return components?.url ?? authorizationEndpoint
    }

    /// Whether `url` is a navigation to the redirect URI (same scheme, host, port and path):
    /// what a user agent's navigation policy catches.
    public func isCallback(_ url: URL) -> Bool {
        Self.matches(url, redirectURI: redirectURI)
    }

    /// Whether `url` goes to `redirectURI` (scheme, host, port and path compared; the query
    /// is the callback's).
    public static func matches(_ url: URL, redirectURI: URL) -> Bool {
        guard let a = URLComponents(url: url, resolvingAgainstBaseURL: true),
            let b = URLComponents(url: redirectURI, resolvingAgainstBaseURL: true)
        else { return false }
        return a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
            && a.port == b.port && a.percentEncodedPath == b.percentEncodedPath
    }

    /// Checks the callback and returns its code.
    ///
    /// In order: the callback goes to the redirect URI; `iss` (RFC 9207), when present or
    /// required, names the issuer; `state` is the one sent; an `error` is reported as the
    /// server's; a `code` is present.
    ///
    /// - Throws: ``OAuthError``: ``OAuthError/Code/issuerMismatch``,
    ///   ``OAuthError/Code/stateMismatch``, the server's code (`access_denied`, …) or
    ///   ``OAuthError/Code/invalidResponse``.
    public func authorizationCode(from callback: URL) throws(OAuthError) -> String {
        guard isCallback(callback) else {
            throw OAuthError(.invalidResponse, "the sign-in did not come back to the redirect URI")
        }
        // A fragment carries parameters only for other response modes: the query is read.
        let parameters = FormEncoding.decode(URLComponents(url: callback, resolvingAgainstBaseURL: true)?.percentEncodedQuery ?? "")
        if let iss = parameters["iss"] {
            // A multi-tenant issuer's sign-in names the tenant it happened in.
            guard let issuer else {
                // Endpoints configured one by one: the answer cannot be checked against anything.
                throw OAuthError(
                    .issuerMismatch,
                    "the sign-in answer names the issuer '\(OAuthError.sanitize(iss))' (RFC 9207), and no issuer is configured to check it against: configure the issuer, whose discovery also gives the endpoints"
                )
            }
            guard iss == issuer || IssuerTemplate(issuer)?.tenant(in: iss) != nil else {
                throw OAuthError(
                    .issuerMismatch, "the sign-in answer came from the issuer '\(OAuthError.sanitize(iss))', not '\(issuer)' (RFC 9207)")
            }
        } else if requiresIssuerParameter {
            throw OAuthError(.issuerMismatch, "the sign-in answer has no iss parameter, which this server always sends (RFC 9207)")
        }
        guard parameters["state"] == state else {
            throw OAuthError(.stateMismatch, "the sign-in answer's state is not the one sent")
        }
        if let error = parameters["error"] {
            throw OAuthError.fromServer(
                ["error": error, "error_description": parameters["error_description"] as Any], status: nil,
                what: "the authorization server")
                ?? OAuthError(.invalidResponse, "the sign-in failed")
        }
        guard let code = parameters["code"], !code.isEmpty else {
            throw OAuthError(.invalidResponse, "the sign-in answer has no code")
        }
        return code
    }
}

/// Shows the authorization URL to the user and returns the URL the server redirected to.
///
/// The embedded user agent AppAuth uses: a page loads `url`; its navigation policy catches the
/// navigation to `redirectURI` (a custom scheme or an https URL) and cancels it before it
/// leaves, and that navigation's URL is the result. A test agent fills the sign-in form itself.
public protocol AuthorizationUserAgent: Sendable {
    /// Loads `url` and returns the callback URL: the first navigation to `redirectURI`, never
    /// loaded.
    ///
    /// - Throws: an error when the user cancels or the page cannot be loaded.
    func authorize(_ url: URL, redirectURI: URL) async throws -> URL
}
