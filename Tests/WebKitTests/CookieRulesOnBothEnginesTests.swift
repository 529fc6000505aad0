import Foundation
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

/// Where WebKit's cookie store and RFC 6265bis part, the headless engine's page stores keep what
/// WebKit's keeps.
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct CookieRulesOnBothEnginesTests {
    /// RFC 6265bis (and Chrome and Firefox) refuse `SameSite=None` without `Secure`; WebKit keeps it.
    @Test(arguments: Engine.allCases)
    func aSameSiteNoneCookieWithoutSecureIsKeptAsWebKitKeepsIt(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView()
            let seen = try await view.run(
                """
                document.cookie = "none_plain=1; SameSite=None";
                document.cookie = "none_secure=2; SameSite=None; Secure";
                document.cookie = "lax=3; SameSite=Lax";
                return document.cookie;
                """)
            #expect(seen == "none_plain=1; none_secure=2; lax=3", "\(engine)")
        }
    }

    /// WebKit's store keeps a page's 200 cookies of one host and the session's beside them; the
    /// page stores and the native one had kept 180 a domain, evicting the session's CSRF cookie
    /// (the oldest non-`Secure` one) from both.
    @Test(arguments: Engine.allCases)
    func twoHundredCookiesOfOneHostAreKeptWithTheSessions(engine: Engine) async throws {
        try await EngineHarness.with(engine) { harness in
            let view = try await harness.makeStartedAppView()
            let kept = try await view.run(
                """
                for (let i = 0; i < 200; i++) document.cookie = `c${i}=1; Path=/`;
                const names = document.cookie.split("; ").map((pair) => pair.split("=")[0]);
                return [names.includes("csrf_token"), names.includes("c0"), names.filter((n) => /^c[0-9]+$/.test(n)).length];
                """)
            #expect(kept == .array([.bool(true), .bool(true), .number(200)]), "\(engine)")
            #expect(try await eventually { harness.nativeValue("c199") == "1" })
            #expect(harness.nativeValue("csrf_token") != nil && harness.nativeValue("c0") == "1")
        }
    }

    /// A page's navigation that leaves for another site and is redirected back is cross-site
    /// all along (RFC 6265bis counts the redirect chain): the page's `SameSite=Strict` cookie is
    /// not sent to its own site at the end, its `Lax` and plain ones are, as in WebKit. This is
    /// the shape of a sign-in: the app sends the user to the identity provider, which redirects
    /// back. (The headless engine had judged each hop against the page alone.)
    @Test(arguments: Engine.allCases)
    func aNavigationRedirectedBackFromAnotherSiteSendsNoStrictCookie(engine: Engine) async throws {
        try await withSite { home in
            try await EngineHarness.with(engine, signIn: false) { harness in
                let view = try await harness.makeEchoView()
                _ = try await view.load(home.url("/page"))
                _ = try await view.evaluate(
                    """
                    document.cookie = "strict=1; SameSite=Strict; Path=/";
                    document.cookie = "lax=1; SameSite=Lax; Path=/";
                    document.cookie = "plain=1; Path=/";
                    location.assign("/echo?direct");
                    true
                    """)
                #expect(await view.waitForPath("/echo"), "\(engine)")
                let back = "http://127.0.0.1:\(home.port)/echo?back"
                let away =
                    "http://localhost:\(home.port)/cors/redirect?to=" + back.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                _ = try await view.evaluate("location.assign(\"\(away)\"); true")
                #expect(
                    try await eventually { home.requests.contains { $0.path == "/echo" && $0.query == "back" } }, "\(engine)")
                let direct = home.requests.first { $0.path == "/echo" && $0.query == "direct" }?.cookies ?? [:]
                let redirected = home.requests.first { $0.path == "/echo" && $0.query == "back" }?.cookies ?? [:]
                #expect(direct == ["strict": "1", "lax": "1", "plain": "1"], "\(engine): a same-site navigation sends all three")
                #expect(redirected == ["lax": "1", "plain": "1"], "\(engine)")
            }
        }
    }
}
