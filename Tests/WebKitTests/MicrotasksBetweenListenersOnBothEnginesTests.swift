import Foundation
import SessionBridgeHeadless
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Testing

/// What an event's listener queued (an `await`'s continuation, a `then`) runs before the next
/// listener when the browser dispatched the event, as WebKit runs a microtask checkpoint after
/// each callback that leaves no script on the stack: a `load` listener's `await init()` finishes
/// before the next `load` listener reads what it set, for `DOMContentLoaded`, `load`, a
/// window's `message` and a `MessagePort`'s. An event a script dispatches itself, or one
/// dispatched inside a listener, runs its listeners first, as there a script is on the stack.
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct MicrotasksBetweenListenersOnBothEnginesTests {
    static let page = """
        <title>checkpoints</title>
        <script>
        window.seen = [];
        const twice = (target, type, label) => {
          target.addEventListener(type, () => { seen.push(label + " first"); Promise.resolve().then(() => seen.push(label + " queued by first")); });
          target.addEventListener(type, () => seen.push(label + " second"));
        };
        twice(document, "DOMContentLoaded", "DOMContentLoaded");
        twice(window, "load", "load");
        twice(window, "message", "message");
        const channel = new MessageChannel();
        twice(channel.port1, "message", "port");
        channel.port1.start();
        twice(window, "custom", "dispatched by a script");
        twice(window, "nested", "dispatched inside a listener");
        addEventListener("load", () => {
          dispatchEvent(new Event("custom"));
          seen.push("after the script's dispatch");
          postMessage("m", "*");
          channel.port2.postMessage("p");
        });
        window.addEventListener("pageshow", () => { dispatchEvent(new Event("nested")); seen.push("pageshow listener done"); });
        </script>
        """

    @Test(arguments: Engine.allCases)
    func whatAListenerQueuedRunsBeforeTheNextListener(engine: Engine) async throws {
        try await withSite(pages: ["/page": Self.page]) { home in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                _ = try await view.load(home.url("/page"))
                let seen = try await view.run(
                    "for (let i = 0; i < 200 && seen.length < 20; i++) await new Promise((r) => setTimeout(r, 10)); return seen;")
                let expected: ScriptValue = [
                    "DOMContentLoaded first", "DOMContentLoaded queued by first", "DOMContentLoaded second",
                    "load first", "load queued by first", "load second",
                    "dispatched by a script first", "dispatched by a script second", "after the script's dispatch",
                    "dispatched by a script queued by first",
                    "dispatched inside a listener first", "dispatched inside a listener second", "pageshow listener done",
                    "dispatched inside a listener queued by first",
                    "message first", "message queued by first", "message second",
                    "port first", "port queued by first", "port second",
                ]
                #expect(seen == expected, "\(engine)")
            }
        }
    }
}
