import Foundation
import SessionBridgeOAuth
import SessionBridgeTestSupport
import Testing

@testable import SessionBridge

extension Interop {
    /// Each RFC 6749 §5.2 error the server produces, as the session reports it: configuration
    /// errors are not retried and keep the session; `invalid_grant` ends it.
    @Suite(.timeLimit(.minutes(3)), .hangWatchdog) struct ErrorClasses {
        @Test func wrongClientSecretIsInvalidClientAndKeepsTheSession() async throws {
            try await InteropServer.withRunning { server async throws in
                let vault = InMemoryTokenVault()
                let good = server.session(clientID: InteropClient.basicClient, authentication: server.basicAuthentication, vault: vault)
                try await good.login(username: server.configuration.username, password: server.configuration.password)
                let token = try #require(try vault.storedToken())

                // The same vault with a wrong secret: a misconfigured app must not lose the session.
                let wrongSecret = "wrong-" + server.configuration.basicClientSecret
                let bad = server.session(
                    clientID: InteropClient.basicClient, authentication: .clientSecretBasic(Secret(wrongSecret)), vault: vault)
                let requestsBefore = server.tokenRequestCount
                let error = try #require(await sessionError { _ = try await bad.refresh() })
                #expect(error.code == .invalidClient)
                #expect(error.isRetryable == false)
                #expect(error.isConfigurationError)
                #expect(!error.description.contains(wrongSecret))
                #expect(server.tokenRequestCount == requestsBefore + 1)
                #expect(try vault.storedToken() == token)

                // The kept token is still good at the server.
                #expect(try await good.refresh().isSignedIn)
            }
        }

        @Test func garbageRefreshTokenIsInvalidGrantAndEndsTheSession() async throws {
            try await InteropServer.withRunning { server async throws in
                let vault = InMemoryTokenVault()
                let session = server.session(vault: vault)
                try await session.adopt(refreshToken: RefreshToken("garbage-" + InteropServerConfiguration.randomSecret()))
                let error = try #require(await sessionError { _ = try await session.refresh() })
                #expect(error.code == .invalidGrant)
                #expect(error.isRetryable == false)
                #expect(try vault.storedToken() == nil)
                #expect(try await session.status().isSignedIn == false)
            }
        }

        @Test func revokedRefreshTokenIsInvalidGrant() async throws {
            try await InteropServer.withRunning { server async throws in
                let vault = InMemoryTokenVault()
                let session = server.session(vault: vault)
                try await session.login(username: server.configuration.username, password: server.configuration.password)
                let token = try #require(try vault.storedToken())
                try await HTTPExchange.withClient { http in
                    let revoke = try await http.postForm(
                        server.revocationEndpoint, [("token", token.value), ("client_id", InteropClient.publicClient)])
                    #expect(revoke.status == 200)
                }
                let error = try #require(await sessionError { _ = try await session.refresh() })
                #expect(error.code == .invalidGrant)
                #expect(try vault.storedToken() == nil)
            }
        }

        @Test func refreshGrantSwitchedOffIsUnsupportedGrantTypeAndKeepsTheSession() async throws {
            var configuration = InteropServerConfiguration()
            configuration.disabledGrantTypes = ["refresh_token"]
            try await InteropServer.withRunning(configuration) { server async throws in
                let vault = InMemoryTokenVault()
                let session = server.session(vault: vault)
                try await session.login(username: configuration.username, password: configuration.password)
                let token = try #require(try vault.storedToken())
                let requestsBefore = server.tokenRequestCount
                let error = try #require(await sessionError { _ = try await session.refresh() })
                #expect(error.code == .unsupportedGrantType)
                #expect(error.isRetryable == false)
                #expect(server.tokenRequestCount == requestsBefore + 1)
                #expect(try vault.storedToken() == token)
                #expect(try await session.status().isSignedIn)
            }
        }

        @Test func passwordGrantSwitchedOffIsUnsupportedGrantType() async throws {
            var configuration = InteropServerConfiguration()
            configuration.disabledGrantTypes = ["password"]
            try await InteropServer.withRunning(configuration) { server async throws in
                let vault = InMemoryTokenVault()
                let session = server.session(vault: vault)
                let error = try #require(
                    await sessionError {
                        _ = try await session.login(username: configuration.username, password: configuration.password)
                    })
                #expect(error.code == .unsupportedGrantType)
                #expect(!error.description.contains(configuration.password))
                #expect(try vault.storedToken() == nil)
            }
        }

        @Test func clientNotAllowedTheGrantIsUnauthorizedClient() async throws {
            try await InteropServer.withRunning { server async throws in
                // The authorization-code client may not use the password grant.
                let session = server.session(clientID: InteropClient.codeClient)
                let error = try #require(
                    await sessionError {
                        _ = try await session.login(username: server.configuration.username, password: server.configuration.password)
                    })
                #expect(error.code == .unauthorizedClient)
                #expect(error.isRetryable == false)
                #expect(server.tokenRequestCount == 1)
            }
        }

        @Test func unknownScopeIsInvalidScope() async throws {
            try await InteropServer.withRunning { server async throws in
                let vault = InMemoryTokenVault()
                let session = server.session(scope: "openid admin", vault: vault)
                let error = try #require(
                    await sessionError {
                        _ = try await session.login(username: server.configuration.username, password: server.configuration.password)
                    })
                #expect(error.code == .invalidScope)
                #expect(error.isRetryable == false)
                #expect(try vault.storedToken() == nil)
            }
        }

        @Test func missingPasswordIsInvalidRequest() async throws {
            try await InteropServer.withRunning { server async throws in
                let session = server.session()
                let error = try #require(
                    await sessionError {
                        _ = try await session.login(username: server.configuration.username, password: "")
                    })
                #expect(error.code == .invalidRequest)
                #expect(error.isRetryable == false)
            }
        }

        @Test func wrongPasswordIsInvalidGrant() async throws {
            try await InteropServer.withRunning { server async throws in
                let vault = InMemoryTokenVault()
                let session = server.session(vault: vault)
                let error = try #require(
                    await sessionError {
                        _ = try await session.login(username: server.configuration.username, password: "not-the-password")
                    })
                #expect(error.code == .invalidGrant)
                #expect(!error.description.contains("not-the-password"))
                #expect(try vault.storedToken() == nil)
            }
        }
    }
}
