import Foundation
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import SessionBridgeWebKit
import Testing

/// Loads that fail, side by side: a page learns what WebKit tells it, `TypeError: Load failed`
/// for every failed `fetch` whatever the cause (libraries tell a network error by that message,
/// as `is-network-error` does), and nothing goes to a restricted port (the Fetch Standard's bad
/// ports: a page cannot make the app speak HTTP to a mail server). (An `EventSource` of a
/// restricted port fails, as the HTML standard has it; WebKitGTK 2.50 leaves it connecting.)
@Suite(.serialized, .timeLimit(.minutes(3)), .hangWatchdog) struct FailedLoadsOnBothEnginesTests {
    @Test(arguments: Engine.allCases)
    func failedLoadsSayLoadFailedAndRestrictedPortsAreNotAsked(engine: Engine) async throws {
        // A port that refuses connections and that no server another test starts can take (a
        // stopped server's port could be: the fetch then reached that server, and hung on it).
        let refusing = try RefusingPort()
        let closed = refusing.port
        let page = #"<title>failing</title><script src="http://127.0.0.1:25/s.js" onerror="window.scriptFailed = true"></script>"#
        try await withSite(pages: ["/page": page]) { home in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                _ = try await view.load(home.url("/page"))
                let seen = try await view.run(
                    """
                    // A failed load's error is a TypeError (libraries test `instanceof TypeError`
                    // to tell a network error), whatever the page did to the global `TypeError`.
                    const { TypeError: OwnTypeError } = globalThis;
                    globalThis.TypeError = function TypeError() {};
                    const outcome = promise => promise.then(r => r.status, e => e.name + ": " + e.message
                      + (e instanceof OwnTypeError && Object.getPrototypeOf(e) === OwnTypeError.prototype ? "" : " (no TypeError)"));
                    return [
                      await outcome(fetch("http://127.0.0.1:6000/x")),
                      await outcome(fetch("http://127.0.0.1:\(closed)/x")),
                      await outcome(fetch("/cors/redirect?to=/echo", { redirect: "error" })),
                      navigator.sendBeacon("http://127.0.0.1:25/beacon", "x"),
                      window.scriptFailed === true,
                    ];
                    """)
                #expect(
                    seen == [
                        "TypeError: Load failed", "TypeError: Load failed", "TypeError: Load failed", false, true,
                    ], "\(engine)")
                #expect(home.requests(to: "/echo").isEmpty, "\(engine)")
            }
        }
        withExtendedLifetime(refusing) {}
    }

    /// A kept-alive connection the server closes as the next request arrives (its idle
    /// timeout) is not the server's answer: an idempotent request is sent once more, and only
    /// once; a `POST` is not sent again (the server may have acted on it) and fails.
    @Test(arguments: Engine.allCases)
    func anIdempotentRequestWhoseConnectionClosedUnansweredIsSentOnceMore(engine: Engine) async throws {
        let listener = try RawHTTPListener { path, count in
            if path == "/page" { return "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 16\r\n\r\n<title>p</title>" }
            // The first ask of each path after `/first` is left unanswered, its connection
            // closed; `/never` is never answered.
            return path == "/never" || (path != "/first" && count == 1) ? nil : RawHTTPListener.ok
        }
        defer { listener.stop() }
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView()
            _ = try await view.load(listener.url.appending(path: "page"))
            // Each load has its own limit and its time is reported, so that one left hanging
            // names itself (with what the listener received) instead of ending the whole script;
            // the script's own limit is above the five loads' limits together.
            let result = try await view.callAsyncJavaScript(
                """
                const ms = [];
                const outcome = (promise) => {
                  const start = performance.now();
                  return promise.then((response) => response.text(), (error) => error.name + ": " + error.message)
                    .finally(() => ms.push(Math.round(performance.now() - start)));
                };
                const fetch = (url, init = {}) => globalThis.fetch(url, {...init, signal: AbortSignal.timeout(5000)});
                const outcomes = [
                  await outcome(fetch("/first")), await outcome(fetch("/again")),
                  await outcome(fetch("/put", {method: "PUT", body: "x"})), await outcome(fetch("/post", {method: "POST", body: "x"})),
                  await outcome(fetch("/never")),
                ];
                return {outcomes, ms};
                """, in: .page, timeout: .seconds(60))
            let lines = listener.requestLines
            let asked = { (line: String) -> Int in lines.filter { $0 == line }.count }
            let context = "\(engine): \(result["ms"].map { "\($0)" } ?? "") ms; \(lines)"
            guard case .array(let outcomes)? = result["outcomes"], outcomes.count == 5 else {
                Issue.record("no outcomes: \(context)")
                return
            }
            // A POST is never sent again, whichever connection it went on.
            #expect(outcomes[3] == "TypeError: Load failed" && asked("POST /post HTTP/1.1") == 1, "\(context)")
            switch engine {
            case .headless:
                // Every idempotent request is sent once more (the pool does not say which
                // connection a request went on: a new one's close counts too).
                #expect(outcomes == ["ok", "ok", "ok", "TypeError: Load failed", "TypeError: Load failed"], "\(context)")
                #expect(
                    [asked("GET /again HTTP/1.1"), asked("PUT /put HTTP/1.1"), asked("GET /never HTTP/1.1")] as [Int] == [2, 2, 2],
                    "\(context)")
            case .webkit:
                // WebKit sends one again only when its connection had carried a request before,
                // which depends on which connection it took (a fresh one under load): each
                // idempotent request answered was sent twice, and none more than twice (a
                // second ask can still fail: its own limit may end it on a loaded machine).
                for (index, line) in [(1, "GET /again HTTP/1.1"), (2, "PUT /put HTTP/1.1")] {
                    let answered = outcomes[index] == "ok"
                    #expect((answered ? 2...2 : 1...2).contains(asked(line)), "\(line) \(outcomes[index]): \(context)")
                }
                #expect((1...2).contains(asked("GET /never HTTP/1.1")), "\(context)")
            }
        }
    }

    /// A `keepalive` request (which may outlive its document, as a beacon does) carries at most
    /// 64 KB, and no body still to come.
    @Test(arguments: Engine.allCases)
    func keepaliveRequestsStayWithin64KB(engine: Engine) async throws {
        try await withSite(pages: ["/page": "<title>keepalive</title>"]) { home in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                _ = try await view.load(home.url("/page"))
                let seen = try await view.run(
                    """
                    const outcome = promise => promise.then(r => r.status, e => e.name + ": " + e.message);
                    return [
                      await outcome(fetch("/cors/api?n=over", { method: "POST", body: "x".repeat(70000), keepalive: true })),
                      await outcome(fetch("/cors/api?n=within", { method: "POST", body: "x".repeat(60000), keepalive: true })),
                      await outcome(fetch("/cors/api?n=stream", { method: "POST", body: new ReadableStream(), keepalive: true, duplex: "half" })),
                    ];
                    """)
                #expect(
                    seen == [
                        "TypeError: Load failed", 200, "TypeError: Request cannot have a ReadableStream body and keepalive set to true",
                    ],
                    "\(engine)")
                #expect(home.requests(to: "/cors/api").map(\.query) == ["n=within"], "\(engine)")
            }
        }
    }
}
