import Foundation
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeWebKit
import Synchronization
import Testing

/// A page's panels reach the UI delegate alike on both engines: `alert`, `confirm` and `prompt`
/// with its default text (the empty string when the page gave none, as HTML's `prompt` has it
/// and WebKit passes it), and the page reads the delegate's answers.
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct PanelTests {
    final class Panels: UIDelegate {
        let seen = Mutex<[String]>([])
        func webPage(_ page: any WebView, runAlertPanelWithMessage message: String, frame: FrameInfo) async {
            seen.withLock { $0.append("alert:" + message) }
        }
        func webPage(_ page: any WebView, runConfirmPanelWithMessage message: String, frame: FrameInfo) async -> Bool {
            seen.withLock { $0.append("confirm:" + message) }
            return true
        }
        func webPage(
            _ page: any WebView, runTextInputPanelWithPrompt prompt: String, defaultText: String?, frame: FrameInfo
        ) async -> String? {
            seen.withLock { $0.append("prompt:\(prompt):\(defaultText ?? "nil")") }
            return (defaultText ?? "") + "!"
        }
    }

    static let page = """
        <script>alert('hi'); var ok = confirm('sure?'); var name = prompt('name?', 'demo'); var other = prompt('other?');</script>
        """
    static let seen = ["alert:hi", "confirm:sure?", "prompt:name?:demo", "prompt:other?:"]

    @Test func panelsReachTheUIDelegateWithTheirTextsInWebKit() async throws {
        try await withSite(pages: ["/panels": Self.page]) { site in
            let panels = Panels()
            try await withView(WebKitWebViewConfiguration(uiDelegate: panels)) { view in
                try await view.load(site.url("/panels"))
                #expect(try await view.evaluateJavaScript("[ok, name, other]") == [true, "demo!", "!"])
            }
            #expect(panels.seen.withLock { $0 } == Self.seen)
        }
    }

    @Test func panelsReachTheUIDelegateWithTheirTextsHeadless() async throws {
        try await withSite(pages: ["/panels": Self.page]) { site in
            let panels = Panels()
            let page = WebPage(configuration: WebPageConfiguration(uiDelegate: panels))
            do {
                try await page.load(site.url("/panels"))
                #expect(try await page.evaluateJavaScript("[ok, name, other]") == [true, "demo!", "!"])
            } catch {
                Issue.record(error)
            }
            await page.close()
            #expect(panels.seen.withLock { $0 } == Self.seen)
        }
    }
}
