import Foundation
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@testable import SessionBridgeHeadless

@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct PrewarmedDocumentTests {
    /// Waits (bounded) until the page has prewarmed the next document for `worlds`.
    private func prewarmed(_ page: WebPage, _ worlds: Set<ContentWorld>) async -> Bool {
        for _ in 0..<500 {
            if await page.prewarmedWorlds == worlds { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// After a navigation the page makes the next document's contexts while it is idle; the next
    /// navigation takes them, and its document is the new one in every respect.
    @Test func theNextNavigationTakesTheDocumentPrewarmedAfterThePreviousOne() async throws {
        try await withServer { server in
            let page = WebPage()
            try await page.load(server.url("/"))
            #expect(await prewarmed(page, [.page]))
            _ = try await page.evaluateJavaScript("window.leftover = 1")
            try await page.load(server.url("/login?next=/app"))
            // The document is the new one: its location, title and a fresh global object.
            #expect(try await page.evaluateJavaScript("location.pathname + location.search") == .string("/login?next=/app"))
            #expect(try await page.evaluateJavaScript("document.title") == .string("Sign in"))
            #expect(try await page.evaluateJavaScript("typeof window.leftover") == .string("undefined"))
            // No handlers: no `window.webkit`, as in WebKit.
            #expect(try await page.evaluateJavaScript("typeof fetch + typeof window.webkit") == .string("functionundefined"))
            // And the one after it is prewarmed again.
            #expect(await prewarmed(page, [.page]))
            await page.close()
            #expect(await page.prewarmedWorlds.isEmpty)
        }
    }

    /// The next document is prepared once the shown one is quiet: not while a call of its own
    /// waits for its reply, which the preparation (1-3 ms on the page's thread) would delay.
    @Test func theNextDocumentIsPreparedOnceTheShownOneIsQuiet() async throws {
        let gate = Gate()
        let controller = UserContentController()
        controller.addScriptMessageHandler(
            ClosureMessageHandler { _ in
                await gate.wait()
                return "released"
            }, name: "hold", options: .anyOrigin)
        let page = WebPage(configuration: WebPageConfiguration(userContentController: controller))
        await page.setPrewarmQuietWait(.seconds(60))
        try await page.loadHTMLString(
            "<script>webkit.messageHandlers.hold.postMessage(1).then(v => { window.held = v })</script>",
            baseURL: URL(string: "https://app.example/")!)
        try await Task.sleep(for: .milliseconds(200))
        #expect(await page.prewarmedWorlds.isEmpty, "prepared while the document's call waited for its reply")
        await gate.open()
        #expect(await prewarmed(page, [.page]))
        #expect(try await page.evaluateJavaScript("window.held") == "released")
        await page.close()
    }

    /// A document that never goes quiet (an interval timer) has the next one prepared anyway,
    /// after the page's wait for quiet.
    @Test func aDocumentThatNeverGoesQuietHasTheNextOnePreparedAfterTheWait() async throws {
        let page = WebPage()
        await page.setPrewarmQuietWait(.milliseconds(50))
        try await page.loadHTMLString("<script>setInterval(() => {}, 5)</script>", baseURL: URL(string: "https://app.example/")!)
        #expect(await prewarmed(page, [.page]))
        await page.close()
    }

    /// A world added after the next document was prewarmed is made by the navigation itself.
    @Test func aWorldAddedAfterPrewarmingIsMadeByTheNavigation() async throws {
        try await withServer { server in
            let controller = UserContentController()
            let page = WebPage(configuration: WebPageConfiguration(userContentController: controller))
            try await page.load(server.url("/"))
            #expect(await prewarmed(page, [.page]))
            let isolated = ContentWorld.world(name: "isolated")
            controller.addUserScript(
                UserScript(source: "globalThis.marker = location.pathname", injectionTime: .atDocumentStart, in: isolated))
            try await page.load(server.url("/login"))
            #expect(try await page.evaluateJavaScript("marker", in: isolated) == .string("/login"))
            #expect(try await page.evaluateJavaScript("typeof marker") == .string("undefined"))
            #expect(await prewarmed(page, [.page, isolated]))
            await page.close()
        }
    }

    /// The prewarmed document has its bridge built before the navigation that takes it; the
    /// navigation binds it to the document it serves: messages carry that document's frame,
    /// origin checks and the log use it.
    @Test func theBridgeBuiltAheadIsBoundToTheDocumentItServes() async throws {
        try await withServer { server in
            let controller = UserContentController()
            let origin = try #require(SecurityOrigin(url: server.url("/")))
            controller.addScriptMessageHandler(
                ImmediateClosureMessageHandler { message in
                    .string(message.frameInfo.url.path + " " + (message.frameInfo.securityOrigin.map { "\($0)" } ?? "opaque"))
                }, name: "whereAmI", options: HandlerOptions(allowedOrigins: [origin]))
            let page = WebPage(configuration: WebPageConfiguration(userContentController: controller))
            try await page.load(server.url("/"))
            #expect(await prewarmed(page, [.page]))
            #expect(await page.prewarmedWorldsWithBridge() == [.page])
            try await page.load(server.url("/login?next=/app"))
            let reply = try await page.callAsyncJavaScript("return await window.webkit.messageHandlers.whereAmI.postMessage({})")
            #expect(reply == .string("/login \(origin)"))
            let last = try #require(controller.log?.entries.last)
            #expect(last.name == "whereAmI" && last.origin == "\(origin)")
            // The page APIs' native functions, made ahead too, serve this document: its cookies
            // and its URL as the base of a relative fetch.
            let apis = try await page.callAsyncJavaScript(
                """
                document.cookie = "probe=ahead; path=/";
                const response = await fetch("login?via=fetch");
                return [document.cookie.includes("probe=ahead"), response.url.slice(location.origin.length)];
                """)
            #expect(apis == [true, "/login?via=fetch"])
            await page.close()
        }
    }

    /// A handler added or removed after the next document's bridge was built: the navigation
    /// makes that document anew, with the handlers there are now.
    @Test func aHandlerAddedOrRemovedAfterPrewarmingIsSeenByTheNextDocument() async throws {
        try await withServer { server in
            let controller = UserContentController()
            controller.addScriptMessageHandler(ImmediateClosureMessageHandler { _ in "first" }, name: "first", options: .anyOrigin)
            let page = WebPage(configuration: WebPageConfiguration(userContentController: controller))
            try await page.load(server.url("/"))
            #expect(await prewarmed(page, [.page]))
            #expect(await page.prewarmedWorldsWithBridge() == [.page])
            controller.addScriptMessageHandler(ImmediateClosureMessageHandler { _ in "late" }, name: "late", options: .anyOrigin)
            try await page.load(server.url("/login"))
            #expect(
                try await page.callAsyncJavaScript("return await window.webkit.messageHandlers.late.postMessage({})") == .string("late"))
            #expect(
                try await page.evaluateJavaScript("Object.getOwnPropertyNames(window.webkit.messageHandlers).sort().join()")
                    == .string("first,late"))
            #expect(await prewarmed(page, [.page]))
            controller.removeScriptMessageHandler(forName: "first")
            try await page.load(server.url("/"))
            #expect(
                try await page.evaluateJavaScript("Object.getOwnPropertyNames(window.webkit.messageHandlers).join()") == .string("late"))
            await page.close()
        }
    }

    /// A user script at document start marked as reading nothing of its document.
    /// A page whose controller has one script marked independent of its document, loaded once
    /// and with that script run in the next document it prepared.
    private func pageWithAScriptRunAhead(
        _ source: String, _ server: ReferenceServer
    ) async throws -> (WebPage, UserContentController) {
        let controller = UserContentController()
        controller.addUserScript(independent(source))
        let page = WebPage(configuration: WebPageConfiguration(userContentController: controller))
        try await page.load(server.url("/"))
        #expect(await prewarmed(page, [.page]))
        #expect(await page.prewarmedScriptsRunAhead() == [.page: 1])
        return (page, controller)
    }

    private func independent(_ source: String, in world: ContentWorld = .page) -> UserScript {
        var script = UserScript(source: source, injectionTime: .atDocumentStart, in: world)
        script.isDocumentIndependent = true
        return script
    }

    /// The scripts that open a world's list and read nothing of the document run in the
    /// prepared document, once; the others run at commit, after them, in the list's order.
    @Test func documentIndependentScriptsRunInThePreparedDocumentInTheListsOrder() async throws {
        try await withServer { server in
            let controller = UserContentController()
            let isolated = ContentWorld.world(name: "isolated")
            controller.addUserScript(independent("globalThis.order = (globalThis.order || []).concat('a')"))
            controller.addUserScript(
                UserScript(source: "order.push('b:' + location.pathname)", injectionTime: .atDocumentStart))
            controller.addUserScript(independent("order.push('c')"))
            controller.addUserScript(independent("globalThis.order = ['i']", in: isolated))
            let page = WebPage(configuration: WebPageConfiguration(userContentController: controller))
            try await page.load(server.url("/"))
            #expect(await prewarmed(page, [.page, isolated]))
            // `c` follows a script that reads the document: it waits for the commit.
            #expect(await page.prewarmedScriptsRunAhead() == [.page: 1, isolated: 1])
            try await page.load(server.url("/login"))
            #expect(try await page.evaluateJavaScript("order.join()") == .string("a,b:/login,c"))
            #expect(try await page.evaluateJavaScript("order.join()", in: isolated) == .string("i"))
            await page.close()
        }
    }

    /// User scripts changed after some ran in the prepared document: the navigation makes its
    /// document anew and runs the scripts there are now.
    @Test func userScriptsChangedAfterPrewarmingMakeTheDocumentAnew() async throws {
        try await withServer { server in
            let (page, controller) = try await pageWithAScriptRunAhead("globalThis.old = 1", server)
            controller.removeAllUserScripts()
            controller.addUserScript(independent("globalThis.new = 1"))
            try await page.load(server.url("/login"))
            #expect(try await page.evaluateJavaScript("typeof old + ' ' + typeof globalThis.new") == .string("undefined number"))
            // An added script after an unchanged one: the document prepared with the first is used.
            #expect(await prewarmed(page, [.page]))
            controller.addUserScript(independent("globalThis.added = location.pathname === '/'"))
            try await page.load(server.url("/"))
            #expect(try await page.evaluateJavaScript("[globalThis.new, globalThis.added].join()") == .string("1,true"))
            await page.close()
        }
    }

    /// What a script run ahead logs or throws is reported as the committed document's, after
    /// its commit, as when the script runs at commit.
    @Test func aScriptRunAheadReportsItsConsoleAndErrorsAsTheCommittedDocuments() async throws {
        try await withServer { server in
            let controller = UserContentController()
            controller.addUserScript(independent("console.log('ahead'); throw new Error('boom')"))
            let recorder = PageEventRecorder()
            let page = WebPage(configuration: WebPageConfiguration(userContentController: controller, eventHandler: recorder.handler))
            for path in ["/", "/login"] {
                let before = recorder.events.count
                try await page.load(server.url(path))
                let order = Array(recorder.events.dropFirst(before)).compactMap { Self.reportKind($0, path: path) }
                #expect(order == ["committed", "console", "error"])
                #expect(await prewarmed(page, [.page]))
                #expect(await page.prewarmedScriptsRunAhead() == [.page: 1])
            }
            await page.close()
        }
    }

    /// The document prepared ahead runs the page APIs' code once (its events' dispatch and
    /// fetch, off the navigation's path); nothing of it reaches the document, the app or the
    /// network: no request, no console line or error, no event a listener hears, and the
    /// document's own `fetch`, `Headers` and `Response` behave as in any document.
    @Test func thePageAPIsRunAheadLeaveNoTrace() async throws {
        try await withServer { server in
            let recorder = PageEventRecorder()
            let page = WebPage(configuration: WebPageConfiguration(eventHandler: recorder.handler))
            try await page.loadHTMLString("<p>first</p>", baseURL: server.url("/first"))
            #expect(await prewarmed(page, [.page]))
            // The next document is the one prepared, and warmed, ahead.
            let listening = """
                <script>
                window.heard = [];
                for (const type of ["DOMContentLoaded", "load", "sessionbridge-warm-up"]) {
                  document.addEventListener(type, () => heard.push("document " + type));
                  window.addEventListener(type, () => heard.push("window " + type));
                }
                </script>
                """
            try await page.loadHTMLString(listening, baseURL: server.url("/second"))
            #expect(
                try await page.evaluateJavaScript("heard.join()")
                    == .string("document DOMContentLoaded,window DOMContentLoaded,window load"))
            #expect(recorder.exchanges.isEmpty)
            #expect(recorder.consoleLines.isEmpty)
            #expect(recorder.scriptErrors.isEmpty)
            let seen = try await page.callAsyncJavaScript(
                """
                const aborted = await fetch("/api/me", { signal: { aborted: true } }).then(() => "sent", e => e.name);
                const headers = new Headers({ Accept: "text/plain" });
                headers.append("accept", "text/html");
                const body = await new Response('{"x":1}').json();
                return [aborted, headers.get("accept"), [...new Headers()].length, body.x].join(" ");
                """)
            #expect(seen == .string("AbortError text/plain, text/html 0 1"))
            #expect(recorder.exchanges.isEmpty)
            // Its first real request goes out as any.
            let status = try await page.callAsyncJavaScript("return (await fetch('/api/me')).status")
            #expect(status == .number(401))
            #expect(recorder.exchanges.map(\.url.path) == ["/api/me"])
            // Its only console line is WebKit's for the answer's status.
            #expect(recorder.scriptErrors.isEmpty)
            #expect(recorder.consoleLines.count == 1 && recorder.consoleLines[0].contains("status of 401 (Unauthorized)"))
            await page.close()
        }
    }

    /// The location record is filled when a script first reads it after the commit. A script
    /// run ahead that reads it anyway (against its marking) sees it empty, and the committed
    /// document still reads its own URL and title everywhere.
    @Test func locationIsTheCommittedDocumentsWhenFirstReadAfterAReadAhead() async throws {
        try await withServer { server in
            let (page, _) = try await pageWithAScriptRunAhead("globalThis.early = location.href + '|' + document.URL", server)
            try await page.load(server.url("/login?next=/app#top"))
            let url = server.url("/login?next=/app#top").absoluteString
            #expect(try await page.evaluateJavaScript("early") == .string("|"))
            let read = try await page.evaluateJavaScript(
                "[location.href, document.URL, location.pathname + location.search + location.hash, location.origin, document.title].join(' ')"
            )
            let origin = try #require(SecurityOrigin(url: server.url("/")))
            #expect(read == .string("\(url) \(url) /login?next=/app#top \(origin) Sign in"))
            await page.close()
        }
    }

    /// The commit, the script's console line and its error, for the document at `path`.
    private static func reportKind(_ event: PageEvent, path: String) -> String? {
        switch event {
        case .documentCommitted(let navigation) where navigation.url.path == path: "committed"
        case .console(let message, let url) where message.text == "ahead" && url.path == path: "console"
        case .scriptError(let error, false, let url) where error.message.contains("boom") && url.path == path: "error"
        default: nil
        }
    }
}

extension WebPage {
    fileprivate func setPrewarmQuietWait(_ wait: Duration) {
        prewarmQuietWait = wait
    }
}
