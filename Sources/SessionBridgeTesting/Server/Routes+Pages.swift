import Foundation
import Hummingbird

extension ServerCore {
    /// `/`, `/login`, `/app`, `/app/**`, `/redirect-chain*`, `/redirect-loop*`.
    func addPageRoutes(to router: Router<ReferenceRequestContext>) {
        router.get("/") { _, _ in HTTPHelpers.html(Pages.index()) }
        router.get("/login") { request, _ in
            let next = request.uri.queryParameters["next"].map { String($0).removingPercentEncoding ?? String($0) } ?? "/app"
            return HTTPHelpers.html(Pages.login(next: Self.safeNext(next), error: nil))
        }
        router.post("/login") { request, _ in
            var request = request
            let form = try await HTTPHelpers.form(&request)
            let next = Self.safeNext(form["next"] ?? "/app")
            guard let tokens = self.signIn(username: form["username"] ?? "", password: form["password"] ?? "") else {
                return HTTPHelpers.html(Pages.login(next: next, error: "The username or password is incorrect."), status: .unauthorized)
            }
            var headers: HTTPFields = [.cacheControl: "no-store"]
            headers.appendSetCookies(
                SessionCookies.established(
                    tokens: tokens,
                    accessLifetime: self.accessLifetimeSeconds,
                    webRefreshLifetime: self.refreshLifetimeSeconds
                )
            )
            return HTTPHelpers.redirect(to: next, headers: headers)
        }
        router.get("/app") { request, _ in self.protectedPage(request) }
        router.get("/app/**") { request, _ in self.protectedPage(request) }

        router.get("/redirect-chain") { request, _ in
            // `?delay=MS` (at most 2 s) holds the first answer, as a slow server does.
            if let delay = request.uri.queryParameters.get("delay", as: Int.self), delay > 0 {
                try await Task.sleep(for: .milliseconds(min(delay, 2000)))
            }
            var headers = HTTPFields()
            headers.appendSetCookies(["hop1=1; Path=/"])
            return HTTPHelpers.redirect(to: "/redirect-chain/2", headers: headers)
        }
        router.get("/redirect-chain/2") { _, _ in
            var headers = HTTPFields()
            headers.appendSetCookies(["hop2=2; Path=/"])
            return HTTPHelpers.redirect(to: "/redirect-chain/3", headers: headers)
        }
        router.get("/redirect-chain/3") { _, _ in
            var headers = HTTPFields()
            headers.appendSetCookies(["hop3=3; Path=/", "hop1=; Path=/; Max-Age=0"])
            return HTTPHelpers.html(Pages.redirectChainEnd(), headers: headers)
        }
        router.get("/redirect-loop") { _, _ in HTTPHelpers.redirect(to: "/redirect-loop/b") }
        router.get("/redirect-loop/b") { _, _ in HTTPHelpers.redirect(to: "/redirect-loop") }
    }

    /// A protected page: 200 with a valid access cookie, else 302 to the login page.
    func protectedPage(_ request: Request) -> Response {
        let path = request.uri.path
        switch self.verifyAccessToken(HTTPHelpers.cookie(SessionCookies.session, in: request) ?? self.exchangedSessionCookie(in: request)) {
        case .success(let claims):
            if request.uri.queryParameters["plain"] == "1" { return HTTPHelpers.html(Pages.plainApp(path: path, user: claims.sub)) }
            return HTTPHelpers.html(Pages.app(path: path, user: claims.sub, expiresAt: claims.exp))
        case .failure:
            self.countUnauthorized()
            var target = path
            if let query = request.uri.query, !query.isEmpty { target += "?" + query }
            return HTTPHelpers.redirect(to: "/login?next=" + HTTPHelpers.queryEscape(target))
        }
    }

    /// Only same-origin paths are allowed as a post-login target.
    static func safeNext(_ next: String) -> String {
        guard next.hasPrefix("/"), !next.hasPrefix("//"), !next.contains("\\") else { return "/app" }
        return next
    }
}
