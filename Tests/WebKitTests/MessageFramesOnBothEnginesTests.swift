import Foundation
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeWebKit
import Testing

/// A message carries the document that posted it: its frame reaches the handler, its origin
/// decides the allow-list and the log records it, after every navigation. (Both engines make a
/// message's route once per document and handler, not once per message.)
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct MessageFramesOnBothEnginesTests {
    @Test(arguments: Engine.allCases)
    func eachMessageCarriesTheDocumentThatPostedIt(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let log = MessageLog()
            let contents = UserContentController(log: log)
            contents.addScriptMessageHandler(
                ImmediateClosureMessageHandler { message in .string(message.frameInfo.url.absoluteString) }, name: "frame",
                options: HandlerOptions(allowedOrigins: [harness.origin]))
            let view = try await harness.makeView(session: false, contents: contents)
            let post = """
                try { return await window.webkit.messageHandlers.frame.postMessage(1); } catch (e) { return e.code; }
                """
            let first = harness.url("/login"), second = harness.url("/login?second")
            try await view.load(first)
            #expect(try await view.run(post) == .string(first.absoluteString))
            #expect(try await view.run(post) == .string(first.absoluteString))
            try await view.load(second)
            #expect(try await view.run(post) == .string(second.absoluteString))
            // A document of another origin is refused, and the log names its origin.
            try await Self.loadHTMLString("<p>other</p>", baseURL: URL(string: "https://other.example/page")!, in: view)
            #expect(try await view.run(post) == "not_allowed")
            try await view.load(first)
            #expect(try await view.run(post) == .string(first.absoluteString))

            let site = harness.origin.description
            #expect(log.entries.map(\.origin) == [site, site, site, "https://other.example", site])
        }
    }

    static func loadHTMLString(_ html: String, baseURL: URL, in view: any WebView) async throws {
        if let page = view as? WebPage {
            _ = try await page.loadHTMLString(html, baseURL: baseURL)
        } else if let webView = view as? WebKitWebView {
            _ = try await webView.loadHTMLString(html, baseURL: baseURL)
        } else {
            Issue.record("a view of neither engine")
        }
    }
}
