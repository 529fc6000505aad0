import Foundation
import SessionBridgeOAuth
import SessionBridgeTestSupport
import Testing

@testable import SessionBridge

extension Interop {
    /// RFC 7009: logout revokes the refresh token with the client's own authentication.
    @Suite(.timeLimit(.minutes(3)), .hangWatchdog) struct Revocation {
        @Test(arguments: ["none", "client_secret_basic", "client_secret_post"])
        func logoutRevokesTheRefreshToken(method: String) async throws {
            try await InteropServer.withRunning { server async throws in
                let vault = InMemoryTokenVault()
                let session: SessionController
                switch method {
                case "client_secret_basic":
                    session = server.session(
                        clientID: InteropClient.basicClient, authentication: server.basicAuthentication,
                        revocationEndpoint: server.revocationEndpoint, vault: vault)
                case "client_secret_post":
                    session = server.session(
                        clientID: InteropClient.postClient, authentication: server.postAuthentication,
                        revocationEndpoint: server.revocationEndpoint, vault: vault)
                default:
                    session = server.session(revocationEndpoint: server.revocationEndpoint, vault: vault)
                }
                try await session.login(username: server.configuration.username, password: server.configuration.password)
                let token = try #require(try vault.storedToken())
                await session.logout()
                #expect(try vault.storedToken() == nil)
                #expect(server.log.contains("POST /o/revoke_token/ 200"))

                // The token no longer refreshes at the server.
                try await HTTPExchange.withClient { http in
                    var fields = [("grant_type", "refresh_token"), ("refresh_token", token.value)]
                    var basic: (id: String, secret: String)?
                    switch method {
                    case "client_secret_basic": basic = (InteropClient.basicClient, server.configuration.basicClientSecret)
                    case "client_secret_post":
                        fields += [("client_id", InteropClient.postClient), ("client_secret", server.configuration.postClientSecret)]
                    default: fields.append(("client_id", InteropClient.publicClient))
                    }
                    let refresh = try await http.postForm(server.tokenEndpoint, fields, basic: basic)
                    #expect(refresh.oauthError == "invalid_grant")
                }
            }
        }

        /// django-oauth-toolkit names its revocation endpoint in its RFC 8414 document only,
        /// not in its OpenID Connect one, and discovery reads the OpenID document alone: with
        /// `--issuer` and no `--revocation-endpoint`, logout cannot revoke at this server.
        @Test func logoutWithDiscoveryAloneFindsTheRevocationEndpointInTheOtherDocument() async throws {
            try await InteropServer.withRunning { server async throws in
                let vault = InMemoryTokenVault()
                let session = server.session(vault: vault)
                try await session.login(username: server.configuration.username, password: server.configuration.password)
                let token = try #require(try vault.storedToken())
                await session.logout()
                #expect(try vault.storedToken() == nil)
                let stillRefreshes = try await HTTPExchange.withClient { http in
                    try await http.postForm(
                        server.tokenEndpoint,
                        [
                            ("grant_type", "refresh_token"), ("refresh_token", token.value), ("client_id", InteropClient.publicClient),
                        ]
                    ).status == 200
                }
                // The revocation endpoint is published in the RFC 8414 document only.
                #expect(server.log.contains("POST /o/revoke_token/"))
                #expect(!stillRefreshes)
            }
        }
    }
}
