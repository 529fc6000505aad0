import Foundation
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Synchronization
import Testing

/// `window.webkit.messageHandlers` as a page can inspect it, the same on both engines and as in
/// WebKit: the handlers are reached by name but not listed, and each keeps its identity.
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct MessageHandlersNamespaceOnBothEnginesTests {
    @Test(arguments: Engine.allCases)
    func theNamesAreNotListed(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let calls = Mutex(0)
            let view = try await harness.makeEchoView { calls.withLock { $0 += 1 } }
            let seen = try await view.run(
                """
                const handlers = window.webkit.messageHandlers, echo = handlers.echo;
                let listed = 0;
                for (const name in handlers) listed++;
                return [
                  Object.keys(window.webkit).length, Object.keys(handlers).length, listed, JSON.stringify(handlers),
                  "echo" in handlers, handlers.echo === echo, typeof handlers.missing, Object.keys(echo).length,
                  await echo.postMessage(3),
                ];
                """)
            #expect(seen == [0, 0, 0, "{}", true, true, "undefined", 0, 3])
            #expect(calls.withLock { $0 } == 1)
        }
    }

    /// A handler's `postMessage` reads as a native function, with WebKit's name and length and
    /// no `prototype` (pages check this as a guard against injected scripts): on the WebKit
    /// engine, whose `postMessage` is a wrapper, `Function.prototype.toString` shows it as
    /// WebKit's own, reads as native itself, keeps the built-in's attributes, and gives every
    /// other function's text, or throws, as the built-in does. The headless engine's is a
    /// class-made native function (`function CallbackObject() { [native code] }`), its
    /// `Function.prototype.toString` the built-in.
    @Test(arguments: Engine.allCases)
    func postMessageReadsAsWebKitsNativeFunction(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView()
            let seen = try await view.run(
                """
                const echo = window.webkit.messageHandlers.echo, post = echo.postMessage, text = Function.prototype.toString;
                const attributes = Object.getOwnPropertyDescriptor(Function.prototype, "toString");
                let thrown = "nothing";
                try { text.call({}); } catch (error) { thrown = error.name; }
                return [
                  text.call(post), String(post), post.name, post.length, "prototype" in post,
                  text.call(text), text.name, text.length, "prototype" in text,
                  [attributes.writable, attributes.enumerable, attributes.configurable].join(),
                  text.call(function sum(a, b) { return a + b; }), text.call(Math.max), thrown,
                  await echo.postMessage(3),
                ];
                """)
            let native =
                engine == .webkit ? "function postMessage() {\n    [native code]\n}" : "function CallbackObject() {\n    [native code]\n}"
            #expect(
                seen == [
                    .string(native), .string(native), "postMessage", 1, false,
                    "function toString() {\n    [native code]\n}", "toString", 0, false,
                    "true,false,true",
                    "function sum(a, b) { return a + b; }", "function max() {\n    [native code]\n}", "TypeError",
                    3,
                ], "\(engine)")
        }
    }

    /// `postMessage` belongs to the handler it is called on, as in WebKit: called on another
    /// handler it posts to that one; detached, or on any other object, it rejects with WebKit's
    /// `TypeError` and reaches no handler.
    @Test(arguments: Engine.allCases)
    func postMessageGoesToTheHandlerItIsCalledOn(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let calls = Mutex<[String]>([])
            let contents = UserContentController()
            for name in ["a", "b"] {
                contents.addScriptMessageHandler(
                    ClosureMessageHandler { _ in
                        calls.withLock { $0.append(name) }
                        return .string(name)
                    }, name: name, options: HandlerOptions(allowedOrigins: [harness.origin]))
            }
            let view = try await harness.makeView(session: false, contents: contents)
            try await view.load(harness.url("/login"))
            let seen = try await view.run(
                """
                const handlers = webkit.messageHandlers, post = handlers.a.postMessage, out = [];
                const attempt = async (call) => {
                  const promise = call();
                  try { out.push((promise instanceof Promise) + " " + await promise); }
                  catch (error) { out.push((promise instanceof Promise) + " " + error.name + ": " + error.message); }
                };
                await attempt(() => handlers.a.postMessage(1));
                await attempt(() => post.call(handlers.b, 1));
                await attempt(() => post(1));
                await attempt(() => post.call({}, 1));
                await attempt(() => post.call(Object.create(handlers.a), 1));
                await attempt(() => handlers.a.postMessage());
                return out;
                """)
            let refused = "true TypeError: Can only call UserMessageHandler.postMessage on instances of UserMessageHandler"
            #expect(
                seen == ["true a", "true b", .string(refused), .string(refused), .string(refused), "true TypeError: Not enough arguments"],
                "\(engine)")
            #expect(calls.withLock { $0 } == ["a", "b"])
        }
    }
}
