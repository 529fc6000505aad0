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
}
