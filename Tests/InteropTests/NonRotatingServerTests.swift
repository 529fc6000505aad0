import Foundation
import SessionBridge
import SessionBridgeTestSupport
import Testing

extension Interop {
    /// RFC 6749 §6: a refresh answer without `refresh_token` keeps the one the client has.
    @Suite(.timeLimit(.minutes(3)), .hangWatchdog) struct NonRotatingServer {
        @Test func refreshKeepsTheRefreshToken() async throws {
            var configuration = InteropServerConfiguration()
            configuration.rotatesRefreshTokens = false
            try await InteropServer.withRunning(configuration) { server async throws in
                let vault = InMemoryTokenVault()
                let session = server.session(vault: vault)
                try await session.login(username: configuration.username, password: configuration.password)
                let token = try #require(try vault.storedToken())
                for _ in 0..<3 {
                    let status = try await session.refresh()
                    #expect(status.isSignedIn)
                    #expect(try vault.storedToken() == token)
                }
                #expect(server.tokenRequestCount == 4)
            }
        }
    }
}
