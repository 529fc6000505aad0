import Foundation
import SessionBridge
import SessionBridgeOAuth
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

extension Interop {
    /// Authorization code + PKCE (S256) with state, nonce and the RFC 9207 `iss`, through the
    /// toolkit's Django login form filled by ``FormFillingUserAgent``.
    @Suite(.timeLimit(.minutes(3)), .hangWatchdog) struct AuthorizationCode {
        static let redirectURI = URL(string: "com.example.sessionbridge:/oauth/callback")!

        @Test func signsInThroughTheLoginForm() async throws {
            try await InteropServer.withRunning { server async throws in
                let vault = InMemoryTokenVault()
                let session = server.session(
                    clientID: InteropClient.codeClient, scope: "openid read", redirectURI: Self.redirectURI, vault: vault)
                let agent = FormFillingUserAgent(username: server.configuration.username, password: Secret(server.configuration.password))
                let status = try await session.signIn(with: agent)
                #expect(status.isSignedIn)
                #expect(try vault.storedToken() != nil)

                // The code answer's ID token: signature, issuer, audience and the request's nonce checked.
                let idToken = try #require(await session.idToken)
                #expect(idToken.issuer == server.issuer.absoluteString)
                #expect(idToken.audience == [InteropClient.codeClient])
                #expect(idToken.nonce?.isEmpty == false)

                let first = try #require(try vault.storedToken())
                try await session.refresh()
                #expect(try vault.storedToken() != first)
                #expect(server.log.contains("GET /accounts/login/ 200"))
                #expect(server.log.contains("POST /accounts/login/ 302"))
            }
        }

        @Test func wrongPasswordIsRefusedAndNothingIsStored() async throws {
            try await InteropServer.withRunning { server async throws in
                let vault = InMemoryTokenVault()
                let session = server.session(
                    clientID: InteropClient.codeClient, scope: "openid read", redirectURI: Self.redirectURI, vault: vault)
                let agent = FormFillingUserAgent(username: server.configuration.username, password: Secret("not-the-password"))
                let error = try #require(await sessionError { _ = try await session.signIn(with: agent) })
                #expect(error.code == .accessDenied)
                #expect(!error.description.contains("not-the-password"))
                #expect(try vault.storedToken() == nil)
                #expect(server.tokenRequestCount == 0)
            }
        }

        @Test func unregisteredRedirectURIIsRefusedAndNothingIsStored() async throws {
            try await InteropServer.withRunning { server async throws in
                let vault = InMemoryTokenVault()
                let session = server.session(
                    clientID: InteropClient.codeClient, scope: "openid read",
                    redirectURI: URL(string: "com.example.sessionbridge:/elsewhere")!, vault: vault)
                let agent = FormFillingUserAgent(username: server.configuration.username, password: Secret(server.configuration.password))
                let error = try #require(await sessionError { _ = try await session.signIn(with: agent) })
                #expect(error.isRetryable == false)
                #expect(try vault.storedToken() == nil)
                #expect(server.tokenRequestCount == 0)
            }
        }
    }
}
