import Foundation
import SessionBridgeHeadless
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import SessionBridgeWebKit
import Testing

/// A document's `<base href>`, side by side: its relative URLs (script sources, `fetch`, a
/// script's navigation) resolve against it, as an Angular app's `<base href="/">` has them at any
/// depth of its routes.
@Suite(.serialized, .timeLimit(.minutes(3)), .hangWatchdog) struct DocumentBaseURLOnBothEnginesTests {
    @Test(arguments: Engine.allCases)
    func relativeURLsResolveAgainstTheBaseElement(engine: Engine) async throws {
        let pages = [
            "/app/deep/route": #"<base href="/"><base href="/ignored/"><script src="cors/classic.js?n=1"></script><title>route</title>"#,
            "/next": "<title>next</title>",
        ]
        try await withSite(pages: pages) { site in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                _ = try await view.load(site.url("/app/deep/route"))
                let seen = try await view.run(
                    """
                    const answer = await fetch("echo?n=2");
                    const seen = [document.baseURI, answer.url, window.classicRuns, new URL("x", document.baseURI).href];
                    location.assign("next");
                    return seen;
                    """)
                let base = site.url("/").absoluteString
                #expect(seen == [.string(base), .string(base + "echo?n=2"), 1, .string(base + "x")], "\(engine)")
                #expect(await view.waitForPath("/next"), "\(engine)")
                #expect(site.requests(to: "/cors/classic.js").count == 1, "\(engine)")
            }
        }
    }
}
