import Foundation
import SessionBridge
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

/// A sign-in whose token cannot be stored leaves no session open at the server.
@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct VaultFailureTests {
    /// A vault whose disk is full (or read-only): every store fails.
    final class UnwritableVault: TokenVault {
        func load() throws(TokenVaultError) -> VaultRecord? { nil }
        func store(_ record: VaultRecord) throws(TokenVaultError) {
            throw TokenVaultError(operation: "write", path: "/read-only/vault", errno: EROFS)
        }
        func clear() throws(TokenVaultError) {}
        func lock(timeout: Duration) async throws(TokenVaultError) -> any TokenVaultLock {
            try await InMemoryTokenVault().lock(timeout: timeout)
        }
    }

    @Test func aLoginThatCannotBeStoredIsRevokedAtTheServer() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server), vault: UnwritableVault())
            await #expect { try await session.login(username: "demo", password: "demo") } throws: { error in
                guard let error = error as? SessionError else { return false }
                return error.code == .storage && error.message.contains("revoked") && !error.message.contains("sbrt_")
            }
            #expect(server.stats().logins == 1)
            #expect(server.stats().activeSessions == 0, "the server kept a session no client holds")
            let status = try await session.status()
            #expect(!status.isSignedIn)
            #expect(session.cookieJar.allCookies.isEmpty)
        }
    }
}
