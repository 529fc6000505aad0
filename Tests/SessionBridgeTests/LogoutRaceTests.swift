import Foundation
import SessionBridgeHeadless
import SessionBridgeTestSupport
import SessionBridgeTesting
import Synchronization
import Testing

@testable import SessionBridge

/// A refresh asked while a logout runs must not spend a token or bring the session back, even
/// when the vault's lock excludes nothing (an `InMemoryTokenVault`, an app's keychain vault).
@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct LogoutRaceTests {
    /// An in-memory vault whose first `lock` waits until the test opens it, as a keychain that
    /// takes a moment would; its locks exclude nothing.
    final class GatedVault: TokenVault {
        let inner = InMemoryTokenVault()
        let entered = Mutex(false)
        let gate = AsyncStream<Void>.makeStream()
        let first = Atomic(true)

        func load() throws(TokenVaultError) -> VaultRecord? { try inner.load() }
        func store(_ record: VaultRecord) throws(TokenVaultError) { try inner.store(record) }
        func clear() throws(TokenVaultError) { try inner.clear() }
        func lock(timeout: Duration) async throws(TokenVaultError) -> any TokenVaultLock {
            if first.exchange(false, ordering: .acquiringAndReleasing) {
                entered.withLock { $0 = true }
                for await _ in gate.stream { break }
            }
            return try await inner.lock(timeout: timeout)
        }

        func open() { gate.continuation.yield() }
    }

    @Test func aRefreshAskedDuringALogoutIsRefusedAndTheSessionStaysEnded() async throws {
        try await withServer { server in
            let vault = GatedVault()
            let session = SessionController(configuration: makeConfiguration(server), vault: vault)
            try await session.login(username: "demo", password: "demo")
            // Answers slowly, so that a refresh sent during the logout would land after it.
            server.setFaults(FaultConfiguration(latency: .milliseconds(300)))
            let requestsBefore = server.stats().tokenRequests

            let logout = Task { await session.logout() }
            while !vault.entered.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(2)) }
            // The logout waits on the vault's lock: a refresh asked now.
            let answered = Atomic(false)
            let refused = Task {
                defer { answered.store(true, ordering: .releasing) }
                do throws(SessionError) {
                    try await session.refresh()
                    return false
                } catch { return error.code == .signedOut }
            }
            // Let the logout go on once the refresh has answered or has reached the server.
            while server.stats().tokenRequests == requestsBefore, !answered.load(ordering: .acquiring) {
                try await Task.sleep(for: .milliseconds(2))
            }
            vault.open()
            _ = await logout.value

            #expect(await refused.value, "a refresh asked during a logout fails with signed_out")
            #expect(server.stats().tokenRequests == requestsBefore, "no token is spent during a logout")
            #expect(try vault.load() == nil)
            #expect(!session.cookieJar.cookies(for: server.url("/")).contains { $0.name == "__Host-session" })
            #expect(try await !session.status().isSignedIn)
            #expect(server.stats().reuseEvents == 0)
        }
    }

    /// A page's handler joins a refresh in flight without a turn of the session's actor; it
    /// must not join one while a logout runs (the logout waits for that refresh, then ends the
    /// session), but be refused as a turn of the actor would refuse it.
    @Test func aPageAskingWhileALogoutWaitsForARefreshInFlightIsRefused() async throws {
        try await withServer { server in
            let vault = GatedVault()
            let session = SessionController(configuration: makeConfiguration(server), vault: vault)
            try await session.login(username: "demo", password: "demo")
            let (page, _) = await makePage(session, server)
            try await page.loadHTMLString("<p>app</p>", baseURL: server.url("/start"))

            // A refresh in flight, held at the vault's lock; then a logout, which waits for it.
            let refresh = Task { try? await session.refresh() }
            while !vault.entered.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(2)) }
            let logout = Task { await session.logout() }
            while await session.logoutsRunning == 0 { try await Task.sleep(for: .milliseconds(2)) }

            let asked = Task {
                try await page.callAsyncJavaScript(
                    """
                    try {
                        await window.webkit.messageHandlers.session.postMessage({action: "refresh"});
                        return "joined";
                    } catch (error) { return error.code; }
                    """)
            }
            try await Task.sleep(for: .milliseconds(50))
            vault.open()
            _ = await refresh.value
            _ = await logout.value
            #expect(try await asked.value == "signed_out")
            #expect(try await !session.status().isSignedIn)
            await page.close()
        }
    }
}
