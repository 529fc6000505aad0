import Foundation
import Hummingbird
import Synchronization

/// The discovery document (RFC 8414 and OpenID Connect Discovery).
struct DiscoveryDocument: Encodable {
    var issuer: String
    var authorization_endpoint: String
    var token_endpoint: String
    var revocation_endpoint: String
    var jwks_uri: String
    var userinfo_endpoint: String
    var response_types_supported = ["code"]
    var grant_types_supported = ["authorization_code", "refresh_token", "password"]
    var subject_types_supported = ["public"]
    var id_token_signing_alg_values_supported: [String]
    var code_challenge_methods_supported = ["S256"]
    var token_endpoint_auth_methods_supported = ["none", "client_secret_basic", "client_secret_post", "private_key_jwt"]
    var token_endpoint_auth_signing_alg_values_supported = ["ES256", "RS256"]
    var scopes_supported = ["openid", "profile", "offline_access"]
    var authorization_response_iss_parameter_supported = true
}

extension ServerCore {
    /// `GET /.well-known/openid-configuration`, `GET /.well-known/oauth-authorization-server`,
    /// `GET /oauth/jwks`, `GET` and `POST /oauth/authorize`.
    func addAuthorizationRoutes(to router: Router<ReferenceRequestContext>) {
        router.get("/.well-known/openid-configuration") { _, _ in self.discoveryDocument() }
        router.get("/.well-known/oauth-authorization-server") { _, _ in self.discoveryDocument() }
        // A multi-tenant issuer's `common` document (``OAuthFaults/multiTenant``).
        router.get("/common/.well-known/openid-configuration") { _, _ in
            self.withState { $0.oauthFaults.multiTenant }
                ? self.discoveryDocument(issuer: self.issuer.withLock { $0 } + "/{tenantid}") : Response(status: .notFound)
        }
        router.get("/oauth/jwks") { _, _ in
            if let delay = self.withState({ $0.oauthFaults.keySetDelaySeconds }) { try? await Task.sleep(for: .seconds(delay)) }
            return Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "max-age=60"],
                body: .init(byteBuffer: ByteBuffer(string: self.idTokenKeys.jwksJSON)))
        }
        router.get("/oauth/authorize") { request, _ in
            self.authorize(HTTPHelpers.parseForm(request.uri.query ?? ""), submitted: false)
        }
        router.post("/oauth/authorize") { request, _ in
            var request = request
            return self.authorize(try await HTTPHelpers.form(&request), submitted: true)
        }
    }

    func discoveryDocument(issuer named: String? = nil) -> Response {
        let issuer = self.issuer.withLock { $0 }
        let document = DiscoveryDocument(
            issuer: named ?? self.withState { $0.oauthFaults.discoveryIssuer } ?? issuer,
            authorization_endpoint: issuer + "/oauth/authorize", token_endpoint: issuer + "/oauth/token",
            revocation_endpoint: issuer + "/oauth/revoke", jwks_uri: issuer + "/oauth/jwks", userinfo_endpoint: issuer + "/api/me",
            id_token_signing_alg_values_supported: [self.idTokenKeys.algorithm.rawValue])
        return HTTPHelpers.json(document, headers: [.cacheControl: "max-age=60"])
    }

    /// The authorization endpoint: checks the client and redirect URI (an unknown pair gets an
    /// error page, never a redirect), shows the sign-in form, and on a correct sign-in
    /// redirects to the redirect URI with `code`, `state` and `iss`.
    func authorize(_ fields: [String: String], submitted: Bool) -> Response {
        let clientID = fields["client_id"] ?? ""
        let redirectURI = fields["redirect_uri"] ?? ""
        if !self.configuration.clients.isEmpty {
            guard let client = self.configuration.clients.first(where: { $0.id == clientID }), client.redirectURIs.contains(redirectURI)
            else {
                return HTTPHelpers.html(Pages.authorizationError("The client or its redirect URI is not registered."), status: .badRequest)
            }
        } else if let expected = self.configuration.clientID, clientID != expected {
            return HTTPHelpers.html(Pages.authorizationError("The client is not registered."), status: .badRequest)
        }
        guard let redirect = URL(string: redirectURI), redirect.scheme != nil else {
            return HTTPHelpers.html(Pages.authorizationError("The redirect_uri is missing or not absolute."), status: .badRequest)
        }
        let faults = self.withState { $0.oauthFaults }
        let state = fields["state"]
        func callback(_ parameters: [(String, String)]) -> Response {
            var query = parameters
            if let state { query.append(("state", faults.wrongState ? "x" + state : state)) }
            // A multi-tenant issuer's answer names the tenant's issuer.
            let issuer = self.issuer.withLock { $0 } + (faults.multiTenant ? "/" + OAuthFaults.tenantID : "")
            if !faults.omitCallbackIssuer { query.append(("iss", faults.callbackIssuer ?? issuer)) }
            let encoded = query.map { "\(HTTPHelpers.queryEscape($0.0))=\(HTTPHelpers.queryEscape($0.1))" }.joined(separator: "&")
            return HTTPHelpers.redirect(
                to: redirectURI + (redirectURI.contains("?") ? "&" : "?") + encoded, headers: [.cacheControl: "no-store"])
        }
        guard fields["response_type"] == "code" else {
            return callback([("error", "unsupported_response_type"), ("error_description", "Only the code flow is supported.")])
        }
        guard let challenge = fields["code_challenge"], !challenge.isEmpty, fields["code_challenge_method"] == "S256" else {
            return callback([("error", "invalid_request"), ("error_description", "PKCE with S256 is required.")])
        }
        if let error = faults.authorizationError {
            return callback([("error", error), ("error_description", "The server was told to refuse.")])
        }
        guard submitted else { return HTTPHelpers.html(Pages.authorize(fields, error: nil)) }
        let username = fields["username"] ?? ""
        guard Self.constantTimeEquals(username, self.configuration.username),
            Self.constantTimeEquals(fields["password"] ?? "", self.configuration.password)
        else {
            return HTTPHelpers.html(Pages.authorize(fields, error: "The username or password is incorrect."), status: .unauthorized)
        }
        let code = RandomToken.make(prefix: "ac_", byteCount: 24)
        let grant = AuthorizationGrant(
            clientID: clientID, redirectURI: redirectURI, codeChallenge: challenge, nonce: fields["nonce"],
            scope: fields["scope"], username: username, expiresAt: Date().addingTimeInterval(60),
            dpopKeyThumbprint: fields["dpop_jkt"])
        self.withState { $0.authorizationCodes[code] = grant }
        return callback([("code", code)])
    }

    /// `grant_type=authorization_code`: the code is single-use, bound to its client, redirect
    /// URI and PKCE challenge.
    func exchangeCode(form: [String: String], clientID: String?, boundKey: String? = nil) async throws -> Response {
        guard let code = form["code"], let verifier = form["code_verifier"], let redirectURI = form["redirect_uri"] else {
            return self.oauthError("invalid_request", "code, code_verifier and redirect_uri are required.")
        }
        let now = Date()
        guard let grant = self.withState({ $0.authorizationCodes.removeValue(forKey: code) }), grant.expiresAt > now else {
            return self.oauthError("invalid_grant", "The authorization code is unknown, used or expired.")
        }
        guard grant.clientID == (clientID ?? form["client_id"]), grant.redirectURI == redirectURI else {
            return self.oauthError("invalid_grant", "The authorization code was issued to another client or redirect URI.")
        }
        guard grant.accepts(verifier: verifier) else {
            return self.oauthError("invalid_grant", "The code_verifier does not match the code_challenge.")
        }
        if let thumbprint = grant.dpopKeyThumbprint, thumbprint != boundKey {
            return self.oauthError(
                "invalid_dpop_proof", "The authorization code is bound to a DPoP key (dpop_jkt); a proof by that key is required.")
        }
        let tokens = self.startSession(username: grant.username, now: now, boundKey: boundKey)
        let idToken = try await self.idToken(for: tokens, clientID: grant.clientID, nonce: grant.nonce, scope: grant.scope ?? "openid")
        return self.tokenAnswer(tokens, idToken: idToken, scope: grant.scope)
    }

    /// Starts a session for a user who signed in at the authorization endpoint.
    func startSession(username: String, now: Date, boundKey: String? = nil) -> IssuedTokens {
        let (sessionID, refreshToken) = self.withState { state in
            state.stats.logins += 1
            return state.refreshTokens.startSession(
                username: username, lifetime: self.configuration.refreshTokenLifetime, now: now, boundKey: boundKey)
        }
        let (accessToken, claims) = self.makeAccessToken(username: username, sessionID: sessionID, now: now, boundKey: boundKey)
        return IssuedTokens(accessToken: accessToken, refreshToken: refreshToken, claims: claims, expiresIn: self.accessLifetimeSeconds)
    }

    /// An ID token for `tokens` when the scope asks for `openid`, with the faults in force.
    func idToken(for tokens: IssuedTokens, clientID: String?, nonce: String?, scope: String?) async throws -> String? {
        guard let clientID, let scope, scope.split(separator: " ").contains("openid") else { return nil }
        let (fault, multiTenant) = self.withState { ($0.oauthFaults.idToken, $0.oauthFaults.multiTenant) }
        var issuer = self.issuer.withLock { $0 }
        if multiTenant { issuer += "/" + (fault == .otherTenant ? "72f988bf-86f1-41af-91ab-2d7cd011db47" : OAuthFaults.tenantID) }
        let now = Int(Date().timeIntervalSince1970)
        let claims = IDTokenClaims(
            iss: fault == .wrongIssuer ? issuer + "/other" : issuer, sub: fault == .otherSubject ? "someone-else" : tokens.claims.sub,
            tid: multiTenant ? OAuthFaults.tenantID : nil,
            aud: fault == .wrongAudience ? clientID + "-other" : clientID, azp: fault == .wrongAudience ? clientID + "-other" : clientID,
            exp: fault == .expired ? now - 3600 : now + self.accessLifetimeSeconds, iat: fault == .expired ? now - 7200 : now,
            auth_time: now, nonce: fault == .wrongNonce ? "not-the-nonce" : nonce, name: self.configuration.displayName,
            sid: tokens.claims.sid)
        return try await self.idTokenKeys.sign(claims, validSignature: fault != .badSignature)
    }
}

extension Pages {
    /// The authorization endpoint's sign-in form: a plain `<form method=post>` with `username`,
    /// `password` and the request's parameters as hidden fields.
    static func authorize(_ fields: [String: String], error: String?) -> String {
        let carried = [
            "response_type", "client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge", "code_challenge_method",
            "resource", "audience", "dpop_jkt",
        ]
        let hidden = carried.compactMap { name in
            fields[name].map { "<input type=\"hidden\" name=\"\(name)\" value=\"\(escape($0))\">" }
        }.joined(separator: "\n")
        let message = error.map { "<p id=\"error\" role=\"alert\">\(escape($0))</p>" } ?? ""
        return """
            <!doctype html>
            <html><head><meta charset="utf-8"><title>Sign in</title></head>
            <body>
            <h1>Sign in to continue to \(escape(fields["client_id"] ?? "the app"))</h1>
            \(message)
            <form id="authorize" method="post" action="/oauth/authorize">
            \(hidden)
            <label>Username <input name="username" autocomplete="username"></label>
            <label>Password <input name="password" type="password" autocomplete="current-password"></label>
            <button type="submit">Sign in</button>
            </form>
            </body></html>
            """
    }

    static func authorizationError(_ message: String) -> String {
        """
        <!doctype html>
        <html><head><meta charset="utf-8"><title>Sign-in error</title></head>
        <body><h1>Sign-in error</h1><p id="error">\(escape(message))</p></body></html>
        """
    }
}
