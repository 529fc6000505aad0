import Foundation
import SessionBridgeCookies
import SessionBridgeTestSupport
import SessionBridgeTesting
import Synchronization
import Testing

@testable import SessionBridge

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

    @Test func aVaultLinkWhoseFileIsGoneIsAnErrorNotASignedOutVault() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let link = directory.appendingPathComponent("session.vault")
        try FileManager.default.createSymbolicLink(
            atPath: link.path, withDestinationPath: directory.appendingPathComponent("moved.vault").path)
        let vault = FileTokenVault(url: link)
        #expect(throws: TokenVaultError.self) { try vault.load() }
        // Once the link's file is there, the vault reads through it.
        try FileTokenVault(url: directory.appendingPathComponent("moved.vault"))
            .store(VaultRecord(refreshToken: RefreshToken("kept"), accessTokenExpiresAt: nil))
        #expect(try vault.load()?.refreshToken == RefreshToken("kept"))
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

    /// With a persistent cookie store, a refresh writes two files durably (the rotated token and
    /// the cookies): both hold the new rotation when `refresh()` returns.
    @Test func aRefreshWritesTheRotatedTokenAndItsCookiesToDiskBeforeItReturns() async throws {
        try await withServer { server in
            let directory = temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let (session, vault, store) = try await signedInSession(server, keepingFilesIn: directory)
            for _ in 0..<3 {
                try await Task.sleep(for: .milliseconds(600))  // past the freshness window
                let generation = try store.load().generation
                try await session.refresh()
                #expect(try vault.load()?.refreshToken == server.issuedRefreshTokens().last.map(RefreshToken.init))
                let saved = try store.load()
                #expect(saved.generation > generation)
                let cookie = try #require(saved.cookies.first { $0.name == "__Host-session" })
                #expect(server.verifyAccessToken(cookie.value) != nil)
                #expect(cookie.value == session.cookieJar.value("__Host-session", for: server.url("/")))
            }
            #expect(server.stats().refreshes == 3)
        }
    }

    /// A page's refresh is answered once the cookies are in its store and the token on disk;
    /// the cookie profile's write goes on behind it, under the vault's lock (another process
    /// sharing both reads the profile under it), and `refresh()` waits for that write.
    @Test func aPagesRefreshIsAnsweredBeforeTheCookieProfileIsWritten() async throws {
        try await withServer { server in
            let directory = temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let (session, vault, store) = try await signedInSession(server, keepingFilesIn: directory)
            let (page, _) = await makePage(session, server)
            try await page.loadHTMLString("<p>app</p>", baseURL: server.url("/start"))
            let gate = DispatchSemaphore(value: 0)
            let attachment = try #require(await session.attachment)
            attachment.setHeldSavesGate { gate.wait() }
            try await Task.sleep(for: .milliseconds(600))  // past the freshness window
            let generation = try store.load().generation
            let reply = try await page.callAsyncJavaScript(
                "return await window.webkit.messageHandlers.session.postMessage({action: 'refresh'})")
            #expect(reply["signedIn"] == true)
            let fresh = try #require(session.cookieJar.value("__Host-session", for: server.url("/")))
            #expect(page.cookieJar.value("__Host-session", for: server.url("/")) == fresh)
            #expect(try vault.load()?.refreshToken == server.issuedRefreshTokens().last.map(RefreshToken.init))
            // The profile's write waits at the gate, holding the vault's lock.
            #expect(try store.load().generation == generation)
            await #expect(throws: TokenVaultError.self) {
                _ = try await FileTokenVault(url: vault.url).lock(timeout: .milliseconds(100))
            }
            gate.signal()
            try await session.refresh()  // within the freshness window: waits for the write only
            #expect(server.stats().refreshes == 1)
            let saved = try store.load()
            #expect(saved.generation > generation)
            #expect(saved.cookies.first { $0.name == "__Host-session" }?.value == fresh)
            let lock = try await FileTokenVault(url: vault.url).lock(timeout: .seconds(2))
            lock.unlock()
        }
    }

    /// A vault that cannot store the rotated token (a full disk, a locked keychain) does not
    /// hold the refresh up: its cookies are written and the callers answered, and the error logged.
    @Test func aVaultThatCannotStoreStillLetsTheRefreshWriteItsCookies() async throws {
        try await withServer { server in
            let directory = temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let vault = StoreFailingVault()
            let store = PersistentCookieStore(directory: directory, profile: "app")
            let session = SessionController(configuration: makeConfiguration(server), vault: vault, cookieStore: store)
            try await session.login(username: "demo", password: "demo")
            let before = session.cookieJar.value("__Host-session", for: server.url("/"))
            vault.failing.withLock { $0 = true }
            let attempts = vault.storeAttempts.withLock { $0 }
            try await Task.sleep(for: .milliseconds(600))
            let status = try await session.refresh()
            #expect(status.isSignedIn)
            let after = try #require(session.cookieJar.value("__Host-session", for: server.url("/")))
            #expect(after != before)
            #expect(try store.load().cookies.first { $0.name == "__Host-session" }?.value == after)
            #expect(vault.storeAttempts.withLock { $0 } == attempts + 1)
        }
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

/// An in-memory vault whose `store` fails once `failing` is set.
final class StoreFailingVault: TokenVault {
    let inner = InMemoryTokenVault()
    let failing = Mutex(false)
    let storeAttempts = Mutex(0)

    func load() throws(TokenVaultError) -> VaultRecord? { try inner.load() }
    func store(_ record: VaultRecord) throws(TokenVaultError) {
        storeAttempts.withLock { $0 += 1 }
        if failing.withLock({ $0 }) { throw TokenVaultError(operation: "write", path: "/full-disk", errno: ENOSPC) }
        try inner.store(record)
    }
    func clear() throws(TokenVaultError) { try inner.clear() }
    nonisolated(nonsending) func lock(timeout: Duration) async throws(TokenVaultError) -> any TokenVaultLock {
        try await inner.lock(timeout: timeout)
    }
}
