import Foundation
import SessionBridge
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

/// One ``SessionController`` owning the session for pages of either engine: the same scenarios,
/// from the same code, on the headless page and on a WebKit view (WebKit's own asynchronous
/// cookie store and held navigations).
@Suite(.serialized, .timeLimit(.minutes(5)), .hangWatchdog) struct SessionOnBothEnginesTests {
    @Test(arguments: Engine.allCases)
    func pageNativeAndNavigationRefreshesShareOneRequest(engine: Engine) async throws {
        // Six-second access tokens: a WebKit race on a loaded machine takes seconds, and the
        // refreshed cookie must outlive it, or a late caller would rightly refresh again. For
        // the same reason the callers, all started together, count as one burst for 5 s (a
        // loaded CI machine delayed one past the harness's 500 ms and it refreshed again).
        var configuration = ReferenceServerConfiguration()
        configuration.accessTokenLifetime = .seconds(6)
        try await EngineHarness.with(engine, configuration, session: { $0.freshnessWindow = .seconds(5) }) { harness in
            let scripted = try await harness.makeView()
            try await scripted.load(harness.url("/app"))
            let navigating = try await harness.makeView()
            try await Task.sleep(for: .milliseconds(6200))  // the access cookie has expired
            let session = harness.session

            async let fromPage = scripted.run(
                """
                const replies = await Promise.all(Array.from({length: 40}, (_, i) =>
                    i % 2 ? window.webkit.messageHandlers.session.postMessage({action: "refresh"}) : sessionBridge.refresh()));
                return replies.map(r => r.ok);
                """)
            async let fromNative: [SessionStatus] = withThrowingTaskGroup(of: SessionStatus.self) { group in
                for _ in 0..<40 { group.addTask { try await session.refresh() } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            async let navigation = navigating.load(harness.url("/app"))
            let pageReplies = try await fromPage
            let nativeReplies = try await fromNative
            let landed = try await navigation
            #expect(pageReplies == .array(Array(repeating: true, count: 40)))
            #expect(nativeReplies.count == 40)
            #expect(nativeReplies.allSatisfy { $0.isSignedIn })
            #expect(landed.url.path == "/app")
            #expect(landed.statusCode == 200)
            #expect(harness.server.stats().refreshes == 1)
            #expect(harness.server.stats().reuseEvents == 0)
        }
    }

    @Test(arguments: Engine.allCases)
    func theHeldNavigationCarriesTheCookieWrittenBackDuringTheHold(engine: Engine) async throws {
        var configuration = ReferenceServerConfiguration()
        configuration.accessTokenLifetime = .seconds(1)
        try await EngineHarness.with(engine, configuration) { harness in
            // Without the delegate, the expired cookie gets the navigation sent to /login.
            let plain = try await harness.makeView(delegate: false)
            await harness.session.detach(plain)
            await plain.httpCookieStore.apply(harness.session.cookieJar.cookies(for: harness.url("/")).map { .set($0) })
            let view = try await harness.makeView()
            let expiredAt = try #require(try await harness.session.status().accessTokenExpiresAt).timeIntervalSince1970
            // Expiry is in whole seconds (the token's `exp`, cookie dates): two seconds make sure
            // the one-second access cookie is gone everywhere.
            try await Task.sleep(for: .milliseconds(2100))
            #expect(try await plain.load(harness.url("/app")).url.path == "/login")
            #expect(harness.server.stats().refreshes == 0)

            let landed = try await view.load(harness.url("/app"))
            #expect(landed.url.path == "/app")
            #expect(landed.statusCode == 200)
            #expect(landed.redirects.isEmpty)
            #expect(harness.server.stats().refreshes == 1)
            // The server rendered /app from the cookie on the held request: the refreshed one.
            let seenAt = try #require(try await view.appStateExpiry(path: "/app"))
            #expect(seenAt >= expiredAt.rounded(.down) + 1)
            let names = Set(await view.httpCookieStore.cookies(for: harness.url("/")).map(\.name))
            #expect(names.isSuperset(of: ["__Host-session", "session_expires", "csrf_token"]))
            // The stores agree. (With a one-second token on a loaded machine, the page's own
            // scripts may meet an expired token again and refresh once more: the stores then
            // agree once that refresh's cookies are written, WebKit's asynchronously.)
            var agree = false
            for _ in 0..<60 where !agree {
                agree = await view.cookieValue("__Host-session", for: harness.url("/")) == harness.nativeValue("__Host-session")
                if !agree { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(agree)
            // The plain view's navigation was never held; the session view's was, for the refresh.
            let held = harness.recorder.events.compactMap { event -> NavigationActionPolicy? in
                if case .navigationPolicy(let action, let policy, let waited) = event, action.request.url.path == "/app",
                    waited > .milliseconds(1)
                {
                    return policy
                }
                return nil
            }
            #expect(held == [.allow])
            let request = try #require(harness.recorder.exchanges.last { $0.url.path == "/app" && $0.initiator == .navigation })
            #expect(request.cookiesSent.contains("__Host-session"))
            #expect(request.statusCode == 200)
        }
    }

    @Test(arguments: Engine.allCases)
    func lostWebStoreCookiesAreRestoredBeforeTheNextNavigation(engine: Engine) async throws {
        try await EngineHarness.with(engine) { harness in
            // The page's own start-up fetch ends first: sent without cookies, its 401 would ask
            // for a refresh.
            let view = try await harness.makeStartedAppView()
            await view.httpCookieStore.removeAllCookies()  // the web store "randomly loses its cookies"
            #expect(await view.httpCookieStore.allCookies().isEmpty)
            let again = try await view.load(harness.url("/app/settings"))
            #expect(again.url.path == "/app/settings")
            #expect(again.statusCode == 200)
            #expect(harness.server.stats().refreshes == 0)  // restored from the native store
            #expect(await view.cookieValue("__Host-session", for: harness.url("/")) == harness.nativeValue("__Host-session"))
        }
    }

    @Test(arguments: Engine.allCases)
    func logoutFansOutToEveryViewTheNativeStoreAndTheServer(engine: Engine) async throws {
        try await EngineHarness.with(engine) { harness in
            let view = try await harness.makeView()
            let other = try await harness.makeView()
            #expect(try await view.load(harness.url("/app")).statusCode == 200)
            #expect(try await other.load(harness.url("/app")).statusCode == 200)
            _ = try await view.evaluate(
                "window.__signedOut = []; window.addEventListener('sessionbridge:signedout', e => __signedOut.push(e.detail.reason)); true")
            await harness.session.logout()
            #expect(harness.nativeValue("__Host-session") == nil)
            for page in [view, other] {
                #expect(await page.cookieValue("__Host-session", for: harness.url("/")) == nil)
                #expect(await page.cookieValue("csrf_token", for: harness.url("/")) == nil)
            }
            #expect(harness.server.stats().logouts == 1)
            #expect(harness.server.stats().activeSessions == 0)
            #expect(try await view.evaluate("__signedOut") == ["logout"])
            #expect(try await other.load(harness.url("/app")).url.path == "/login")
            await #expect(throws: SessionError.self) { try await harness.session.refresh() }
        }
    }

    @Test(arguments: Engine.allCases)
    func aHostilePageNeverObservesTheRefreshToken(engine: Engine) async throws {
        try await EngineHarness.with(engine) { harness in
            let view = try await harness.makeView()
            #expect(try await view.load(harness.url("/app")).statusCode == 200)
            let found = try await view.run(
                """
                const seen = [];
                const grab = (v, depth = 0) => {
                  try {
                    if (depth > 4 || v === null || v === undefined) { seen.push(String(v)); return; }
                    if (typeof v !== "object" && typeof v !== "function") { seen.push(String(v)); return; }
                    for (const k of Object.getOwnPropertyNames(v)) { seen.push(k); try { grab(v[k], depth + 1); } catch (e) { seen.push(String(e)); } }
                  } catch (e) { seen.push(String(e)); }
                };
                // Tamper with everything a reply passes through.
                const realStringify = JSON.stringify, realParse = JSON.parse;
                JSON.parse = function (s) { seen.push(String(s)); return realParse.apply(this, arguments); };
                JSON.stringify = function (v) { const s = realStringify.apply(this, arguments); seen.push(String(s)); return s; };
                const RealPromise = Promise;
                const realThen = Promise.prototype.then;
                Promise.prototype.then = function (a, b) {
                  return realThen.call(this, v => { grab(v); return a ? a(v) : v; }, e => { grab(e); if (b) return b(e); throw e; });
                };
                Object.defineProperty(Object.prototype, "refresh_token", { set(v) { seen.push("setter:" + v); }, get() { return undefined; }, configurable: true });
                Object.defineProperty(Object.prototype, "token", { set(v) { seen.push("setter:" + v); }, get() { return undefined; }, configurable: true });
                seen.push(document.cookie);
                for (const name of Object.getOwnPropertyNames(globalThis)) { seen.push(name); try { grab(globalThis[name], 3); } catch (e) {} }
                grab(window.webkit);
                const h = window.webkit.messageHandlers.session;
                for (const body of [{action: "refresh"}, {action: "status"}, {action: "nope"}, "refresh", {action: "refresh", refresh_token: true}]) {
                  try { grab(await h.postMessage(body)); } catch (e) { grab(e); seen.push(String(e), e.message, e.code, String(e.stack)); }
                }
                await new RealPromise(r => setTimeout(r, 600));
                try { grab(await sessionBridge.refresh()); } catch (e) { grab(e); }
                try { seen.push(await (await fetch('/api/me')).text()); } catch (e) { grab(e); }
                seen.push(document.cookie);
                // Every string the page saw is searched here, where the refresh tokens' prefix is
                // known; what comes back is what matched, with the count (a real DOM's globals are
                // too many to return whole).
                const strings = seen.map(s => { try { return String(s); } catch (e) { return ""; } });
                return {count: strings.length, matches: strings.filter(s => s.includes("sbrt_"))};
                """)
            #expect(found["matches"] == [])
            var strings: [String] = []
            found.forEachString { strings.append($0) }
            strings += harness.log.entries.map { String(describing: $0) }
            strings += harness.recorder.events.map { String(describing: $0) }
            strings += await view.httpCookieStore.allCookies().map { String(describing: $0) }
            let tokens = harness.server.issuedRefreshTokens()
            #expect(tokens.count >= 3)  // login and at least two rotations
            #expect(harness.server.stats().refreshes >= 2)
            #expect(tokens.filter { token in strings.contains { $0.contains(token) } }.isEmpty)
            #expect((found["count"]?.numberValue ?? 0) > 100)
        }
    }
}
