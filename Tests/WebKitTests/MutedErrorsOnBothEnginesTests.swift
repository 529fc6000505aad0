import Foundation
import SessionBridgeHeadless
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

/// What a script of another origin fetched without CORS throws reaches the page's `onerror`
/// muted, as WebKit gives it (`Script error.`, no place, no error object): a page learns nothing
/// of another origin's script. Its own scripts' errors keep their message and place.
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct MutedErrorsOnBothEnginesTests {
    @Test(arguments: Engine.allCases)
    func anotherOriginsScriptErrorsReachThePageMuted(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            harness.server.serve(
                path: "/thrower.js",
                body: "setTimeout(function () { throw new Error('detail of another origin'); }, 0); missingFunction();",
                contentType: "text/javascript")
            let page = """
                <title>muted</title>
                <script>
                window.seen = [];
                window.onerror = (message, source, line, column, error) => {
                  // (The column of the page's own error is not compared: the engines count it differently.)
                  seen.push([message, source === "" ? "" : "source", line, source === "" ? column : "-", error === null ? "null" : error.message].join(" | "));
                  return true;
                };
                </script>
                <script src="\(harness.url("/thrower.js").absoluteString)"></script>
                <script>setTimeout(() => { throw new Error("own"); }, 20);</script>
                """
            try await withSite(pages: ["/page": page]) { home in
                let view = try await harness.makeEchoView()
                _ = try await view.load(home.url("/page"))
                let seen = try await view.run(
                    "for (let i = 0; i < 200 && seen.length < 3; i++) await new Promise((r) => setTimeout(r, 10)); return seen.slice().sort();"
                )
                #expect(
                    seen == [
                        "Error: own | source | 11 | - | own", "Script error. |  | 0 | 0 | null", "Script error. |  | 0 | 0 | null",
                    ], "\(engine)")
            }
        }
    }
}
