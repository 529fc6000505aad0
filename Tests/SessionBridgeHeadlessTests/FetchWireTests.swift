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

    /// Bodies as the Fetch Standard extracts them: a form from `URLSearchParams` (as a page's
    /// own token request sends it), bytes as they are, text, each with its Content-Type unless
    /// the page gave one; a response read as bytes.
    @Test func bodiesGoOutWithTheTypeTheyImply() async throws {
        let listener = try RawHTTPListener()
        defer { listener.stop() }
        let page = WebPage()
        try await page.loadHTMLString("<p>wire</p>", baseURL: listener.url)
        let result = try await page.callAsyncJavaScript(
            """
            await fetch("/form", { method: "POST", body: new URLSearchParams({ grant_type: "authorization_code", code: "a b" }) });
            await fetch("/bytes", { method: "POST", body: new Uint8Array([0, 255, 10]) });
            await fetch("/text", { method: "POST", body: "plain" });
            await fetch("/typed", { method: "POST", body: "{}", headers: { "Content-Type": "application/json" } });
            const request = new Request("/request", { method: "POST", body: new URLSearchParams("x=1") });
            await fetch(request);
            const response = await fetch("/read");
            return [request.headers.get("content-type"), Array.from(new Uint8Array(await response.arrayBuffer())).join()];
            """)
        #expect(result == ["application/x-www-form-urlencoded;charset=UTF-8", "111,107"])
        let requests = listener.connections.flatMap { RawHTTPListener.requests(in: $0) }
        func head(_ path: String) -> String { requests.first { $0.line.contains(" \(path) ") }?.head.lowercased() ?? "" }
        #expect(head("/form").contains("\r\ncontent-type: application/x-www-form-urlencoded;charset=utf-8\r\n"))
        #expect(head("/text").contains("\r\ncontent-type: text/plain;charset=utf-8\r\n"))
        #expect(head("/typed").contains("\r\ncontent-type: application/json\r\n") && !head("/typed").contains("text/plain"))
        #expect(!head("/bytes").contains("content-type"))
        #expect(head("/request").contains("content-type: application/x-www-form-urlencoded"))
        let wire = listener.connections.flatMap { $0 }
        #expect(String(decoding: wire, as: UTF8.self).contains("grant_type=authorization_code&code=a+b"))
        // The bytes as they were, after the request's head (a 255 is no UTF-8).
        let line = Array("POST /bytes HTTP/1.1".utf8), bytes: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0, 255, 10]
        let at = wire.indices.first { wire[$0...].starts(with: line) }
        #expect(at.map { start in wire[start...].indices.contains { wire[$0...].starts(with: bytes) } } == true)
        await page.close()
    }

    /// A `FormData` goes out as `multipart/form-data` (a file with its name, type and bytes as
    /// they are), a `Blob` as its bytes with its type, from `fetch` and `XMLHttpRequest` alike;
    /// a response is read back as a `Blob`.
    @Test func formDataAndBlobsGoOutAsTheirBytes() async throws {
        let listener = try RawHTTPListener()
        defer { listener.stop() }
        let page = WebPage()
        try await page.loadHTMLString("<p>wire</p>", baseURL: listener.url)
        let result = try await page.callAsyncJavaScript(
            """
            const form = new FormData();
            form.append("username", "demo");
            form.append("avatar", new File([new Uint8Array([0, 255, 13, 10])], "a.png", { type: "image/png" }));
            await fetch("/form", { method: "POST", body: form });
            await fetch("/blob", { method: "POST", body: new Blob(['{"a":1}'], { type: "application/json" }) });
            await new Promise(resolve => {
              const xhr = new XMLHttpRequest();
              xhr.onloadend = resolve;
              xhr.open("POST", "/xhr");
              xhr.send(form);
            });
            const blob = await (await fetch("/read")).blob();
            return [blob.size, await blob.text()];
            """)
        #expect(result == [2, "ok"])
        let requests = listener.connections.flatMap { RawHTTPListener.requests(in: $0) }
        func head(_ path: String) -> String { requests.first { $0.line.contains(" \(path) ") }?.head.lowercased() ?? "" }
        for path in ["/form", "/xhr"] {
            #expect(head(path).contains("\r\ncontent-type: multipart/form-data; boundary=----webkitformboundary"), "\(head(path))")
        }
        #expect(head("/blob").contains("\r\ncontent-type: application/json\r\n"))
        let wire = listener.connections.flatMap { $0 }
        let text = String(decoding: wire, as: UTF8.self)
        #expect(text.contains("Content-Disposition: form-data; name=\"username\"\r\n\r\ndemo\r\n"))
        #expect(text.contains(#"{"a":1}"#))
        // The file's bytes as they were (a 255 is no UTF-8), after its part's head.
        let part = Array("Content-Disposition: form-data; name=\"avatar\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n".utf8)
        let bytes = part + [0, 255, 13, 10, 13, 10]
        #expect(wire.indices.filter { wire[$0...].starts(with: bytes) }.count == 2)
        await page.close()
    }

    /// `navigator.sendBeacon`: a POST of its data that the page does not wait for and that goes
    /// out even when the page leaves at once (what beacons are for); none over 64 KB.
    @Test func aBeaconGoesOutEvenAsThePageLeaves() async throws {
        let listener = try RawHTTPListener()
        defer { listener.stop() }
        let page = WebPage()
        try await page.loadHTMLString("<p>wire</p>", baseURL: listener.url)
        let sent = try await page.callAsyncJavaScript(
            """
            let thrown;
            try { navigator.sendBeacon("ftp://127.0.0.1/x", "no"); } catch (error) { thrown = error.name; }
            return [navigator.sendBeacon("/beacon", "left at " + 1), navigator.sendBeacon("/big", "x".repeat(65537)), thrown];
            """)
        #expect(sent == [true, false, "TypeError"])
        try await page.loadHTMLString("<p>next</p>", baseURL: listener.url)
        let deadline = ContinuousClock.now + .seconds(10)
        while !listener.requestLines.contains("POST /beacon HTTP/1.1"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(listener.requestLines == ["POST /beacon HTTP/1.1"])
        let text = String(decoding: listener.connections.flatMap { $0 }, as: UTF8.self)
        #expect(text.lowercased().contains("\r\ncontent-type: text/plain;charset=utf-8\r\n"), "\(text)")
        #expect(text.hasSuffix("\r\n\r\nleft at 1"))
        await page.close()
    }

    /// A document being left: `readystatechange` came around `DOMContentLoaded` and `pageshow`
    /// after `load`; `pagehide`, `visibilitychange` and
    /// `unload` come before the next document's scripts, once each, in that order; a beacon
    /// sent from them goes out; a navigation or a window they start does not; what one throws
    /// is reported and the navigation goes on.
    @Test func aDocumentBeingLeftGetsItsEventsAndItsBeaconGoesOut() async throws {
        let listener = try RawHTTPListener()
        defer { listener.stop() }
        let errors = Locked<[String]>([])
        let page = WebPage(
            configuration: WebPageConfiguration(eventHandler: { event in
                if case .scriptError(let error, _, _) = event { errors.update { $0.append(error.message) } }
            }))
        try await page.loadHTMLString(
            """
            <script>
            var shown = [];
            addEventListener("pageshow", event => shown.push(`pageshow ${event.persisted} ${document.readyState}`));
            addEventListener("load", () => shown.push("load"));
            document.onreadystatechange = () => shown.push(`state ${document.readyState}`);
            document.addEventListener("DOMContentLoaded", () => shown.push("DOMContentLoaded"));
            addEventListener("pagehide", event => {
              document.cookie = "order=pagehide";
              navigator.sendBeacon("/left", `persisted ${event.persisted}`);
              location.assign("/elsewhere");
              throw new Error("thrown as it left");
            });
            document.addEventListener("visibilitychange", () => { document.cookie = "order=" + document.cookie.split("=")[1] + "+visibility"; });
            onunload = () => { document.cookie = "order=" + document.cookie.split("=")[1] + "+unload"; document.cookie = "opened=" + (open("/popup") === null); };
            </script>
            """, baseURL: listener.url)
        #expect(
            try await page.evaluateJavaScript("shown") == [
                "state interactive", "DOMContentLoaded", "state complete", "load", "pageshow false complete",
            ])
        try await page.loadHTMLString("<script>var cookies = document.cookie</script>", baseURL: listener.url)
        #expect(try await page.evaluateJavaScript("cookies") == "order=pagehide+visibility+unload; opened=true")
        let deadline = ContinuousClock.now + .seconds(10)
        while !listener.requestLines.contains("POST /left HTTP/1.1"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(listener.requestLines == ["POST /left HTTP/1.1"])
        #expect(String(decoding: listener.connections.flatMap { $0 }, as: UTF8.self).hasSuffix("persisted false"))
        #expect(await page.url == listener.url)
        #expect(errors.value.contains { $0.contains("thrown as it left") })
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
        // The engine's own Fetch Metadata, not the page's.
        #expect(head.contains("sec-fetch-site: same-origin"))
        for dropped in [
            "transfer-encoding", "content-length: 100", "evil.example", "connection: close", "cookie:", "proxy-", "sec-fetch-site: none",
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
