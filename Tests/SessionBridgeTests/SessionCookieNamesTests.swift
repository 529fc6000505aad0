import Foundation
import SessionBridge
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeTesting
import Testing

/// Which cookies are the session's, in a process that did not sign in: the vault record keeps
/// the names the session's endpoints set, so a later launch neither lets a page overwrite them
/// in the native store nor deletes the page's own cookies at sign-out.
@Suite(.timeLimit(.minutes(1)))
struct SessionCookieNamesTests {
    @Test func theVaultRecordKeepsTheNamesTheTokenEndpointSet() async throws {
        try await withServer { server in
            let directory = temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let (_, vault, _) = try await signedInSession(server, keepingFilesIn: directory)
            let names = try #require(try FileTokenVault(url: vault.url).load()?.cookieNames)
            #expect(names.isSuperset(of: ["__Host-session", "csrf_token"]))
        }
    }

    @Test func aLaterLaunchKeepsThePagesOwnCookiesAtSignOut() async throws {
        try await withServer { server in
            let directory = temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let (_, vault, _) = try await signedInSession(server, keepingFilesIn: directory)
            // A new launch: the session comes from the vault and the profile, with no refresh.
            let session = SessionController(
                configuration: makeConfiguration(server), vault: FileTokenVault(url: vault.url),
                cookieStore: PersistentCookieStore(directory: directory, profile: "app"))
            let (page, _) = await makePage(session, server)
            #expect(try await page.load(server.url("/app")).statusCode == 200)
            #expect(server.stats().refreshes == 0)
            let root = server.url("/")
            let csrf = try #require(session.cookieJar.value("csrf_token", for: root))
            _ = try await page.evaluateJavaScript(
                "document.cookie = 'pref=dark; Path=/; Max-Age=3600'; document.cookie = 'csrf_token=page-made; Path=/'")
            try await waitUntil { session.cookieJar.value("pref", for: root) == "dark" }
            #expect(session.cookieJar.value("csrf_token", for: root) == csrf, "the page overwrote the session's cookie natively")

            await session.logout()
            #expect(session.cookieJar.value("__Host-session", for: root) == nil)
            #expect(session.cookieJar.value("csrf_token", for: root) == nil)
            #expect(session.cookieJar.value("pref", for: root) == "dark")
            #expect(page.cookieJar.value("pref", for: root) == "dark")
            #expect(page.cookieJar.value("__Host-session", for: root) == nil)
            await page.close()
        }
    }

    @Test func aRecordWrittenBeforeTheNamesWereKeptLoadsWithoutThem() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("session.vault")
        let older = #"{"version":1,"refreshToken":"rt-older","rotatedAt":1700000000,"subject":"demo"}"#
        try Data(older.utf8).write(to: url)
        let record = try #require(try FileTokenVault(url: url).load())
        #expect(record.cookieNames == nil)
        #expect(record.subject == "demo")
        let vault = FileTokenVault(url: url)
        try vault.store(VaultRecord(refreshToken: RefreshToken("rt-newer"), accessTokenExpiresAt: nil, cookieNames: ["b", "a"]))
        #expect(try vault.load()?.cookieNames == ["a", "b"])
    }
}
