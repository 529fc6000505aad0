import Foundation
import Hummingbird

/// Answer of `POST /session/exchange`.
struct SessionExchangeAnswer: Encodable {
    var ok: Bool
    var expiresAt: Int?
    var error: String?
}

extension ServerCore {
    /// `POST /session/exchange`: the web product's side of a session exchange. A valid bearer
    /// access token (`Authorization: Bearer`) buys a web session: an HttpOnly `web_session`
    /// cookie holding a new access token of the same session, and `session_expires`. A
    /// DPoP-bound access token is accepted with its proof (`Authorization: DPoP`).
    func addSessionExchangeRoutes(to router: Router<ReferenceRequestContext>) {
        router.post("/session/exchange") { request, _ in
            self.exchangeSession(request)
        }
    }

    func exchangeSession(_ request: Request) -> Response {
        let refused = self.withState { state in
            guard state.sessionExchangeFailuresRemaining > 0 else { return false }
            state.sessionExchangeFailuresRemaining -= 1
            return true
        }
        if refused {
            return HTTPHelpers.json(
                SessionExchangeAnswer(ok: false, error: "temporarily_unavailable"), status: .serviceUnavailable,
                headers: [.cacheControl: "no-store"])
        }
        switch self.authorizeResource(request) ?? .failure(.token(.missing)) {
        case .success(let claims):
            let (token, issued) = self.makeAccessToken(username: claims.sub, sessionID: claims.sid, now: Date())
            self.withState { $0.stats.sessionExchanges += 1 }
            var headers: HTTPFields = [.cacheControl: "no-store"]
            headers.appendSetCookies([
                "\(SessionCookies.webSession)=\(token); Path=/; Max-Age=\(self.accessLifetimeSeconds); HttpOnly; SameSite=Lax",
                "\(SessionCookies.expires)=\(issued.exp); Path=/; Max-Age=\(self.accessLifetimeSeconds); SameSite=Lax",
            ])
            return HTTPHelpers.json(SessionExchangeAnswer(ok: true, expiresAt: issued.exp), headers: headers)
        case .failure(.proof(let refusal)):
            return self.unauthorized(.proof(refusal))
        case .failure(.token(let rejection)):
            self.countUnauthorized()
            return HTTPHelpers.json(
                SessionExchangeAnswer(ok: false, error: "invalid_token"), status: .unauthorized,
                headers: [
                    .wwwAuthenticate: "Bearer realm=\"reference\", error=\"invalid_token\", error_description=\"\(rejection.description)\"",
                    .cacheControl: "no-store",
                ])
        }
    }

    /// The `web_session` cookie of `request`, counted when present.
    func exchangedSessionCookie(in request: Request) -> String? {
        guard let value = HTTPHelpers.cookie(SessionCookies.webSession, in: request), !value.isEmpty else { return nil }
        self.withState { $0.stats.exchangedCookieRequests += 1 }
        return value
    }
}
