import Foundation
import SessionBridge
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct ScriptTests {
    @Test func scriptsAreBundledResources() {
        #expect(StandardScripts.resource(named: "session-refresh")?.contains("sessionBridge") == true)
        #expect(StandardScripts.resource(named: "fetch-retry")?.contains("401") == true)
        #expect(StandardScripts.resource(named: "cookie-injection")?.contains("document.cookie") == true)
        #expect(StandardScripts.refreshScript(handlerName: "auth").contains(#""handlerName":"auth""#))
    }

    /// The refresh script and the `fetch` wrapper read nothing of the document when injected:
    /// the headless engine runs them in the document it prepares before the navigation's
    /// response. The cookie injection script writes `document.cookie`: it runs at commit.
    @Test func theRefreshAndFetchScriptsRunBeforeTheResponseAndStillServeTheDocument() async throws {
        #expect(!StandardScripts.cookieInjectionUserScript(for: []).isDocumentIndependent)
        let contents = UserContentController()
        contents.addUserScript(StandardScripts.refreshUserScript())
        contents.addUserScript(StandardScripts.fetchRetryUserScript())
        let page = WebPage(configuration: WebPageConfiguration(userContentController: contents))
        let base = URL(string: "https://app.example/home")!
        try await page.loadHTMLString("<p>first</p>", baseURL: base)
        var ahead: [ContentWorld: Int] = [:]
        for _ in 0..<500 where ahead.isEmpty {
            ahead = await page.prewarmedScriptsRunAhead()
            if ahead.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(ahead == [.page: 2])
        try await page.loadHTMLString(
            "<script>window.seen = typeof sessionBridge.refresh + ' ' + fetch.__sessionBridgeRetry</script>", baseURL: base)
        #expect(try await page.evaluateJavaScript("window.seen") == .string("function true"))
        #expect(try await page.evaluateJavaScript("location.href") == .string(base.absoluteString))
        await page.close()
    }

    // The refresh script (with and without the bridge) and the fetch wrapper run on both
    // engines from one test code: WebKitTests/StandardScriptsOnBothEnginesTests.

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
