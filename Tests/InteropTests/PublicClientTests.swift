import Foundation
import SessionBridgeOAuth
import SessionBridgeTestSupport
import Testing

@testable import SessionBridge

extension Interop {
    /// A public client that knows only the issuer: discovery, password grant, rotating refresh,
    /// the ID token of a refresh validated against the server's published keys.
    @Suite(.timeLimit(.minutes(3)), .hangWatchdog) struct PublicClient {
        @Test func signsInAndRefreshesThroughDiscovery() async throws {
            try await InteropServer.withRunning { server async throws in
                let vault = InMemoryTokenVault()
                let session = server.session(vault: vault)
                let status = try await session.login(username: server.configuration.username, password: server.configuration.password)
                #expect(status.isSignedIn)
                let first = try #require(try vault.storedToken())

                let refreshed = try await session.refresh()
                #expect(refreshed.isSignedIn)
                let second = try #require(try vault.storedToken())
                #expect(second != first)

                // The refresh answer's RS256 ID token, checked against the discovered JWKS.
                let idToken = try #require(await session.idToken)
                #expect(idToken.issuer == server.issuer.absoluteString)
                #expect(idToken.audience == [InteropClient.publicClient])
                #expect(!idToken.subject.isEmpty)

                // Rotation happened at the server: the first token is spent there.
                try await HTTPExchange.withClient { http in
                    let reuse = try await http.postForm(
                        server.tokenEndpoint,
                        [
                            ("grant_type", "refresh_token"), ("refresh_token", first.value),
                            ("client_id", InteropClient.publicClient),
                        ])
                    #expect(reuse.oauthError == "invalid_grant")
                }
            }
        }

        @Test func wrongIssuerIsRefusedAndNothingIsStored() async throws {
            try await InteropServer.withRunning { server async throws in
                let vault = InMemoryTokenVault()
                // The same server under another name: its document names a different issuer.
                let configuration = SessionConfiguration(
                    issuer: URL(string: "http://localhost:\(server.port)/o")!, clientID: InteropClient.publicClient, scope: "openid read")
                let session = SessionController(configuration: configuration, vault: vault)
                let error = await sessionError {
                    _ = try await session.login(username: server.configuration.username, password: server.configuration.password)
                }
                // The document names http://127.0.0.1:PORT/o: an issuer mismatch, refused as an invalid answer.
                #expect(error?.code == .invalidResponse)
                #expect(error?.description.contains("issuer") == true)
                #expect(error?.isRetryable == false)
                #expect(try vault.storedToken() == nil)
                #expect(server.tokenRequestCount == 0)
            }
        }
    }
}
