import Foundation
import SessionBridgeCookies
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import Synchronization
import Testing

@testable import SessionBridgeHeadless

@Suite(.timeLimit(.minutes(5)), .hangWatchdog) struct LoadingTests {
    /// External scripts marked `defer` or `async` run after the document's other scripts, in
    /// document order, before `DOMContentLoaded`, as the HTML parser runs deferred scripts (a
    /// bundle deferred in the head sees the configuration an inline script below it sets); each
    /// is the current script while it runs.
    @Test func deferredScriptsRunAfterTheOthersBeforeDOMContentLoaded() async throws {
        try await withServer { server in
            server.serve(
                path: "/d.js", body: "order.push('defer config=' + typeof config + ' ' + document.currentScript.src.endsWith('/d.js'))",
                contentType: "text/javascript")
            server.serve(path: "/a.js", body: "order.push('async')", contentType: "text/javascript")
            server.serve(path: "/s.js", body: "order.push('sync')", contentType: "text/javascript")
            let page = WebPage()
            try await page.loadHTMLString(
                """
                <script>var order = ["inline"]; document.addEventListener("DOMContentLoaded", () => order.push("DOMContentLoaded"));</script>
                <script defer src="/d.js"></script>
                <script async src="/a.js"></script>
                <script src="/s.js"></script>
                <script defer>order.push("inline marked defer runs in place"); var config = {};</script>
                """, baseURL: server.url("/page"))
            #expect(
                try await page.evaluateJavaScript("order") == [
                    "inline", "sync", "inline marked defer runs in place", "defer config=object true", "async", "DOMContentLoaded",
                ])
            await page.close()
        }
    }

    @Test func redirectChainAppliesEachHopsCookiesInOrder() async throws {
        try await withServer { server in
            let recorder = PageEventRecorder()
            let page = WebPage(configuration: WebPageConfiguration(eventHandler: recorder.handler))
            let navigation = try await page.load(server.url("/redirect-chain"))
            #expect(navigation.url.path == "/redirect-chain/3")
            #expect(navigation.redirects.map(\.path) == ["/redirect-chain/2", "/redirect-chain/3"])
            let names = Set(page.cookieJar.cookies(for: server.url("/")).map(\.name))
            #expect(names == ["hop2", "hop3"])
            let hops = recorder.exchanges.filter { $0.initiator == .navigation }
            #expect(hops.map(\.url.path) == ["/redirect-chain", "/redirect-chain/2", "/redirect-chain/3"])
            #expect(hops.map(\.cookiesSet) == [["hop1"], ["hop2"], ["hop3"]])
            #expect(hops[1].cookiesSent == ["hop1"])
            #expect(hops[2].cookiesDeleted == ["hop1"])
            await page.close()
        }
    }

    /// The names an exchange reports as sent are the cookies' own: a nameless cookie (a
    /// `Set-Cookie` without `=`, RFC 6265bis) is its value alone in the `Cookie` header, and a
    /// report that read names back from the header showed that value.
    @Test func aNamelessCookieSentIsReportedWithoutItsValue() async throws {
        try await withServer { server in
            let recorder = PageEventRecorder()
            let page = WebPage(configuration: WebPageConfiguration(eventHandler: recorder.handler))
            let secret = "nameless-cookie-secret-4f1d"
            guard case .stored = page.cookieJar.setCookie("\(secret); Path=/", from: server.url("/")) else {
                Issue.record("the jar did not keep the nameless cookie")
                return
            }
            page.cookieJar.setCookie("pref=1; Path=/", from: server.url("/"))
            try await page.load(server.url("/"))
            _ = try await page.callAsyncJavaScript("return (await fetch('/api/me')).status")
            let exchanges = recorder.exchanges
            #expect(exchanges.map(\.initiator) == [.navigation, .fetch])
            for exchange in exchanges {
                #expect(Set(exchange.cookiesSent) == ["", "pref"])
                #expect(!"\(exchange)".contains(secret))
            }
            await page.close()
        }
    }

    @Test func htmlRunsInlineAndExternalScriptsInDocumentOrder() async throws {
        try await withServer { server in
            server.serve(path: "/ext.js", body: "log.push('external:' + document.readyState)", contentType: "text/javascript")
            server.serve(
                path: "/doc.html",
                body: """
                    <html><head><title> Scripts </title></head><body>
                    <script>var log = ['inline1'];</script>
                    <script src="/ext.js"></script>
                    <script type="application/json">{"not": "run"}</script>
                    <script>log.push('inline2'); document.addEventListener('DOMContentLoaded', () => log.push('ready'));
                    window.addEventListener('load', () => log.push('load:' + document.readyState));</script>
                    </body></html>
                    """, contentType: "text/html")
            let recorder = PageEventRecorder()
            let page = WebPage(configuration: WebPageConfiguration(eventHandler: recorder.handler))
            let navigation = try await page.load(server.url("/doc.html"))
            #expect(navigation.title == "Scripts")
            #expect(try await page.evaluateJavaScript("log") == ["inline1", "external:loading", "inline2", "ready", "load:complete"])
            #expect(
                try await page.evaluateJavaScript(
                    "[location.pathname, location.origin === 'http://127.0.0.1:' + location.port, document.URL.endsWith('/doc.html')]")
                    == ["/doc.html", true, true])
            #expect(recorder.exchanges.contains { $0.initiator == .script && $0.url.path == "/ext.js" && $0.statusCode == 200 })
            await page.close()
        }
    }

    /// A document's contexts and preludes are made while its request is out, before its URL
    /// and title are known: what a script then reads must still be the final response's.
    @Test func aDocumentPreparedDuringItsRequestDescribesTheResponseItGot() async throws {
        try await withServer { server in
            let page = WebPage()
            // `/app` without a session redirects to the sign-in page.
            let navigation = try await page.load(server.url("/app"))
            #expect(navigation.url.path == "/login")
            let seen = try await page.evaluateJavaScript(
                "[location.pathname, document.URL === location.href, document.documentURI === location.href, document.domain, document.title]"
            )
            #expect(seen == ["/login", true, true, "127.0.0.1", .string(navigation.title ?? "")])
            #expect(navigation.title?.isEmpty == false)
            #expect(try await page.evaluateJavaScript("document.title = 42; [document.title, typeof document.title]") == ["42", "string"])
            await page.close()
        }
    }

    @Test func fetchSendsCookiesByCredentialsMode() async throws {
        try await withServer { server in
            let page = WebPage()
            try await page.loadHTMLString("<p>app</p>", baseURL: server.url("/start"))
            let result = try await page.callAsyncJavaScript(
                """
                const login = await fetch('/login', {method: 'POST', headers: {'content-type': 'application/x-www-form-urlencoded'}, body: 'username=demo&password=demo&next=/api/me'});
                const me = await fetch('/api/me');
                const omitted = await fetch('/api/me', {credentials: 'omit'});
                return [login.status, login.redirected, me.status, (await me.json()).sub ?? (await me.clone?.().json?.())?.sub ?? null, omitted.status,
                        me.headers.get('set-cookie'), document.cookie.includes('__Host-session')];
                """)
            let values = result.arrayValue
            #expect(values[0] == 200)
            #expect(values[1] == true)
            #expect(values[2] == 200)
            #expect(values[4] == 401)
            #expect(values[5] == .null)
            #expect(values[6] == false, "HttpOnly cookie visible to script")
            #expect(page.cookieJar.cookies(for: server.url("/")).contains { $0.name == "__Host-session" })
            await page.close()
        }
    }

    @Test func heldNavigationCarriesTheCookieNativeCodeWroteMeanwhile() async throws {
        struct Holder: NavigationDelegate {
            let jar: CookieJar
            let base: URL
            func webPage(_ page: any WebView, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy {
                guard action.request.url.path == "/next" else { return .allow }
                try? await Task.sleep(for: .milliseconds(50))
                jar.setCookie("written_while_held=1; Path=/", from: base)
                return .allow
            }
        }
        try await withServer { server in
            server.serve(path: "/next", body: "<p>next</p>", contentType: "text/html")
            let recorder = PageEventRecorder()
            let store = WebsiteDataStore.nonPersistent()
            let page = WebPage(
                configuration: WebPageConfiguration(
                    websiteDataStore: store, navigationDelegate: Holder(jar: store.cookieJar, base: server.baseURL),
                    eventHandler: recorder.handler))
            try await page.loadHTMLString(
                "<script>setTimeout(() => { location.href = '/next' }, 1)</script>", baseURL: server.url("/first"))
            #expect(await page.runUntilQuiescent(timeout: .seconds(60)))
            #expect(await page.url?.path == "/next")
            let request = try #require(recorder.exchanges.first { $0.url.path == "/next" })
            #expect(request.cookiesSent.contains("written_while_held"))
            let policy = recorder.events.compactMap { event -> Duration? in
                if case .navigationPolicy(let action, .allow, let waited) = event, action.request.url.path == "/next" {
                    #expect(action.navigationType == .scriptInitiated)
                    #expect(!action.isUserInitiated)
                    return waited
                }
                return nil
            }
            #expect((policy.first ?? .zero) >= .milliseconds(50))
            await page.close()
        }
    }

    @Test func windowOpenGoesThroughTheDelegates() async throws {
        final class Opener: UIDelegate, NavigationDelegate {
            let opened = Mutex<[WebPage]>([])
            let actions = Mutex<[NavigationAction]>([])
            func webPage(_ page: any WebView, createWebPageFor action: NavigationAction) async -> (any WebView)? {
                let child = WebPage()
                opened.withLock { $0.append(child) }
                return child
            }
            func webPage(_ page: any WebView, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy {
                actions.withLock { $0.append(action) }
                return .allow
            }
        }
        try await withServer { server in
            server.serve(path: "/popup", body: "<script>var popup = true</script>", contentType: "text/html")
            let opener = Opener()
            let page = WebPage(configuration: WebPageConfiguration(navigationDelegate: opener, uiDelegate: opener))
            try await page.loadHTMLString("<script>var result = window.open('/popup', '_blank')</script>", baseURL: server.url("/home"))
            #expect(await page.runUntilQuiescent(timeout: .seconds(60)))
            #expect(try await page.evaluateJavaScript("result !== null && result.closed === false") == true)
            let child = try #require(opener.opened.withLock { $0.first })
            #expect(await child.url?.path == "/popup")
            #expect(try await child.evaluateJavaScript("popup") == true)
            #expect(opener.actions.withLock { $0 }.contains { $0.navigationType == .newWindow && !$0.isMainFrame })
            await child.close()
            await page.close()
        }
    }

    @Test func replacingTheDocumentStopsItsTimersAndRejectsItsPendingCalls() async throws {
        let ticks = Locked(0)
        let outcomes = Locked<[String]>([])
        let controller = UserContentController()
        let app = HandlerOptions(allowedOrigins: [SecurityOrigin("https://app.example")!])
        controller.add(ClosureNotify { _ in ticks.update { $0 += 1 } }, name: "tick", options: app)
        controller.add(
            ClosureNotify { message in outcomes.update { $0.append(message.body.stringValue ?? "") } }, name: "outcome", options: app)
        controller.addScriptMessageHandler(
            ClosureMessageHandler { _ in
                try? await Task.sleep(for: .seconds(5))
                return "late"
            }, name: "slow", options: app)
        let page = WebPage(configuration: WebPageConfiguration(userContentController: controller))
        try await page.loadHTMLString(
            """
            <script>
            setInterval(() => webkit.messageHandlers.tick.postMessage(1), 2);
            webkit.messageHandlers.slow.postMessage(1).then(v => webkit.messageHandlers.outcome.postMessage('resolved'), e => webkit.messageHandlers.outcome.postMessage(e.name));
            </script>
            """, baseURL: URL(string: "https://app.example/one")!)
        try await Task.sleep(for: .milliseconds(50))
        try await page.loadHTMLString("<p>two</p>", baseURL: URL(string: "https://app.example/two")!)
        let after = ticks.value
        #expect(after > 0)
        try await Task.sleep(for: .milliseconds(50))
        #expect(ticks.value == after)
        #expect(outcomes.value == ["NavigationError"])
        await page.close()
    }
}

/// A handler without reply made from a closure.
struct ClosureNotify: ScriptMessageHandler {
    let body: @Sendable (ScriptMessage) -> Void
    init(_ body: @escaping @Sendable (ScriptMessage) -> Void) { self.body = body }
    func userContentController(_ controller: UserContentController, didReceive message: ScriptMessage) { body(message) }
}

extension ScriptValue {
    var arrayValue: [ScriptValue] {
        if case .array(let elements) = self { return elements }
        return []
    }
}
