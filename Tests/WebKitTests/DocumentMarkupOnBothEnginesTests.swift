import Foundation
import SessionBridgeHeadless
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import SessionBridgeWebKit
import Testing

/// What a document's markup means beyond its scripts' text, side by side: its `<base href>`,
/// character references in attributes and its title, and the scope of a script element's
/// handler attributes.
@Suite(.serialized, .timeLimit(.minutes(3)), .hangWatchdog) struct DocumentMarkupOnBothEnginesTests {
    /// Relative URLs (script sources, `fetch`, a script's navigation) resolve against the first
    /// `<base href>`, as an Angular app's `<base href="/">` has them at any depth of its routes.
    @Test(arguments: Engine.allCases)
    func relativeURLsResolveAgainstTheBaseElement(engine: Engine) async throws {
        let pages = [
            "/app/deep/route":
                #"<base href="/"><base href="/ignored/"><script src="cors/classic.js?n=1"></script><script type="module">window.meta = import.meta.url;</script><title>route</title>"#,
            "/next": "<title>next</title>",
        ]
        try await withSite(pages: pages) { site in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                _ = try await view.load(site.url("/app/deep/route"))
                let seen = try await view.run(
                    """
                    const answer = await fetch("echo?n=2");
                    const seen = [document.baseURI, answer.url, window.classicRuns, new URL("x", document.baseURI).href, window.meta];
                    location.assign("next");
                    return seen;
                    """)
                let base = site.url("/").absoluteString
                #expect(seen == [.string(base), .string(base + "echo?n=2"), 1, .string(base + "x"), .string(base)], "\(engine)")
                #expect(await view.waitForPath("/next"), "\(engine)")
                #expect(site.requests(to: "/cors/classic.js").count == 1, "\(engine)")
            }
        }
    }

    /// `&amp;` in a script's `src` is `&`, a title's references are decoded, and a handler
    /// attribute's names resolve on its element, then the document, then the global scope.
    @Test(arguments: Engine.allCases)
    func markupMeansWhatHTMLSays(engine: Engine) async throws {
        let pages = [
            "/markup": """
            <title>Tom &amp; Jerry</title><script>var seen = [];</script>
            <script src="/cors/classic.js?n=1&amp;acao=*" title="" onload="seen.push(typeof src, title, typeof cookie, this.tagName, typeof event)"></script>
            """
        ]
        try await withSite(pages: pages) { site in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                _ = try await view.load(site.url("/markup"))
                let seen = try await view.run(
                    """
                    for (let turn = 0; turn < 500 && seen.length === 0; turn++) await new Promise(resolve => setTimeout(resolve, 10));
                    return [document.title, ...seen];
                    """)
                #expect(seen == ["Tom & Jerry", "string", "", "string", "SCRIPT", "object"], "\(engine)")
                #expect(site.requests(to: "/cors/classic.js").map(\.query) == ["n=1&acao=*"], "\(engine)")
            }
        }
    }

    /// A `<meta http-equiv="refresh">` navigates the document once it has loaded, referred by
    /// it.
    @Test(arguments: Engine.allCases)
    func aMetaRefreshNavigatesOnceTheDocumentHasLoaded(engine: Engine) async throws {
        let pages = [
            "/refresh":
                #"<meta http-equiv="Refresh" content="0; URL='/next?via=meta'"><script>var loaded = false; addEventListener("load", () => loaded = true);</script>"#,
            "/next": "<title>next</title>",
        ]
        try await withSite(pages: pages) { site in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                _ = try await view.load(site.url("/refresh"))
                #expect(await view.waitForPath("/next"), "\(engine)")
                let referrer = try await view.run("return document.referrer")
                #expect(referrer == .string(site.url("/refresh").absoluteString), "\(engine)")
                #expect(site.requests(to: "/next").map(\.query) == ["via=meta"], "\(engine)")
            }
        }
    }

    /// Bodies come compressed when the engine asks, as a browser does, and reach the page
    /// decoded: a gzip document, and a gzip `fetch` whose `Content-Encoding` the script reads.
    @Test(arguments: Engine.allCases)
    func compressedBodiesAreDecoded(engine: Engine) async throws {
        try await withSite { site in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                let navigation = try await view.load(site.url("/gzip/page"))
                #expect(navigation.statusCode == 200, "\(engine)")
                #expect(try await view.evaluate("document.title") == "compressed", "\(engine)")
                let fetched = try await view.run("return await window.fetched;")
                #expect(fetched == ["gzip", "déjà vu, déjà vu, déjà vu"], "\(engine)")
            }
        }
    }

    /// A document's bytes are read in the encoding its `Content-Type` or `<meta charset>` names
    /// (windows-1252 here), and so is a script of it that names none; one that names none is
    /// read in WebKit's default, windows-1252, a UTF-8 page's `é` showing as `Ã©`; a `<meta>`
    /// after 1,024 bytes of the head is still read, as WebKit reads it.
    @Test(arguments: Engine.allCases)
    func aDocumentIsReadInTheEncodingItNames(engine: Engine) async throws {
        try await withSite { site in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                for path in ["/latin/header", "/latin/meta"] {
                    _ = try await view.load(site.url(path))
                    let seen = try await view.run("return latin")
                    #expect(seen == ["café €", "café €", "windows-1252"], "\(engine) \(path)")
                }
                // A document that names no encoding is read in WebKit's default, windows-1252.
                _ = try await view.load(site.url("/latin/undeclared"))
                #expect(try await view.run("return latin") == ["cafÃ©", "windows-1252"], "\(engine)")
                // A `<meta charset>` after 1,024 bytes of the head is still read.
                _ = try await view.load(site.url("/latin/late-meta"))
                #expect(try await view.run("return latin") == ["café", "UTF-8"], "\(engine)")
            }
        }
    }
}
