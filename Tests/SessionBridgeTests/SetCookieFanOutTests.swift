import Foundation
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

@testable import SessionBridge

@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct SetCookieFanOutTests {
    @Test func deletionsAndGarbageFromTheTokenEndpointReachEveryStore() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let (page, _) = await makePage(session, server)
            let (closed, _) = await makePage(session, server)
            await closed.close()
            #expect(page.cookieJar.allCookies.isEmpty)
            try await session.restoreCookies()
            #expect(page.cookieJar.value("csrf_token", for: server.url("/")) != nil)
            await session.applySetCookies([
                "csrf_token=; Path=/; Max-Age=0; SameSite=Strict",
                "session_expires=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT",
                "bad=a\u{01}b; Path=/",
                "this-is-not-a-cookie",
                "fresh=1, other=2; Path=/",
            ])
            for jar in [session.cookieJar, page.cookieJar] {
                let names = Set(jar.cookies(for: server.url("/")).map(\.name))
                #expect(!names.contains("csrf_token"))
                #expect(!names.contains("session_expires"))
                #expect(!names.contains("bad"))
                #expect(names.contains("__Host-session"))
                // Never comma-split: one field is one cookie.
                #expect(jar.value("fresh", for: server.url("/")) == "1, other=2")
            }
            await page.close()
        }
    }

    /// WebKit keeps a `SameSite=None` cookie without `Secure` (RFC 6265bis, Chrome and Firefox
    /// refuse it): one the token endpoint sets is kept natively and reaches the page, as it
    /// would had the page received it.
    @Test func aSameSiteNoneCookieWithoutSecureFromTheTokenEndpointReachesThePage() async throws {
        try await withServer { server in
            let session = SessionController(configuration: makeConfiguration(server))
            try await session.login(username: "demo", password: "demo")
            let (page, _) = await makePage(session, server)
            await session.applySetCookies(["cross_site=1; Path=/; SameSite=None"])
            #expect(session.cookieJar.value("cross_site", for: server.url("/")) == "1")
            #expect(page.cookieJar.value("cross_site", for: server.url("/")) == "1")
            await page.close()
        }
    }
}
