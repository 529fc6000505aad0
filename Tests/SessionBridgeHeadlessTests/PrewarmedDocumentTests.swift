import Foundation
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTesting
import Testing

@testable import SessionBridgeHeadless

@Suite(.timeLimit(.minutes(2))) struct PrewarmedDocumentTests {
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
            #expect(try await page.evaluateJavaScript("typeof fetch + typeof window.webkit") == .string("functionobject"))
            // And the one after it is prewarmed again.
            #expect(await prewarmed(page, [.page]))
            await page.close()
            #expect(await page.prewarmedWorlds.isEmpty)
        }
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
}
