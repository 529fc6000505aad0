import Foundation
import SessionBridge
import SessionBridgeCookies
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct VaultTests {
    @Test func fileVaultIsOwnerOnlyAndAtomic() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let vault = FileTokenVault(url: directory.appendingPathComponent("session.vault"))
        #expect(try vault.load() == nil)
        let expiry = Date(timeIntervalSince1970: 2_000_000_000)
        try vault.store(VaultRecord(refreshToken: RefreshToken("one"), accessTokenExpiresAt: expiry))
        try vault.store(VaultRecord(refreshToken: RefreshToken("two"), accessTokenExpiresAt: expiry))
        let attributes = try FileManager.default.attributesOfItem(atPath: vault.url.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let loaded = try #require(try vault.load())
        #expect(loaded.refreshToken == RefreshToken("two"))
        #expect(loaded.accessTokenExpiresAt == expiry)
        // No temporary files are left behind.
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files.sorted() == ["session.vault"])
        try vault.clear()
        #expect(try vault.load() == nil)
    }

    @Test func twoVaultsOnOneFileExcludeEachOther() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("shared.vault")
        let a = FileTokenVault(url: url), b = FileTokenVault(url: url)
        let held = try await a.lock(timeout: .seconds(1))
        await #expect(throws: TokenVaultError.self) { _ = try await b.lock(timeout: .milliseconds(100)) }
        held.unlock()
        let second = try await b.lock(timeout: .milliseconds(500))
        second.unlock()
    }

    @Test(arguments: [false, true])
    func crossProcessRefreshIsSingleFlight(sequential: Bool) async throws {
        try await withServer { server in
            let directory = temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let vaultURL = directory.appendingPathComponent("shared.vault")
            let store = PersistentCookieStore(directory: directory, profile: "shared")
            // An app and its extension: separate controllers, separate descriptors on one vault file.
            let app = SessionController(configuration: makeConfiguration(server), vault: FileTokenVault(url: vaultURL), cookieStore: store)
            let appExtension = SessionController(
                configuration: makeConfiguration(server), vault: FileTokenVault(url: vaultURL), cookieStore: store)
            try await app.login(username: "demo", password: "demo")
            try await appExtension.start()
            if sequential {
                try await app.refresh()
                try await appExtension.refresh()
            } else {
                async let one = app.refresh()
                async let two = appExtension.refresh()
                _ = try await (one, two)
            }
            let stats = server.stats()
            #expect(stats.refreshes == 1)
            #expect(stats.reuseEvents == 0)
            #expect(await app.adoptedRotationCount + appExtension.adoptedRotationCount == 1)
            let url = server.url("/")
            #expect(app.cookieJar.value("__Host-session", for: url) == appExtension.cookieJar.value("__Host-session", for: url))
            // Both hold the rotated token: the next refresh from either is accepted.
            try await Task.sleep(for: .milliseconds(600))
            try await appExtension.refresh()
            #expect(server.stats().refreshes == 2)
            #expect(server.stats().reuseEvents == 0)
        }
    }
}
