import Foundation
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

extension ReferenceServerTests {
    @Suite(.timeLimit(.minutes(5)), .hangWatchdog) struct WebSession {
        /// Sign in the web way and return the answer.
        func webLogin(_ client: TestClient, next: String = "/app") async throws -> HTTPResult {
            try await client.postForm("/login", [("username", "demo"), ("password", "demo"), ("next", next)])
        }

        @Test func loginPageFlow() async throws {
            try await withServer { server, client async throws in
                let page = try await client.get("/login?next=%2Fapp%2Fsettings")
                #expect(page.status == 200)
                #expect(page.header("Content-Type")?.hasPrefix("text/html") == true)
                #expect(page.body.contains("<form"))
                #expect(page.body.contains(#"name="next" value="/app/settings""#))

                let wrong = try await client.postForm("/login", [("username", "demo"), ("password", "x"), ("next", "/app")])
                #expect(wrong.status == 401)
                #expect(wrong.body.contains("incorrect"))
                #expect(wrong.setCookies.isEmpty)

                let signedIn = try await self.webLogin(client, next: "/app/settings")
                #expect(signedIn.status == 302)
                #expect(signedIn.header("Location") == "/app/settings")
                #expect(signedIn.setCookie(named: "__Host-session") != nil)
                let webRefresh = try #require(signedIn.setCookie(named: "__Host-web_refresh"))
                #expect(cookieAttributes(webRefresh)["httponly"] != nil)
                #expect(cookieAttributes(webRefresh)["secure"] != nil)
                #expect(server.issuedRefreshTokens().contains(cookieValue(webRefresh)))
                #expect(server.stats().logins == 1)

                let app = try await client.get("/app/settings", headers: [("Cookie", signedIn.cookieHeader)])
                #expect(app.status == 200)

                // Only same-origin paths are followed after sign-in.
                let offsite = try await self.webLogin(client, next: "//evil.example/")
                #expect(offsite.header("Location") == "/app")
            }
        }

        @Test func protectedPages() async throws {
            try await withServer { server, client async throws in
                let anonymous = try await client.get("/app")
                #expect(anonymous.status == 302)
                #expect(anonymous.header("Location") == "/login?next=/app")
                let deep = try await client.get("/app/orders/7?tab=2")
                #expect(deep.status == 302)
                #expect(deep.header("Location") == "/login?next=/app/orders/7%3Ftab%3D2")
                let garbage = try await client.get("/app", headers: [("Cookie", "__Host-session=not.a.jwt")])
                #expect(garbage.status == 302)

                let login = try await client.login()
                let cookies = login.cookieHeader
                let page = try await client.get("/app", headers: [("Cookie", cookies)])
                #expect(page.status == 200)
                #expect(page.header("Content-Type")?.hasPrefix("text/html") == true)
                #expect(page.body.contains("<script>"))
                #expect(page.body.contains(#"window.webkit.messageHandlers.session.postMessage({action: "refresh"})"#))
                #expect(page.body.contains("fetch('/api/me'"))
                #expect(try await client.get("/app/orders/7", headers: [("Cookie", cookies)]).status == 200)
                // The same page without its scripts, behind the same check.
                let plain = try await client.get("/app?plain=1", headers: [("Cookie", cookies)])
                #expect(plain.status == 200)
                #expect(plain.body.contains(#"<p id="user">demo</p>"#))
                #expect(!plain.body.contains("<script"))
                #expect(try await client.get("/app?plain=1").status == 302)

                server.expireAccessTokens()
                let expired = try await client.get("/app", headers: [("Cookie", cookies)])
                #expect(expired.status == 302)
                #expect(server.stats().unauthorized == 5)
            }
        }

        @Test func apiMe() async throws {
            try await withServer { _, client async throws in
                let anonymous = try await client.get("/api/me")
                #expect(anonymous.status == 401)
                #expect(try anonymous.json()["error"] as? String == "invalid_token")
                #expect(anonymous.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)

                let login = try await client.login()
                let access = try #require(try login.json()["access_token"] as? String)
                let bearer = try await client.get("/api/me", headers: [("Authorization", "Bearer \(access)")])
                #expect(bearer.status == 200)
                #expect(try bearer.json()["sub"] as? String == "demo")
                #expect(try bearer.json()["name"] as? String == "Demo User")
                let cookie = try await client.get("/api/me", headers: [("Cookie", login.cookieHeader)])
                #expect(cookie.status == 200)
                #expect(try cookie.json()["sub"] as? String == "demo")
                let bad = try await client.get("/api/me", headers: [("Authorization", "Bearer abc")])
                #expect(bad.status == 401)
                #expect(bad.header("WWW-Authenticate")?.contains("invalid_token") == true)
            }
        }

        @Test func webRefreshRotatesCookies() async throws {
            try await withServer { server, client async throws in
                let none = try await client.request("POST", "/session/refresh")
                #expect(none.status == 401)
                #expect(try none.json()["error"] as? String == "login_required")

                let signedIn = try await self.webLogin(client)
                let oldRefresh = cookieValue(try #require(signedIn.setCookie(named: "__Host-web_refresh")))
                let refreshed = try await client.request("POST", "/session/refresh", headers: [("Cookie", signedIn.cookieHeader)])
                #expect(refreshed.status == 200)
                #expect(try refreshed.json()["ok"] as? Bool == true)
                #expect(try refreshed.json()["expiresAt"] is Int)
                let newRefresh = cookieValue(try #require(refreshed.setCookie(named: "__Host-web_refresh")))
                #expect(newRefresh != oldRefresh)
                #expect(refreshed.setCookie(named: "__Host-session") != nil)
                #expect(refreshed.setCookie(named: "session_expires") != nil)
                #expect(refreshed.setCookies.count == 5)
                #expect(!refreshed.body.contains(newRefresh))
                var stats = server.stats()
                #expect(stats.refreshes == 1)
                #expect(stats.webRefreshes == 1)
                #expect(try await client.get("/app", headers: [("Cookie", refreshed.cookieHeader)]).status == 200)

                // The stale cookie again: reuse, the family is revoked and the cookies deleted.
                let stale = try await client.request("POST", "/session/refresh", headers: [("Cookie", signedIn.cookieHeader)])
                #expect(stale.status == 401)
                #expect(try stale.json()["error"] as? String == "invalid_grant")
                #expect(stale.setCookie(named: "__Host-session").map(cookieAttributes)?["max-age"] == "0")
                stats = server.stats()
                #expect(stats.reuseEvents == 1)
                #expect(stats.activeSessions == 0)
                #expect(try await client.get("/app", headers: [("Cookie", refreshed.cookieHeader)]).status == 302)
            }
        }

        @Test func nativeAndWebRefreshOfOneFamilyCorruptTheSession() async throws {
            try await withServer(.init(tokenEndpointSetsWebRefreshCookie: true)) { server, client async throws in
                let login = try await client.login()
                let refresh = try #require(try login.json()["refresh_token"] as? String)
                #expect(login.setCookie(named: "__Host-web_refresh").map(cookieValue) == refresh)
                // The web app refreshes on its own…
                #expect(try await client.request("POST", "/session/refresh", headers: [("Cookie", login.cookieHeader)]).status == 200)
                // …then native code uses its (now stale) token.
                #expect(try await client.refresh(refresh).status == 400)
                #expect(server.stats().reuseEvents == 1)
            }
        }

        @Test func logoutDeletesCookiesBothWays() async throws {
            try await withServer { server, client async throws in
                let signedIn = try await self.webLogin(client)
                let logout = try await client.request("POST", "/session/logout", headers: [("Cookie", signedIn.cookieHeader)])
                #expect(logout.status == 200)
                let lines = logout.setCookies
                #expect(lines.count == 4)
                let session = try #require(logout.setCookie(named: "__Host-session"))
                #expect(cookieValue(session).isEmpty)
                #expect(cookieAttributes(session)["max-age"] == "0")
                let expires = try #require(logout.setCookie(named: "session_expires"))
                #expect(cookieAttributes(expires)["expires"] == "Thu, 01 Jan 1970 00:00:00 GMT")
                #expect(cookieAttributes(try #require(logout.setCookie(named: "csrf_token")))["max-age"] == "0")
                #expect(cookieAttributes(try #require(logout.setCookie(named: "__Host-web_refresh")))["expires"] != nil)
                #expect(server.stats().activeSessions == 0)
                #expect(server.stats().logouts == 1)
                // The old cookies no longer open anything.
                #expect(try await client.get("/api/me", headers: [("Cookie", signedIn.cookieHeader)]).status == 401)
                #expect(try await client.request("POST", "/session/refresh", headers: [("Cookie", signedIn.cookieHeader)]).status == 401)

                // GET /logout: same deletions, redirect to the login page; revokes a native session.
                let native = try await client.login()
                let refresh = try #require(try native.json()["refresh_token"] as? String)
                let getLogout = try await client.get("/logout", headers: [("Cookie", native.cookieHeader)])
                #expect(getLogout.status == 302)
                #expect(getLogout.header("Location") == "/login")
                #expect(getLogout.setCookies.count == 4)
                #expect(getLogout.setCookie(named: "session_expires").map(cookieAttributes)?["expires"] != nil)
                #expect(try await client.refresh(refresh).status == 400)
                #expect(server.stats().logouts == 2)
            }
        }

        @Test func redirectChainSetsAndDeletesCookiesPerHop() async throws {
            try await withServer { _, client async throws in
                let hop1 = try await client.get("/redirect-chain")
                #expect(hop1.status == 302)
                #expect(hop1.header("Location") == "/redirect-chain/2")
                #expect(hop1.setCookies == ["hop1=1; Path=/"])
                let hop2 = try await client.get("/redirect-chain/2", headers: [("Cookie", "hop1=1")])
                #expect(hop2.status == 302)
                #expect(hop2.header("Location") == "/redirect-chain/3")
                #expect(hop2.setCookies == ["hop2=2; Path=/"])
                let hop3 = try await client.get("/redirect-chain/3", headers: [("Cookie", "hop1=1; hop2=2")])
                #expect(hop3.status == 200)
                #expect(hop3.setCookies == ["hop3=3; Path=/", "hop1=; Path=/; Max-Age=0"])

                let loop = try await client.get("/redirect-loop")
                #expect(loop.status == 302)
                let back = try await client.get(try #require(loop.header("Location")))
                #expect(back.status == 302)
                #expect(back.header("Location") == "/redirect-loop")
            }
        }

        @Test func servesRegisteredDocuments() async throws {
            try await withServer { server, client async throws in
                #expect(try await client.get("/scripts/page.js").status == 404)
                server.serve(path: "/scripts/page.js", body: "window.x = 1;", contentType: "text/javascript; charset=utf-8")
                let script = try await client.get("/scripts/page.js")
                #expect(script.status == 200)
                #expect(script.body == "window.x = 1;")
                #expect(script.header("Content-Type") == "text/javascript; charset=utf-8")
                server.serve(path: "/scripts/page.js", body: "window.x = 2;", contentType: "text/javascript")
                #expect(try await client.get("/scripts/page.js").body == "window.x = 2;")
                server.removeDocument(path: "/scripts/page.js")
                #expect(try await client.get("/scripts/page.js").status == 404)
            }
        }

        @Test func accessTokenExpiresAfterOneSecond() async throws {
            try await withServer(.init(accessTokenLifetime: .seconds(1))) { server, client async throws in
                let login = try await client.login()
                let json = try login.json()
                #expect(json["expires_in"] as? Int == 1)
                #expect(login.setCookie(named: "__Host-session").map(cookieAttributes)?["max-age"] == "1")
                let access = try #require(json["access_token"] as? String)
                let refresh = try #require(json["refresh_token"] as? String)
                #expect(try await client.get("/api/me", headers: [("Authorization", "Bearer \(access)")]).status == 200)
                try await Task.sleep(for: .milliseconds(2100))
                let expired = try await client.get("/api/me", headers: [("Authorization", "Bearer \(access)")])
                #expect(expired.status == 401)
                #expect(try expired.json()["error_description"] as? String == "The access token has expired.")
                #expect(try await client.get("/app", headers: [("Cookie", login.cookieHeader)]).status == 302)
                #expect(server.verifyAccessToken(access) == nil)
                // The refresh token still works and gives a fresh access token.
                let renewed = try await client.refresh(refresh).json()
                let fresh = try #require(renewed["access_token"] as? String)
                #expect(try await client.get("/api/me", headers: [("Authorization", "Bearer \(fresh)")]).status == 200)
            }
        }
    }
}
