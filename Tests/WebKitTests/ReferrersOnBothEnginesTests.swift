import Foundation
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import SessionBridgeWebKit
import Testing

/// Who asked, as the wire and the next document tell it, side by side: the headless engine sends
/// the `Referer` WebKit sends (its default policy, `strict-origin-when-cross-origin`, a request's
/// own `referrer` and `referrerPolicy`, a document's `<meta name="referrer">`), gives a document
/// its `document.referrer`, and adds the fields WebKit adds (`Accept`, Fetch Metadata).
@Suite(.serialized, .timeLimit(.minutes(3)), .hangWatchdog) struct ReferrersOnBothEnginesTests {
    @Test(arguments: Engine.allCases)
    func requestsAndTheNextDocumentTellWhoAsked(engine: Engine) async throws {
        try await withSite { api in
            let pages = [
                "/meta": #"<meta name="referrer" content="origin"><title>meta</title>"#,
                "/next": "<title>next</title>",
            ]
            try await withSite(pages: pages) { home in
                try await EngineHarness.with(engine, signIn: false) { harness in
                    let view = try await harness.makeEchoView()
                    _ = try await view.load(URL(string: home.url("/first").absoluteString + "?q=1#fragment")!)
                    let seen = try await view.run(
                        """
                        const api = "\(api.baseURL.absoluteString)";
                        await fetch("/echo?n=1");
                        await fetch(api + "/cors/api?n=2&acao=*");
                        await fetch("/echo?n=3", { referrerPolicy: "no-referrer" });
                        await fetch("/echo?n=4", { referrer: "" });
                        await fetch(api + "/cors/api?n=5&acao=*", { referrerPolicy: "unsafe-url" });
                        await fetch("/echo?n=6", { referrer: "/chosen?x" });
                        await fetch("/echo?n=7", { referrer: api + "/elsewhere" });
                        let invalid;
                        try { new Request("/x", { referrerPolicy: "sometimes" }); } catch (error) { invalid = error.name; }
                        return [document.referrer, new Request("/x").referrer, new Request("/x", { referrer: "" }).referrer,
                          new Request("/x", { referrerPolicy: "origin" }).referrerPolicy, invalid];
                        """)
                    #expect(seen == ["", "about:client", "", "origin", "TypeError"], "\(engine)")
                    let first = home.url("/first").absoluteString + "?q=1"
                    let origin = home.origin.description + "/"
                    #expect(
                        home.requests(to: "/echo").map { $0.fields["referer"] } == [
                            first, nil, nil, home.url("/chosen").absoluteString + "?x", first,
                        ], "\(engine)")
                    #expect(api.requests(to: "/cors/api").map { $0.fields["referer"] } == [origin, first], "\(engine)")
                    // A document's navigation is referred by it, and the next document knows by whom.
                    _ = try await view.run(#"location.assign("/next"); return 0;"#)
                    #expect(await view.waitForPath("/next"), "\(engine)")
                    let referrer = try await view.run("return document.referrer")
                    #expect(referrer == .string(first), "\(engine)")
                    #expect(home.requests(to: "/next").last?.fields["referer"] == first, "\(engine)")
                    // A document's meta policy.
                    _ = try await view.load(home.url("/meta"))
                    _ = try await view.run(#"await fetch("/echo?n=8"); return 0;"#)
                    #expect(home.requests(to: "/echo").last?.fields["referer"] == origin, "\(engine)")
                }
            }
        }
    }

    /// The fields a browser adds of its own accord: what a navigation and a script's request
    /// accept (the page's own `Accept` kept), a language, and Fetch Metadata telling where the
    /// request comes from (`none` for the app's own navigation).
    @Test(arguments: Engine.allCases)
    func requestsCarryTheFieldsABrowserAdds(engine: Engine) async throws {
        try await withSite { api in
            try await withSite(pages: ["/next": "<title>next</title>"]) { home in
                try await EngineHarness.with(engine, signIn: false) { harness in
                    let view = try await harness.makeEchoView()
                    _ = try await view.load(home.url("/first"))
                    let modes = try await view.run(
                        """
                        await fetch("/echo?n=1");
                        await fetch("\(api.baseURL.absoluteString)/cors/api?n=2&acao=*");
                        await fetch("\(api.baseURL.absoluteString)/cors/api?n=9", { mode: "no-cors", headers: { accept: "text/x(y)" } });
                        await fetch("/echo?n=3", { headers: { accept: "application/json" } });
                        await fetch("/echo?n=4", { mode: "same-origin" });
                        await fetch("/echo?n=5", { cache: "no-store" });
                        await fetch("/echo?n=6", { cache: "no-cache" });
                        await fetch("/echo?n=7", { cache: "reload", headers: { "cache-control": "max-age=5" } });
                        let onlyCached;
                        try { await fetch("/echo?n=8", { cache: "only-if-cached" }); } catch (error) { onlyCached = error.name; }
                        const modes = [new Request("/x").cache, new Request("/x", { cache: "force-cache" }).cache, onlyCached];
                        location.assign("/next");
                        return modes;
                        """)
                    #expect(await view.waitForPath("/next"), "\(engine)")
                    func seen(_ request: TestSite.Request?) -> [String?] {
                        ["accept", "upgrade-insecure-requests", "sec-fetch-dest", "sec-fetch-mode", "sec-fetch-site"].map {
                            request?.fields[$0]
                        }
                    }
                    let document = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
                    #expect(seen(home.requests(to: "/first").last) == [document, "1", "document", "navigate", "none"], "\(engine)")
                    #expect(modes == ["default", "force-cache", "TypeError"], "\(engine)")
                    let echoes = home.requests(to: "/echo")
                    #expect(
                        echoes.prefix(3).map(seen) == [
                            ["*/*", nil, "empty", "cors", "same-origin"], ["application/json", nil, "empty", "cors", "same-origin"],
                            ["*/*", nil, "empty", "same-origin", "same-origin"],
                        ], "\(engine)")
                    // The cache modes' fields, the page's own `Cache-Control` kept.
                    #expect(
                        echoes.dropFirst(3).map { [$0.fields["pragma"], $0.fields["cache-control"]] } == [
                            ["no-cache", "no-cache"], [nil, "max-age=0"], ["no-cache", "max-age=5"],
                        ], "\(engine)")
                    // Another port of the same host is another origin of the same site.
                    let other = api.requests(to: "/cors/api")
                    #expect(seen(other.first { $0.query == "n=2&acao=*" }) == ["*/*", nil, "empty", "cors", "same-site"], "\(engine)")
                    // A no-cors request's `Accept` that is not safelisted is dropped, and the default sent.
                    #expect(seen(other.first { $0.query == "n=9" }) == ["*/*", nil, "empty", "no-cors", "same-site"], "\(engine)")
                    #expect(seen(home.requests(to: "/next").last) == [document, "1", "document", "navigate", "same-origin"], "\(engine)")
                    #expect((home.requests + api.requests).allSatisfy { $0.fields["accept-language"] != nil }, "\(engine)")
                }
            }
        }
    }
}
