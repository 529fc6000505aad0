import Foundation
import SessionBridgeCookies
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

    /// An aborted load is cancelled, as WebKit cancels it: a `fetch` whose signal aborts, or an
    /// `XMLHttpRequest` aborted, while its first hop waits for an answer sends no later hop, and
    /// neither the first answer's cookie nor the next hop's is set. (The headless engine had
    /// only rejected the page's promise: the load went on, followed the redirect and set both.)
    @Test(arguments: Engine.allCases)
    func anAbortedLoadFollowsNoRedirectAndSetsNoCookie(engine: Engine) async throws {
        try await withSite { home in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                _ = try await view.load(home.url("/page"))
                _ = try await view.evaluate(
                    """
                    window.outcomes = [];
                    const controller = new AbortController();
                    window.abortFetch = () => controller.abort();
                    fetch("/held-redirect/fetched", { signal: controller.signal }).then(
                      () => outcomes.push("fetch resolved"), (e) => outcomes.push("fetch " + e.name));
                    const xhr = new XMLHttpRequest();
                    xhr.open("GET", "/held-redirect/requested");
                    xhr.onabort = () => outcomes.push("xhr abort");
                    xhr.onload = () => outcomes.push("xhr load");
                    xhr.send();
                    window.abortRequest = () => xhr.abort();
                    true
                    """)
                // Both requests reached the server, which holds them.
                #expect(
                    try await eventually {
                        !home.requests(to: "/held-redirect/fetched").isEmpty && !home.requests(to: "/held-redirect/requested").isEmpty
                    }, "\(engine)")
                _ = try await view.evaluate("abortFetch(); abortRequest(); true")
                // WebKit's cancel reaches its network process behind the script: time for it to
                // get there before the held answers go out.
                try await Task.sleep(for: .milliseconds(300))
                home.release("fetched")
                home.release("requested")
                // Time for a load that went on to follow its redirect (nothing can show that it will not).
                try await Task.sleep(for: .seconds(1))
                let outcomes = try await view.run("return outcomes.sort();")
                #expect(outcomes == ["fetch AbortError", "xhr abort"], "\(engine)")
                #expect(home.requests(to: "/set/fetched-after").isEmpty, "\(engine): the aborted fetch's redirect was followed")
                #expect(home.requests(to: "/set/requested-after").isEmpty, "\(engine): the aborted request's redirect was followed")
                // On a loaded machine WebKit's cancel can still come after the first answer's
                // headers, whose cookie its network process then keeps; never a later hop's.
                let names = Set(await view.httpCookieStore.cookies(for: home.url("/")).map(\.name))
                #expect(engine == .webkit ? names.isSubset(of: ["fetched", "requested"]) : names.isEmpty, "\(engine): \(names)")
            }
        }
    }
}
