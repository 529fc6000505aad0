public import AsyncHTTPClient
public import Foundation
public import Logging

/// What an authorization server says of itself: RFC 8414 metadata, or an OpenID Connect
/// discovery document (a superset).
///
/// ```swift
/// let metadata = try await AuthorizationServerMetadata.discover(
///     issuer: URL(string: "https://sso.example/realms/app")!, httpClient: .shared)
/// print(metadata.tokenEndpoint!)
/// ```
public struct AuthorizationServerMetadata: Sendable, Hashable {
    /// The issuer identifier, exactly as the document gives it.
    public var issuer: String?
    /// `authorization_endpoint`.
    public var authorizationEndpoint: URL?
    /// `token_endpoint`.
    public var tokenEndpoint: URL?
    /// `revocation_endpoint`.
    public var revocationEndpoint: URL?
    /// `jwks_uri`.
    public var jwksURI: URL?
    /// `userinfo_endpoint` (OpenID Connect).
    public var userinfoEndpoint: URL?
    /// `scopes_supported`.
    public var scopesSupported: [String]
    /// `code_challenge_methods_supported` (RFC 7636).
    public var codeChallengeMethodsSupported: [String]
    /// `token_endpoint_auth_methods_supported`.
    public var tokenEndpointAuthMethodsSupported: [String]
    /// `id_token_signing_alg_values_supported`.
    public var idTokenSigningAlgValuesSupported: [String]
    /// `authorization_response_iss_parameter_supported` (RFC 9207): the callback must then carry `iss`.
    public var authorizationResponseIssParameterSupported: Bool

    /// Creates metadata.
    public init(
        issuer: String? = nil, authorizationEndpoint: URL? = nil, tokenEndpoint: URL? = nil, revocationEndpoint: URL? = nil,
        jwksURI: URL? = nil, userinfoEndpoint: URL? = nil, scopesSupported: [String] = [], codeChallengeMethodsSupported: [String] = [],
        tokenEndpointAuthMethodsSupported: [String] = [], idTokenSigningAlgValuesSupported: [String] = [],
        authorizationResponseIssParameterSupported: Bool = false
    ) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.jwksURI = jwksURI
        self.userinfoEndpoint = userinfoEndpoint
        self.scopesSupported = scopesSupported
        self.codeChallengeMethodsSupported = codeChallengeMethodsSupported
        self.tokenEndpointAuthMethodsSupported = tokenEndpointAuthMethodsSupported
        self.idTokenSigningAlgValuesSupported = idTokenSigningAlgValuesSupported
        self.authorizationResponseIssParameterSupported = authorizationResponseIssParameterSupported
    }

    /// Reads a metadata document; unknown members are ignored.
    public init(json data: Data) throws(OAuthError) {
        guard let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw OAuthError(.discoveryFailed, "the discovery document is not a JSON object")
        }
        func url(_ key: String) throws(OAuthError) -> URL? {
            guard let value = json[key] else { return nil }
            guard let text = value as? String, let url = URL(string: text), url.scheme != nil, url.host != nil else {
                throw OAuthError(.discoveryFailed, "the discovery document's \(key) is not an absolute URL")
            }
            guard url.hasPortInRange else {
                throw OAuthError(.discoveryFailed, "the discovery document's \(key) has a port out of range (0-65535)")
            }
            return url
        }
        func strings(_ key: String) -> [String] { (json[key] as? [Any])?.compactMap { $0 as? String } ?? [] }
        self.init(
            issuer: json["issuer"] as? String, authorizationEndpoint: try url("authorization_endpoint"),
            tokenEndpoint: try url("token_endpoint"), revocationEndpoint: try url("revocation_endpoint"),
            jwksURI: try url("jwks_uri"), userinfoEndpoint: try url("userinfo_endpoint"),
            scopesSupported: strings("scopes_supported"), codeChallengeMethodsSupported: strings("code_challenge_methods_supported"),
            tokenEndpointAuthMethodsSupported: strings("token_endpoint_auth_methods_supported"),
            idTokenSigningAlgValuesSupported: strings("id_token_signing_alg_values_supported"),
            authorizationResponseIssParameterSupported: (json["authorization_response_iss_parameter_supported"] as? Bool) ?? false)
    }

    /// The two places a document may be, in the order they are tried: OpenID Connect's
    /// `{issuer}/.well-known/openid-configuration`, then RFC 8414's
    /// `{origin}/.well-known/oauth-authorization-server{path}`.
    public static func discoveryURLs(for issuer: URL) -> [URL] {
        var base = issuer.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        var urls: [URL] = []
        if let openID = URL(string: base + "/.well-known/openid-configuration") { urls.append(openID) }
        if var components = URLComponents(url: issuer, resolvingAgainstBaseURL: false) {
            var path = components.percentEncodedPath
            while path.hasSuffix("/") { path.removeLast() }
            components.percentEncodedPath = "/.well-known/oauth-authorization-server" + path
            components.query = nil
            components.fragment = nil
            if let url = components.url { urls.append(url) }
        }
        return urls
    }

    /// Fetches the issuer's document and checks that it names exactly `issuer`, or a
    /// multi-tenant issuer's template `issuer` fills (`https://login.microsoftonline.com/{tenantid}/v2.0`
    /// for `…/common/v2.0`), which the metadata then keeps: ID tokens are checked against it with
    /// their tenant (``IDTokenValidator``).
    ///
    /// - Throws: ``OAuthError`` with ``OAuthError/Code/discoveryFailed`` when neither place
    ///   answers a readable document, ``OAuthError/Code/issuerMismatch`` when the document names
    ///   another issuer.
    public static func discover(
        issuer: URL, httpClient: HTTPClient, timeout: Duration = .seconds(10), logger: Logger? = nil
    ) async throws(OAuthError) -> AuthorizationServerMetadata {
        var lastFailure = OAuthError(.discoveryFailed, "no discovery document was found for \(issuer.absoluteString)")
        for url in discoveryURLs(for: issuer) {
            let answer: OAuthHTTP.Answer
            do {
                answer = try await OAuthHTTP.get(url, client: httpClient, timeout: timeout)
            } catch {
                lastFailure = OAuthError(
                    error.code == .network ? .network : .discoveryFailed,
                    "the discovery document at \(url.absoluteString) could not be fetched: \(error.message)")
                // Both places are on the issuer's origin: one it cannot reach, it cannot reach twice.
                if error.code == .network { break }
                continue
            }
            guard answer.status == 200 else {
                lastFailure = OAuthError(
                    .discoveryFailed, "the discovery document at \(url.absoluteString) answered HTTP \(answer.status)",
                    status: answer.status)
                continue
            }
            let metadata = try AuthorizationServerMetadata(json: answer.body)
            guard IssuerTemplate.issuer(metadata.issuer, names: issuer.absoluteString) else {
                throw OAuthError(
                    .issuerMismatch,
                    "the discovery document at \(url.absoluteString) names the issuer \(metadata.issuer.map { "'\(OAuthError.sanitize($0))'" } ?? "(none)"), not '\(issuer.absoluteString)'"
                )
            }
            logger?.debug("discovered the authorization server", metadata: ["document": "\(url.absoluteString)"])
            return await metadata.completed(
                from: discoveryURLs(for: issuer).filter { $0 != url }, issuer: issuer,
                httpClient: httpClient, timeout: timeout)
        }
        throw lastFailure
    }

    /// Fills in what the first document left out from the issuer's other document: some
    /// servers publish `revocation_endpoint` in their RFC 8414 document only. The other document
    /// must name the same issuer; a missing or unreadable one changes nothing.
    func completed(from others: [URL], issuer: URL, httpClient: HTTPClient, timeout: Duration) async -> AuthorizationServerMetadata {
        guard revocationEndpoint == nil else { return self }
        var metadata = self
        for url in others {
            guard let answer = try? await OAuthHTTP.get(url, client: httpClient, timeout: timeout), answer.status == 200,
                let other = try? AuthorizationServerMetadata(json: answer.body), other.issuer == metadata.issuer
            else { continue }
            metadata.revocationEndpoint = other.revocationEndpoint
            if metadata.revocationEndpoint != nil { break }
        }
        return metadata
    }
}
