import Foundation
import SessionBridgeHeadless
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Testing

/// `beforeunload` as WebKit fires it, side by side: a `BeforeUnloadEvent` (which only the
/// browser makes) at the window, its target the document, as a navigation starts and before
/// the document is left; the window's handler in its place among the listeners, a value it
/// returns the event's `returnValue`; nothing asks to stay (the page had no user's gesture),
/// and a navigation started meanwhile is not taken. An app saves a draft or ends a session
/// on it.
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct BeforeUnloadOnBothEnginesTests {
    static let leaving = """
        <title>leaving</title>
        <script>
        const note = (...parts) => sessionStorage.seen = (sessionStorage.seen || "") + parts.join(" ") + "\\n";
        sessionStorage.seen = "";
        addEventListener("beforeunload", (e) => {
          note("beforeunload", e.constructor.name, e instanceof Event, e.isTrusted, e.cancelable, e.bubbles, e.eventPhase,
            e.target === document, e.currentTarget === window, JSON.stringify(e.returnValue), document.readyState, location.pathname);
          e.preventDefault();
          location.href = "/elsewhere";
        });
        onbeforeunload = (e) => { note("handler", JSON.stringify(e.returnValue), e.defaultPrevented); return "stay"; };
        addEventListener("beforeunload", (e) => note("after the handler", e.defaultPrevented, JSON.stringify(e.returnValue)));
        addEventListener("pagehide", (e) => note("pagehide", e.constructor.name, e.target === document));
        let made;
        try { new BeforeUnloadEvent("beforeunload"); made = "made"; } catch (error) { made = error.constructor.name; }
        note("constructed", typeof BeforeUnloadEvent, made);
        </script>
        """

    @Test(arguments: Engine.allCases)
    func aDocumentLeftByItsOwnNavigationHearsBeforeUnloadFirst(engine: Engine) async throws {
        try await withSite(pages: ["/leaving": Self.leaving, "/next": "<title>next</title>", "/elsewhere": "<title>elsewhere</title>"]) {
            home in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                _ = try await view.load(home.url("/leaving"))
                _ = try await view.evaluate("location.href = '/next'; 0")
                #expect(await view.waitForPath("/next"), "\(engine)")
                // The navigation started inside the listener was not taken.
                try await Task.sleep(for: .milliseconds(300))
                #expect(await view.url?.path == "/next", "\(engine)")
                let seen = try await view.evaluate("sessionStorage.seen").stringValue ?? ""
                #expect(
                    seen.split(separator: "\n").map(String.init) == [
                        "constructed function TypeError",
                        "beforeunload BeforeUnloadEvent true true true false 2 true true \"\" complete /leaving",
                        "handler \"\" true",
                        "after the handler true \"stay\"",
                        "pagehide PageTransitionEvent true",
                    ], "\(engine)")
            }
        }
    }

    /// The app's own load leaves the document as the page's navigation does, and a navigation
    /// the page's fragment changes is no leaving.
    @Test(arguments: Engine.allCases)
    func theAppsLoadFiresItTooAndAFragmentDoesNot(engine: Engine) async throws {
        let page = """
            <title>noting</title>
            <script>
            sessionStorage.seen = "";
            addEventListener("beforeunload", (e) => sessionStorage.seen += "beforeunload " + location.hash + " " + e.isTrusted + "\\n");
            </script>
            """
        try await withSite(pages: ["/noting": page, "/next": "<title>next</title>"]) { home in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                _ = try await view.load(home.url("/noting"))
                _ = try await view.evaluate("location.hash = 'part'; 0")
                try await Task.sleep(for: .milliseconds(200))
                _ = try await view.load(home.url("/next"))
                #expect(try await view.evaluate("sessionStorage.seen") == .string("beforeunload #part true\n"), "\(engine)")
            }
        }
    }
}
