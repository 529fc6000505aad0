import Foundation
import Hummingbird

/// Answer of `POST /session/refresh`.
struct WebRefreshAnswer: Encodable {
    var ok: Bool
    var expiresAt: Int?
    var error: String?
}

/// Answer of `GET /api/me`.
struct MeAnswer: Encodable {
    var sub: String
    var name: String
    var sid: String
    var exp: Int
}

extension ServerCore {
    /// `POST /session/refresh`, `POST /session/logout`, `GET /logout`, `GET /api/me`, `GET /debug/stats`.
    func addSessionRoutes(to router: Router<ReferenceRequestContext>) {
        router.post("/session/refresh") { request, _ in
            self.webRefresh(request)
        }
        router.post("/session/logout") { request, _ in
            self.logout(request)
            var headers: HTTPFields = [.cacheControl: "no-store"]
            headers.appendSetCookies(SessionCookies.deletions())
            return HTTPHelpers.json(WebRefreshAnswer(ok: true), headers: headers)
        }
        router.get("/logout") { request, _ in
            self.logout(request)
            var headers: HTTPFields = [.cacheControl: "no-store"]
            headers.appendSetCookies(SessionCookies.deletions())
            return HTTPHelpers.redirect(to: "/login", headers: headers)
        }
        router.get("/api/me") { request, _ in
            let outcome =
                self.authorizeResource(request)
                ?? self.verifyAccessToken(
                    HTTPHelpers.cookie(SessionCookies.session, in: request) ?? self.exchangedSessionCookie(in: request)
                )
                .mapError { .token($0) }
            switch outcome {
            case .success(let claims):
                return HTTPHelpers.json(
                    MeAnswer(sub: claims.sub, name: self.configuration.displayName, sid: claims.sid, exp: claims.exp),
                    headers: [.cacheControl: "no-store"]
                )
            case .failure(let refusal):
                return self.unauthorized(refusal)
            }
        }
        router.get("/debug/stats") { _, _ in
            guard self.configuration.exposeDebugStats else {
                return Response(status: .notFound, headers: [.contentLength: "0"])
            }
            return HTTPHelpers.json(self.currentStats(), headers: [.cacheControl: "no-store"])
        }
    }

    /// The web app's own refresh: rotates the `__Host-web_refresh` cookie.
    func webRefresh(_ request: Request) -> Response {
        guard let token = HTTPHelpers.cookie(SessionCookies.webRefresh, in: request), !token.isEmpty else {
            self.countUnauthorized()
            return HTTPHelpers.json(
                WebRefreshAnswer(ok: false, error: "login_required"),
                status: .unauthorized,
                headers: [.cacheControl: "no-store"]
            )
        }
        switch self.refresh(token, web: true) {
        case .success(let tokens):
            var headers: HTTPFields = [.cacheControl: "no-store"]
            headers.appendSetCookies(
                SessionCookies.established(
                    tokens: tokens,
                    accessLifetime: self.accessLifetimeSeconds,
                    webRefreshLifetime: self.refreshLifetimeSeconds
                )
            )
            return HTTPHelpers.json(WebRefreshAnswer(ok: true, expiresAt: tokens.claims.exp), headers: headers)
        case .reuse, .invalid:
            self.countUnauthorized()
            var headers: HTTPFields = [.cacheControl: "no-store"]
            headers.appendSetCookies(SessionCookies.deletions())
            return HTTPHelpers.json(WebRefreshAnswer(ok: false, error: "invalid_grant"), status: .unauthorized, headers: headers)
        }
    }

    /// Revoke the session named by the request's access token (expired or not) or web refresh cookie.
    func logout(_ request: Request) {
        var sessionID: String?
        let token = HTTPHelpers.bearerToken(in: request) ?? HTTPHelpers.cookie(SessionCookies.session, in: request)
        if let token, let claims = try? JWT.verify(token, key: self.signingKey, allowExpired: true) {
            sessionID = claims.sid
        } else if let refresh = HTTPHelpers.cookie(SessionCookies.webRefresh, in: request) {
            sessionID = self.withState { $0.refreshTokens.sessionID(ofRefreshToken: refresh) }
        }
        if let sessionID {
            self.endSession(sessionID: sessionID, reason: "logout")
        }
    }

    func currentStats() -> ServerStats {
        let now = Date()
        return self.withState { state in
            var stats = state.stats
            stats.activeSessions = state.refreshTokens.activeSessionCount(now: now)
            return stats
        }
    }
}
