import Foundation
import Hummingbird

/// OAuth 2.0 error body (RFC 6749 §5.2).
struct OAuthError: Encodable {
    var error: String
    var error_description: String
}

/// OAuth 2.0 token answer (RFC 6749 §5.1).
struct TokenAnswer: Encodable {
    var access_token: String
    var token_type = "Bearer"
    var expires_in: Int
    /// Absent when a non-rotating server keeps the client's refresh token.
    var refresh_token: String?
    var id_token: String?
    var scope: String?
    /// The type of the token a token exchange issued (RFC 8693 §2.2.1).
    var issued_token_type: String?
}

extension ServerCore {
    /// `POST /oauth/token` and `POST /oauth/revoke`.
    func addOAuthRoutes(to router: Router<ReferenceRequestContext>) {
        self.addAuthorizationRoutes(to: router)
        router.post("/oauth/token") { request, _ in
            var request = request
            return try await self.tokenEndpoint(&request, mayRedirect: true)
        }
        router.post("/oauth/token-moved") { request, _ in
            var request = request
            return try await self.tokenEndpoint(&request, mayRedirect: false)
        }
        router.post("/oauth/revoke") { request, _ in
            var request = request
            let form = try await HTTPHelpers.form(&request)
            if !self.configuration.clients.isEmpty, case .refused(let refusal) = await self.authenticateClient(form: form, request: request)
            {
                return refusal
            }
            // RFC 7009: answer 200 whether or not the token was known.
            let ended = form["token"].map { token in
                self.withState { state in
                    state.refreshTokens.sessionID(ofRefreshToken: token).map { !state.refreshTokens.isActive(sessionID: $0, now: Date()) }
                        ?? true
                }
            }
            if ended == true, self.withState({ $0.oauthFaults.revocationRefusesUnknownTokens }) {
                return self.oauthError("invalid_token", "Token expired or revoked")
            }
            if let token = form["token"], let sessionID = self.withState({ $0.refreshTokens.sessionID(ofRefreshToken: token) }) {
                self.endSession(sessionID: sessionID, reason: "revoked")
            } else if let token = form["token"], case .success(let claims) = self.verifyAccessToken(token, binding: .any) {
                self.endSession(sessionID: claims.sid, reason: "revoked")
            }
            return Response(status: .ok, headers: [.cacheControl: "no-store", .contentLength: "0"])
        }
    }

    func tokenEndpoint(_ request: inout Request, mayRedirect: Bool) async throws -> Response {
        let faults = self.withState { $0.oauthFaults }
        if let code = faults.tokenError {
            if let status = faults.tokenErrorStatus {
                return self.oauthError(code, "The server was told to answer \(code).", status: HTTPResponse.Status(code: status))
            }
            return code == "invalid_client" ? self.invalidClient() : self.oauthError(code, "The server was told to answer \(code).")
        }
        if mayRedirect, let status = faults.tokenRedirectStatus {
            return Response(
                status: HTTPResponse.Status(code: status),
                headers: [.location: faults.tokenRedirectLocation, .contentLength: "0", .cacheControl: "no-store"])
        }
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        guard contentType.hasPrefix("application/x-www-form-urlencoded") else {
            return self.oauthError("invalid_request", "The request must be application/x-www-form-urlencoded.")
        }
        let form = try await HTTPHelpers.form(&request)
        let clientID: String?
        switch await self.authenticateClient(form: form, request: request) {
        case .authenticated(let id): clientID = id
        case .refused(let refusal): return refusal
        }
        guard let grantType = form["grant_type"], !grantType.isEmpty else {
            return self.oauthError("invalid_request", "The grant_type parameter is missing.")
        }
        let boundKey: String?
        switch self.dpopProof(of: request) {
        case .none: boundKey = nil
        case .proven(let thumbprint): boundKey = thumbprint
        case .refused(let refusal): return self.tokenEndpointRefusal(refusal)
        }
        switch grantType {
        case "password":
            guard let username = form["username"], let password = form["password"] else {
                return self.oauthError("invalid_request", "The username and password parameters are required.")
            }
            guard let tokens = self.signIn(username: username, password: password, boundKey: boundKey) else {
                return self.oauthError("invalid_grant", "The username or password is incorrect.")
            }
            let scope = form["scope"]
            let idToken = try await self.idToken(for: tokens, clientID: clientID, nonce: nil, scope: scope)
            return self.tokenAnswer(tokens, idToken: idToken, scope: scope)
        case "authorization_code":
            return try await self.exchangeCode(form: form, clientID: clientID, boundKey: boundKey)
        case TokenExchange.grantType:
            return self.exchangeToken(form: form, boundKey: boundKey)
        case "refresh_token":
            guard let token = form["refresh_token"], !token.isEmpty else {
                return self.oauthError("invalid_request", "The refresh_token parameter is missing.")
            }
            let family = self.withState { state in
                state.presentedRefreshTokens.append(token)
                return state.refreshTokens.family(ofRefreshToken: token)
            }
            if let bound = family?.boundKey {
                // Checked before the token is used: a stolen token replayed without its key
                // neither rotates nor revokes the session.
                guard let boundKey else {
                    self.withState { $0.stats.dpopRefusals += 1 }
                    return self.oauthError("invalid_grant", "The refresh token is bound to a DPoP key; a proof by that key is required.")
                }
                guard boundKey == bound else {
                    self.withState { $0.stats.dpopRefusals += 1 }
                    return self.oauthError("invalid_dpop_proof", "The refresh token is bound to another DPoP key.")
                }
            }
            switch self.refresh(token, web: false) {
            case .success(let tokens):
                let idToken =
                    self.withState({ $0.oauthFaults.refreshIssuesIDToken })
                    ? try await self.idToken(for: tokens, clientID: clientID ?? form["client_id"], nonce: nil, scope: "openid") : nil
                return self.tokenAnswer(tokens, rotated: self.configuration.rotatesRefreshTokens, idToken: idToken)
            case .reuse:
                return self.oauthError("invalid_grant", "The refresh token was already used; the session has been revoked.")
            case .invalid(let reason):
                return self.oauthError("invalid_grant", reason)
            }
        default:
            return self.oauthError("unsupported_grant_type", "The grant type is not supported.")
        }
    }

    func tokenAnswer(
        _ tokens: IssuedTokens, rotated: Bool = true, idToken: String? = nil, scope: String? = nil, issuedTokenType: String? = nil
    ) -> Response {
        var headers: HTTPFields = [.cacheControl: "no-store", HTTPHelpers.pragma: "no-cache"]
        var webTokens = tokens
        if tokens.claims.cnf != nil {
            // A cookie cannot carry a proof: the web session gets an unbound token of its own.
            (webTokens.accessToken, webTokens.claims) = self.makeAccessToken(
                username: tokens.claims.sub, sessionID: tokens.claims.sid, now: Date())
        }
        if self.configuration.tokenEndpointSetsCookies {
            headers.appendSetCookies(
                SessionCookies.established(
                    tokens: webTokens,
                    accessLifetime: self.accessLifetimeSeconds,
                    webRefreshLifetime: self.configuration.tokenEndpointSetsWebRefreshCookie ? self.refreshLifetimeSeconds : nil
                )
            )
        }
        return HTTPHelpers.json(
            TokenAnswer(
                access_token: tokens.accessToken, token_type: tokens.claims.cnf == nil ? "Bearer" : "DPoP", expires_in: tokens.expiresIn,
                refresh_token: rotated ? tokens.refreshToken : nil, id_token: idToken, scope: scope, issued_token_type: issuedTokenType),
            headers: headers
        )
    }

    func oauthError(
        _ code: String,
        _ description: String,
        status: HTTPResponse.Status = .badRequest,
        extraHeaders: HTTPFields = [:]
    ) -> Response {
        self.withState { $0.stats.tokenErrors += 1 }
        var headers: HTTPFields = [.cacheControl: "no-store", HTTPHelpers.pragma: "no-cache"]
        headers.append(contentsOf: extraHeaders)
        return HTTPHelpers.json(OAuthError(error: code, error_description: description), status: status, headers: headers)
    }
}
