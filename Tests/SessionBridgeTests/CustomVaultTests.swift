import Foundation
import SessionBridge
import SessionBridgeTestSupport
import SessionBridgeTesting
import Synchronization
import Testing

/// A keychain-like store: opaque items keyed by service name, as an app's secure store holds them.
final class KeychainLikeStore: Sendable {
    private let items = Mutex<[String: Data]>([:])

    func set(_ data: Data, service: String) { items.withLock { $0[service] = data } }
    func data(service: String) -> Data? { items.withLock { $0[service] } }
    func remove(service: String) { items.withLock { $0[service] = nil } }
}

/// A third-party vault written only with the public API: the token goes in through
/// `withRevealedValue`, comes out through `RefreshToken(_:)`.
struct KeychainTokenVault: TokenVault {
    let keychain: KeychainLikeStore
    let service: String

    struct Item: Codable {
        var token: String
        var expiresAt: Date?
        var rotatedAt: Date
    }

    func load() throws(TokenVaultError) -> VaultRecord? {
        guard let data = keychain.data(service: service) else { return nil }
        guard let item = try? JSONDecoder().decode(Item.self, from: data) else { throw TokenVaultError(operation: "decode") }
        return VaultRecord(refreshToken: RefreshToken(item.token), accessTokenExpiresAt: item.expiresAt, rotatedAt: item.rotatedAt)
    }

    func store(_ record: VaultRecord) throws(TokenVaultError) {
        let item = record.refreshToken.withRevealedValue {
            Item(token: $0, expiresAt: record.accessTokenExpiresAt, rotatedAt: record.rotatedAt)
        }
        guard let data = try? JSONEncoder().encode(item) else { throw TokenVaultError(operation: "encode") }
        keychain.set(data, service: service)
    }

    func clear() throws(TokenVaultError) { keychain.remove(service: service) }

    func lock(timeout: Duration) async throws(TokenVaultError) -> any TokenVaultLock { Unlocked() }

    struct Unlocked: TokenVaultLock {
        func unlock() {}
    }
}

@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct CustomVaultTests {
    /// Every text Swift can make of `value`.
    func renderings(of value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return [String(describing: value), String(reflecting: value), "\(value)", dumped]
    }

    @Test func keychainVaultRoundTripsThroughLoginRefreshAndRestart() async throws {
        try await withServer { server in
            let keychain = KeychainLikeStore()
            let vault = KeychainTokenVault(keychain: keychain, service: "com.example.app.session")
            let logs = LogCollector()
            var configuration = makeConfiguration(server)
            configuration.logger = logs.logger
            let first = SessionController(configuration: configuration, vault: vault)
            try await first.login(username: "demo", password: "demo")
            let issued = server.issuedRefreshTokens()
            #expect(issued.count == 1)
            #expect(try vault.load()?.refreshToken.withRevealedValue { $0 } == issued.last)

            try await first.refresh()
            let rotated = server.issuedRefreshTokens()
            #expect(rotated.count == 2)
            #expect(try vault.load()?.refreshToken.withRevealedValue { $0 } == rotated.last)

            // A new process: the token comes back from the keychain and is accepted by the server.
            let restarted = SessionController(configuration: configuration, vault: vault)
            #expect(try await restarted.status().isSignedIn)
            try await restarted.refresh()
            let stats = server.stats()
            #expect(stats.refreshes == 2)
            #expect(stats.reuseEvents == 0)
            #expect(try vault.load()?.refreshToken.withRevealedValue { $0 } == server.issuedRefreshTokens().last)

            let record = try #require(try vault.load())
            let texts = renderings(of: record) + renderings(of: record.refreshToken) + logs.lines.withLock { $0 }
            for token in server.issuedRefreshTokens() {
                #expect(!texts.contains { $0.contains(token) })
            }
            #expect(renderings(of: record.refreshToken).allSatisfy { $0.contains("<redacted>") })
        }
    }

    @Test func revealedValueIsLentOnlyToTheClosure() {
        let token = RefreshToken("rt_secret_value")
        #expect(token.withRevealedValue { $0 } == "rt_secret_value")
        #expect(token.withRevealedValue { $0.count } == 15)
        #expect(!renderings(of: token).contains { $0.contains("rt_secret_value") })
    }
}
