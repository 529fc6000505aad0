import Foundation
import SessionBridgeCookies
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeHeadless

/// `XMLHttpRequest` on headless pages (`WebPlatformPrelude.xhrSource`), as HTTP client
/// libraries in pages use it, against a raw listener: what went out and what the page saw.
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct XMLHttpRequestTests {
    static let json =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Request-Id: r1\r\nSet-Cookie: seen=1; Path=/\r\n"
        + "Set-Cookie: hidden=2; Path=/; HttpOnly\r\nContent-Length: 13\r\n\r\n{\"user\":\"me\"}"

    @Test func aRequestRunsItsEventsInTheStandardsOrderAndKeepsCookieRules() async throws {
        let listener = try RawHTTPListener { _ in Self.json }
        defer { listener.stop() }
        let page = WebPage()
        try await page.loadHTMLString("<p>xhr</p>", baseURL: listener.url)
        let result = try await page.callAsyncJavaScript(
            """
            const xhr = new XMLHttpRequest(), events = [];
            xhr.onreadystatechange = () => events.push(`state ${xhr.readyState}`);
            for (const type of ["loadstart", "progress", "load", "loadend"]) xhr.addEventListener(type, event => events.push(`${type} ${event.loaded}/${event.total} ${event.lengthComputable}`));
            xhr.open("GET", "/api/me");
            xhr.responseType = "json";
            await new Promise(resolve => { xhr.onloadend = resolve; xhr.send(); });
            return [events.join(", "), xhr.status, xhr.statusText, xhr.response.user, xhr.getResponseHeader("x-request-id"), xhr.getResponseHeader("Set-Cookie"),
              xhr.getAllResponseHeaders(), xhr.responseURL, document.cookie, xhr instanceof EventTarget, Object.prototype.toString.call(xhr)];
            """)
        #expect(
            result == [
                "state 1, loadstart 0/0 false, state 2, state 3, progress 13/13 true, state 4, load 13/13 true, loadend 13/13 true",
                200, "OK", "me", "r1", .null,
                "content-length: 13\r\ncontent-type: application/json\r\nx-request-id: r1\r\n",
                .string(listener.url.absoluteString + "api/me"), "seen=1", true, "[object XMLHttpRequest]",
            ])
        // The HttpOnly cookie was stored, out of the page's reach, and goes with the next request.
        #expect(page.cookieJar.allCookies.map(\.name).sorted() == ["hidden", "seen"])
        await page.close()
    }

    @Test func aPostSendsItsBodyAndHeaders() async throws {
        let listener = try RawHTTPListener()
        defer { listener.stop() }
        let page = WebPage()
        try await page.loadHTMLString("<p>xhr</p>", baseURL: listener.url)
        let result = try await page.callAsyncJavaScript(
            """
            const send = body => new Promise(resolve => {
              const xhr = new XMLHttpRequest();
              xhr.open("post", "/token");
              xhr.setRequestHeader("X-Csrf", " one ");
              xhr.setRequestHeader("x-csrf", "two");
              xhr.onload = () => resolve(xhr.responseText);
              xhr.send(body);
            });
            return [await send(new URLSearchParams({ grant_type: "refresh_token", scope: "a b" })), await send("plain")];
            """)
        #expect(result == ["ok", "ok"])
        let wire = String(decoding: listener.connections.flatMap { $0 }, as: UTF8.self).lowercased()
        #expect(listener.requestLines == ["POST /token HTTP/1.1", "POST /token HTTP/1.1"])
        #expect(wire.contains("\r\nx-csrf: one, two\r\n"))
        #expect(wire.contains("content-type: application/x-www-form-urlencoded;charset=utf-8\r\n"))
        #expect(wire.contains("grant_type=refresh_token&scope=a+b"))
        #expect(wire.contains("content-type: text/plain;charset=utf-8\r\n"))
        await page.close()
    }

    @Test func networkErrorsTimeoutsAndAbortsEndTheRequest() async throws {
        let slow = try RawHTTPListener { _ in
            Thread.sleep(forTimeInterval: 3)  // far past the page's 100 ms timeout, even on a loaded machine
            return RawHTTPListener.ok
        }
        defer { slow.stop() }
        let refusing = try RefusingPort()
        let page = WebPage()
        try await page.loadHTMLString("<p>xhr</p>", baseURL: slow.url)
        let result = try await page.callAsyncJavaScript(
            """
            const ended = (xhr, start) => new Promise(resolve => {
              const events = [];
              for (const type of ["readystatechange", "load", "error", "timeout", "abort", "loadend"]) {
                xhr.addEventListener(type, () => { events.push(type === "readystatechange" ? `state ${xhr.readyState}` : type); if (type === "loadend") resolve(events.join(", ") + ` status ${xhr.status}`); });
              }
              start();
            });
            const refused = new XMLHttpRequest();
            refused.open("GET", "http://127.0.0.1:\(refusing.port)/");
            const timedOut = new XMLHttpRequest();
            timedOut.open("GET", "/slow");
            timedOut.timeout = 100;
            const aborted = new XMLHttpRequest();
            aborted.open("GET", "/slow");
            const abortedEvents = ended(aborted, () => { aborted.send(); aborted.abort(); });
            return [await ended(refused, () => refused.send()), await ended(timedOut, () => timedOut.send()), await abortedEvents, aborted.readyState];
            """)
        #expect(
            result == [
                "state 4, error, loadend status 0", "state 4, timeout, loadend status 0", "state 4, abort, loadend status 0", 0,
            ])
        await page.close()
    }

    @Test func misuseThrowsTheStandardsErrors() async throws {
        let page = WebPage()
        try await page.loadHTMLString("<p>xhr</p>", baseURL: URL(string: "https://app.example/")!)
        let result = try await page.evaluateJavaScript(
            """
            const thrown = action => { try { action(); return "no error"; } catch (error) { return error.name; } };
            const opened = () => { const xhr = new XMLHttpRequest(); xhr.open("GET", "/"); return xhr; };
            [thrown(() => new XMLHttpRequest().open("GET", "/", false)), thrown(() => new XMLHttpRequest().open("G ET", "/")),
             thrown(() => new XMLHttpRequest().open("connect", "/")), thrown(() => new XMLHttpRequest().setRequestHeader("a", "b")),
             thrown(() => opened().setRequestHeader("bad name", "b")), thrown(() => opened().setRequestHeader("a", "b\\r\\nc: d")),
             thrown(() => new XMLHttpRequest().send()), thrown(() => { const xhr = opened(); xhr.send(); xhr.send(); }),
             thrown(() => { const xhr = opened(); xhr.responseType = "json"; return xhr.responseText; }),
             XMLHttpRequest.DONE, new XMLHttpRequest().readyState, new XMLHttpRequest().response]
            """)
        #expect(
            result == [
                "InvalidAccessError", "SyntaxError", "SecurityError", "InvalidStateError", "SyntaxError", "SyntaxError",
                "InvalidStateError", "InvalidStateError", "InvalidStateError", 4, 0, "",
            ])
        await page.close()
    }
}
