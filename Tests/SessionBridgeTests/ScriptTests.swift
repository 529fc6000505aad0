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
