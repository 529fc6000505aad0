public import AsyncHTTPClient
public import Foundation
import Logging
import NIOHTTP1

/// A standards OAuth 2.0 / OpenID Connect client for a native app: it discovers the server
/// (once, then cached for its life), builds authorization and token requests with the
/// client's authentication, reads token answers, validates ID tokens and revokes tokens.
///
/// Sending token requests and retrying them is left to the caller (the session's
/// `TokenEndpointClient`), which knows which failures are safe to repeat.
///
/// ```swift
/// let client = OAuthClient(configuration: configuration)
/// let request = try await client.makeAuthorizationRequest()
/// let callback = try await userAgent.authorize(request.url, redirectURI: request.redirectURI)
/// let code = try request.authorizationCode(from: callback)
/// let http = try await client.tokenRequest(.authorizationCode(code: Secret(code), codeVerifier: request.codeVerifier,
///                                                            redirectURI: request.redirectURI))
/// ```
public actor OAuthClient {
    /// The client's settings.
    public nonisolated let configuration: OAuthClientConfiguration
    private var discovered: AuthorizationServerMetadata?
    private var discovery: Task<AuthorizationServerMetadata, any Error>?
    private var validator: IDTokenValidator?
    /// The latest `DPoP-Nonce` of each server origin, shared with resource requests.
    public nonisolated let dpopNonces = DPoPNonces()

    /// Creates a client. Nothing is fetched until first needed.
    public init(configuration: OAuthClientConfiguration) {
        self.configuration = configuration
    }

    /// The server's metadata: the discovery document with the configured endpoints in place
    /// of its own, or the configured endpoints alone when there is nothing to discover. The
    /// document is fetched once; a failed fetch is tried again on the next call.
    public func metadata() async throws(OAuthError) -> AuthorizationServerMetadata {
        let server = configuration.server
        guard server.needsDiscovery, let issuer = server.issuer else { return server.explicitMetadata }
        if let discovered { return discovered }
        let task: Task<AuthorizationServerMetadata, any Error>
        if let discovery {
            task = discovery
        } else {
            let client = configuration.httpClient, timeout = configuration.requestTimeout, logger = configuration.logger
            task = Task {
                try await AuthorizationServerMetadata.discover(issuer: issuer, httpClient: client, timeout: timeout, logger: logger)
            }
            discovery = task
        }
        do {
            let metadata = server.overriding(try await task.value)
            discovered = metadata
            return metadata
        } catch {
            discovery = nil
            throw (error as? OAuthError) ?? OAuthError(.discoveryFailed, "discovery failed")
        }
    }

    /// The token endpoint.
    public func tokenEndpoint() async throws(OAuthError) -> URL {
        guard let url = try await metadata().tokenEndpoint else {
            throw OAuthError(.invalidConfiguration, "no token endpoint: configure one or an issuer whose discovery document names it")
        }
        return url
    }

    /// A fresh authorization code request for the configured client, scope and redirect URI.
    public func makeAuthorizationRequest() async throws(OAuthError) -> AuthorizationRequest {
        let metadata = try await metadata()
        guard let endpoint = metadata.authorizationEndpoint else {
            throw OAuthError(
                .invalidConfiguration, "no authorization endpoint: configure one or an issuer whose discovery document names it")
        }
        guard let clientID = configuration.clientID else {
            throw OAuthError(.invalidConfiguration, "the authorization code flow needs a client id")
        }
        guard let redirectURI = configuration.redirectURI else {
            throw OAuthError(.invalidConfiguration, "the authorization code flow needs a registered redirect URI")
        }
        if !metadata.codeChallengeMethodsSupported.isEmpty, !metadata.codeChallengeMethodsSupported.contains("S256") {
            configuration.logger.warning("the server does not list S256 among its PKCE methods; sending it anyway")
        }
        return AuthorizationRequest(
            authorizationEndpoint: endpoint, clientID: clientID, redirectURI: redirectURI, scope: configuration.scope,
            resources: configuration.resources,
            // RFC 9449 §10: the code is bound to the key its exchange will prove.
            additionalParameters: configuration.additionalParameters.merging(
                configuration.dpopKey.map { ["dpop_jkt": $0.thumbprint] } ?? [:]
            ) { $1 },
            issuer: metadata.issuer ?? configuration.server.issuer?.absoluteString,
            requiresIssuerParameter: metadata.authorizationResponseIssParameterSupported)
    }

    /// The form fields of `grant` with the request parameters that go with it: `scope` on the
    /// password grant, `resource` and the additional parameters on every grant but refresh and
    /// token exchange (`resource` only).
    public nonisolated func parameters(for grant: TokenGrant) -> [(String, String)] {
        var fields = grant.fields
        switch grant {
        case .refreshToken, .tokenExchange:
            fields += configuration.resources.map { ("resource", $0.absoluteString) }
            return fields
        default:
            break
        }
        if case .password = grant, let scope = configuration.scope { fields.append(("scope", scope)) }
        fields += configuration.resources.map { ("resource", $0.absoluteString) }
        fields += configuration.additionalParameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        return fields
    }

    /// A ready-to-send token request for `grant`, authenticated as configured.
    ///
    /// - Parameters:
    ///   - grant: what the request asks the token endpoint for.
    ///   - endpoint: where to send it; the token endpoint by default (a caller following a
    ///     same-origin `307`/`308` passes the new location).
    public func tokenRequest(_ grant: TokenGrant, to endpoint: URL? = nil) async throws(OAuthError) -> HTTPClientRequest {
        let tokenEndpoint = try await self.tokenEndpoint()
        return try await authenticatedRequest(
            to: endpoint ?? tokenEndpoint, fields: parameters(for: grant), audience: assertionAudience(for: tokenEndpoint))
    }

    /// The `aud` of an assertion sent to `endpoint`, as ``OAuthClientConfiguration/assertionAudience`` says.
    func assertionAudience(for endpoint: URL) async throws(OAuthError) -> URL {
        guard case .privateKeyJWT = configuration.authentication else { return endpoint }
        switch configuration.assertionAudience {
        case .endpoint:
            return endpoint
        case .tokenEndpoint:
            return try await tokenEndpoint()
        case .issuer:
            guard let issuer = try await metadata().issuer.flatMap(URL.init(string:)) else { return try await tokenEndpoint() }
            return issuer
        }
    }

    /// A `POST` of `fields` with the client's credentials; the assertion's audience is `audience`.
    func authenticatedRequest(to url: URL, fields: [(String, String)], audience: URL) async throws(OAuthError) -> HTTPClientRequest {
        guard url.hasPortInRange else { throw OAuthError(.invalidConfiguration, "the endpoint's port is out of range (0-65535)") }
        var form = fields
        var headers: [(String, String)] = []
        try await configuration.authentication.authenticate(
            form: &form, headers: &headers, clientID: configuration.clientID, audience: audience.absoluteString)
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let proof = dpopProof(method: "POST", url: url) { request.headers.add(name: "DPoP", value: proof.exposedValue) }
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .bytes(Array(FormEncoding.encode(form).utf8))
        return request
    }

    /// A DPoP proof for a request to `url` with the configured key and the latest nonce of
    /// `url`'s origin; `nil` when no key is configured.
    ///
    /// - Parameters:
    ///   - method: the request's method.
    ///   - url: the request's URL.
    ///   - accessToken: the access token a resource request carries (`ath`).
    public nonisolated func dpopProof(method: String, url: URL, accessToken: Secret? = nil) -> Secret? {
        configuration.dpopKey?.proof(method: method, url: url, accessToken: accessToken, nonce: dpopNonces.nonce(for: url))
    }

    /// Whether an error answer from `url` asks for a DPoP nonce (`use_dpop_nonce`) and gave a
    /// new one: the request is worth sending once more with a fresh proof. Any `DPoP-Nonce` of
    /// the answer is remembered.
    public nonisolated func needsNonceRetry(status: Int, headers: [(String, String)], body: Data, from url: URL) -> Bool {
        let remembered = dpopNonces.remember(headers: headers, from: url)
        guard configuration.dpopKey != nil, remembered, status == 400 || status == 401 else { return false }
        if status == 401 {
            return headers.contains { $0.0.lowercased() == "www-authenticate" && $0.1.contains("use_dpop_nonce") }
        }
        let json = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        return json?["error"] as? String == OAuthError.Code.useDPoPNonce.rawValue
    }

    /// Reads a token endpoint answer.
    ///
    /// - Returns: the tokens of a `200` answer.
    /// - Throws: ``OAuthError``: the server's RFC 6749 §5.2 error (its `error` code, whatever
    ///   the status: some servers answer an error with `200`, such as a refresh token they no
    ///   longer accept, and a `200` that names an error and issues no access token is that
    ///   error), or ``OAuthError/Code/invalidResponse`` for an unreadable answer.
    public nonisolated func tokenResponse(status: Int, body: Data) throws(OAuthError) -> TokenEndpointResponse {
        let json: [String: Any]?
        if status == 200 {
            do throws(OAuthError) {
                return try TokenEndpointResponse(json: body)
            } catch {
                json = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
                guard json?["access_token"] == nil, let named = OAuthError.fromServer(json, status: status, what: "the token endpoint")
                else { throw error }
                throw named
            }
        }
        json = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        if let error = OAuthError.fromServer(json, status: status, what: "the token endpoint") { throw error }
        throw OAuthError(status >= 500 ? .serverError : .invalidResponse, "the token endpoint answered HTTP \(status)", status: status)
    }

    /// Validates an ID token from a token answer.
    ///
    /// - Parameters:
    ///   - idToken: the compact token.
    ///   - nonce: the sign-in's nonce (authorization code flow), `nil` otherwise.
    public func validateIDToken(_ idToken: Secret, nonce: String?) async throws(OAuthError) -> IDToken {
        try await idTokenValidator().validate(idToken.exposedValue, nonce: nonce)
    }

    /// Whether ``validateIDToken(_:nonce:)`` can check `idToken` without a request: the
    /// issuer's keys are loaded and hold the key it names.
    public func canValidateIDTokenWithoutFetching(_ idToken: Secret) async -> Bool {
        guard let validator else { return false }
        return await validator.hasKeys(for: idToken.exposedValue)
    }

    private func idTokenValidator() async throws(OAuthError) -> IDTokenValidator {
        if let validator { return validator }
        let metadata = try await metadata()
        guard let issuer = metadata.issuer else {
            throw OAuthError(.invalidConfiguration, "an ID token cannot be validated without an issuer: configure one")
        }
        guard let clientID = configuration.clientID else {
            throw OAuthError(.invalidConfiguration, "an ID token cannot be validated without a client id")
        }
        guard let jwksURI = metadata.jwksURI else {
            throw OAuthError(.invalidConfiguration, "an ID token cannot be validated without the issuer's key set (jwks_uri)")
        }
        let secret: Secret? =
            switch configuration.authentication {
            case .clientSecretBasic(let secret), .clientSecretPost(let secret): secret
            default: nil
            }
        let made = IDTokenValidator(
            issuer: issuer, clientID: clientID, jwksURI: jwksURI, clockSkew: configuration.clockSkew,
            httpClient: configuration.httpClient, timeout: configuration.requestTimeout, clientSecret: secret)
        validator = made
        return made
    }

    /// Revokes `token` (RFC 7009) with the client's authentication.
    ///
    /// - Parameters:
    ///   - token: the token to revoke.
    ///   - hint: `refresh_token` or `access_token`.
    /// A `400 invalid_token` answer returns as a revocation does: RFC 7009 §2.2 has the server
    /// answer `200` for a token it does not know, since revoking it is then already achieved;
    /// some (Google's, for a token already revoked or expired) answer this error instead.
    ///
    /// - Throws: ``OAuthError`` when no revocation endpoint is known, the request fails or the
    ///   server answers an error.
    public func revoke(_ token: Secret, hint: String = "refresh_token") async throws(OAuthError) {
        guard let endpoint = try await metadata().revocationEndpoint else {
            throw OAuthError(.invalidConfiguration, "no revocation endpoint is configured or discovered")
        }
        let audience = (try? await assertionAudience(for: endpoint)) ?? endpoint
        let fields = [("token", token.exposedValue), ("token_type_hint", hint)]
        var answer = try await OAuthHTTP.send(
            try await authenticatedRequest(to: endpoint, fields: fields, audience: audience), client: configuration.httpClient,
            timeout: configuration.requestTimeout)
        if needsNonceRetry(status: answer.status, headers: answer.headers, body: answer.body, from: endpoint) {
            answer = try await OAuthHTTP.send(
                try await authenticatedRequest(to: endpoint, fields: fields, audience: audience), client: configuration.httpClient,
                timeout: configuration.requestTimeout)
        }
        guard answer.status == 200 else {
            let json = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any]
            var error =
                OAuthError.fromServer(json, status: answer.status, what: "the revocation endpoint")
                ?? OAuthError(.serverError, "the revocation endpoint answered HTTP \(answer.status)", status: answer.status)
            if answer.status == 400, error.code == .invalidToken { return }
            error.retryAfter = answer.headers.first { $0.0.lowercased() == "retry-after" }?.1
            throw error
        }
    }
}
