import Foundation
import SessionBridgeHeadless
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Testing

/// An aborted `fetch` as WebKit 2.50 rejects it: with the signal's reason when it was aborted
/// before the request started (WebKit's `AbortError` for `AbortSignal.abort()`), with
/// `AbortError: Fetch is aborted` when it is aborted in flight, whatever the reason, an
/// `AbortSignal.timeout`'s too (code written for WebKit tests `name === "AbortError"`).
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct AbortedFetchOnBothEnginesTests {
    @Test(arguments: Engine.allCases)
    func anAbortedFetchRejectsAsInWebKit(engine: Engine) async throws {
        try await withSite { home in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                _ = try await view.load(home.url("/page"))
                let seen = try await view.run(
                    """
                    const outcome = (promise) => promise.then(() => "resolved", (e) => [e.name, e.message, e instanceof DOMException].join(" "));
                    const inFlight = (reason) => {
                      const controller = new AbortController();
                      const promise = fetch("/slow/3000", { signal: controller.signal });
                      setTimeout(() => controller.abort(reason), 50);
                      return outcome(promise);
                    };
                    return await Promise.all([
                      outcome(fetch("/page", { signal: AbortSignal.abort() })),
                      outcome(fetch("/page", { signal: AbortSignal.abort(new Error("mine")) })),
                      inFlight(undefined),
                      inFlight(new TypeError("custom")),
                      outcome(fetch("/slow/3000", { signal: AbortSignal.timeout(50) })),
                    ]);
                    """)
                #expect(
                    seen == [
                        "AbortError The operation was aborted. true", "Error mine false", "AbortError Fetch is aborted true",
                        "AbortError Fetch is aborted true", "AbortError Fetch is aborted true",
                    ], "\(engine)")
            }
        }
    }
}
