import Foundation
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@testable import SessionBridgeHeadless

/// A document the page navigated away from is collected with all its page left in it: before,
/// every document of a page stayed in its thread's heap for the life of the process (about 135
/// KB a navigation to the reference server's `/app`, 54 MB over 400 navigations).
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct CollectedDocumentTests {
    @Test func documentsNavigatedAwayFromAreCollected() async throws {
        try await withServer { server in
            let thread = EngineThread(name: "sb-documents")
            let page = WebPage(configuration: WebPageConfiguration(thread: thread))
            for _ in 0..<30 { try await page.load(server.url("/")) }
            let probe = await ScriptContext(thread: thread)
            let heap = try #require(await probe.collectedHeap())
            // The shown document, the one prewarmed for the next navigation, the probe and the
            // thread's rejection sink (a document's worlds are one context each).
            #expect(heap.globalObjects <= 6, "\(heap.globalObjects) global objects left after 30 navigations")
            await probe.close()
            await page.close()
            thread.shutdown()
        }
    }
}
