import Foundation
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

/// Every suite of this target runs one test at a time, so that the file descriptor count of the
/// start/stop test is not disturbed by the other tests' connections.
@Suite(.serialized, .timeLimit(.minutes(5)), .hangWatchdog) enum ReferenceServerTests {}

extension ReferenceServerTests {
    @Suite(.timeLimit(.minutes(5)), .hangWatchdog) struct OAuth {
        @Test func passwordGrantIssuesTokens() async throws {
            try await withServer { server, client async throws in
                let answer = try await client.login()
                #expect(answer.status == 200)
                #expect(answer.header("Cache-Control") == "no-store")
                #expect(answer.header("Content-Type")?.hasPrefix("application/json") == true)
                let json = try answer.json()
                #expect(json["token_type"] as? String == "Bearer")
                #expect(json["expires_in"] as? Int == 300)
                let access = try #require(json["access_token"] as? String)
                let refresh = try #require(json["refresh_token"] as? String)
                #expect(refresh.hasPrefix("sbrt_"))
                // 32 random bytes in base64url: 43 characters, well over 128 bits.
                #expect(refresh.count - 5 >= 22)
                #expect(access.split(separator: ".").count == 3)
                #expect(server.issuedRefreshTokens() == [refresh])
                let stats = server.stats()
                #expect(stats.logins == 1)
                #expect(stats.tokenRequests == 1)
                #expect(stats.activeSessions == 1)
            }
        }

        @Test func tokenEndpointErrors() async throws {
            try await withServer { server, client async throws in
                let wrong = try await client.login(password: "nope")
                #expect(wrong.status == 400)
                #expect(try wrong.json()["error"] as? String == "invalid_grant")
                #expect(try wrong.json()["error_description"] is String)
                #expect(wrong.header("Cache-Control") == "no-store")
                #expect(wrong.setCookies.isEmpty)

                let missing = try await client.postForm("/oauth/token", [("username", "demo")])
                #expect(try missing.json()["error"] as? String == "invalid_request")

                let unsupported = try await client.postForm("/oauth/token", [("grant_type", "client_credentials")])
                #expect(unsupported.status == 400)
                #expect(try unsupported.json()["error"] as? String == "unsupported_grant_type")

                let json = try await client.request(
                    "POST",
                    "/oauth/token",
                    headers: [("Content-Type", "application/json")],
                    body: #"{"grant_type":"password"}"#
                )
                #expect(try json.json()["error"] as? String == "invalid_request")

                let unknown = try await client.refresh("sbrt_unknown")
                #expect(try unknown.json()["error"] as? String == "invalid_grant")

                let stats = server.stats()
                #expect(stats.tokenRequests == 5)
                #expect(stats.tokenErrors == 5)
                #expect(stats.logins == 0)
            }
        }

        @Test func clientAuthentication() async throws {
            try await withServer(.init(clientID: "ios-app")) { _, client async throws in
                let anonymous = try await client.login()
                #expect(anonymous.status == 401)
                #expect(try anonymous.json()["error"] as? String == "invalid_client")
                #expect(anonymous.header("WWW-Authenticate") != nil)
                let named = try await client.postForm(
                    "/oauth/token",
                    [("grant_type", "password"), ("username", "demo"), ("password", "demo"), ("client_id", "ios-app")]
                )
                #expect(named.status == 200)
                let basic = Data("ios-app:".utf8).base64EncodedString()
                let viaBasic = try await client.postForm(
                    "/oauth/token",
                    [("grant_type", "password"), ("username", "demo"), ("password", "demo")],
                    headers: [("Authorization", "Basic \(basic)")]
                )
                #expect(viaBasic.status == 200)
            }
        }

        @Test func configurableAccount() async throws {
            try await withServer(.init(username: "alice", password: "s3cret")) { _, client async throws in
                #expect(try await client.login().status == 400)
                #expect(try await client.login(username: "alice", password: "s3cret").status == 200)
            }
        }

        @Test func refreshRotatesTokens() async throws {
            try await withServer { server, client async throws in
                let first = try await client.login().json()
                let refresh1 = try #require(first["refresh_token"] as? String)
                let answer = try await client.refresh(refresh1)
                #expect(answer.status == 200)
                #expect(answer.header("Cache-Control") == "no-store")
                let second = try answer.json()
                let refresh2 = try #require(second["refresh_token"] as? String)
                let access2 = try #require(second["access_token"] as? String)
                #expect(refresh2 != refresh1)
                #expect(access2 != first["access_token"] as? String)
                #expect(server.verifyAccessToken(access2)?.sid == server.verifyAccessToken(first["access_token"] as! String)?.sid)
                // The new token works, and rotates again.
                let third = try await client.refresh(refresh2)
                #expect(third.status == 200)
                #expect(server.stats().refreshes == 2)
                #expect(server.issuedRefreshTokens().count == 3)
                // The old token is refused afterwards.
                let old = try await client.refresh(refresh1)
                #expect(old.status == 400)
                #expect(try old.json()["error"] as? String == "invalid_grant")
            }
        }

        @Test func reuseRevokesTheFamily() async throws {
            try await withServer { server, client async throws in
                let login = try await client.login().json()
                let refresh1 = try #require(login["refresh_token"] as? String)
                let rotated = try await client.refresh(refresh1).json()
                let refresh2 = try #require(rotated["refresh_token"] as? String)
                let access2 = try #require(rotated["access_token"] as? String)
                #expect(try await client.get("/api/me", headers: [("Authorization", "Bearer \(access2)")]).status == 200)

                let reuse = try await client.refresh(refresh1)
                #expect(reuse.status == 400)
                #expect(try reuse.json()["error"] as? String == "invalid_grant")
                var stats = server.stats()
                #expect(stats.reuseEvents == 1)
                #expect(stats.activeSessions == 0)

                // The newest token of the family is dead too, and so is its access token.
                let newest = try await client.refresh(refresh2)
                #expect(try newest.json()["error"] as? String == "invalid_grant")
                #expect(try await client.get("/api/me", headers: [("Authorization", "Bearer \(access2)")]).status == 401)
                stats = server.stats()
                #expect(stats.reuseEvents == 1)
                #expect(stats.refreshes == 1)

                // Other sessions are untouched.
                let other = try await client.login().json()
                let otherRefresh = try #require(other["refresh_token"] as? String)
                #expect(try await client.refresh(otherRefresh).status == 200)
                #expect(server.stats().activeSessions == 1)
            }
        }

        @Test func reuseGraceReplaysTheRotationUntilTheSuccessorIsUsed() async throws {
            var configuration = ReferenceServerConfiguration()
            configuration.refreshTokenReuseGrace = .seconds(30)
            try await withServer(configuration) { server, client async throws in
                let refresh1 = try #require(try await client.login().json()["refresh_token"] as? String)
                let refresh2 = try #require(try await client.refresh(refresh1).json()["refresh_token"] as? String)
                // The answer was lost: asked again, the same rotation is answered, with a new access token.
                let again = try await client.refresh(refresh1)
                #expect(again.status == 200)
                let replayed = try again.json()
                #expect(replayed["refresh_token"] as? String == refresh2)
                let access = try #require(replayed["access_token"] as? String)
                #expect(try await client.get("/api/me", headers: [("Authorization", "Bearer \(access)")]).status == 200)
                #expect(server.stats().graceReplays == 1)
                #expect(server.issuedRefreshTokens().count == 2)
                // Once the successor is used, the old token is refused but revokes nothing.
                let refresh3 = try #require(try await client.refresh(refresh2).json()["refresh_token"] as? String)
                let late = try await client.refresh(refresh1)
                #expect(late.status == 400)
                #expect(try late.json()["error"] as? String == "invalid_grant")
                #expect(try await client.refresh(refresh3).status == 200)
                let stats = server.stats()
                #expect(stats.reuseEvents == 0)
                #expect(stats.activeSessions == 1)
            }
        }

        @Test func reuseAfterTheGraceRevokesTheFamily() async throws {
            var configuration = ReferenceServerConfiguration()
            configuration.refreshTokenReuseGrace = .milliseconds(200)
            try await withServer(configuration) { server, client async throws in
                let refresh1 = try #require(try await client.login().json()["refresh_token"] as? String)
                #expect(try await client.refresh(refresh1).status == 200)
                try await Task.sleep(for: .milliseconds(400))
                let reuse = try await client.refresh(refresh1)
                #expect(try reuse.json()["error"] as? String == "invalid_grant")
                let stats = server.stats()
                #expect(stats.reuseEvents == 1)
                #expect(stats.graceReplays == 0)
                #expect(stats.activeSessions == 0)
            }
        }

        @Test func concurrentRefreshesOfOneTokenSucceedOnce() async throws {
            try await withServer { server, client async throws in
                let login = try await client.login().json()
                let refresh = try #require(login["refresh_token"] as? String)
                let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<8 {
                        group.addTask { try await client.refresh(refresh).status }
                    }
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
                #expect(statuses.count { $0 == 200 } == 1)
                #expect(statuses.count { $0 == 400 } == 7)
                let stats = server.stats()
                #expect(stats.refreshes == 1)
                #expect(stats.reuseEvents == 7)
                #expect(stats.activeSessions == 0)
            }
        }

        @Test func accessTokenIsASignedJWT() async throws {
            try await withServer { server, client async throws in
                let before = Int(Date().timeIntervalSince1970)
                let json = try await client.login().json()
                let after = Int(Date().timeIntervalSince1970)
                let token = try #require(json["access_token"] as? String)
                let parts = token.split(separator: ".", omittingEmptySubsequences: false)
                try #require(parts.count == 3)
                #expect(!token.contains("="))
                let header = try jwtPart(parts[0])
                #expect(header["alg"] as? String == "HS256")
                #expect(header["typ"] as? String == "JWT")
                let claims = try jwtPart(parts[1])
                #expect(claims["sub"] as? String == "demo")
                let iat = try #require(claims["iat"] as? Int)
                let exp = try #require(claims["exp"] as? Int)
                #expect(iat >= before && iat <= after)
                #expect(exp - iat >= 300 && exp - iat <= 301)
                #expect((claims["sid"] as? String)?.isEmpty == false)
                // HMAC-SHA256 is 32 bytes: 43 base64url characters.
                #expect(parts[2].count == 43)

                let verified = try #require(server.verifyAccessToken(token))
                #expect(verified.sub == "demo")
                #expect(verified.exp == exp)
                #expect(verified.iss == server.baseURL.absoluteString)

                // A changed payload or signature is refused.
                let forgedClaims = Data(#"{"sub":"admin","iat":\#(iat),"exp":\#(exp + 1000),"sid":"x","jti":"y","iss":"z"}"#.utf8)
                    .base64EncodedString().replacingOccurrences(of: "=", with: "")
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                let forged = "\(parts[0]).\(forgedClaims).\(parts[2])"
                #expect(server.verifyAccessToken(forged) == nil)
                #expect(try await client.get("/api/me", headers: [("Authorization", "Bearer \(forged)")]).status == 401)
                var signature = Array(parts[2])
                signature[0] = signature[0] == "A" ? "B" : "A"
                let badSignature = "\(parts[0]).\(parts[1]).\(String(signature))"
                #expect(try await client.get("/api/me", headers: [("Authorization", "Bearer \(badSignature)")]).status == 401)
                let none = "eyJhbGciOiJub25lIn0.\(parts[1])."
                #expect(try await client.get("/api/me", headers: [("Authorization", "Bearer \(none)")]).status == 401)

                // Each server has its own key: a token from another server is refused.
                let other = try await ReferenceServer.start()
                #expect(other.verifyAccessToken(token) == nil)
                try await other.stop()
            }
        }

        @Test func revocationEndpoint() async throws {
            try await withServer { server, client async throws in
                let json = try await client.login().json()
                let refresh = try #require(json["refresh_token"] as? String)
                let revoke = try await client.postForm("/oauth/revoke", [("token", refresh)])
                #expect(revoke.status == 200)
                #expect(server.stats().activeSessions == 0)
                #expect(server.stats().logouts == 1)
                #expect(try await client.refresh(refresh).status == 400)
                // Unknown tokens are answered 200 too (RFC 7009).
                #expect(try await client.postForm("/oauth/revoke", [("token", "whatever")]).status == 200)
            }
        }

        @Test func debugStats() async throws {
            try await withServer { _, client async throws in
                let json = try await client.login().json()
                let refresh = try #require(json["refresh_token"] as? String)
                _ = try await client.refresh(refresh)
                _ = try await client.refresh(refresh)
                let stats = try await client.get("/debug/stats")
                #expect(stats.status == 200)
                let body = try stats.json()
                #expect(body["refreshes"] as? Int == 1)
                #expect(body["reuseEvents"] as? Int == 1)
                #expect(body["activeSessions"] as? Int == 0)
                #expect(body["logins"] as? Int == 1)
                #expect(body["tokenRequests"] as? Int == 3)
                #expect(body["faults"] is [String: Any])
            }
            try await withServer(.init(exposeDebugStats: false)) { _, client async throws in
                let hidden = try await client.get("/debug/stats")
                #expect(hidden.status == 404)
            }
        }

        @Test func tokenEndpointSetsSessionCookiesOnSeparateLines() async throws {
            try await withServer { _, client async throws in
                let answer = try await client.login()
                let json = try answer.json()
                let lines = answer.setCookies
                #expect(lines.count == 4)
                for line in lines {
                    // One cookie per line: never joined with commas.
                    #expect(line.split(separator: ";").first?.contains("=") == true)
                    #expect(!line.contains(", __Host") && !line.contains(", session_") && !line.contains(", csrf"))
                }
                let session = try #require(answer.setCookie(named: "__Host-session"))
                #expect(cookieValue(session) == json["access_token"] as? String)
                let attributes = cookieAttributes(session)
                #expect(attributes["path"] == "/")
                #expect(attributes["httponly"] != nil)
                #expect(attributes["secure"] != nil)
                #expect(attributes["samesite"] == "Lax")
                #expect(attributes["max-age"] == "300")
                #expect(attributes["domain"] == nil)

                let expires = try #require(answer.setCookie(named: "session_expires"))
                let claims = try jwtPart((json["access_token"] as! String).split(separator: ".")[1])
                #expect(cookieValue(expires) == String(claims["exp"] as! Int))
                #expect(cookieAttributes(expires)["httponly"] == nil)
                #expect(cookieAttributes(expires)["max-age"] == "300")

                let csrf = try #require(answer.setCookie(named: "csrf_token"))
                #expect(cookieAttributes(csrf)["httponly"] == nil)
                #expect(!cookieValue(csrf).isEmpty)
                let theme = try #require(answer.setCookie(named: "theme"))
                #expect(cookieAttributes(theme)["max-age"] == "31536000")
                // The refresh token never goes into a cookie by default.
                #expect(answer.setCookie(named: "__Host-web_refresh") == nil)
                #expect(!lines.contains { $0.contains(json["refresh_token"] as! String) })
            }
        }
    }
}
