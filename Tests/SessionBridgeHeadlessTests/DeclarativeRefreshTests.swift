import Foundation
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@testable import SessionBridgeHeadless

/// HTML's declarative refresh: how its content reads, and a `Refresh` field navigating a
/// headless page. (A `<meta>` on both engines: `DocumentMarkupOnBothEnginesTests`.)
@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct DeclarativeRefreshTests {
    @Test(
        arguments: [
            ("5", 5, nil), ("  0; url=/next", 0, "/next"), ("3, https://a.test/x", 3, "https://a.test/x"),
            ("1.5;URL = 'q?a=1'", 1, "q?a=1"), (#"0;url="/d" tail"#, 0, "/d"), (".5", 0, nil), ("2 /plain", 2, "/plain"),
        ] as [(String, Int, String?)])
    func contentReadsAsHTMLReadsIt(content: String, seconds: Int, url: String?) {
        #expect(DeclarativeRefresh(content) == DeclarativeRefresh(seconds: seconds, url: url))
    }

    @Test(arguments: ["", "x", "url=/a", "5x"])
    func whatIsNoRefreshIsIgnored(content: String) {
        #expect(DeclarativeRefresh(content) == nil)
    }

    @Test func aRefreshFieldNavigatesThePageOnceLoaded() async throws {
        try await withServer { server in
            server.serve(path: "/first", body: "<title>first</title>", contentType: "text/html", headers: ["Refresh": "0;url=/second"])
            server.serve(path: "/second", body: "<title>second</title>", contentType: "text/html")
            let page = WebPage()
            _ = try await page.load(server.url("/first"))
            #expect(await page.runUntilQuiescent(timeout: .seconds(20)))
            #expect(await page.url?.path == "/second")
            #expect(try await page.evaluateJavaScript("document.referrer") == .string(server.url("/first").absoluteString))
            await page.close()
        }
    }
}
