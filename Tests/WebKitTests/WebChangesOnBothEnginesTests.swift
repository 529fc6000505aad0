import Foundation
import SessionBridge
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@testable import SessionBridgeWebKit

/// What a page does to its own cookies reaches the native store on both engines, so that the
/// next navigation's copy-back neither undoes a deletion nor brings back a session the web
/// product ended. WebKit says only that its cookies changed: its store is read again and
/// compared (`CookieChangeTracker`).
@Suite(.serialized, .timeLimit(.minutes(3)), .hangWatchdog) struct WebChangesOnBothEnginesTests {
    @Test(arguments: Engine.allCases)
    func aPagesCookieWriteAndDeletionReachTheNativeStoreAndTheDeletionStays(engine: Engine) async throws {
        try await EngineHarness.with(engine) { harness in
            let view = try await harness.makeStartedAppView()
            // Five rounds: without waiting for the WebKit store's pending changes, the copy-back
            // of a navigation decided right after the deletion brought the cookie back in 22 of 30.
            for round in 0..<5 {
                _ = try await view.evaluate("document.cookie = 'pref\(round)=dark; Path=/; Max-Age=3600'; true")
                #expect(try await eventually { harness.nativeValue("pref\(round)") == "dark" })
                _ = try await view.evaluate("document.cookie = 'pref\(round)=; Path=/; Max-Age=0'; true")
                // A navigation decided at once: its copy-back must not bring the cookie back,
                // even where WebKit reports the deletion after it (its `document.cookie` write
                // reaches the network process behind the script).
                await harness.session.prepareNavigation(to: harness.url("/app/settings"), in: view)
                #expect(try await eventually { harness.nativeValue("pref\(round)") == nil })
                #expect(try await eventually { await view.cookieValue("pref\(round)", for: harness.url("/")) == nil })
            }
            _ = try await view.evaluate("location.href = '/app/settings'; true")
            #expect(await view.waitForPath("/app/settings"))
            for round in 0..<5 {
                #expect(await view.cookieValue("pref\(round)", for: harness.url("/")) == nil)
                #expect(harness.nativeValue("pref\(round)") == nil)
            }
            #expect(try await harness.session.status().isSignedIn)
        }
    }

    @Test(arguments: Engine.allCases)
    func theWebProductsLogoutRouteEndsTheSessionAndTheNavigationRightAfterDoesNotResurrectIt(engine: Engine) async throws {
        try await EngineHarness.with(engine) { harness in
            let view = try await harness.makeStartedAppView()
            // The web product's own logout route deletes the (HttpOnly) session cookie in its answer.
            _ = try await view.run("await fetch('/session/logout', {method: 'POST'}); return true")
            let next = try await view.load(harness.url("/app"))
            #expect(next.url.path == "/login")
            // (Compared here, so that a failure prints no cookie value.)
            let pageKept = await view.cookieValue("__Host-session", for: harness.url("/")) != nil
            let nativeKept = harness.nativeValue("__Host-session") != nil
            #expect(!pageKept)
            #expect(!nativeKept)
            #expect(try await eventually { try await !harness.session.status().isSignedIn })
            #expect(harness.server.stats().refreshes == 0)
        }
    }

    @Test(arguments: Engine.allCases)
    func theSessionsOwnWritesAndAClearedStoreAreNotTakenForThePages(engine: Engine) async throws {
        try await EngineHarness.with(engine) { harness in
            let view = try await harness.makeStartedAppView()
            // A refresh replaces the session cookie in the page's store: the session's own write.
            try await harness.session.refresh()
            let refreshes = harness.server.stats().refreshes
            await view.httpCookieStore.deliverPendingChanges()
            // The store loses everything (an app's clear): not the web product's logout either.
            await view.httpCookieStore.removeAllCookies()
            await view.httpCookieStore.deliverPendingChanges()
            #expect(try await harness.session.status().isSignedIn)
            let nativeKept = harness.nativeValue("__Host-session") != nil
            #expect(nativeKept)
            let again = try await view.load(harness.url("/app/settings"))
            #expect(again.url.path == "/app/settings")
            #expect(harness.server.stats().refreshes == refreshes)  // restored, not refreshed
            let restored = await view.cookieValue("__Host-session", for: harness.url("/")) == harness.nativeValue("__Host-session")
            #expect(restored)
        }
    }

    /// The comparison of two reads: what the store's own writes explain is left out, and each
    /// other difference gets its kind and cause.
    @Test @WebKitActor func aComparisonOfTwoReadsNamesThePagesChangesOnly() {
        let now = Date()
        func cookie(_ name: String, _ value: String, httpOnly: Bool = false, expires: Date? = nil) -> Cookie {
            Cookie(name: name, value: value, domain: "example.com", path: "/", expiresAt: expires, isHttpOnly: httpOnly)
        }
        func keyed(_ cookies: [Cookie]) -> [CookieChangeTracker.Key: Cookie] {
            Dictionary(uniqueKeysWithValues: cookies.map { ($0.identity, $0) })
        }
        let previous = keyed([
            cookie("session", "s1", httpOnly: true), cookie("pref", "light"), cookie("old", "o", expires: now - 1),
            cookie("gone", "g"), cookie("mine", "m1"),
        ])
        let current = keyed([cookie("pref", "dark"), cookie("new", "n"), cookie("mine", "m2"), cookie("server", "x", httpOnly: true)])
        var expected = [cookie("mine", "").identity: CookieChangeTracker.Expectation(value: "m2", write: 1)]
        let changes = CookieChangeTracker.changes(from: previous, to: current, expected: &expected, now: now)
        let described = Set(changes.map { "\($0.kind.rawValue) \($0.cause.rawValue) \($0.cookie.name)" })
        #expect(
            described == [
                "deleted httpResponse session", "replaced webContent pref", "expired expiry old", "deleted webContent gone",
                "added webContent new", "added httpResponse server",
            ])
        #expect(expected.isEmpty)
        #expect(changes.first { $0.cookie.name == "pref" }?.previous?.value == "light")
    }
}
