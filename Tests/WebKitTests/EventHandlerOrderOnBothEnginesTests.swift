import Foundation
import SessionBridgeHeadless
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Testing

/// A window's event handler runs where it was set among the event's listeners, as WebKit runs
/// it: an `onerror` set between two `error` listeners runs between them, and its `true` cancels
/// the event for the listener after it (an error reporter reads `defaultPrevented`).
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct EventHandlerOrderOnBothEnginesTests {
    @Test(arguments: Engine.allCases)
    func aWindowHandlerRunsWhereItWasSet(engine: Engine) async throws {
        try await withSite(pages: ["/page": "<title>order</title>"]) { home in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                _ = try await view.load(home.url("/page"))
                let seen = try await view.run(
                    """
                    const seen = [];
                    addEventListener("error", () => seen.push("listener before"));
                    onerror = () => { seen.push("onerror"); return true; };
                    addEventListener("error", (e) => seen.push("listener after " + e.defaultPrevented));
                    onmessage = () => seen.push("onmessage, set before any listener");
                    addEventListener("message", () => seen.push("message listener"));
                    setTimeout(() => { throw new Error("thrown"); }, 0);
                    // A timer's task and a message's come in no set order (WebKit ran either first).
                    await new Promise((resolve) => setTimeout(resolve, 50));
                    postMessage("x", "*");
                    await new Promise((resolve) => setTimeout(resolve, 100));
                    return seen;
                    """)
                #expect(
                    seen == [
                        "listener before", "onerror", "listener after true", "onmessage, set before any listener", "message listener",
                    ], "\(engine)")
            }
        }
    }
}
