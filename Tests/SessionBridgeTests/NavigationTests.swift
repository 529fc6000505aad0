import Foundation
import SessionBridge
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct NavigationTests {
    @Test func theSessionsWallClockDecidesWhenANavigationRefreshesFirst() async throws {
        try await withServer { server in
            let clock = ManualWallClock()
            var configuration = makeConfiguration(server)
            configuration.now = clock.read
            let session = SessionController(configuration: configuration)
            try await session.login(username: "demo", password: "demo")
            let (page, _) = await makePage(session, server)
            #expect(try await page.load(server.url("/app")).url.path == "/app")
            #expect(server.stats().refreshes == 0)

            // An hour passes on the session's clock only: the page's session cookie (five
            // minutes) now looks expired to the session, which refreshes before letting the
            // navigation go, with no wait in the test.
            clock.advance(by: .seconds(3600))
            let landed = try await page.load(server.url("/app"))
            #expect(landed.url.path == "/app")
            #expect(server.stats().refreshes == 1)
            // The new access token's expiry is read from the same clock.
            let expiry = try #require(await session.status().accessTokenExpiresAt)
            #expect(expiry > clock.now && expiry <= clock.now + 301)
            await page.close()
        }
    }

    /// A navigation the session has nothing to prepare for is allowed without a turn of its
    /// actor; one it has something to do for (here: a session cookie that looks expired on the
    /// session's clock) still gets the turn, and the refresh.
    @Test func aNavigationWithNothingToPrepareTakesNoTurnOfTheSession() async throws {
        try await withServer { server in
            let clock = ManualWallClock()
            var configuration = makeConfiguration(server)
            configuration.now = clock.read
            configuration.freshnessWindow = .zero  // every refresh() goes to the token endpoint
            let session = SessionController(configuration: configuration)
            try await session.login(username: "demo", password: "demo")
            let (page, _) = await makePage(session, server)
            #expect(try await page.load(server.url("/app?plain=1")).statusCode == 200)
            let prepared = await session.preparedNavigationCount
            for _ in 0..<3 { #expect(try await page.load(server.url("/app?plain=1")).statusCode == 200) }
            #expect(await session.preparedNavigationCount == prepared)
            // The session's own refresh rewrites the vault and both stores: still nothing to do.
            let before = page.cookieJar.value("__Host-session", for: server.url("/"))
            try await session.refresh()
            #expect(server.stats().refreshes == 1)
            #expect(try await page.load(server.url("/app?plain=1")).statusCode == 200)
            #expect(await session.preparedNavigationCount == prepared)
            #expect(page.cookieJar.value("__Host-session", for: server.url("/")) != before)
            #expect(
                page.cookieJar.value("__Host-session", for: server.url("/"))
                    == session.cookieJar.value("__Host-session", for: server.url("/")))
            // Outside the session's site: nothing to prepare either.
            _ = try? await page.load(URL(string: "http://127.0.0.1:9/elsewhere")!)
            #expect(await session.preparedNavigationCount == prepared)

            clock.advance(by: .seconds(3600))
            let landed = try await page.load(server.url("/app?plain=1"))
            #expect(landed.statusCode == 200 && landed.url.path == "/app")
            #expect(await session.preparedNavigationCount == prepared + 1)
            #expect(server.stats().refreshes == 2)
            await page.close()
        }
    }

    @Test func heldNavigationCarriesTheRefreshedCookie() async throws {
        var configuration = ReferenceServerConfiguration()
        configuration.accessTokenLifetime = .seconds(1)
        try await withServer(configuration) { server in
            let session = SessionController(configuration: makeConfiguration(server))
            try await session.login(username: "demo", password: "demo")

            // Without the delegate: the page's copy of the expired cookie gets it sent to /login.
            let plain = WebPage()
            CookieSync.copyIn(from: session.cookieJar, to: plain.cookieJar, for: server.url("/"))
            let recorder = PageEventRecorder()
            let (page, _) = await makePage(session, server, recorder: recorder)
            try await Task.sleep(for: .milliseconds(1100))

            let refused = try await plain.load(server.url("/app"))
            #expect(refused.url.path == "/login")
            #expect(server.stats().refreshes == 0)

            let landed = try await page.load(server.url("/app"))
            #expect(landed.url.path == "/app")
            #expect(landed.statusCode == 200)
            #expect(landed.redirects.isEmpty)
            #expect(server.stats().refreshes == 1)
            let request = try #require(recorder.exchanges.first { $0.url.path == "/app" })
            #expect(request.cookiesSent.contains("__Host-session"))
            #expect(request.statusCode == 200)
            // Every cookie the token endpoint set is in the page's store, HttpOnly included.
            let names = Set(page.cookieJar.cookies(for: server.url("/")).map(\.name))
            #expect(names.isSuperset(of: ["__Host-session", "session_expires", "csrf_token"]))
            #expect(
                page.cookieJar.value("__Host-session", for: server.url("/"))
                    == session.cookieJar.value("__Host-session", for: server.url("/")))
            await page.close()
            await plain.close()
        }
    }

    @Test func lostPageCookiesAreRestoredBeforeTheNextNavigation() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let recorder = PageEventRecorder()
            let (page, _) = await makePage(session, server, recorder: recorder)
            #expect(try await page.load(server.url("/app")).statusCode == 200)
            // The page's own `fetch('/api/me')` finishes first: sent after the loss, it would be
            // answered 401 and the page would ask for a refresh.
            #expect(await page.runUntilQuiescent(timeout: .seconds(10)))
            page.cookieJar.removeAll()  // the web store "randomly loses its cookies"
            #expect(page.cookieJar.allCookies.isEmpty)
            let again = try await page.load(server.url("/app/settings"))
            #expect(again.url.path == "/app/settings")
            #expect(again.statusCode == 200)
            #expect(server.stats().refreshes == 0)  // restored from the native store, no refresh
            #expect(page.cookieJar.value("__Host-session", for: server.url("/")) != nil)
            await page.close()
        }
    }

    @Test func persistentNativeStoreIsLoadedBeforeAnythingIsAnswered() async throws {
        try await withServer { server in
            let directory = temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let store = PersistentCookieStore(directory: directory, profile: "app")
            let vault = FileTokenVault(url: directory.appendingPathComponent("session.vault"))
            do {
                let first = SessionController(configuration: makeConfiguration(server), vault: vault, cookieStore: store)
                try await first.login(username: "demo", password: "demo")
            }
            // A new launch: a fresh controller and a fresh page with an empty store.
            let session = SessionController(
                configuration: makeConfiguration(server), vault: FileTokenVault(url: vault.url), cookieStore: store)
            let (page, _) = await makePage(session, server)
            #expect(page.cookieJar.allCookies.isEmpty)
            let landed = try await page.load(server.url("/app"))
            #expect(landed.url.path == "/app")
            #expect(server.stats().refreshes == 0)
            #expect(try await session.status().isSignedIn)
            await page.close()
        }
    }

    @Test func logoutFansOutToPagesNativeStoreVaultAndServer() async throws {
        try await withServer { server in
            let directory = temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let vault = FileTokenVault(url: directory.appendingPathComponent("session.vault"))
            let session = SessionController(configuration: makeConfiguration(server), vault: vault)
            try await session.login(username: "demo", password: "demo")
            let (page, _) = await makePage(session, server)
            let (other, _) = await makePage(session, server)
            #expect(try await page.load(server.url("/app")).statusCode == 200)
            #expect(try await other.load(server.url("/app")).statusCode == 200)
            _ = try await page.evaluateJavaScript(
                "window.__signedOut = []; window.addEventListener('sessionbridge:signedout', e => __signedOut.push(e.detail.reason))")
            await session.logout()
            for jar in [session.cookieJar, page.cookieJar, other.cookieJar] {
                #expect(jar.value("__Host-session", for: server.url("/")) == nil)
                #expect(jar.value("csrf_token", for: server.url("/")) == nil)
            }
            #expect(try vault.load() == nil)
            #expect(!FileManager.default.fileExists(atPath: vault.url.path))
            #expect(server.stats().logouts == 1)
            #expect(server.stats().activeSessions == 0)
            #expect(try await page.evaluateJavaScript("__signedOut") == ["logout"])
            #expect(try await other.load(server.url("/app")).url.path == "/login")
            await #expect(throws: SessionError.self) { try await session.refresh() }
            await page.close()
            await other.close()
        }
    }

    @Test func logoutCanWipeAllWebsiteData() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let (page, _) = await makePage(session, server)
            #expect(try await page.load(server.url("/app")).statusCode == 200)
            page.cookieJar.insert(Cookie(name: "unrelated", value: "1", domain: "other.example"))
            await session.logout(removeAllWebsiteData: true)
            #expect(page.cookieJar.allCookies.isEmpty)
            #expect(session.cookieJar.allCookies.isEmpty)
            await page.close()
        }
    }
}
