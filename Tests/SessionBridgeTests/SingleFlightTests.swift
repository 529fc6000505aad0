import Foundation
import SessionBridge
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct SingleFlightTests {
    @Test(arguments: [1, 2, 10, 100])
    func concurrentNativeRefreshesShareOneRequest(n: Int) async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let before = try #require(session.cookieJar.value("__Host-session", for: server.url("/")))
            try await withThrowingTaskGroup(of: SessionStatus.self) { group in
                for _ in 0..<n { group.addTask { try await session.refresh() } }
                for try await status in group { #expect(status.isSignedIn) }
            }
            let stats = server.stats()
            #expect(stats.refreshes == 1)
            #expect(stats.reuseEvents == 0)
            #expect(stats.tokenRequests == 2)  // the login and one refresh
            #expect(await session.networkRefreshCount == 1)
            #expect(session.cookieJar.value("__Host-session", for: server.url("/")) != before)
        }
    }

    @Test func refreshesFromPageScriptsNativeCodeAndNavigationShareOneRequest() async throws {
        try await withServer { server in
            // The access token expires on the session's clock, with no wait; the freshness
            // window outlasts any delay of a loaded machine, so every caller of the test
            // shares the one refresh.
            let clock = ManualWallClock()
            var configuration = makeConfiguration(server)
            configuration.now = clock.read
            configuration.freshnessWindow = .seconds(60)
            let session = SessionController(configuration: configuration)
            try await session.login(username: "demo", password: "demo")
            let (scripted, _) = await makePage(session, server)
            try await scripted.loadHTMLString("<p>scripts</p>", baseURL: server.url("/start"))
            let (navigating, _) = await makePage(session, server)
            clock.advance(by: .seconds(3600))  // the access token has expired

            async let fromPage = scripted.callAsyncJavaScript(
                """
                const replies = await Promise.all(Array.from({length: 40}, (_, i) =>
                    i % 2 ? window.webkit.messageHandlers.session.postMessage({action: "refresh"}) : sessionBridge.refresh()));
                return replies.map(r => r.ok);
                """)
            async let fromNative: [SessionStatus] = withThrowingTaskGroup(of: SessionStatus.self) { group in
                for _ in 0..<40 { group.addTask { try await session.refresh() } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            async let navigation = navigating.load(server.url("/app"))

            let pageReplies = try await fromPage
            let nativeReplies = try await fromNative
            let landed = try await navigation
            #expect(pageReplies == .array(Array(repeating: true, count: 40)))
            #expect(nativeReplies.count == 40)
            #expect(landed.url.path == "/app")
            #expect(landed.statusCode == 200)
            let stats = server.stats()
            #expect(stats.refreshes == 1)
            #expect(stats.reuseEvents == 0)
            await scripted.close()
            await navigating.close()
        }
    }

    /// Page callers that join a refresh in flight start no task: their replies wait with the
    /// refresh and reach the page's thread together, settled through the page's reply inbox in
    /// one job, not each through a task woken on the page's thread.
    @Test func pageCallersWaitingForTheRefreshAreAnsweredTogether() async throws {
        try await withServer { server in
            let (_, page) = try await signedInPage(server)
            server.setFaults(FaultConfiguration(latency: .milliseconds(100)))  // the callers wait
            let context = try await page.context()
            let deliveriesBefore = await replyDeliveries(in: context)
            let tasksBefore = await handlerTasks(in: context)
            let replies = try await page.callAsyncJavaScript(
                """
                const calls = Array.from({length: 10}, () => window.webkit.messageHandlers.session.postMessage({action: "refresh"}));
                return (await Promise.all(calls)).filter(reply => reply.ok).length;
                """)
            #expect(replies == 10)
            #expect(server.stats().refreshes == 1)
            let deliveries = await replyDeliveries(in: context) - deliveriesBefore
            // Through the inbox: in one or two of its jobs on a quiet machine; under a full
            // parallel run's load the page's thread may wake for each reply while the others are
            // still being sent (all ten were seen). Not one caller was woken as a task.
            #expect((1...10).contains(deliveries), "ten replies took \(deliveries) jobs of the inbox")
            // The session's handler answers through a reply handler: no caller starts a task
            // (counted by the bridge itself: the page thread's job count, read before, also
            // counted the jobs of a heavily loaded run's other work, and once reached ten).
            #expect(await handlerTasks(in: context) - tasksBefore == 0, "a waiting caller was started as a task")
            await page.close()
        }
    }

    private func replyDeliveries(in context: isolated ScriptContext) -> Int {
        context.attachment(BridgeInstallation.self)?.replyDeliveries ?? -1
    }

    private func handlerTasks(in context: isolated ScriptContext) -> Int {
        context.attachment(BridgeInstallation.self)?.handlerTasks ?? -1
    }

    @Test func callersAfterTheRefreshWithinTheFreshnessWindowGetItsResult() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let first = try await session.refresh()
            let second = try await session.refresh()
            #expect(first == second)
            #expect(server.stats().refreshes == 1)
            try await Task.sleep(for: .milliseconds(600))
            try await session.refresh()
            #expect(server.stats().refreshes == 2)
            #expect(server.stats().reuseEvents == 0)
        }
    }

    @Test func statusRepliesImmediatelyWithNonSecretFacts() async throws {
        try await withServer { server in
            let (_, page) = try await signedInPage(server)
            let reply = try await page.callAsyncJavaScript(
                """
                const s = await window.webkit.messageHandlers.session.postMessage({action: "status"});
                let bad;
                try { await window.webkit.messageHandlers.session.postMessage({action: "steal"}); } catch (e) { bad = e.code; }
                return [Object.keys(s).sort(), s.signedIn, typeof s.expiresAt, s.expiresAt > Date.now(), bad];
                """)
            #expect(reply == [["expiresAt", "ok", "signedIn"], true, "number", true, "bad_request"])
            await page.close()
        }
    }

    @Test func otherOriginsCannotUseTheHandler() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let (page, _) = await makePage(session, server)
            try await page.loadHTMLString("<p>x</p>", baseURL: URL(string: "https://evil.example/")!)
            let code = try await page.callAsyncJavaScript(
                """
                try { await window.webkit.messageHandlers.session.postMessage({action: "refresh"}); return "allowed"; }
                catch (e) { return e.code; }
                """)
            #expect(code == "not_allowed")
            #expect(server.stats().refreshes == 0)
            await page.close()
        }
    }

    /// A page that asks for a refresh and navigates away gets its call ended at once, while
    /// the refresh goes on: the page is quiet with the native store
    /// still unrefreshed. ``SessionController/waitForRefreshInFlight()`` returns once that
    /// refresh has written both stores.
    @Test func aRefreshAPageLeftIsWaitedForByWaitForRefreshInFlight() async throws {
        try await withServer { server in
            let (session, page) = try await signedInPage(server)
            let root = server.url("/")
            let before = try #require(session.cookieJar.value("__Host-session", for: root))
            server.setFaults(FaultConfiguration(latency: .milliseconds(400)))
            let call = Task {
                try await page.callAsyncJavaScript(
                    """
                    try { await window.webkit.messageHandlers.session.postMessage({action: "refresh"}); return "ok"; }
                    catch (e) { return e.code; }
                    """)
            }
            while server.stats().faults.latency == 0 { try await Task.sleep(for: .milliseconds(2)) }
            try await page.loadHTMLString("<p>next</p>", baseURL: server.url("/next"))
            // The call ends with the document: rejected with `navigation`, or closed with it
            // before its script could catch that.
            switch await call.result {
            case .success(let answer): #expect(answer == "navigation")
            case .failure(let error): #expect((error as? ScriptError)?.kind == .contextClosed, "\(error)")
            }
            #expect(await page.runUntilQuiescent(timeout: .seconds(10)))
            #expect(session.cookieJar.value("__Host-session", for: root) == before, "the refresh ended before the page left it")

            await session.waitForRefreshInFlight()
            let after = try #require(session.cookieJar.value("__Host-session", for: root))
            #expect(after != before)
            #expect(page.cookieJar.value("__Host-session", for: root) == after)
            #expect(server.stats().refreshes == 1)
            await page.close()
        }
    }
}
