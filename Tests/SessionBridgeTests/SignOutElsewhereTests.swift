import Foundation
import SessionBridge
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

/// A logout made by another user of the vault (another process sharing the vault file; here a
/// second controller with its own vault instance on the same file) reaches this controller
/// before its pages' next action.
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct SignOutElsewhereTests {
    /// Two controllers with their own vault instances on one vault file; `other` signed in.
    func withSharedVault(_ body: (ReferenceServer, SessionController, SessionController) async throws -> Void) async throws {
        try await withServer { server in
            let directory = temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let url = directory.appendingPathComponent("shared.vault")
            let app = SessionController(configuration: makeConfiguration(server), vault: FileTokenVault(url: url))
            let other = SessionController(configuration: makeConfiguration(server), vault: FileTokenVault(url: url))
            try await other.login(username: "demo", password: "demo")
            try await body(server, app, other)
        }
    }

    @Test func aLogoutInAnotherVaultUserEndsTheSessionBeforeTheNextNavigation() async throws {
        try await withSharedVault { server, app, other in
            // The app restores the session from the shared vault; its page gets the cookie by
            // a refresh before its first navigation.
            let recorder = PageEventRecorder()
            let (page, _) = await makePage(app, server, recorder: recorder)
            #expect(try await page.load(server.url("/app")).statusCode == 200)
            #expect(try await app.status().isSignedIn)
            let refreshes = server.stats().refreshes

            await other.logout()

            // The next navigation: the app notices first, so the page sends no session cookie
            // and nothing refreshes the ended session back.
            let next = try await page.load(server.url("/app"))
            #expect(next.url.path == "/login")
            #expect(recorder.exchanges.last { $0.url.path == "/app" }?.cookiesSent.contains("__Host-session") == false)
            #expect(page.cookieJar.value("__Host-session", for: server.url("/")) == nil)
            #expect(app.cookieJar.value("__Host-session", for: server.url("/")) == nil)
            #expect(try await !app.status().isSignedIn)
            #expect(server.stats().refreshes == refreshes)
            await page.close()
        }
    }

    /// A refresh made by another user of the vault (which rotated the token and wrote the new
    /// cookies into the shared profile) is taken up before the page's next navigation: the page
    /// sends the new session cookie, and nothing spends the old token.
    @Test func aRefreshInAnotherVaultUserIsTakenUpBeforeTheNextNavigation() async throws {
        try await withServer { server in
            let directory = temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let url = directory.appendingPathComponent("shared.vault")
            let app = SessionController(
                configuration: makeConfiguration(server), vault: FileTokenVault(url: url),
                cookieStore: PersistentCookieStore(directory: directory, profile: "shared"))
            let other = SessionController(
                configuration: makeConfiguration(server), vault: FileTokenVault(url: url),
                cookieStore: PersistentCookieStore(directory: directory, profile: "shared"))
            try await other.login(username: "demo", password: "demo")
            let recorder = PageEventRecorder()
            let (page, _) = await makePage(app, server, recorder: recorder)
            #expect(try await page.load(server.url("/app")).statusCode == 200)
            let old = try #require(page.cookieJar.value("__Host-session", for: server.url("/")))

            try await Task.sleep(for: .milliseconds(600))  // past the freshness window
            try await other.refresh()
            // Compared, never printed: the values are secrets.
            let rotated = try #require(other.cookieJar.value("__Host-session", for: server.url("/")))
            #expect(rotated != old, "the other's refresh did not rotate the session cookie")
            let refreshes = server.stats().refreshes

            #expect(try await page.load(server.url("/app")).statusCode == 200)
            let pageHasRotated = page.cookieJar.value("__Host-session", for: server.url("/")) == rotated
            let appHasRotated = app.cookieJar.value("__Host-session", for: server.url("/")) == rotated
            #expect(pageHasRotated, "the page sent the old session cookie")
            #expect(appHasRotated, "the app's store kept the old session cookie")
            #expect(recorder.exchanges.last { $0.url.path == "/app" }?.cookiesSent.contains("__Host-session") == true)
            #expect(server.stats().refreshes == refreshes, "the app refreshed instead of taking up the other's refresh")
            #expect(await app.adoptedRotationCount == 1)

            // The app holds the rotated token: its own next refresh is no reuse.
            try await Task.sleep(for: .milliseconds(600))
            try await app.refresh()
            #expect(server.stats().refreshes == refreshes + 1)
            #expect(server.stats().reuseEvents == 0)
            await page.close()
        }
    }

    @Test func aBridgeCallNoticesTheLogoutToo() async throws {
        try await withSharedVault { server, app, other in
            let (page, _) = await makePage(app, server)
            #expect(try await page.load(server.url("/app")).statusCode == 200)
            let before = try await page.callAsyncJavaScript("return await webkit.messageHandlers.session.postMessage({action: 'status'})")
            #expect(before["signedIn"] == true)
            // Listened for before the logout: the page's own request (its `/api/me`, answered
            // 401 once the session is revoked) may bring the refresh that notices it first.
            _ = try await page.evaluateJavaScript(
                "window.reasons = []; addEventListener('sessionbridge:signedout', e => reasons.push(e.detail.reason)); 1")
            await other.logout()
            let after = try await page.callAsyncJavaScript(
                """
                const status = await webkit.messageHandlers.session.postMessage({action: 'status'});
                return [status.signedIn, reasons];
                """)
            #expect(after == [false, ["signed_out_elsewhere"]])
            await page.close()
        }
    }

    /// A logout elsewhere while this controller's refresh waits for the vault's lock: the
    /// refresh finds the vault empty and ends the session with reason `signed_out_elsewhere`,
    /// and a page asking for its status meanwhile waits for that refresh instead of being
    /// told the ended session goes on.
    @Test func aStatusAskedDuringARefreshWaitsForItToSeeTheLogoutElsewhere() async throws {
        try await withServer { server in
            let directory = temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let url = directory.appendingPathComponent("shared.vault")
            let app = SessionController(configuration: makeConfiguration(server), vault: FileTokenVault(url: url))
            try await app.login(username: "demo", password: "demo")
            let (page, _) = await makePage(app, server)
            #expect(try await page.load(server.url("/app")).statusCode == 200)
            _ = try await page.evaluateJavaScript(
                "window.reasons = []; addEventListener('sessionbridge:signedout', e => reasons.push(e.detail.reason)); 1")
            try await Task.sleep(for: .milliseconds(600))  // past the freshness window

            // Another process holds the vault's lock and signs out under it.
            let elsewhere = FileTokenVault(url: url)
            let lock = try await elsewhere.lock(timeout: .seconds(5))
            let refresh = Task { try? await app.refresh() }
            try await Task.sleep(for: .milliseconds(100))  // the refresh waits for the lock
            try elsewhere.clear()
            let status = Task {
                try await page.callAsyncJavaScript("return (await webkit.messageHandlers.session.postMessage({action: 'status'})).signedIn")
            }
            try await Task.sleep(for: .milliseconds(100))
            lock.unlock()

            #expect(try await status.value == false)
            _ = await refresh.value
            #expect(try await page.evaluateJavaScript("reasons") == ["signed_out_elsewhere"])
            #expect(try await !app.status().isSignedIn)
            #expect(page.cookieJar.value("__Host-session", for: server.url("/")) == nil)
            await page.close()
        }
    }
}
