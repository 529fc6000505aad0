import Foundation
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@testable import SessionBridgeHeadless

/// `history` and fragment navigations on headless pages (`WebPlatformPrelude.historySource`,
/// `DocumentURL`): what a single-page app's router and an OAuth callback page do with the URL.
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct HistoryTests {
    @Test func pushAndReplaceChangeTheURLWithoutANewDocument() async throws {
        let listener = try RawHTTPListener()
        defer { listener.stop() }
        let recorder = PageEventRecorder()
        let page = WebPage(configuration: WebPageConfiguration(eventHandler: recorder.handler))
        try await page.loadHTMLString("<p>app</p>", baseURL: listener.url.appendingPathComponent("callback"))
        let result = try await page.callAsyncJavaScript(
            """
            globalThis.sameDocument = true;
            history.replaceState({ step: 0 }, "", "/app?cleaned=1");
            history.pushState({ step: 1 }, "", "settings/profile#part");
            history.replaceState(history.state, "", "");
            const seen = [location.pathname + location.search, history.length, history.state.step, document.location.href === location.href];
            const refused = [() => history.pushState(null, "", "https://elsewhere.example/"), () => history.pushState(() => 1, ""), () => history.pushState(null)]
              .map(action => { try { action(); return "changed"; } catch (error) { return error.name; } });
            await fetch("relative");
            return [...seen, ...refused, history.length, sameDocument];
            """)
        #expect(result == ["/settings/profile", 2, 1, true, "SecurityError", "DataCloneError", "TypeError", 2, true])
        // The page's URL follows; relative URLs resolve against the new one; no navigation.
        #expect(await page.url?.path == "/settings/profile")
        #expect(listener.requestLines == ["GET /settings/relative HTTP/1.1"])
        #expect(recorder.events.filter { if case .documentCommitted = $0 { true } else { false } }.count == 1)
        await page.close()
    }

    /// As in WebKit: a navigation to a fragment fires `popstate` at once and `hashchange` later.
    @Test func backForwardAndFragmentsFirePopStateAndHashChange() async throws {
        let page = WebPage()
        try await page.loadHTMLString("<p>app</p>", baseURL: URL(string: "https://app.example/start")!)
        let result = try await page.callAsyncJavaScript(
            """
            const seen = [], tick = () => new Promise(resolve => setTimeout(resolve, 5));
            addEventListener("popstate", event => seen.push(`popstate ${JSON.stringify(event.state)} ${location.pathname}${location.hash}`));
            addEventListener("hashchange", event => seen.push(`hashchange ${new URL(event.oldURL).hash || "-"} ${new URL(event.newURL).hash || "-"}`));
            history.pushState({ page: "a" }, "", "/a");
            location.hash = "top";
            await tick();
            const afterFragment = [location.href, history.length];
            history.back();
            await tick();
            history.back();
            await tick();
            history.forward();
            await tick();
            history.go(-5);
            await tick();
            return [...afterFragment, seen.join(" | "), location.pathname, JSON.stringify(history.state)];
            """)
        #expect(
            result == [
                "https://app.example/a#top", 3,
                "popstate null /a#top | hashchange - #top | popstate {\"page\":\"a\"} /a | hashchange #top - | popstate null /start | popstate {\"page\":\"a\"} /a",
                "/a", #"{"page":"a"}"#,
            ])
        await page.close()
    }

    @Test func goZeroReloadsTheDocument() async throws {
        let listener = try RawHTTPListener { _ in
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 11\r\n\r\n<p>page</p>"
        }
        defer { listener.stop() }
        let page = WebPage()
        _ = try await page.load(listener.url)
        _ = try await page.evaluateJavaScript("globalThis.marker = 1; history.go(0)")
        try await waitUntil { listener.requestLines.count == 2 }
        try await waitUntil { (try? await page.evaluateJavaScript("typeof marker")) == "undefined" }
        await page.close()
    }

    func waitUntil(_ condition: () async -> Bool) async throws {
        for _ in 0..<1000 where !(await condition()) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(await condition())
    }
}
