import Foundation
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@testable import SessionBridgeHeadless

/// What a headless page's WebSockets do beyond what the both-engines tests compare: a page
/// with an idle socket is quiet, a document's sockets close when it is left, and a page past
/// its share of connections has the next one fail.
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct WebSocketTests {

    /// An open socket with nothing to say does not keep the page busy (the runner would wait
    /// for `--timeout`; that an exchange on it does, a while, is the runner's WebSocket test),
    /// and leaving the document closes the socket: the server sees the connection go.
    @Test func anIdleSocketIsQuietAndLeavingTheDocumentClosesIt() async throws {
        let echoServer = try await WebSocketEchoServer.start()
        defer { Task { try? await echoServer.stop() } }
        let echo = "'\(echoServer.url.absoluteString)'"
        try await withServer { server in
            let page = WebPage()
            try await page.loadHTMLString("<title>sockets</title>", baseURL: server.url("/page"))
            _ = try await page.evaluateJavaScript(
                """
                var heard = [];
                var socket = new WebSocket(\(echo));
                socket.onopen = () => socket.send("ping me");
                socket.onmessage = event => heard.push(event.data);
                0;
                """)
            let deadline = ContinuousClock.now + .seconds(10)
            while try await page.evaluateJavaScript("heard.length") != 1, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            // The socket open and idle, the page is quiet.
            #expect(await page.runUntilQuiescent(timeout: .seconds(10)))
            #expect(try await page.evaluateJavaScript("[socket.readyState, ...heard]") == [1, "ping me"])
            // The next document asks the server how many sockets are open: its own only.
            try await page.loadHTMLString("<title>next</title>", baseURL: server.url("/next"))
            let count = try await page.callAsyncJavaScript(
                """
                const deadline = Date.now() + 10000;
                for (;;) {
                  const socket = new WebSocket(\(echo));
                  const count = await new Promise(resolve => { socket.onopen = () => socket.send("sockets"); socket.onmessage = event => resolve(event.data); });
                  socket.close();
                  if (count === "1" || Date.now() > deadline) return count;
                  await new Promise(resolve => setTimeout(resolve, 20));
                }
                """, timeout: .seconds(20))
            #expect(count == "1", "the left document's socket was closed")
            await page.close()
        }
    }

    /// The opening handshake carries what WebKit's does: a fresh answer asked for, and Fetch
    /// Metadata (the echo server is another port of the page's host: the same site).
    @Test func theHandshakeCarriesFetchMetadata() async throws {
        let echoServer = try await WebSocketEchoServer.start()
        defer { Task { try? await echoServer.stop() } }
        try await withServer { server in
            let page = WebPage()
            try await page.loadHTMLString("<title>sockets</title>", baseURL: server.url("/page"))
            let metadata = try await page.callAsyncJavaScript(
                """
                const socket = new WebSocket("\(echoServer.url.absoluteString)");
                const answer = await new Promise(resolve => {
                  socket.onopen = () => socket.send("fetch-metadata");
                  socket.onmessage = event => resolve(event.data);
                });
                socket.close();
                return answer;
                """, timeout: .seconds(20))
            #expect(metadata == "websocket websocket same-site no-cache")
            await page.close()
        }
    }

    /// A page that breaks the builtins the platform's checks use still cannot put a field of
    /// its own into the handshake: native code checks the subprotocols and the URL again.
    @Test func aPageCannotInjectHandshakeFields() async throws {
        let echoServer = try await WebSocketEchoServer.start()
        defer { Task { try? await echoServer.stop() } }
        let echo = "'\(echoServer.url.absoluteString)'"
        try await withServer { server in
            let page = WebPage()
            try await page.loadHTMLString("<title>hostile</title>", baseURL: server.url("/page"))
            let outcome = try await page.callAsyncJavaScript(
                """
                RegExp.prototype.test = () => true;
                const tries = [];
                for (const protocols of ["chat\\r\\nX-Injected: 1", "chat\\nCookie: stolen=1", "a b"]) {
                  try { new WebSocket(\(echo), protocols); tries.push("made"); } catch (error) { tries.push(error.name); }
                }
                // A port no connection can have (NIO would stop the process on one), whatever the URL parser says.
                const parsed = Object.getOwnPropertyDescriptor(URL.prototype, "href").get;
                Object.defineProperty(URL.prototype, "href", { get() { return parsed.call(this).replace(":1/", ":70000/"); } });
                try { new WebSocket("ws://127.0.0.1:1/"); tries.push("made"); } catch (error) { tries.push(error.name); }
                return tries;
                """)
            #expect(outcome == ["SyntaxError", "SyntaxError", "SyntaxError", "SyntaxError"])
            await page.close()
        }
    }

    /// A server that never answers the handshake does not hold the page: a socket closed
    /// while connecting fails in the next task (`error`, then `close` with 1006), as in WebKit,
    /// not when the handshake gives up 30 seconds later.
    @Test func aSocketClosedWhileConnectingFailsAtOnce() async throws {
        let silent = try SilentPort()
        try await withServer { server in
            let page = WebPage()
            try await page.loadHTMLString("<title>silent</title>", baseURL: server.url("/page"))
            let clock = ContinuousClock()
            let started = clock.now
            let outcome = try await page.callAsyncJavaScript(
                """
                const socket = new WebSocket("ws://127.0.0.1:\(silent.port)/"), events = [];
                socket.onerror = () => events.push(`error ${socket.readyState}`);
                await new Promise(resolve => { socket.onclose = event => { events.push(`close ${event.code} ${event.wasClean}`); resolve(); }; socket.close(); });
                return events.join();
                """)
            #expect(outcome == "error 3,close 1006 false")
            #expect(
                clock.now - started < .seconds(10),
                "failed at once, not at the handshake's timeout; the bound is generous for a busy machine")
            await page.close()
        }
        withExtendedLifetime(silent) {}
    }

    /// A hostile page cannot open connections without end: past the limit, the next socket
    /// fails at once (`error`, then `close` with 1006), and the page goes on.
    @Test func aPagePastItsShareOfConnectionsHasTheNextOneFail() async throws {
        let echoServer = try await WebSocketEchoServer.start()
        defer { Task { try? await echoServer.stop() } }
        let echo = "'\(echoServer.url.absoluteString)'"
        try await withServer { server in
            let page = WebPage()
            try await page.loadHTMLString("<title>many</title>", baseURL: server.url("/page"))
            let limit = WebSocketClients.maximumConnections
            let outcome = try await page.callAsyncJavaScript(
                """
                const opened = [];
                for (let index = 0; index < \(limit); index++) {
                  const socket = new WebSocket(\(echo));
                  opened.push(new Promise(resolve => { socket.onopen = () => resolve("open"); socket.onclose = () => resolve("closed"); }));
                }
                const states = await Promise.all(opened);
                const extra = new WebSocket(\(echo)), events = [];
                await new Promise(resolve => {
                  extra.onopen = () => events.push("open");
                  extra.onerror = () => events.push("error");
                  extra.onclose = event => { events.push(`close ${event.code}`); resolve(); };
                });
                return [states.filter(state => state === "open").length, events.join()];
                """, timeout: .seconds(60))
            #expect(outcome == [.number(Double(limit)), "error,close 1006"])
            await page.close()
        }
    }
}
