import Foundation
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeMessaging

/// Handlers deny every origin they do not list; allowing all is an explicit decision.
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct DenyByDefaultTests {
    @Test func anUnconfiguredHandlerRefusesAPageWithAnErrorNamingTheOriginAndTheHandler() async throws {
        let controller = UserContentController()
        let calls = Counter()
        controller.addScriptMessageHandler(
            ClosureMessageHandler { _ in
                calls.increment(); return "ok"
            }, name: "clock")
        controller.add(Recorder(), name: "notify")
        let page = try await makeDocument(controller, url: "https://app.example:8443/home")
        let rejection = try await awaitScript(
            page,
            """
            try { await webkit.messageHandlers.clock.postMessage({}); return "replied"; }
            catch (e) { return [e.name, e.code, e.message, e.data.origin, e.data.handler]; }
            """)
        #expect(
            rejection == [
                "NotAllowedError", "not_allowed",
                "the origin https://app.example:8443 may not use the handler 'clock': it is not in the handler's allowedOrigins",
                "https://app.example:8443", "clock",
            ])
        // A handler without reply refuses too (its promise rejects; nothing is delivered).
        #expect(
            try await awaitScript(
                page, "try { await webkit.messageHandlers.notify.postMessage(1); return 'sent'; } catch (e) { return e.code; }")
                == "not_allowed")
        #expect(calls.count == 0)
        #expect(controller.log?.entries.last?.origin == "https://app.example:8443")
        await page.close()
    }

    @Test func anyOriginIsAnExplicitOptIn() async throws {
        let controller = UserContentController()
        controller.addScriptMessageHandler(ImmediateClosureMessageHandler { _ in "open" }, name: "public", options: .anyOrigin)
        controller.addScriptMessageHandler(
            ImmediateClosureMessageHandler { _ in "main" }, name: "main",
            options: .anyOrigin(mainFrameOnly: true, timeout: .seconds(1)))
        let first = try await makeDocument(controller, url: "https://one.example/")
        let second = try await makeDocument(controller, url: "http://127.0.0.1:9/", isMainFrame: false)
        #expect(try await awaitScript(first, "return await webkit.messageHandlers.public.postMessage(1)") == "open")
        #expect(try await awaitScript(second, "return await webkit.messageHandlers.public.postMessage(1)") == "open")
        #expect(try await awaitScript(first, "return await webkit.messageHandlers.main.postMessage(1)") == "main")
        #expect(
            try await awaitScript(second, "try { await webkit.messageHandlers.main.postMessage(1) } catch (e) { return e.name }")
                == "NotAllowedError")
        #expect(HandlerOptions().allows(FrameInfo(url: URL(string: "https://app.example/")!)) == false)
        await first.close()
        await second.close()
    }
}
