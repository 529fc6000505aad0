import Foundation
import SessionBridge
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct ModeTests {
    @Test func copyInCopyOutCarriesChangesAndDeletionsBack() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let flow = CookieSync.Flow(native: session.cookieJar, url: server.url("/"))
            let page = WebPage(configuration: WebPageConfiguration(websiteDataStore: WebsiteDataStore(cookieJar: flow.flowJar)))
            #expect(try await page.load(server.url("/app")).statusCode == 200)
            // The flow logs out on the web side: the deletions must reach the native store.
            _ = try await page.callAsyncJavaScript(
                "await fetch('/session/logout', {method: 'POST'}); document.cookie = 'flow=done; Path=/';")
            #expect(session.cookieJar.value("__Host-session", for: server.url("/")) != nil)
            flow.finish()
            #expect(session.cookieJar.value("__Host-session", for: server.url("/")) == nil)
            #expect(session.cookieJar.value("csrf_token", for: server.url("/")) == nil)
            #expect(session.cookieJar.value("flow", for: server.url("/")) == "done")
            #expect(session.cookieJar.value("theme", for: server.url("/")) == "light")
            await page.close()
        }
    }

    @Test func webStoreAsTheSingleSourceOfTruth() async throws {
        try await withServer { server in
            let store = WebsiteDataStore.nonPersistent()
            let session = SessionController(configuration: makeConfiguration(server), cookieJar: store.cookieJar)
            try await session.login(username: "demo", password: "demo")
            let shared = WebPage(
                configuration: WebPageConfiguration(
                    websiteDataStore: store, navigationDelegate: SessionNavigationDelegate(controller: session)))
            #expect(try await shared.load(server.url("/app")).statusCode == 200)
            #expect(session.cookieJar === shared.cookieJar)
            try await session.refresh()
            #expect(
                store.cookieJar.value("__Host-session", for: server.url("/"))
                    == session.cookieJar.value("__Host-session", for: server.url("/")))
            #expect(server.stats().refreshes == 1)
            await shared.close()
        }
    }

    @Test func twoWaySyncConvergesWithoutEchoLoops() {
        let native = CookieJar(), web = CookieJar()
        let mirror = CookieSync.mirror(native, web)
        let url = URL(string: "https://app.example/")!
        native.setCookie("a=1; Path=/", from: url)
        web.setCookie("b=2; Path=/; HttpOnly", from: url)
        web.setCookie("a=3; Path=/", from: url)
        native.setCookie("b=; Path=/; Max-Age=0", from: url)
        #expect(native.allCookies.map(\.headerPair).sorted() == ["a=3"])
        #expect(web.allCookies.map(\.headerPair).sorted() == ["a=3"])
        #expect(mirror.copiedChanges == 4)
        mirror.cancel()
        native.setCookie("c=1; Path=/", from: url)
        #expect(web.value("c", for: url) == nil)
    }
}
