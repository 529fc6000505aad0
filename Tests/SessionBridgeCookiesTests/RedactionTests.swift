import Foundation
import SessionBridgeCookies
import SessionBridgeTestSupport
import Testing

@Suite(.timeLimit(.minutes(1)), .hangWatchdog)
struct RedactionTests {
    let cookie = Cookie(
        name: "__Host-session", value: "eyJhbGciOi.secret-access-token", domain: "app.example", isSecure: true, isHttpOnly: true)

    @Test func descriptionsNeverShowTheValue() {
        let change = CookieChange(kind: .added, cookie: cookie, cause: .httpResponse)
        var dumped = ""
        dump(cookie, to: &dumped)
        for text in [
            cookie.description, cookie.debugDescription, "\(cookie)", String(reflecting: cookie), change.description,
            SetCookieOutcome.stored(cookie).description, dumped,
        ] {
            #expect(!text.contains("secret-access-token"), "\(text)")
            #expect(text.contains("__Host-session"))
        }
        #expect(cookie.description.contains("<30 bytes>"))
        #expect(cookie.value == "eyJhbGciOi.secret-access-token")
    }

    @Test func theBundledSuffixListRefusesPublicSuffixDomains() throws {
        let list = try #require(PublicSuffixList.bundled)
        #expect(list.ruleCount > 5_000)
        #expect(list.isPublicSuffix("co.uk"))
        #expect(!list.isPublicSuffix("example.co.uk"))
        let jar = CookieJar(publicSuffixList: list)
        let outcome = jar.setCookie("a=1; Domain=co.uk", from: URL(string: "https://www.example.co.uk/")!)
        #expect(outcome.error == .publicSuffixDomain("co.uk"))
        #expect(PublicSuffixList.system != nil)
    }
}
