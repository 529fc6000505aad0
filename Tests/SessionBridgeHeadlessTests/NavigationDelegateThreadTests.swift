import Foundation
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@testable import SessionBridgeHeadless

/// A navigation delegate that records, for each method, whether it ran on the page's thread.
final class ThreadRecorder: NavigationDelegate {
    let onPageThread = Locked<[String: Bool]>([:])

    nonisolated(nonsending) func webPage(_ page: any WebView, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy {
        record("action", page)
        return .allow
    }

    nonisolated(nonsending) func webPage(
        _ page: any WebView, decidePolicyFor response: NavigationResponse
    ) async -> NavigationResponsePolicy {
        record("response", page)
        return .allow
    }

    nonisolated(nonsending) func webPage(_ page: any WebView, didFinish navigation: Navigation) async {
        record("finish", page)
    }

    nonisolated(nonsending) func webPage(_ page: any WebView, didFail error: PageError) async {
        record("fail", page)
    }

    private func record(_ method: String, _ page: any WebView) {
        let current = (page as? WebPage)?.thread.isCurrent ?? false
        onPageThread.update { $0[method] = current }
    }
}

@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct NavigationDelegateThreadTests {
    /// The delegate is called as WebKit calls it, on the page's thread: a delegate that only
    /// answers costs the navigation no hop to another thread and back.
    @Test func everyDelegateMethodRunsOnThePagesThread() async throws {
        try await withServer { server in
            let delegate = ThreadRecorder()
            let page = WebPage(configuration: WebPageConfiguration(navigationDelegate: delegate))
            try await page.load(server.url("/"))
            // A redirect loop: the navigation fails after its policies were decided.
            await #expect(throws: PageError.self) { try await page.load(server.url("/redirect-loop")) }
            #expect(delegate.onPageThread.value == ["action": true, "response": true, "finish": true, "fail": true])
            await page.close()
        }
    }
}
