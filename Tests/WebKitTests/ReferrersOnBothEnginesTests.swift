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
/// own `referrer` and `referrerPolicy`, a document's `<meta name="referrer">`) and gives a
/// document its `document.referrer`.
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
}
