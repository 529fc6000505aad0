import Foundation
import SessionBridgeHeadless
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

/// A script's navigation to a `javascript:` URL, side by side: its code runs in the document, in
/// a task after the script; a string it ends with replaces the document at the same URL; a
/// policy without `'unsafe-inline'` refuses it, with WebKit's violation.
@Suite(.serialized, .timeLimit(.minutes(3)), .hangWatchdog) struct JavaScriptURLsOnBothEnginesTests {
    @Test(arguments: Engine.allCases)
    func theCodeRunsInTheDocumentAfterTheScript(engine: Engine) async throws {
        try await withSite(pages: ["/page": "<title>page</title>"]) { site in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                _ = try await view.load(site.url("/page"))
                let seen = try await view.run(
                    """
                    location.href = "javascript:window.ran = [typeof document, document.title]";
                    const before = typeof window.ran;
                    await new Promise(resolve => setTimeout(resolve, 200));
                    return [before, window.ran, location.pathname];
                    """)
                #expect(seen == ["undefined", ["object", "page"], "/page"], "\(engine)")
                // A string result: the document is replaced, at the same URL.
                _ = try await view.evaluate(#"location.href = "javascript:'<title>replaced</title><p>new'"; 0"#)
                let deadline = ContinuousClock.now + .seconds(10)
                var title: ScriptValue = .undefined
                while ContinuousClock.now < deadline {
                    title = (try? await view.evaluate("document.title")) ?? .undefined
                    if title == "replaced" { break }
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(title == "replaced", "\(engine)")
                #expect(try await view.evaluate("location.pathname") == "/page", "\(engine)")
            }
        }
    }

    @Test(arguments: Engine.allCases)
    func aPolicyWithoutUnsafeInlineRefusesIt(engine: Engine) async throws {
        try await withSite(pages: ["/page": "<title>page</title>"]) { site in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                for (policy, runs) in [("script-src 'self'", false), ("script-src 'self' 'unsafe-inline'", true)] {
                    let url = site.url("/page").absoluteString + "?csp=" + ContentSecurityOnBothEnginesTests.encoded(policy)
                    _ = try await view.load(URL(string: url)!)
                    let seen = try await view.run(
                        """
                        const violations = [];
                        document.addEventListener("securitypolicyviolation", e => violations.push([e.effectiveDirective, e.blockedURI]));
                        location.href = "javascript:window.ran = true";
                        await new Promise(resolve => setTimeout(resolve, 200));
                        return [window.ran === true, violations];
                        """)
                    let violations: ScriptValue = runs ? [] : [["script-src-elem", "inline"]]
                    #expect(seen == [.bool(runs), violations], "\(engine) \(policy): \(seen)")
                }
            }
        }
    }
}
