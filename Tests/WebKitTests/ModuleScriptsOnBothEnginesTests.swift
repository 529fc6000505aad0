import Crypto
import Foundation
import SessionBridgeHeadless
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import SessionBridgeWebKit
import Testing

/// Module scripts, run side by side: the headless engine links and runs a page's module graph
/// as WebKit does, what fails fails with WebKit's errors and events, and a module calls the
/// bridge as a classic script does.
@Suite(.serialized, .timeLimit(.minutes(3)), .hangWatchdog) struct ModuleScriptsOnBothEnginesTests {
    static let modules: [(path: String, body: String, type: String)] = [
        (
            "/modules/lib.js",
            #"seen.push("lib"); export const value = "V"; export let count = 0; export function bump() { count++; } export default "D";"#,
            "text/javascript"
        ),
        (
            "/modules/cycle-a.js",
            #"import { two } from "./cycle-b.js"; export function one() { return "one+" + two(); } seen.push("cycle-a");"#,
            "text/javascript"
        ),
        // Imported by the module that imports it, and runs first: `one` is a function already.
        (
            "/modules/cycle-b.js",
            #"import { one } from "./cycle-a.js"; export function two() { return "two"; } seen.push(`cycle-b ${typeof one}`);"#,
            "text/javascript"
        ),
        (
            "/modules/reexports.js",
            #"export * from "./stars.js"; export { value as renamed } from "./lib.js"; export * as space from "./lib.js";"#,
            "application/javascript"
        ),
        ("/modules/stars.js", #"export const star = "S"; export default "not re-exported";"#, "text/javascript"),
        ("/modules/anonymous.js", "export default function () { return 1 }\n", "text/javascript; charset=utf-8"),
        ("/modules/pkg/p.js", #"export const p = "P";"#, "text/javascript"),
        ("/modules/data.json", #"{"k": [1, 2]}"#, "application/json"),
        ("/modules/deferred.js", #"seen.push("deferred");"#, "text/javascript"),
        ("/modules/plain.txt", #"seen.push("plain ran");"#, "text/plain"),
        ("/modules/syntax.js", "seen.push(\"syntax ran\");\nlet x = ;\n", "text/javascript"),
        ("/modules/unbound.js", #"import { nothere } from "./lib.js"; seen.push("unbound ran");"#, "text/javascript"),
        ("/modules/bare.js", #"import x from "lodash"; seen.push("bare ran");"#, "text/javascript"),
        ("/modules/throws.js", "seen.push(\"throws ran\");\nthrow new RangeError(\"boom\");\n", "text/javascript"),
    ]

    static func load(_ html: String, in view: any WebView, harness: EngineHarness) async throws {
        for module in modules { harness.server.serve(path: module.path, body: module.body, contentType: module.type) }
        if let page = view as? WebPage {
            try await page.loadHTMLString(html, baseURL: harness.url("/page"))
        } else if let webView = view as? WebKitWebView {
            try await webView.loadHTMLString(html, baseURL: harness.url("/page"))
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while try await view.evaluate("typeof later === 'object' && later.includes('done')") != true, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// An import map, named, default and namespace imports read live and read-only, a cycle
    /// whose function declarations exist before either module runs, re-exports, an anonymous
    /// default export, `import.meta`, a JSON module by dynamic import, top-level `await` of the
    /// bridge; module scripts run after the classic ones, before `DOMContentLoaded`, and a
    /// `nomodule` script does not run.
    ///
    /// (WebKit runs a graph that awaits at its top level a module per task, so that deferred
    /// scripts and `DOMContentLoaded` may come between its modules; the standard, and the
    /// headless engine, run the modules that do not await at once. The graph that awaits here is
    /// a script of its own.)
    @Test(arguments: Engine.allCases)
    func aModuleGraphRunsAsInWebKit(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView()
            try await Self.load(
                """
                <script type="importmap">{"imports": {"lib": "/modules/lib.js", "pkg/": "/modules/pkg/"}}</script>
                <script>
                var seen = [], later = [];
                addEventListener("error", event => seen.push(`error ${event.message}`));
                document.addEventListener("DOMContentLoaded", () => seen.push("DOMContentLoaded"));
                </script>
                <script type="module">
                import def, { value, bump, count } from "lib";
                import * as lib from "lib";
                import { one } from "/modules/cycle-a.js";
                import { star, renamed, space } from "/modules/reexports.js";
                import anonymous from "/modules/anonymous.js";
                import { p } from "pkg/p.js";
                seen.push(`inline ${def} ${value} ${count} ${Object.keys(lib).join()} ${lib[Symbol.toStringTag]} ${this} ${Object.isExtensible(lib)}`);
                bump();
                seen.push(`live ${count} ${lib.count}`);
                try { count = 5; } catch (error) { seen.push(`${error.name}: ${error.message}`); }
                seen.push(`cycle ${one()} | ${star} ${renamed} ${space.value} ${"default" in space} | ${anonymous.name} ${anonymous} | ${p}`);
                seen.push(`meta ${import.meta.url.split("/").pop()} ${import.meta.resolve("lib").split("/").pop()} ${document.currentScript}`);
                </script>
                <script type="module">
                import * as lib from "lib";
                const json = await import("/modules/data.json", { with: { type: "json" } });
                later.push(`json ${JSON.stringify(json.default)} ${(await import("lib")) === lib}`);
                const answer = await window.webkit.messageHandlers.echo.postMessage({ from: "module" });
                later.push(`bridge ${answer.from}`, "done");
                </script>
                <script nomodule>seen.push("nomodule ran");</script>
                <script defer src="/modules/deferred.js"></script>
                <script>seen.push("classic");</script>
                """, in: view, harness: harness)
            let seen = try await view.evaluate("seen")
            #expect(
                seen == [
                    "classic", "lib", "cycle-b function", "cycle-a", "inline D V 0 bump,count,default,value Module undefined false",
                    "live 1 1", "TypeError: Attempted to assign to readonly property.",
                    "cycle one+two | S V V true | default function () { return 1 } | P", "meta page lib.js null", "deferred",
                    "DOMContentLoaded",
                ], "\(engine)")
            let later = try await view.evaluate("later")
            #expect(later == [#"json {"k":[1,2]} true"#, "bridge module", "done"], "\(engine)")
        }
    }

    /// What cannot be fetched gives its element `error`; a syntax error is reported at its line
    /// and the element gets no event; what cannot link, or throws, is reported and the element
    /// gets `load`. A dynamic import rejects with the same errors.
    ///
    /// (A module whose evaluation threw is imported again without its error in WebKit; the
    /// standard, and the headless engine, reject with it: not compared here.)
    @Test(arguments: Engine.allCases)
    func failingModulesFailAsInWebKit(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView()
            try await Self.load(
                """
                <script>
                var seen = [], later = [];
                addEventListener("error", event => seen.push(`error ${event.message} ${(event.filename || "").split("/").pop()}:${event.lineno}`));
                </script>
                <script type="module" src="/modules/missing.js" onerror="seen.push('missing: error event')"></script>
                <script type="module" src="/modules/plain.txt" onerror="seen.push('plain: error event')"></script>
                <script type="module" src="/modules/syntax.js" onerror="seen.push('syntax: error event')" onload="seen.push('syntax: load event')"></script>
                <script type="module" src="/modules/unbound.js" onload="seen.push('unbound: load event')"></script>
                <script type="module" src="/modules/bare.js" onload="seen.push('bare: load event')"></script>
                <script type="module" src="/modules/throws.js" onload="seen.push('throws: load event')"></script>
                <script type="module">
                for (const specifier of ["/modules/missing.js", "/modules/plain.txt", "lodash", "/modules/syntax.js", "/modules/unbound.js"]) {
                  try { await import(specifier); later.push(`imported ${specifier}`); } catch (error) { later.push(`${specifier}: ${error.name}: ${error.message}`); }
                }
                later.push("done");
                </script>
                """, in: view, harness: harness)
            // WebKit fires a failed fetch's `error` as soon as it failed: compared without order.
            let seen = try await view.evaluate("seen.slice().sort()")
            #expect(
                seen == [
                    "bare: load event", "error RangeError: boom throws.js:2",
                    "error SyntaxError: Importing binding name 'nothere' is not found. :0",
                    "error SyntaxError: Unexpected token ';' syntax.js:2",
                    "error TypeError: Module name, 'lodash' does not resolve to a valid URL. :0", "missing: error event",
                    "plain: error event",
                    "throws ran", "throws: load event", "unbound: load event",
                ], "\(engine)")
            let later = try await view.evaluate("later")
            #expect(
                later == [
                    "/modules/missing.js: TypeError: Importing a module script failed.",
                    "/modules/plain.txt: TypeError: 'text/plain' is not a valid JavaScript MIME type.",
                    "lodash: TypeError: Module name, 'lodash' does not resolve to a valid URL.",
                    "/modules/syntax.js: SyntaxError: Unexpected token ';'",
                    "/modules/unbound.js: SyntaxError: Importing binding name 'nothere' is not found.", "done",
                ], "\(engine)")
        }
    }

    /// A module imported from a `data:` URL (plain, percent-encoded, base64) or from a blob URL
    /// of the document's runs as in WebKit; one whose type is no JavaScript type fails with
    /// WebKit's error, and so does a revoked blob URL. (Before, the headless engine sent them to
    /// the network and failed every one.)
    @Test(arguments: Engine.allCases)
    func modulesFromDataAndBlobURLsAreImportedAsInWebKit(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView()
            try await Self.load(
                #"""
                <script>var later = [];</script>
                <script type="module">
                const read = async specifier => { try { return (await import(specifier)).default; } catch (error) { return `${error.name}: ${error.message}`; } };
                const blob = URL.createObjectURL(new Blob(["export default 'from a blob'"], { type: "text/javascript" }));
                const revoked = URL.createObjectURL(new Blob(["export default 'revoked'"], { type: "text/javascript" }));
                URL.revokeObjectURL(revoked);
                later.push(await read("data:text/javascript,export default 6 * 7"));
                later.push(await read("data:text/javascript,export default %22percent%22"));
                later.push(await read("data:text/javascript;base64," + btoa("export default 'based'")));
                later.push(await read(blob));
                later.push(await read("data:text/plain,export default 1"));
                later.push((await read(revoked)).split(":")[0]);
                later.push("done");
                </script>
                """#, in: view, harness: harness)
            let later = try await view.evaluate("later")
            #expect(
                later == [
                    42, "percent", "based", "from a blob", "TypeError: 'text/plain' is not a valid JavaScript MIME type.", "TypeError",
                    "done",
                ], "\(engine)")
        }
    }

    /// An import map's `integrity` is the metadata a module its map names must match, when its
    /// element gives none: a module that does not match is not run, and a dynamic import of it
    /// rejects with WebKit's `TypeError`.
    @Test(arguments: Engine.allCases)
    func anImportMapsIntegrityIsChecked(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let good = "export const good = 1;"
            harness.server.serve(path: "/modules/good.js", body: good, contentType: "text/javascript")
            harness.server.serve(path: "/modules/bad.js", body: "export const bad = 1;", contentType: "text/javascript")
            let digest = "sha256-" + Data(SHA256.hash(data: Data(good.utf8))).base64EncodedString()
            let view = try await harness.makeEchoView()
            try await Self.load(
                """
                <script type="importmap">{"imports": {"good": "/modules/good.js"},
                  "integrity": {"/modules/good.js": "\(digest)", "/modules/bad.js": "sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}}</script>
                <script>var seen = [], later = [];</script>
                <script type="module">import { good } from "good"; seen.push(`good ${good}`);</script>
                <script type="module">import { bad } from "/modules/bad.js"; seen.push(`bad ${bad}`);</script>
                <script>
                import("/modules/bad.js").then(() => later.push("dynamic loaded"), error => later.push(`${error.name}: ${error.message}`));
                setTimeout(() => later.push("done"), 500);
                </script>
                """, in: view, harness: harness)
            #expect(try await view.evaluate("seen") == ["good 1"], "\(engine)")
            #expect(
                try await view.evaluate("later.slice().sort()") == ["TypeError: Cannot load script due to integrity mismatch", "done"],
                "\(engine)")
        }
    }

    /// A classic script's `import()` loads a module as a module's does, relative to the
    /// script's URL; a method named `import` and a member called `import` stay what they are.
    @Test(arguments: Engine.allCases)
    func classicScriptsImportModulesAsInWebKit(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            harness.server.serve(
                path: "/modules/classic.js", body: #"import("./pkg/p.js").then(m => later.push(`relative ${m.p}`));"#,
                contentType: "text/javascript")
            let view = try await harness.makeEchoView()
            try await Self.load(
                """
                <script>
                var seen = [], later = [];
                const loader = { import(name) { return `method ${name}`; } }, holder = { import: (name) => `member ${name}` };
                seen.push(loader.import("a"), holder.import("b"));
                import("/modules/lib.js").then(m => later.push(`lib ${m.value} ${m.default}`));
                import("lodash").catch(error => later.push(`${error.name}: ${error.message}`));
                </script>
                <script src="/modules/classic.js"></script>
                <script>setTimeout(() => later.push("done"), 500);</script>
                """, in: view, harness: harness)
            let seen = try await view.evaluate("seen")
            #expect(seen == ["method a", "member b", "lib"], "\(engine)")
            let later = try await view.evaluate("later.slice().sort()")
            #expect(
                later == [
                    "TypeError: Module name, 'lodash' does not resolve to a valid URL.", "done", "lib V D", "relative P",
                ], "\(engine)")
        }
    }
}
