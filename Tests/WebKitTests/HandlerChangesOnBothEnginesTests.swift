import Foundation
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Testing

/// Handlers added or removed while a document is shown, as WebKit has them: live in the
/// document, in order with what the app asks of the page next.
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct HandlerChangesOnBothEnginesTests {
    static func echo(_ tag: String) -> ClosureMessageHandler {
        ClosureMessageHandler { message in
            if message.body["fail"] == true { throw ScriptMessageError(code: "late_failure", message: "refused", retryable: false) }
            return ["tag": .string(tag), "echo": message.body]
        }
    }

    /// A view of `engine` showing `/login`, its controller offering `handlers` (each an echo
    /// tagged with its name), and the options every handler here uses.
    static func withShownDocument(
        _ engine: Engine, handlers: [String], _ body: (any WebView, UserContentController, HandlerOptions) async throws -> Void
    ) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let contents = UserContentController()
            let options = HandlerOptions(allowedOrigins: [harness.origin])
            for name in handlers { contents.addScriptMessageHandler(Self.echo(name), name: name, options: options) }
            let view = try await harness.makeView(session: false, contents: contents)
            try await view.load(harness.url("/login"))
            try await body(view, contents, options)
        }
    }

    @Test(arguments: Engine.allCases)
    func aHandlerAddedWhileADocumentIsShownIsCallableThere(engine: Engine) async throws {
        try await Self.withShownDocument(engine, handlers: ["first"]) { view, contents, options in
            #expect(try await view.evaluate("typeof window.webkit.messageHandlers.late") == "undefined")

            contents.addScriptMessageHandler(Self.echo("late"), name: "late", options: options)
            let reply = try await view.run(
                """
                const handlers = window.webkit.messageHandlers;
                const reply = await handlers.late.postMessage({n: 1});
                let failure;
                try { await handlers.late.postMessage({fail: true}); } catch (e) { failure = [e instanceof Error, e.code]; }
                return [reply.tag, reply.echo.n, failure, typeof handlers.first];
                """)
            #expect(reply == ["late", 1, [true, "late_failure"], "object"])

            // The next document has it too.
            try await view.load(URL(string: "/login?again", relativeTo: await view.url)!.absoluteURL)
            #expect(try await view.run("return (await window.webkit.messageHandlers.late.postMessage({})).tag") == "late")
        }
    }

    @Test(arguments: Engine.allCases)
    func aHandlerRemovedWhileADocumentIsShownLeavesIt(engine: Engine) async throws {
        try await Self.withShownDocument(engine, handlers: ["first", "gone"]) { view, contents, options in
            #expect(
                try await view.run("window.kept = window.webkit.messageHandlers.gone; return (await kept.postMessage({})).tag") == "gone")

            contents.removeScriptMessageHandler(forName: "gone")
            let after = try await view.run(
                """
                let refused = false;
                try { await kept.postMessage({}); } catch (e) { refused = true; }
                return [typeof window.webkit.messageHandlers.gone, refused, (await window.webkit.messageHandlers.first.postMessage({})).tag];
                """)
            #expect(after == ["undefined", true, "first"])

            // Added again: the page reaches the new handler by name; the reference it kept stays refused.
            contents.addScriptMessageHandler(Self.echo("back"), name: "gone", options: options)
            let again = try await view.run(
                """
                let refused = false;
                try { await kept.postMessage({}); } catch (e) { refused = true; }
                return [(await window.webkit.messageHandlers.gone.postMessage({})).tag, refused];
                """)
            #expect(again == ["back", true])
        }
    }

    /// The page cannot replace a handler, and what it tries does not disturb the app's changes.
    /// (WebKit's namespace takes the page's own expando properties; the headless engine's is
    /// frozen.)
    @Test(arguments: Engine.allCases)
    func thePageCannotReplaceHandlers(engine: Engine) async throws {
        try await Self.withShownDocument(engine, handlers: ["first"]) { view, contents, options in
            let attempts = try await view.run(
                """
                const handlers = window.webkit.messageHandlers;
                try { handlers.first = {postMessage: () => "fake"}; } catch (e) {}
                try { handlers.forged = {postMessage: () => "fake"}; } catch (e) {}
                try { delete handlers.first; } catch (e) {}
                return [(await window.webkit.messageHandlers.first.postMessage({})).tag, typeof handlers.forged];
                """)
            #expect(attempts == ["first", engine == .headless ? "undefined" : "object"])
            contents.addScriptMessageHandler(Self.echo("late"), name: "late", options: options)
            #expect(try await view.run("return (await window.webkit.messageHandlers.late.postMessage({})).tag") == "late")
        }
    }

    @Test(arguments: Engine.allCases)
    func aHandlerAddedInAWorldTheDocumentHasNotUsedIsCallableThere(engine: Engine) async throws {
        try await Self.withShownDocument(engine, handlers: ["first"]) { view, contents, options in
            let tools = ContentWorld.world(name: "tools")
            // A world no handler or script has used yet: made when a script first runs in it.
            #expect(try await view.evaluateJavaScript("typeof window.webkit", in: tools) == "undefined")
            #expect(try await view.evaluateJavaScript("location.pathname", in: tools) == "/login")

            contents.addScriptMessageHandler(Self.echo("tool"), contentWorld: tools, name: "tool", options: options)
            let reply = try await view.callAsyncJavaScript(
                "return [(await window.webkit.messageHandlers.tool.postMessage({n: 2})).echo.n, typeof window.webkit.messageHandlers.first]",
                in: tools, timeout: .seconds(30))
            #expect(reply == [2, "undefined"])
            // The page's world does not see it.
            #expect(try await view.evaluate("typeof window.webkit.messageHandlers.tool") == "undefined")

            let another = ContentWorld.world(name: "another")
            contents.addScriptMessageHandler(Self.echo("other"), contentWorld: another, name: "other", options: options)
            #expect(
                try await view.callAsyncJavaScript(
                    "return (await window.webkit.messageHandlers.other.postMessage({})).tag", in: another, timeout: .seconds(30)) == "other"
            )
        }
    }

    @Test(arguments: Engine.allCases)
    func windowWebKitAppearsWithTheWorldsFirstHandler(engine: Engine) async throws {
        try await Self.withShownDocument(engine, handlers: []) { view, contents, options async throws in
            #expect(try await view.evaluate("typeof window.webkit") == "undefined")
            contents.addScriptMessageHandler(Self.echo("first"), name: "first", options: options)
            #expect(try await view.run("return (await window.webkit.messageHandlers.first.postMessage({})).tag") == "first")
        }
    }
}
