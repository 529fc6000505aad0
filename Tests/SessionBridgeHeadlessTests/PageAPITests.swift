import Foundation
import SessionBridgeCookies
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import Synchronization
import Testing

@testable import SessionBridgeHeadless

@Suite(.timeLimit(.minutes(5)), .hangWatchdog) struct PageAPITests {
    @Test func panelsGoToTheUIDelegate() async throws {
        final class Panels: UIDelegate {
            let seen = Locked<[String]>([])
            func webPage(_ page: any WebView, runAlertPanelWithMessage message: String, frame: FrameInfo) async {
                seen.update { $0.append("alert:" + message) }
            }
            func webPage(_ page: any WebView, runConfirmPanelWithMessage message: String, frame: FrameInfo) async -> Bool {
                seen.update { $0.append("confirm:" + message) }; return true
            }
            func webPage(
                _ page: any WebView, runTextInputPanelWithPrompt prompt: String, defaultText: String?, frame: FrameInfo
            ) async -> String? {
                seen.update { $0.append("prompt:" + prompt) }
                return (defaultText ?? "") + "!"
            }
        }
        let panels = Panels()
        let page = WebPage(configuration: WebPageConfiguration(uiDelegate: panels))
        try await page.loadHTMLString(
            "<script>alert('hi'); var ok = confirm('sure?'); var name = prompt('name?', 'demo')</script>",
            baseURL: URL(string: "https://app.example/")!)
        #expect(try await page.evaluateJavaScript("[ok, name]") == [true, "demo!"])
        #expect(panels.seen.value == ["alert:hi", "confirm:sure?", "prompt:name?"])
        await page.close()
    }

    @Test func userScriptsRunAtStartAndEndAndWorldsShareTheDocument() async throws {
        let controller = UserContentController()
        controller.addUserScript(UserScript(source: "var order = ['start']", injectionTime: .atDocumentStart))
        controller.addUserScript(UserScript(source: "order.push('end')", injectionTime: .atDocumentEnd))
        controller.addUserScript(
            UserScript(source: "document.cookie = 'from_world=1'; var isolated = true", injectionTime: .atDocumentStart, in: .defaultClient)
        )
        let page = WebPage(configuration: WebPageConfiguration(userContentController: controller))
        try await page.loadHTMLString(
            "<script>order.push('page:' + document.cookie)</script>", baseURL: URL(string: "https://app.example/")!)
        #expect(try await page.evaluateJavaScript("order") == ["start", "page:from_world=1", "end"])
        #expect(try await page.evaluateJavaScript("typeof isolated") == "undefined")
        #expect(try await page.evaluateJavaScript("isolated", in: .defaultClient) == true)
        await page.close()
    }

    @Test func documentCookieHonoursHttpOnlyAndIsObservable() async throws {
        let store = WebsiteDataStore.nonPersistent()
        let url = URL(string: "https://app.example/")!
        store.cookieJar.setCookie("sid=secret; Path=/; HttpOnly; Secure", from: url)
        let changes = Locked<[String]>([])
        let observation = store.cookieJar.observe { change in changes.update { $0.append("\(change.kind.rawValue):\(change.cookie.name)") }
        }
        let page = WebPage(configuration: WebPageConfiguration(websiteDataStore: store))
        try await page.loadHTMLString(
            """
            <script>
            var before = document.cookie;
            document.cookie = 'sid=stolen; path=/';
            document.cookie = 'theme=dark; path=/';
            var after = document.cookie;
            </script>
            """, baseURL: url)
        #expect(try await page.evaluateJavaScript("[before, after]") == ["", "theme=dark"])
        #expect(store.cookieJar.cookies(for: url).first { $0.name == "sid" }?.value == "secret")
        #expect(changes.value == ["added:theme"])
        observation.cancel()
        await page.close()
    }

    /// A page's cookie writes to a persistent profile return at once: the profile is written
    /// behind the page (a durable write on the page's thread stalled each write for the
    /// disk's time), and a reopened profile holds the last write.
    @Test func cookieWritesDoNotWaitForThePersistentProfile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webpage-profile-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = URL(string: "https://app.example/")!
        do {
            let store = try WebsiteDataStore(directory: directory, profile: "work")
            let attachment = try #require(store.attachment)
            let gate = DispatchSemaphore(value: 0)
            attachment.setHeldSavesGate { gate.wait() }
            let page = WebPage(configuration: WebPageConfiguration(websiteDataStore: store))
            try await page.loadHTMLString("<p>app</p>", baseURL: url)
            for value in ["dark", "light", "blue"] {
                _ = try await page.evaluateJavaScript("document.cookie = 'pref=\(value); Max-Age=3600; path=/'")
            }
            #expect(page.cookieJar.cookieHeader(for: url) == "pref=blue")
            #expect(try PersistentCookieStore(directory: directory, profile: "work").load().cookies.isEmpty)
            for _ in 0..<3 { gate.signal() }
            attachment.setHeldSavesGate(nil)
            await page.close()
        }
        // Reopening waits for the writes still behind the closed profile.
        let reopened = try WebsiteDataStore(directory: directory, profile: "work")
        #expect(reopened.cookieJar.cookieHeader(for: url) == "pref=blue")
    }

    @Test func persistentProfileKeepsCookiesAcrossStores() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webpage-profile-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = URL(string: "https://app.example/")!
        do {
            let store = try WebsiteDataStore(directory: directory, profile: "work")
            let page = WebPage(configuration: WebPageConfiguration(websiteDataStore: store))
            try await page.loadHTMLString("<script>document.cookie = 'kept=yes; Max-Age=3600; path=/'</script>", baseURL: url)
            await page.close()
        }
        let reopened = try WebsiteDataStore(directory: directory, profile: "work")
        #expect(reopened.isPersistent)
        #expect(reopened.cookieJar.cookieHeader(for: url) == "kept=yes")
    }
}
