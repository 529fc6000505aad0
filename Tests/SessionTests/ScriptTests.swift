import Bridge
import Cookies
import Foundation
import Session
import SessionBridgeTesting
import Testing
import WebPage

@Suite(.timeLimit(.minutes(2))) struct ScriptTests {
    @Test func scriptsAreBundledResources() {
        #expect(StandardScripts.resource(named: "session-refresh")?.contains("sessionBridge") == true)
        #expect(StandardScripts.resource(named: "fetch-retry")?.contains("401") == true)
        #expect(StandardScripts.resource(named: "cookie-injection")?.contains("document.cookie") == true)
        #expect(StandardScripts.refreshScript(handlerName: "auth").contains(#""handlerName":"auth""#))
    }

    @Test func refreshScriptUsesTheBridgeInTheAppAndSharesOnePromise() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let (page, contents) = await makePage(session, server, scripts: [.refresh])
            try await page.loadHTMLString("<p>x</p>", baseURL: server.url("/start"))
            let result = try await page.callAsyncJavaScript("""
                const a = sessionBridge.refresh(), b = sessionBridge.refresh();
                const same = a === b;
                const [ra, rb] = await Promise.all([a, b]);
                return [same, sessionBridge.native, ra.ok, rb.ok, typeof ra.expiresAt];
                """)
            #expect(result == [true, true, true, true, "number"])
            #expect(server.stats().refreshes == 1)
            #expect(server.stats().webRefreshes == 0)
            #expect(contents.log?.entries.filter { $0.name == "session" }.count == 1)
            await page.close()
        }
    }

    @Test func refreshScriptPostsTheWebEndpointInAPlainBrowser() async throws {
        try await withServer { server in
            let contents = UserContentController()
            contents.addUserScript(StandardScripts.refreshUserScript())
            let page = WebPage(configuration: WebPageConfiguration(userContentController: contents))
            try await page.loadHTMLString("<p>x</p>", baseURL: server.url("/start"))
            let result = try await page.callAsyncJavaScript("""
                await fetch('/login', {method: 'POST', headers: {'content-type': 'application/x-www-form-urlencoded'}, body: 'username=demo&password=demo&next=/app'});
                const a = sessionBridge.refresh(), b = sessionBridge.refresh(), c = sessionBridge.refresh();
                const replies = await Promise.all([a, b, c]);
                return [a === b && b === c, sessionBridge.native, replies.every(r => r.ok), replies[0].expiresAt > Date.now()];
                """)
            #expect(result == [true, false, true, true])
            #expect(server.stats().webRefreshes == 1)
            #expect(server.stats().reuseEvents == 0)
            await page.close()
        }
    }

    @Test func fetchWrapperRefreshesOnceOn401AndRetries() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let (page, _) = await makePage(session, server)
            #expect(try await page.load(server.url("/app")).statusCode == 200)
            server.expireAccessTokens()
            let result = try await page.callAsyncJavaScript("""
                const responses = await Promise.all([fetch('/api/me'), fetch('/api/me'), fetch('/api/me')]);
                const bodies = await Promise.all(responses.map(r => r.json()));
                return [responses.map(r => r.status), bodies[0].sub];
                """)
            #expect(result == [[200, 200, 200], "demo"])
            #expect(server.stats().refreshes == 1)
            // Signed out at the server: one refresh attempt, then the 401 is returned as is.
            server.revokeAllSessions()
            let after = try await page.callAsyncJavaScript("return (await fetch('/api/me')).status")
            #expect(after == 401)
            await page.close()
        }
    }

    @Test func cookieInjectionSetsOnlyMissingScriptVisibleCookiesWithEscaping() async throws {
        let host = "app.example"
        let tricky = #"a"b\c</script>'${x}"#
        let cookies = [
            Cookie(name: "prefs", value: tricky, domain: host),
            Cookie(name: "secret", value: "httponly", domain: host, isHttpOnly: true),
            Cookie(name: "existing", value: "native", domain: host),
            Cookie(name: "stale", value: "old", domain: host, expiresAt: Date(timeIntervalSinceNow: -60)),
            Cookie(name: "evil", value: "x; Domain=example", domain: host),
            Cookie(name: "wide", value: "1", domain: host, isHostOnly: false),
        ]
        let contents = UserContentController()
        contents.addUserScript(StandardScripts.cookieInjectionUserScript(for: cookies))
        let store = WebsiteDataStore.nonPersistent()
        let base = URL(string: "https://app.example/home")!
        store.cookieJar.setCookie("existing=page; Path=/", from: base)
        let page = WebPage(configuration: WebPageConfiguration(websiteDataStore: store, userContentController: contents))
        try await page.loadHTMLString("<script>window.seen = document.cookie;</script>", baseURL: base)
        let seen = try #require(try await page.evaluateJavaScript("window.seen").stringValue)
        let pairs = Set(seen.components(separatedBy: "; "))
        #expect(pairs == ["existing=page", "prefs=\(tricky)", "wide=1"])
        #expect(store.cookieJar.value("prefs", for: base) == tricky)
        #expect(store.cookieJar.value("secret", for: base) == nil)
        #expect(store.cookieJar.value("evil", for: base) == nil)
        #expect(store.cookieJar.cookies(for: base).first { $0.name == "wide" }?.isHostOnly == false)
        await page.close()
    }
}
