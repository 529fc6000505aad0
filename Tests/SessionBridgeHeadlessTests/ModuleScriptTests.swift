import Foundation
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@testable import SessionBridgeHeadless

/// Module scripts in the headless engine: under the page's time limit, each module fetched once
/// per document with the credentials HTML gives it, and whatever a page's modules hold, the
/// page goes on.
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct ModuleScriptTests {
    /// A module that never ends is stopped by the time limit, at its top level or after an
    /// `await`, and reported once each; the next module runs.
    @Test func aModuleThatNeverEndsIsStoppedAndThePageGoesOn() async throws {
        let recorder = PageEventRecorder()
        let page = WebPage(
            configuration: WebPageConfiguration(
                eventHandler: recorder.handler, thread: EngineThread(name: "module-limit"), scriptTimeLimit: .milliseconds(200)))
        try await page.loadHTMLString(
            """
            <script type="module">for (;;) {}</script>
            <script type="module">await null; window.resumed = true; for (;;) {}</script>
            <script type="module">window.after = true;</script>
            """, baseURL: URL(string: "https://app.example/page")!)
        #expect(await page.runUntilQuiescent(timeout: .seconds(60)))
        #expect(recorder.scriptErrors.map(\.kind) == [.timeLimitExceeded, .timeLimitExceeded])
        #expect(try await page.evaluateJavaScript("[window.resumed, window.after]") == [true, true])
        await page.close()
    }

    /// A module imported by several modules, by two script elements and by a dynamic import is
    /// fetched and run once per document; each document has its own modules.
    @Test func eachModuleIsFetchedAndRunOncePerDocument() async throws {
        try await withServer { server in
            server.serve(
                path: "/m/shared.js", body: "window.runs = (window.runs || 0) + 1; export const n = 1;", contentType: "text/javascript")
            server.serve(path: "/m/left.js", body: "export { n as left } from './shared.js';", contentType: "text/javascript")
            server.serve(
                path: "/m/right.js", body: "import { n } from '/m/shared.js'; export const right = n;", contentType: "text/javascript")
            let recorder = PageEventRecorder()
            let page = WebPage(configuration: WebPageConfiguration(eventHandler: recorder.handler))
            let html = """
                <script type="module" src="/m/left.js"></script>
                <script type="module">import { left } from "./m/left.js"; import { right } from "./m/right.js"; window.sum = left + right;</script>
                <script type="module" src="/m/shared.js"></script>
                <script type="module">window.same = (await import("/m/shared.js")).n === 1;</script>
                """
            try await page.loadHTMLString(html, baseURL: server.url("/page"))
            #expect(await page.runUntilQuiescent(timeout: .seconds(20)))
            #expect(try await page.evaluateJavaScript("[window.runs, window.sum, window.same]") == [1, 2, true])
            let fetched = recorder.exchanges.filter { $0.initiator == .script }.map(\.url.path)
            #expect(fetched.sorted() == ["/m/left.js", "/m/right.js", "/m/shared.js"])
            try await page.loadHTMLString(html, baseURL: server.url("/page"))
            #expect(await page.runUntilQuiescent(timeout: .seconds(20)))
            #expect(try await page.evaluateJavaScript("window.runs") == 1)
            #expect(recorder.exchanges.filter { $0.initiator == .script }.count == 6)
            await page.close()
        }
    }

    /// A module is fetched with credentials `same-origin` in `cors` mode: the page's cookies go
    /// to a module of its origin, not to one of another origin, even on the same host (another
    /// port), and that one runs only when its answer allows the page's origin.
    @Test func aModuleOfAnotherOriginGetsNoCookies() async throws {
        try await withServer { server in
            try await withServer { other in
                server.serve(path: "/m/own.js", body: "window.own = true;", contentType: "text/javascript")
                other.serve(
                    path: "/m/other.js", body: "window.other = true;", contentType: "text/javascript",
                    headers: ["Access-Control-Allow-Origin": "*"])
                other.serve(path: "/m/closed.js", body: "window.refused = true;", contentType: "text/javascript")
                let recorder = PageEventRecorder()
                let page = WebPage(configuration: WebPageConfiguration(eventHandler: recorder.handler))
                try await page.loadHTMLString(
                    """
                    <script>document.cookie = "visitor=1; path=/";</script>
                    <script type="module" src="/m/own.js"></script>
                    <script type="module" src="\(other.url("/m/other.js").absoluteString)"></script>
                    <script type="module" src="\(other.url("/m/closed.js").absoluteString)"></script>
                    """, baseURL: server.url("/page"))
                #expect(
                    try await page.evaluateJavaScript("[window.own, window.other, typeof window.refused]") == [true, true, "undefined"])
                let sent = Dictionary(
                    uniqueKeysWithValues: recorder.exchanges.filter { $0.initiator == .script }.map {
                        ($0.url.lastPathComponent, $0.cookiesSent)
                    })
                #expect(sent["own.js"] == ["visitor"])
                #expect(sent["other.js"] == [])
                await page.close()
            }
        }
    }

    /// Whatever a page's modules hold, the page goes on: a module that imports itself, a chain
    /// of two hundred, an import map that is no JSON, a specifier no URL is made of, a module
    /// that replaces its own handle's members.
    @Test func hostileModulesLeaveThePageRunning() async throws {
        try await withServer { server in
            server.serve(
                path: "/m/self.js", body: "import { me } from './self.js'; export const me = 1; window.selfRan = me;",
                contentType: "text/javascript")
            for index in 0..<200 {
                let body = index == 199 ? "export const depth = 200;" : "export { depth } from './chain\(index + 1).js';"
                server.serve(path: "/m/chain\(index).js", body: body, contentType: "text/javascript")
            }
            let recorder = PageEventRecorder()
            let page = WebPage(configuration: WebPageConfiguration(eventHandler: recorder.handler))
            try await page.loadHTMLString(
                """
                <script type="importmap">{ not json</script>
                <script type="module" src="/m/self.js"></script>
                <script type="module">import { depth } from "/m/chain0.js"; window.depth = depth;</script>
                <script type="module">
                try { await import("http://[::1"); } catch (error) { window.refused = error.name; }
                __sbModule.import = null; __sbModule.bind = null;
                window.tampered = typeof import.meta.url;
                </script>
                <script>window.classic = true;</script>
                """, baseURL: server.url("/page"))
            #expect(await page.runUntilQuiescent(timeout: .seconds(30)))
            #expect(
                try await page.evaluateJavaScript("[window.selfRan, window.depth, window.refused, window.tampered, window.classic]") == [
                    1, 200, "TypeError", "string", true,
                ])
            #expect(recorder.consoleLines.contains { $0.contains("import map not used") })
            #expect(recorder.scriptErrors.isEmpty)
            await page.close()
        }
    }

    /// A minified bundle's modules reuse their imports' short names for inner bindings: each
    /// name reads what its own scope binds.
    @Test func minifiedModulesReadTheirOwnBindings() async throws {
        try await withServer { server in
            server.serve(
                path: "/m/vendor.js", body: "export const e = { id: \"E\" }; export function t(x) { return x * 2; }",
                contentType: "text/javascript")
            let page = WebPage()
            try await page.loadHTMLString(
                """
                <script type="module">
                import { e as t, t as e } from "/m/vendor.js";
                function n(t) { return t + 1; }
                const r = [1, 2].map(e => e + t.id), o = { t, e };
                window.out = [n(1), e(3), r.join(), (t => t)(5), ((e) => e)(6), o.t.id, typeof o.e, (function e() { return typeof e; })()].join("|");
                </script>
                """, baseURL: server.url("/page"))
            #expect(try await page.evaluateJavaScript("window.out") == "2|6|1E,2E|5|6|E|function|function")
            await page.close()
        }
    }

    /// The first module of a graph that throws ends its evaluation: the modules after it do not
    /// run, and its error is reported once.
    @Test func theFirstModuleThatThrowsEndsItsGraph() async throws {
        try await withServer { server in
            server.serve(path: "/m/throws.js", body: "throw new TypeError('first');", contentType: "text/javascript")
            server.serve(
                path: "/m/after.js", body: "window.afterRan = true; throw new TypeError('second');", contentType: "text/javascript")
            let recorder = PageEventRecorder()
            let page = WebPage(configuration: WebPageConfiguration(eventHandler: recorder.handler))
            try await page.loadHTMLString(
                """
                <script type="module">import "/m/throws.js"; import "/m/after.js"; window.rootRan = true;</script>
                """, baseURL: server.url("/page"))
            #expect(await page.runUntilQuiescent(timeout: .seconds(20)))
            #expect(try await page.evaluateJavaScript("[typeof afterRan, typeof rootRan]") == ["undefined", "undefined"])
            #expect(recorder.scriptErrors.map(\.message) == ["first"])
            await page.close()
        }
    }

    /// A `for await` at a module's top level makes it asynchronous; one inside an async
    /// function leaves it synchronous. The next script runs after the microtasks the loop
    /// awaited, and sees its end (as in WebKit).
    @Test func forAwaitDecidesWhetherAModuleIsAsynchronous() async throws {
        let page = WebPage()
        try await page.loadHTMLString(
            """
            <script type="module">async function drain(list) { for await (const x of list) {} } window.order = ["sync module"];</script>
            <script type="module">for await (const x of [1, 2]) window.last = x;</script>
            <script type="module">window.order.push(`next ${window.last}`);</script>
            """, baseURL: URL(string: "https://app.example/page")!)
        #expect(await page.runUntilQuiescent(timeout: .seconds(20)))
        #expect(try await page.evaluateJavaScript("[...order, window.last]") == ["sync module", "next 2", 2])
    }
}
