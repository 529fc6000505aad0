import Foundation
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeHeadless

/// Which text of an HTML document runs as script: only real `<script>` elements, as in a browser.
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct HTMLScriptTests {
    /// Markup that holds `<script>` text a browser never runs.
    static let inertCases: [(String, String)] = [
        ("comment", "<!-- <script>ran('comment')</script> -->"),
        ("attribute value", "<div title=\"<script>ran('attribute')</script>\"></div>"),
        ("title", "<title><script>ran('title')</script></title>"),
        ("textarea", "<textarea><script>ran('textarea')</script></textarea>"),
        ("template", "<template><p><script>ran('template')</script></p></template>"),
        ("noscript", "<noscript><script>ran('noscript')</script></noscript>"),
        ("custom element", "<scriptx>ran('scriptx')</scriptx><script-x>ran('script-x')</script-x>"),
        ("after > in a quoted attribute", "<img alt='a>b' title=\"1 > 0 <script>ran('quoted')</script>\">"),
        ("iframe srcdoc", "<iframe srcdoc=\"<script>ran('srcdoc')</script>\"></iframe>"),
        ("iframe text", "<iframe><script>ran('iframe')</script></iframe>"),
        ("style", "<style>p::after { content: '<script>ran(1)</script>' }</style>"),
        ("bogus comment", "<!DOCTYPE html><? <script>ran('pi')</script> ?>"),
    ]

    @Test(arguments: inertCases)
    func inertScriptTextDoesNotRun(_ name: String, _ markup: String) async throws {
        let page = WebPage()
        try await page.loadHTMLString(
            """
            <script>var hits = []; function ran(what) { hits.push(String(what)); }</script>
            \(markup)
            <script data-note="a>b">var done = true;</script>
            """, baseURL: URL(string: "https://app.example/")!)
        #expect(try await page.evaluateJavaScript("hits") == [], "\(name)")
        #expect(try await page.evaluateJavaScript("typeof done === 'boolean' && done") == true, "\(name)")
        await page.close()
    }

    @Test func realScriptsRunInOrderWithTheirLines() {
        let html = """
            <!doctype html><title>A &amp; B</title>
            <SCRIPT type="text/javascript">one()</SCRIPT >
            <script src="/app.js" defer></script>
            <script type=module>mod()</script>
            <script type=importmap>{}</script>
            <script nomodule>legacy()</script>
            <script type="text/template">template()</script>
            <script>if (a </b) x = "</scriptx>";</script>
            <template><script>inert()</script></template>
            <script>
            <!-- <script>still()</script> -->
            </script>
            """
        let document = HTMLDocumentScripts(html: html)
        #expect(document.title == "A & B")
        #expect(
            document.scripts == [
                .inline(source: "one()", line: 2),
                .external(src: "/app.js"),
                .module(src: nil, source: "mod()", line: 4), .importMap(source: "{}"), .noModule, .skipped(type: "text/template"),
                .inline(source: "if (a </b) x = \"</scriptx>\";", line: 8),
                .inline(source: "\n<!-- <script>still()</script> -->\n", line: 10),
            ])
    }

    @Test func unterminatedMarkupHidesWhatFollows() {
        #expect(HTMLDocumentScripts(html: "<!-- <script>a()</script>").scripts.isEmpty)
        #expect(HTMLDocumentScripts(html: "<p title=\"<script>a()</script>").scripts.isEmpty)
        #expect(HTMLDocumentScripts(html: "<!--><script>a()</script>").scripts == [.inline(source: "a()", line: 1)])
        #expect(HTMLDocumentScripts(html: "<plaintext><script>a()</script>").scripts.isEmpty)
    }
}
