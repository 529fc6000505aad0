import Foundation
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@testable import SessionBridge

/// What a page does to its own cookies reaches the native store, and a refresh costs one
/// durable write per store.
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct WebChangesTests {
    @Test func aDocumentCookieWriteAndDeletionReachTheNativeStore() async throws {
        try await withServer { server in
            let (session, page) = try await signedInAppPage(server)
            _ = try await page.evaluateJavaScript("document.cookie = 'pref=dark; Path=/'")
            #expect(session.cookieJar.value("pref", for: server.url("/")) == "dark")
            _ = try await page.evaluateJavaScript("document.cookie = 'pref=; Path=/; Max-Age=0'")
            #expect(session.cookieJar.value("pref", for: server.url("/")) == nil)
            // The session's own write-back does not echo: the native store holds one copy.
            try await session.refresh()
            #expect(session.cookieJar.allCookies.count { $0.name == "__Host-session" } == 1)
            await page.close()
        }
    }

    /// A cookie the page wrote and the native store took is the page's: when the page's store
    /// lacks it before a navigation, the page deleted it (WebKit reports a `document.cookie`
    /// deletion behind the script, so the navigation can be decided first), and the
    /// write-back does not bring it back. A value the native side wrote since is copied.
    @Test func theWriteBackDoesNotUndoAPageDeletionItHasNotHeardOf() async throws {
        try await withServer { server in
            let (session, page) = try await signedInAppPage(server)
            _ = try await page.evaluateJavaScript("document.cookie = 'pref=dark; Path=/'")
            #expect(session.cookieJar.value("pref", for: server.url("/")) == "dark")
            // Gone from the page's store without a change the observer follows (as a deletion
            // not reported yet).
            let written = try #require(page.cookieJar.cookies(for: server.url("/")).first { $0.name == "pref" })
            page.cookieJar.write([.delete(written)])
            await session.prepareNavigation(to: server.url("/app/settings"), in: page)
            #expect(page.cookieJar.value("pref", for: server.url("/")) == nil)
            // The session cookie, lost the same way, is restored: it is native code's.
            let sessionCookie = try #require(page.cookieJar.cookies(for: server.url("/")).first { $0.name == "__Host-session" })
            page.cookieJar.write([.delete(sessionCookie)])
            // A value native code wrote since is native code's: copied.
            _ = session.cookieJar.setCookie("pref=light; Path=/", from: server.url("/"))
            await session.prepareNavigation(to: server.url("/app/settings"), in: page)
            #expect(page.cookieJar.value("pref", for: server.url("/")) == "light")
            let home = server.url("/")
            let restored = page.cookieJar.value("__Host-session", for: home) == session.cookieJar.value("__Host-session", for: home)
            #expect(restored)
            #expect(server.stats().refreshes == 0)
            await page.close()
        }
    }

    @Test func theWebProductsLogoutRouteEndsTheSessionAndTheNextNavigationDoesNotResurrectIt() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let (page, _) = await makePage(session, server)
            #expect(try await page.load(server.url("/app")).statusCode == 200)
            // The web product's own logout route deletes the session cookie in its answer.
            _ = try await page.callAsyncJavaScript("await fetch('/session/logout', {method: 'POST'})")
            #expect(page.cookieJar.value("__Host-session", for: server.url("/")) == nil)
            #expect(session.cookieJar.value("__Host-session", for: server.url("/")) == nil)
            try await waitUntil { try await !session.status().isSignedIn }
            // The next navigation neither copies the cookie back nor refreshes it into being.
            let next = try await page.load(server.url("/app"))
            #expect(next.url.path == "/login")
            #expect(page.cookieJar.value("__Host-session", for: server.url("/")) == nil)
            #expect(server.stats().refreshes == 0)
            await page.close()
        }
    }

    /// The web product's logout landing while a refresh is out: the server refuses the refresh
    /// token it has just ended, and the pages are told the user signed out on the web, not that
    /// the server refused the session (`invalid_grant`, which an app may take for an error).
    @Test func aWebLogoutDuringARefreshIsToldAsAWebLogout() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let (page, _) = await makePage(session, server)
            #expect(try await page.load(server.url("/app")).statusCode == 200)
            server.setFaults(FaultConfiguration(routes: .tokenEndpoint, latency: .milliseconds(500)))
            let refresh = Task { try await session.refresh() }
            // The refresh's request is held at the server while the page signs out.
            try await waitUntil { server.stats().faults.latency > 0 }
            _ = try await page.callAsyncJavaScript("await fetch('/session/logout', {method: 'POST'})")
            let refused = await #expect(throws: SessionError.self) { try await refresh.value }
            #expect(refused?.code == .invalidGrant)
            try await waitUntil { await session.lastSignOutReason != nil }
            #expect(await session.lastSignOutReason == "web_logout")
            #expect(try await !session.status().isSignedIn)
            await page.close()
        }
    }

    /// A page of another site (`localhost`, where the session is `127.0.0.1`'s) signing out of
    /// its own session deletes a cookie of the same name there: the native session goes on.
    /// The name alone had ended it, revoking its refresh token.
    @Test func aLogoutOnAnotherSiteDoesNotEndTheSession() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let (page, _) = await makePage(session, server)
            var other = URLComponents(url: server.url("/app"), resolvingAgainstBaseURL: false)!
            other.host = "localhost"
            try await page.loadHTMLString("<p>other site</p>", baseURL: other.url!)
            _ = try await page.callAsyncJavaScript(
                """
                await fetch('/login', {method: 'POST', headers: {'content-type': 'application/x-www-form-urlencoded'},
                  body: 'username=demo&password=demo&next=/app', redirect: 'manual'});
                await fetch('/session/logout', {method: 'POST'});
                """)
            let localhost = try #require(URL(string: "http://localhost:\(server.baseURL.port ?? 0)/"))
            #expect(session.cookieJar.value("__Host-session", for: localhost) == nil)
            #expect(session.cookieJar.value("__Host-session", for: server.url("/")) != nil)
            try await Task.sleep(for: .milliseconds(200))
            #expect(try await session.status().isSignedIn)
            #expect(server.stats().logouts == 1)  // the other site's web session only
            await page.close()
        }
    }

    /// A page's `document.cookie` write reaches the native store at once and its persistent
    /// profile behind the page: the write returns while the profile's write is held, instead of
    /// waiting on the page's thread for a durable write.
    @Test func aPagesCookieWriteDoesNotWaitForTheNativeProfile() async throws {
        try await withServer { server in
            let directory = temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let (session, _, profile) = try await signedInSession(server, keepingFilesIn: directory)
            let (page, _) = await makePage(session, server)
            try await page.loadHTMLString("<p>app</p>", baseURL: server.url("/start"))
            let attachment = try #require(await session.attachment)
            let gate = DispatchSemaphore(value: 0)
            attachment.setHeldSavesGate { gate.wait() }
            for value in ["dark", "light", "blue"] {
                _ = try await page.evaluateJavaScript("document.cookie = 'pref=\(value); Path=/; Max-Age=3600'")
            }
            #expect(session.cookieJar.value("pref", for: server.url("/")) == "blue")
            #expect(try profile.load().cookies.contains { $0.name == "pref" } == false)
            gate.signal()
            gate.signal()
            gate.signal()
            await attachment.flush()
            #expect(try profile.load().cookies.first { $0.name == "pref" }?.value == "blue")
            await page.close()
        }
    }

    @Test func aRefreshWritesEachPersistentStoreOnce() async throws {
        try await withServer { server in
            let directory = temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let nativeProfile = PersistentCookieStore(directory: directory, profile: "native")
            let session = SessionController(configuration: makeConfiguration(server), cookieStore: nativeProfile)
            try await session.login(username: "demo", password: "demo")
            var pages: [WebPage] = []
            var profiles: [PersistentCookieStore] = [nativeProfile]
            for index in 0..<3 {
                let contents = UserContentController()
                session.install(in: contents, allowedOrigins: [server.origin])
                let store = try WebsiteDataStore(directory: directory, profile: "page\(index)", includeSessionCookies: true)
                let page = WebPage(configuration: WebPageConfiguration(websiteDataStore: store, userContentController: contents))
                await session.attach(page)
                pages.append(page)
                profiles.append(PersistentCookieStore(directory: directory, profile: "page\(index)"))
            }
            try await session.restoreCookies()
            // The pages' profiles are written behind the pages: flushed before they are read.
            await pages[0].configuration.websiteDataStore.attachment?.flush()
            let before = try profiles.map { try $0.load().generation }
            try await session.refresh()
            await pages[0].configuration.websiteDataStore.attachment?.flush()
            let after = try profiles.map { try $0.load().generation }
            // The token answer sets several cookies: still one crash-safe write per store.
            #expect(zip(before, after).map { $1 - $0 } == [1, 1, 1, 1])
            for page in pages {
                #expect(
                    page.cookieJar.value("__Host-session", for: server.url("/"))
                        == session.cookieJar.value("__Host-session", for: server.url("/")))
                await page.close()
            }
        }
    }
}

/// Polls `condition` until it holds (bounded by the test's time limit).
func waitUntil(_ condition: () async throws -> Bool) async throws {
    while try await !condition() {
        try await Task.sleep(for: .milliseconds(5))
    }
}

@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct WebChangesOwnershipTests {
    /// A session cookie a script wrote into a page's store while the store had none (it lost
    /// the session's, as web stores do) is replaced by the native one at the next navigation:
    /// it has no expiry, so it would otherwise pass for the newest copy for good, and the page
    /// would send it instead of the session.
    @Test func aSessionCookieAScriptWroteIsReplacedAtTheNextNavigation() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let (page, _) = await makePage(session, server)
            #expect(try await page.load(server.url("/app")).statusCode == 200)
            let root = server.url("/")
            let lost = try #require(page.cookieJar.cookies(for: root).first { $0.name == "__Host-session" })
            page.cookieJar.write([.delete(lost)])
            _ = try await page.evaluateJavaScript("document.cookie = '__Host-session=forged; Path=/; Secure'")
            #expect(page.cookieJar.value("__Host-session", for: root) == "forged")
            let next = try await page.load(server.url("/app"))
            #expect(next.url.path == "/app")
            #expect(next.statusCode == 200)
            let native = try #require(session.cookieJar.value("__Host-session", for: root))
            // Compared without printing either value: a session cookie stays out of the test's output.
            let replaced = page.cookieJar.value("__Host-session", for: root) == native
            #expect(replaced, "the page's session cookie is not the native one")
            await page.close()
        }
    }

    @Test func aScriptCannotPlantTheSessionsOwnCookiesInTheNativeStore() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let (page, _) = await makePage(session, server)
            #expect(try await page.load(server.url("/app")).statusCode == 200)
            let csrf = session.cookieJar.value("csrf_token", for: server.url("/"))
            _ = try await page.evaluateJavaScript("document.cookie = 'csrf_token=page-made; Path=/'")
            #expect(page.cookieJar.value("csrf_token", for: server.url("/")) == "page-made")
            #expect(session.cookieJar.value("csrf_token", for: server.url("/")) == csrf)
            await session.logout()
            _ = try await page.evaluateJavaScript("document.cookie = '__Host-session=forged; Path=/; Secure'")
            #expect(session.cookieJar.value("__Host-session", for: server.url("/")) == nil)
            await page.close()
        }
    }
}
