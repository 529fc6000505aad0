import Bridge
import Cookies
import Foundation
import Session
import SessionBridgeTesting
import SessionBridgeWebKit
import Testing
import WebPage

/// The session scenarios of the headless engine's tests, on real WebKit views: one
/// ``SessionController`` owns the session, WebKit's own cookie store and held navigations.
@Suite(.serialized, .timeLimit(.minutes(3))) @WebKitActor struct SessionOnWebKitTests {
    @Test func aPageRefreshesThroughTheSessionHandlerAndGetsTheNewCookieBeforeTheReply() async throws {
        try await SessionHarness.with { harness in
            let view = try await harness.makeView()
            #expect(try await view.load(harness.url("/app")).statusCode == 200)
            let before = try #require(harness.nativeValue("__Host-session"))
            let reply = try await view.callAsyncJavaScript("""
                const r = await window.webkit.messageHandlers.session.postMessage({action: "refresh"});
                const me = await fetch('/api/me');
                return [r.ok, typeof r.expiresAt, me.status, document.cookie.includes('__Host-session')];
                """)
            #expect(reply == [true, "number", 200, false])
            let after = try #require(harness.nativeValue("__Host-session"))
            #expect(after != before)
            #expect(await view.cookieValue("__Host-session", for: harness.url("/")) == after)
            #expect(harness.server.stats().refreshes == 1)
        }
    }

    @Test func pageNativeAndNavigationRefreshesShareOneRequest() async throws {
        // Three-second access tokens: a WebKit race takes longer than the headless one, and the
        // refreshed cookie must outlive it, or a late caller would rightly refresh again.
        var configuration = ReferenceServerConfiguration()
        configuration.accessTokenLifetime = .seconds(3)
        try await SessionHarness.with(configuration) { harness in
            let scripted = try await harness.makeView()
            try await scripted.load(harness.url("/app"))
            let navigating = try await harness.makeView()
            try await Task.sleep(for: .milliseconds(3200))  // the access cookie has expired
            let session = harness.session

            async let fromPage = scripted.callAsyncJavaScript("""
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
            #expect(landed.url.path == "/app")
            #expect(landed.statusCode == 200)
            #expect(harness.server.stats().refreshes == 1)
            #expect(harness.server.stats().reuseEvents == 0)
        }
    }

    @Test func theHeldNavigationCarriesTheCookieWrittenBackDuringTheHold() async throws {
        var configuration = ReferenceServerConfiguration()
        configuration.accessTokenLifetime = .seconds(1)
        try await SessionHarness.with(configuration) { harness in
            // Without the delegate, the expired cookie gets the navigation sent to /login.
            let plain = try await harness.makeView(delegate: false)
            await harness.session.detach(plain)
            await plain.httpCookieStore.apply(harness.session.cookieJar.cookies(for: harness.url("/")).map { .set($0) })
            let view = try await harness.makeView()
            // Expiry is in whole seconds (the token's `exp`, WebKit's cookie dates): two seconds
            // make sure the one-second access cookie is gone everywhere.
            try await Task.sleep(for: .milliseconds(2100))
            #expect(try await plain.load(harness.url("/app")).url.path == "/login")
            #expect(harness.server.stats().refreshes == 0)

            let landed = try await view.load(harness.url("/app"))
            #expect(landed.url.path == "/app")
            #expect(landed.statusCode == 200)
            #expect(landed.redirects.isEmpty)
            #expect(harness.server.stats().refreshes == 1)
            let names = Set(await view.httpCookieStore.cookies(for: harness.url("/")).map(\.name))
            #expect(names.isSuperset(of: ["__Host-session", "session_expires", "csrf_token"]))
            #expect(await view.cookieValue("__Host-session", for: harness.url("/")) == harness.nativeValue("__Host-session"))
            // The plain view's navigation was never held; the session view's was, for the refresh.
            let held = harness.recorder.events.compactMap { event -> NavigationActionPolicy? in
                if case .navigationPolicy(let action, let policy, let waited) = event, action.request.url.path == "/app", waited > .zero { return policy }
                return nil
            }
            #expect(held == [.allow])
        }
    }

    @Test func lostWebStoreCookiesAreRestoredBeforeTheNextNavigation() async throws {
        try await SessionHarness.with { harness in
            let view = try await harness.makeView()
            #expect(try await view.load(harness.url("/app")).statusCode == 200)
            await view.httpCookieStore.removeAllCookies()  // the web store "randomly loses its cookies"
            #expect(await view.httpCookieStore.allCookies().isEmpty)
            let again = try await view.load(harness.url("/app/settings"))
            #expect(again.url.path == "/app/settings")
            #expect(again.statusCode == 200)
            #expect(harness.server.stats().refreshes == 0)  // restored from the native store
            #expect(await view.cookieValue("__Host-session", for: harness.url("/")) == harness.nativeValue("__Host-session"))
        }
    }

    @Test func logoutFansOutToEveryViewTheNativeStoreAndTheServer() async throws {
        try await SessionHarness.with { harness in
            let view = try await harness.makeView()
            let other = try await harness.makeView()
            #expect(try await view.load(harness.url("/app")).statusCode == 200)
            #expect(try await other.load(harness.url("/app")).statusCode == 200)
            _ = try await view.evaluateJavaScript("window.__signedOut = []; window.addEventListener('sessionbridge:signedout', e => __signedOut.push(e.detail.reason)); true")
            await harness.session.logout()
            #expect(harness.nativeValue("__Host-session") == nil)
            for page in [view, other] {
                #expect(await page.cookieValue("__Host-session", for: harness.url("/")) == nil)
                #expect(await page.cookieValue("csrf_token", for: harness.url("/")) == nil)
            }
            #expect(harness.server.stats().logouts == 1)
            #expect(try await view.evaluateJavaScript("__signedOut") == ["logout"])
            #expect(try await other.load(harness.url("/app")).url.path == "/login")
        }
    }

    @Test func aHostilePageNeverObservesTheRefreshToken() async throws {
        try await SessionHarness.with { harness in
            let view = try await harness.makeView()
            #expect(try await view.load(harness.url("/app")).statusCode == 200)
            let found = try await view.callAsyncJavaScript("""
                const seen = [];
                const grab = (v, depth = 0) => {
                  try {
                    if (depth > 4 || v === null || v === undefined) { seen.push(String(v)); return; }
                    if (typeof v !== "object" && typeof v !== "function") { seen.push(String(v)); return; }
                    for (const k of Object.getOwnPropertyNames(v)) { seen.push(k); try { grab(v[k], depth + 1); } catch (e) { seen.push(String(e)); } }
                  } catch (e) { seen.push(String(e)); }
                };
                const realStringify = JSON.stringify, realParse = JSON.parse;
                JSON.parse = function (s) { seen.push(String(s)); return realParse.apply(this, arguments); };
                JSON.stringify = function (v) { const s = realStringify.apply(this, arguments); seen.push(String(s)); return s; };
                const realThen = Promise.prototype.then;
                Promise.prototype.then = function (a, b) {
                  return realThen.call(this, v => { grab(v); return a ? a(v) : v; }, e => { grab(e); if (b) return b(e); throw e; });
                };
                Object.defineProperty(Object.prototype, "refresh_token", { set(v) { seen.push("setter:" + v); }, get() { return undefined; }, configurable: true });
                seen.push(document.cookie, localStorage.length, sessionStorage.length, document.documentElement.outerHTML);
                grab(window.webkit);
                const h = window.webkit.messageHandlers.session;
                for (const body of [{action: "refresh"}, {action: "status"}, {action: "nope"}, "refresh", {action: "refresh", refresh_token: true}]) {
                  try { grab(await h.postMessage(body)); } catch (e) { grab(e); seen.push(String(e), e.message, e.code, String(e.stack)); }
                }
                await new Promise(r => setTimeout(r, 600));
                try { grab(await sessionBridge.refresh()); } catch (e) { grab(e); }
                try { seen.push(await (await fetch('/api/me')).text()); } catch (e) { grab(e); }
                seen.push(document.cookie);
                return seen;
                """)
            var strings: [String] = []
            found.forEachString { strings.append($0) }
            strings += harness.log.entries.map { String(describing: $0) }
            strings += harness.recorder.events.map { String(describing: $0) }
            let tokens = harness.server.issuedRefreshTokens()
            #expect(tokens.count >= 3)  // login and at least two rotations
            #expect(harness.server.stats().refreshes >= 2)
            #expect(tokens.filter { token in strings.contains { $0.contains(token) } }.isEmpty)
            #expect(strings.count > 50)
        }
    }
}
