import Foundation
import SessionBridgeTestSupport
import Testing

/// The interop tests start a child server each; one at a time keeps a 2-core machine responsive.
@Suite(.serialized, .timeLimit(.minutes(10)), .hangWatchdog) enum Interop {}

extension Interop {
    /// The third-party server itself, spoken to with plain HTTP: what the client tests rely on.
    @Suite(.timeLimit(.minutes(3)), .hangWatchdog) struct ServerSanity {
        @Test func discoveryDocumentNamesTheIssuerAndItsEndpoints() async throws {
            try await InteropServer.withRunning { server async throws in
                try await HTTPExchange.withClient { http in
                    let answer = try await http.get(server.discoveryURL)
                    #expect(answer.status == 200)
                    let document = try answer.json()
                    #expect(document["issuer"] as? String == server.issuer.absoluteString)
                    #expect(document["token_endpoint"] as? String == server.tokenEndpoint.absoluteString)
                    #expect(document["authorization_endpoint"] as? String == server.authorizationEndpoint.absoluteString)
                    #expect((document["code_challenge_methods_supported"] as? [String]) == ["S256"])
                    #expect((document["token_endpoint_auth_methods_supported"] as? [String])?.contains("client_secret_basic") == true)
                    #expect((document["id_token_signing_alg_values_supported"] as? [String])?.contains("RS256") == true)

                    // The RFC 8414 document (where the revocation endpoint is published).
                    let metadata = try await http.get(server.url("/.well-known/oauth-authorization-server/o")).json()
                    #expect(metadata["issuer"] as? String == server.issuer.absoluteString)
                    #expect(metadata["revocation_endpoint"] as? String == server.revocationEndpoint.absoluteString)

                    let jwksURL = try #require((document["jwks_uri"] as? String).flatMap(URL.init(string:)))
                    let keys = try #require(try await http.get(jwksURL).json()["keys"] as? [[String: Any]])
                    #expect(keys.first?["kty"] as? String == "RSA")
                    #expect(keys.first?["d"] == nil)
                }
            }
        }

        @Test func passwordGrantThenRefreshRotates() async throws {
            try await InteropServer.withRunning { server async throws in
                try await HTTPExchange.withClient { http in
                    let configuration = server.configuration
                    let login = try await http.postForm(
                        server.tokenEndpoint,
                        [
                            ("grant_type", "password"), ("username", configuration.username),
                            ("password", configuration.password), ("client_id", InteropClient.publicClient),
                            ("scope", "openid read"),
                        ])
                    #expect(login.status == 200)
                    let tokens = try login.json()
                    #expect((tokens["token_type"] as? String)?.lowercased() == "bearer")
                    #expect(tokens["expires_in"] as? Int == configuration.accessTokenLifetime)
                    let first = try #require(tokens["refresh_token"] as? String)

                    let refresh = try await http.postForm(
                        server.tokenEndpoint,
                        [
                            ("grant_type", "refresh_token"), ("refresh_token", first), ("client_id", InteropClient.publicClient),
                        ])
                    #expect(refresh.status == 200)
                    let rotated = try refresh.json()
                    let second = try #require(rotated["refresh_token"] as? String)
                    #expect(second != first)
                    // The openid scope brings an RS256 ID token on refresh.
                    #expect((rotated["id_token"] as? String)?.split(separator: ".").count == 3)

                    // The old token is spent.
                    let reuse = try await http.postForm(
                        server.tokenEndpoint,
                        [
                            ("grant_type", "refresh_token"), ("refresh_token", first), ("client_id", InteropClient.publicClient),
                        ])
                    #expect(reuse.status == 400)
                    #expect(reuse.oauthError == "invalid_grant")
                }
            }
        }

        @Test func nonRotatingServerAnswersRefreshWithoutARefreshToken() async throws {
            var configuration = InteropServerConfiguration()
            configuration.rotatesRefreshTokens = false
            try await InteropServer.withRunning(configuration) { server async throws in
                try await HTTPExchange.withClient { http in
                    let login = try await http.postForm(
                        server.tokenEndpoint,
                        [
                            ("grant_type", "password"), ("username", configuration.username),
                            ("password", configuration.password), ("client_id", InteropClient.publicClient),
                        ])
                    let token = try #require(try login.json()["refresh_token"] as? String)
                    for _ in 0..<2 {
                        let refresh = try await http.postForm(
                            server.tokenEndpoint,
                            [
                                ("grant_type", "refresh_token"), ("refresh_token", token), ("client_id", InteropClient.publicClient),
                            ])
                        #expect(refresh.status == 200)
                        let answer = try refresh.json()
                        #expect(answer["access_token"] is String)
                        #expect(answer["refresh_token"] == nil || answer["refresh_token"] as? String == token)
                    }
                }
            }
        }

        @Test func confidentialClientsAuthenticateWithBasicAndPost() async throws {
            try await InteropServer.withRunning { server async throws in
                try await HTTPExchange.withClient { http in
                    let configuration = server.configuration
                    let grant = [("grant_type", "password"), ("username", configuration.username), ("password", configuration.password)]
                    let basic = try await http.postForm(
                        server.tokenEndpoint, grant, basic: (InteropClient.basicClient, configuration.basicClientSecret))
                    #expect(basic.status == 200)
                    let post = try await http.postForm(
                        server.tokenEndpoint,
                        grant + [("client_id", InteropClient.postClient), ("client_secret", configuration.postClientSecret)])
                    #expect(post.status == 200)
                    let wrong = try await http.postForm(
                        server.tokenEndpoint, grant, basic: (InteropClient.basicClient, configuration.postClientSecret))
                    #expect(wrong.status == 401)
                    #expect(wrong.oauthError == "invalid_client")
                }
            }
        }

        /// Each RFC 6749 §5.2 class the client tests expect, produced by the server as configured.
        @Test func errorClasses() async throws {
            var configuration = InteropServerConfiguration()
            configuration.disabledGrantTypes = ["client_credentials"]
            try await InteropServer.withRunning(configuration) { server async throws in
                try await HTTPExchange.withClient { http in
                    let user = [("username", configuration.username), ("password", configuration.password)]
                    func token(_ fields: [(String, String)]) async throws -> HTTPAnswer {
                        try await http.postForm(server.tokenEndpoint, fields)
                    }
                    let wrongPassword = try await token(
                        [
                            ("grant_type", "password"), ("username", configuration.username), ("password", "wrong"),
                            ("client_id", InteropClient.publicClient),
                        ])
                    #expect(wrongPassword.oauthError == "invalid_grant")
                    let garbage = try await token(
                        [("grant_type", "refresh_token"), ("refresh_token", "garbage"), ("client_id", InteropClient.publicClient)])
                    #expect(garbage.oauthError == "invalid_grant")
                    let scope = try await token(
                        [("grant_type", "password")] + user + [("client_id", InteropClient.publicClient), ("scope", "admin")])
                    #expect(scope.oauthError == "invalid_scope")
                    let missing = try await token([
                        ("grant_type", "password"), ("username", configuration.username),
                        ("client_id", InteropClient.publicClient),
                    ])
                    #expect(missing.oauthError == "invalid_request")
                    let unauthorized = try await token([("grant_type", "password")] + user + [("client_id", InteropClient.codeClient)])
                    #expect(unauthorized.oauthError == "unauthorized_client")
                    let disabled = try await token([("grant_type", "client_credentials"), ("client_id", InteropClient.publicClient)])
                    #expect(disabled.oauthError == "unsupported_grant_type")
                    let unknownClient = try await token([("grant_type", "password")] + user + [("client_id", "nobody")])
                    #expect(unknownClient.oauthError == "invalid_client")
                }
            }
        }

        @Test func revokedRefreshTokenNoLongerRefreshes() async throws {
            try await InteropServer.withRunning { server async throws in
                try await HTTPExchange.withClient { http in
                    let configuration = server.configuration
                    let login = try await http.postForm(
                        server.tokenEndpoint,
                        [
                            ("grant_type", "password"), ("username", configuration.username),
                            ("password", configuration.password), ("client_id", InteropClient.publicClient),
                        ])
                    let token = try #require(try login.json()["refresh_token"] as? String)
                    let revoke = try await http.postForm(
                        server.revocationEndpoint,
                        [
                            ("token", token), ("token_type_hint", "refresh_token"), ("client_id", InteropClient.publicClient),
                        ])
                    #expect(revoke.status == 200)
                    let refresh = try await http.postForm(
                        server.tokenEndpoint,
                        [
                            ("grant_type", "refresh_token"), ("refresh_token", token), ("client_id", InteropClient.publicClient),
                        ])
                    #expect(refresh.oauthError == "invalid_grant")
                }
            }
        }

        @Test func missingInstallationIsAClearError() async throws {
            // A virtual environment that does not exist: the error names the setup script.
            let error = await #expect(throws: InteropServerError.self) {
                _ = try await InteropServer.start(python: URL(fileURLWithPath: "/nonexistent/interop-venv/bin/python"))
            }
            #expect(error?.description.contains("Scripts/setup") == true)
        }
    }
}
