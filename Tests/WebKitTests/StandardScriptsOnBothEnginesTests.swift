import Foundation
import SessionBridge
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

/// The standard web-side scripts (context-aware refresh, fetch retry, cookie injection) and the
/// example pages, on the headless page and on a WebKit view, from the same code.
@Suite(.serialized, .timeLimit(.minutes(5)), .hangWatchdog) struct StandardScriptsOnBothEnginesTests {
    @Test(arguments: Engine.allCases)
    func theRefreshScriptUsesTheBridgeAndSharesOnePromise(engine: Engine) async throws {
        try await EngineHarness.with(engine) { harness in
            let view = try await harness.makeView(scripts: [.refresh])
            #expect(try await view.load(harness.url("/app")).statusCode == 200)
            let before = try #require(harness.nativeValue("__Host-session"))
            let result = try await view.run(
                """
                const a = sessionBridge.refresh(), b = sessionBridge.refresh();
                const same = a === b;
                const [ra, rb] = await Promise.all([a, b]);
                const me = await fetch('/api/me');
                return [same, sessionBridge.native, ra.ok, rb.ok, typeof ra.expiresAt, me.status, document.cookie.includes('__Host-session')];
                """)
            #expect(result == [true, true, true, true, "number", 200, false])
            #expect(harness.server.stats().refreshes == 1)
            #expect(harness.server.stats().webRefreshes == 0)
            #expect(harness.log.entries.filter { $0.name == "session" }.count == 1)
            // The reply came after the write-back: the page's store holds the new session cookie.
            let after = try #require(harness.nativeValue("__Host-session"))
            #expect(after != before)
            #expect(await view.cookieValue("__Host-session", for: harness.url("/")) == after)
        }
    }

    /// A hardened page (its intrinsics frozen after the user scripts ran, as a lockdown at the
    /// page's start does) refreshes through the standard scripts and the fetch wrapper as any page.
    @Test(arguments: Engine.allCases)
    func aHardenedPageRefreshesAndRetriesAsAnyPage(engine: Engine) async throws {
        try await EngineHarness.with(engine) { harness in
            let view = try await harness.makeStartedAppView()
            harness.server.expireAccessTokens()
            let result = try await view.run(
                """
                for (const intrinsic of [Object, Array, Function, Promise, Error, JSON, Reflect, Response, Headers]) {
                  Object.freeze(intrinsic); if (intrinsic.prototype) Object.freeze(intrinsic.prototype);
                }
                const refreshed = await sessionBridge.refresh();
                const me = await fetch('/api/me');
                const status = await window.webkit.messageHandlers.session.postMessage({action: "status"});
                let refused = null;
                try { await window.webkit.messageHandlers.session.postMessage({action: "nothing"}); } catch (e) { refused = [e.name, e.code]; }
                return [Object.isFrozen(Promise.prototype), refreshed.ok, me.status, status.signedIn, refused];
                """)
            #expect(result == [true, true, 200, true, ["SessionError", "bad_request"]])
            #expect(harness.server.stats().refreshes == 1)
        }
    }

    /// A page may build its requests as `Request` objects (fetch libraries do) and hand them to
    /// `fetch`, the wrapper's included: the same members, checks and requests on both engines.
    @Test(arguments: Engine.allCases)
    func requestObjectsWorkAsInAnyBrowser(engine: Engine) async throws {
        try await EngineHarness.with(engine) { harness in
            let view = try await harness.makeStartedAppView()
            let result = try await view.run(
                """
                const me = new Request("/api/me");
                const copy = new Request(new Request("/api/me", {headers: {"X-A": "1"}, credentials: "omit"}));
                const post = new Request("/nowhere", {method: "post", body: "a=1"});
                const text = await post.text();
                let reread = null, getBody = null, cloneUsed = null;
                try { await post.text(); } catch (e) { reread = e.name; }
                try { new Request("/x", {body: "a"}); } catch (e) { getBody = e.name; }
                try { post.clone(); } catch (e) { cloneUsed = e.name; }
                const login = new Request("/login", {method: "POST", body: "username=demo&password=demo&next=/app",
                  headers: {"content-type": "application/x-www-form-urlencoded"}});
                const signedIn = await fetch(login);
                return [
                  me.url === location.origin + "/api/me", me.method, me.credentials, me.bodyUsed, Object.keys(me).length,
                  copy.headers.get("x-a"), copy.credentials, post.method, text, post.bodyUsed, reread, getBody, cloneUsed,
                  (await fetch(me)).status, (await fetch(copy)).status, (await fetch(me, {credentials: "omit"})).status,
                  signedIn.ok && signedIn.url === location.origin + "/app", login.bodyUsed
                ];
                """)
            #expect(
                result == [
                    true, "GET", "same-origin", false, 0, "1", "omit", "POST", "a=1", true, "TypeError", "TypeError", "TypeError",
                    200, 401, 401, true, true,
                ])
        }
    }

    /// The fetch wrapper retries a `Request` after the refresh a `401` asks for, as it retries a
    /// URL (without `URL`, the headless page's wrapper took a `Request` for another origin's).
    @Test(arguments: Engine.allCases)
    func theFetchWrapperRetriesARequestObject(engine: Engine) async throws {
        try await EngineHarness.with(engine) { harness in
            let view = try await harness.makeStartedAppView()
            harness.server.expireAccessTokens()
            let refreshesBefore = harness.server.stats().refreshes
            let retried = try await view.run(
                """
                const me = await fetch(new Request("/api/me"));
                return [me.status, (await me.json()).sub];
                """)
            #expect(retried == [200, "demo"])
            #expect(harness.server.stats().refreshes == refreshesBefore + 1)
        }
    }

    @Test(arguments: Engine.allCases)
    func theRefreshScriptPostsTheWebEndpointWithoutTheBridge(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeView(session: false, userScripts: [StandardScripts.refreshUserScript()])
            try await view.load(harness.url("/login"))
            let result = try await view.run(
                """
                await fetch('/login', {method: 'POST', headers: {'content-type': 'application/x-www-form-urlencoded'}, body: 'username=demo&password=demo&next=/app'});
                const a = sessionBridge.refresh(), b = sessionBridge.refresh(), c = sessionBridge.refresh();
                const replies = await Promise.all([a, b, c]);
                return [a === b && b === c, sessionBridge.native, replies.every(r => r.ok), replies[0].expiresAt > Date.now()];
                """)
            #expect(result == [true, false, true, true])
            #expect(harness.server.stats().webRefreshes == 1)
            #expect(harness.server.stats().reuseEvents == 0)
        }
    }

    @Test(arguments: Engine.allCases)
    func theFetchWrapperRefreshesOnceOn401AndRetries(engine: Engine) async throws {
        try await EngineHarness.with(engine) { harness in
            let view = try await harness.makeStartedAppView()  // its own fetch is not counted below
            harness.server.expireAccessTokens()
            let result = try await view.run(
                """
                const responses = await Promise.all([fetch('/api/me'), fetch('/api/me'), fetch('/api/me')]);
                const bodies = await Promise.all(responses.map(r => r.json()));
                return [responses.map(r => r.status), bodies[0].sub];
                """)
            #expect(result == [[200, 200, 200], "demo"])
            #expect(harness.server.stats().refreshes == 1)
            // Signed out at the server: one refresh attempt, then the 401 is returned as is.
            _ = harness.server.revokeAllSessions()
            #expect(try await view.run("return (await fetch('/api/me')).status") == 401)
        }
    }

    @Test(arguments: Engine.allCases)
    func cookieInjectionSetsOnlyMissingScriptVisibleCookiesWithEscaping(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let host = "127.0.0.1"
            let tricky = #"a"b\c</script>'${x}"#
            let cookies = [
                Cookie(name: "prefs", value: tricky, domain: host),
                Cookie(name: "secret", value: "httponly", domain: host, isHttpOnly: true),
                Cookie(name: "existing", value: "native", domain: host),
                Cookie(name: "stale", value: "old", domain: host, expiresAt: Date(timeIntervalSinceNow: -60)),
                Cookie(name: "evil", value: "x; Domain=example", domain: host),
            ]
            let view = try await harness.makeView(session: false, userScripts: [StandardScripts.cookieInjectionUserScript(for: cookies)])
            await view.httpCookieStore.apply([.set(Cookie(name: "existing", value: "page", domain: host))])
            harness.server.serve(
                path: "/injected", body: "<!doctype html><script>window.seen = document.cookie;</script>",
                contentType: "text/html; charset=utf-8")
            try await view.load(harness.url("/injected"))
            let seen = try #require(try await view.evaluate("window.seen").stringValue)
            #expect(Set(seen.components(separatedBy: "; ")) == ["existing=page", "prefs=\(tricky)"])
            let url = harness.url("/")
            #expect(await view.cookieValue("prefs", for: url) == tricky)
            #expect(await view.cookieValue("existing", for: url) == "page")
            #expect(await view.cookieValue("secret", for: url) == nil)
            #expect(await view.cookieValue("stale", for: url) == nil)
            #expect(await view.cookieValue("evil", for: url) == nil)
        }
    }

    // MARK: The example pages

    @Test(arguments: Engine.allCases)
    func theExamplePagesRunAsTheirCommentsSay(engine: Engine) async throws {
        try await EngineHarness.with(engine) { harness in
            let view = try await harness.makeView()
            #expect(try await view.load(harness.url("/app")).statusCode == 200)

            let status = try await view.run(ExampleScripts.body("01-session-status.js"))
            #expect(status.element(0)?.stringValue?.hasPrefix("signed in: true access token expires in") == true)
            let readable = try #require(status.element(1)?.stringValue)
            #expect(readable.contains("csrf_token") && !readable.contains("__Host-session"))

            let refresh = try await view.run(ExampleScripts.body("02-page-refresh.js"))
            #expect(refresh.element(0)?.stringValue?.hasPrefix("refresh replied {") == true)
            #expect(refresh.element(0)?.stringValue?.contains("\"ok\":true") == true)
            #expect(refresh.element(1) == "csrf_token rotated before the reply: true")
            #expect(refresh.element(2) == "GET /api/me with the new cookie: 200 demo")

            let refreshesBefore = harness.server.stats().refreshes
            let race = try await view.run(ExampleScripts.body("05-refresh-race.js"))
            #expect(race.element(0) == "20 page refreshes resolved, all with the same expiry: true")
            #expect(race.element(1)?.stringValue?.hasSuffix("refresh(es) and 0 reuse event(s)") == true)
            #expect(harness.server.stats().refreshes - refreshesBefore <= 1)

            let steal = try await view.run(ExampleScripts.body("06-steal-token.js"))
            #expect(steal == ["places where a refresh token was found: none"])

            let logout = try await view.run(ExampleScripts.body("04-logout.js"))
            #expect(logout.element(0)?.stringValue?.contains("\"ok\":true") == true)
            #expect(logout.element(1)?.stringValue?.contains("csrf_token") == false)
            #expect(logout.element(2) == "signed in: false")
            #expect(harness.server.stats().logouts == 1)
        }
    }

    @Test(arguments: Engine.allCases)
    func theExpiredNavigationExampleIsHeldUntilTheRefreshedCookieIsWritten(engine: Engine) async throws {
        var configuration = ReferenceServerConfiguration()
        configuration.accessTokenLifetime = .seconds(1)
        try await EngineHarness.with(engine, configuration) { harness in
            let view = try await harness.makeView()
            #expect(try await view.load(harness.url("/app/start")).statusCode == 200)
            let expiredAt = try #require(try await harness.session.status().accessTokenExpiresAt).timeIntervalSince1970
            try await Task.sleep(for: .milliseconds(2100))  // expiry is in whole seconds
            let lines = try await view.run(ExampleScripts.body("03-expired-navigation.js"))
            // (session_expires has expired with the access cookie: the second line says so.)
            #expect(lines.element(0) == "has __Host-session? (HttpOnly, so the page cannot tell): false")
            #expect(lines.element(1)?.stringValue?.hasPrefix("session_expires present:") == true)
            #expect(await view.waitForPath("/app"))
            // The server rendered /app from the cookie on the held request: the refreshed one.
            let seenAt = try #require(try await view.appStateExpiry(path: "/app"))
            #expect(seenAt >= expiredAt.rounded(.down) + 1)
            #expect(harness.server.stats().refreshes >= 1)
            #expect(harness.server.stats().reuseEvents == 0)
        }
    }
}
