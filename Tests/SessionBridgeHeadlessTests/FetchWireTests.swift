import Foundation
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeHeadless

/// What one `fetch` puts on the wire, recorded by a raw TCP listener.
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct FetchWireTests {
    /// Methods that would rewrite the request line or smuggle a second request, and methods
    /// browsers refuse.
    static let refusedMethods = [
        "GET / HTTP/1.1\r\nHost: x\r\n\r\nGET", "POST\r\n", "GET\nX", "GET\0", "G ET", "GET /x", "",
        "GÉT", "GET\t", "(GET)", "CONNECT", "connect", "Trace", "TRACK",
    ]

    @Test(arguments: refusedMethods)
    func refusedMethodSendsNothing(method: String) async throws {
        let listener = try RawHTTPListener()
        defer { listener.stop() }
        let page = WebPage()
        try await page.loadHTMLString("<p>wire</p>", baseURL: listener.url)
        let outcome = try await page.callAsyncJavaScript(
            """
            const method = \(jsonString(method));
            let refused;
            try { await fetch("/probe", { method }); refused = "sent"; } catch (error) { refused = error.name; }
            const after = await (await fetch("/after")).text();
            return [refused, after];
            """)
        #expect(outcome == ["TypeError", "ok"])
        // The follow-up fetch is the only request on the wire, and it is whole.
        #expect(listener.requestLines == ["GET /after HTTP/1.1"])
        #expect(listener.connections.map { RawHTTPListener.requests(in: $0).count }.reduce(0, +) == 1)
        await page.close()
    }

    @Test(arguments: [
        ("get", "GET"), ("pOsT", "POST"), ("delete", "DELETE"), ("Options", "OPTIONS"), ("put", "PUT"),
        ("head", "HEAD"), ("patch", "patch"), ("PATCH", "PATCH"), ("X-Custom!~", "X-Custom!~"),
    ])
    func tokenMethodSendsExactlyOneRequest(method: String, sent: String) async throws {
        let listener = try RawHTTPListener()
        defer { listener.stop() }
        let page = WebPage()
        try await page.loadHTMLString("<p>wire</p>", baseURL: listener.url)
        let status = try await page.callAsyncJavaScript(
            """
            return (await fetch("/probe", { method: \(jsonString(method)), headers: { "X-Probe": "  1  " } })).status;
            """)
        #expect(status == 200)
        let requests = listener.connections.flatMap { RawHTTPListener.requests(in: $0) }
        #expect(requests.map(\.line) == ["\(sent) /probe HTTP/1.1"])
        #expect(requests.first?.head.lowercased().contains("\r\nx-probe: 1\r\n") == true)
        await page.close()
    }

    static let refusedHeaders: [(String, String)] = [
        ("X-A\r\nX-B", "1"), ("X-A", "1\r\nX-B: 2"), ("X-A", "1\nGET / HTTP/1.1"), ("X-A", "a\0b"), ("X A", "1"),
        ("", "1"), ("X-A:", "1"), ("X-É", "1"), ("X-A", "\u{100}"),
    ]

    @Test(arguments: refusedHeaders)
    func refusedHeaderSendsNothing(name: String, value: String) async throws {
        let listener = try RawHTTPListener()
        defer { listener.stop() }
        let page = WebPage()
        try await page.loadHTMLString("<p>wire</p>", baseURL: listener.url)
        let outcome = try await page.callAsyncJavaScript(
            """
            let refused;
            try { await fetch("/probe", { headers: [[\(jsonString(name)), \(jsonString(value))]] }); refused = "sent"; }
            catch (error) { refused = error.name; }
            return refused;
            """)
        #expect(outcome == "TypeError")
        #expect(listener.connections.allSatisfy { $0.isEmpty })
        await page.close()
    }

    @Test func forbiddenRequestHeadersAreDroppedAsBrowsersDo() async throws {
        let listener = try RawHTTPListener()
        defer { listener.stop() }
        let page = WebPage()
        try await page.loadHTMLString("<p>wire</p>", baseURL: listener.url)
        _ = try await page.callAsyncJavaScript(
            """
            await fetch("/probe", { method: "POST", body: "abc", headers: {
              "Transfer-Encoding": "chunked", "Content-Length": "100", "Host": "evil.example", "Connection": "close",
              "Cookie": "a=b", "Proxy-Authorization": "x", "Sec-Fetch-Site": "none", "X-HTTP-Method-Override": "TRACE",
              "X-Kept": "yes" } });
            """)
        let requests = listener.connections.flatMap { RawHTTPListener.requests(in: $0) }
        #expect(requests.count == 1)
        let head = requests.first?.head.lowercased() ?? ""
        #expect(head.contains("x-kept: yes"))
        #expect(head.contains("content-length: 3"))
        for dropped in [
            "transfer-encoding", "content-length: 100", "evil.example", "connection: close", "cookie:", "proxy-", "sec-fetch",
            "x-http-method-override",
        ] {
            #expect(!head.contains(dropped), "\(dropped) reached the wire")
        }
        await page.close()
    }

    @Test func methodRulesFollowFetch() throws {
        #expect(try FetchRequestRules.method("get") == "GET")
        #expect(try FetchRequestRules.method("patch") == "patch")
        #expect(throws: FetchRequestRules.Violation.self) { try FetchRequestRules.method("trace") }
        #expect(throws: FetchRequestRules.Violation.self) { try FetchRequestRules.method("GET\r\n") }
        #expect(PageRequest(url: URL(string: "http://a.example/")!, method: "post").method == "POST")
        #expect(PageRequest(url: URL(string: "http://a.example/")!, method: "patch").method == "patch")
    }
}

/// `text` as a JavaScript string literal.
func jsonString(_ text: String) -> String {
    String(decoding: try! JSONEncoder().encode(text), as: UTF8.self)
}
