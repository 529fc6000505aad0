import Foundation
import SessionBridgeHeadless
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Testing

/// A document's own events as WebKit fires them, side by side: `readyState` through its
/// stages (`interactive` already for deferred and module scripts), `readystatechange`,
/// `DOMContentLoaded` at the document and then the window (`window.addEventListener(
/// "DOMContentLoaded", init)` starts an app), `load` and `pageshow` at the window with the
/// document as their target, each an `Event` with its phase; what a `DOMContentLoaded` listener
/// queued runs before `load`; scripts at `data:` URLs run, deferred or not.
@Suite(.serialized, .timeLimit(.minutes(3)), .hangWatchdog) struct DocumentEventsOnBothEnginesTests {
    static let page = """
        <title>events</title>
        <script>
        window.seen = [];
        const d = (label, e) => seen.push([label, e.constructor.name, e instanceof Event, e.target === document, e.currentTarget === window,
          e.eventPhase, e.bubbles, e.cancelable, e.isTrusted, document.readyState, "persisted" in e ? e.persisted : "-"].join(" "));
        document.addEventListener("readystatechange", (e) => d("readystatechange", e));
        document.addEventListener("DOMContentLoaded", (e) => d("DOMContentLoaded at the document", e));
        addEventListener("DOMContentLoaded", (e) => { d("DOMContentLoaded at the window", e); Promise.resolve().then(() => seen.push("queued by DOMContentLoaded")); });
        addEventListener("load", (e) => d("load", e));
        addEventListener("pageshow", (e) => d("pageshow", e));
        seen.push("inline " + document.readyState);
        </script>
        <script src="data:text/javascript,seen.push('data:%20' + document.readyState)"></script>
        <script defer src="data:text/javascript,seen.push('deferred data:%20' + document.readyState)"></script>
        <script type="module">seen.push("module " + document.readyState)</script>
        """

    @Test(arguments: Engine.allCases)
    func aDocumentsEventsComeAsWebKitFiresThem(engine: Engine) async throws {
        try await withSite(pages: ["/page": Self.page]) { home in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                _ = try await view.load(home.url("/page"))
                let seen = try await view.run(
                    "for (let i = 0; i < 200 && !seen.some((line) => line.startsWith('pageshow')); i++) await new Promise((r) => setTimeout(r, 10)); return seen;"
                )
                let expected: ScriptValue = [
                    "inline loading",
                    "data: loading",
                    "readystatechange Event true true false 2 false false true interactive -",
                    "deferred data: interactive",
                    "module interactive",
                    "DOMContentLoaded at the document Event true true false 2 true false true interactive -",
                    "DOMContentLoaded at the window Event true true true 3 true false true interactive -",
                    "queued by DOMContentLoaded",
                    "readystatechange Event true true false 2 false false true complete -",
                    "load Event true true true 2 false false true complete -",
                    "pageshow PageTransitionEvent true true true 2 true true true complete false",
                ]
                #expect(seen == expected, "\(engine)")
            }
        }
    }
}
