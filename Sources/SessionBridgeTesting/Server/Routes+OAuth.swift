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
    var refresh_token: String
}

extension ServerCore {
    /// `POST /oauth/token` and `POST /oauth/revoke`.
    func addOAuthRoutes(to router: Router<ReferenceRequestContext>) {
        router.post("/oauth/token") { request, _ in
            var request = request
            return try await self.tokenEndpoint(&request)
        }
        router.post("/oauth/revoke") { request, _ in
            var request = request
            let form = try await HTTPHelpers.form(&request)
            // RFC 7009: answer 200 whether or not the token was known.
            if let token = form["token"], let sessionID = self.withState({ $0.refreshTokens.sessionID(ofRefreshToken: token) }) {
                self.endSession(sessionID: sessionID, reason: "revoked")
            } else if let token = form["token"], case .success(let claims) = self.verifyAccessToken(token) {
                self.endSession(sessionID: claims.sid, reason: "revoked")
            }
            return Response(status: .ok, headers: [.cacheControl: "no-store", .contentLength: "0"])
        }
    }

    func tokenEndpoint(_ request: inout Request) async throws -> Response {
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        guard contentType.hasPrefix("application/x-www-form-urlencoded") else {
            return self.oauthError("invalid_request", "The request must be application/x-www-form-urlencoded.")
        }
        let form = try await HTTPHelpers.form(&request)
        if let clientError = self.checkClient(form: form, request: request) { return clientError }
        guard let grantType = form["grant_type"], !grantType.isEmpty else {
            return self.oauthError("invalid_request", "The grant_type parameter is missing.")
        }
        switch grantType {
        case "password":
            guard let username = form["username"], let password = form["password"] else {
                return self.oauthError("invalid_request", "The username and password parameters are required.")
            }
            guard let tokens = self.signIn(username: username, password: password) else {
                return self.oauthError("invalid_grant", "The username or password is incorrect.")
            }
            return self.tokenAnswer(tokens)
        case "refresh_token":
            guard let token = form["refresh_token"], !token.isEmpty else {
                return self.oauthError("invalid_request", "The refresh_token parameter is missing.")
            }
            switch self.refresh(token, web: false) {
            case .success(let tokens):
                return self.tokenAnswer(tokens)
            case .reuse:
                return self.oauthError("invalid_grant", "The refresh token was already used; the session has been revoked.")
            case .invalid(let reason):
                return self.oauthError("invalid_grant", reason)
            }
        default:
            return self.oauthError("unsupported_grant_type", "The grant type is not supported.")
        }
    }

    /// `invalid_client` when a client id is configured and the request names another.
    private func checkClient(form: [String: String], request: Request) -> Response? {
        guard let expected = self.configuration.clientID else { return nil }
        var presented = form["client_id"]
        if let authorization = request.headers[.authorization], authorization.lowercased().hasPrefix("basic "),
            let data = Data(base64Encoded: String(authorization.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
            let text = String(data: data, encoding: .utf8)
        {
            presented = text.split(separator: ":", maxSplits: 1).first.map(String.init).flatMap { $0.removingPercentEncoding }
        }
        guard presented == expected else {
            return self.oauthError(
                "invalid_client",
                "Client authentication failed.",
                status: .unauthorized,
                extraHeaders: [.wwwAuthenticate: "Basic realm=\"reference\""]
            )
        }
        return nil
    }

    func tokenAnswer(_ tokens: IssuedTokens) -> Response {
        var headers: HTTPFields = [.cacheControl: "no-store", HTTPHelpers.pragma: "no-cache"]
        headers.appendSetCookies(
            SessionCookies.established(
                tokens: tokens,
                accessLifetime: self.accessLifetimeSeconds,
                webRefreshLifetime: self.configuration.tokenEndpointSetsWebRefreshCookie ? self.refreshLifetimeSeconds : nil
            )
        )
        return HTTPHelpers.json(
            TokenAnswer(access_token: tokens.accessToken, expires_in: tokens.expiresIn, refresh_token: tokens.refreshToken),
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
