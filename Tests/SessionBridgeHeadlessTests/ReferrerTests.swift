import Foundation
import SessionBridgeCookies
import Testing

@testable import SessionBridgeHeadless

/// The Referrer Policy standard's `Referer` for each policy, without a network. (Both engines
/// on the wire: `ReferrersOnBothEnginesTests`.)
@Suite(.timeLimit(.minutes(1))) struct ReferrerTests {
    static let page = URL(string: "https://user:pw@app.example/a/b?q=1#frag")!

    @Test(
        arguments: [
            // policy, same origin, another origin, a downgrade to http
            (Referrer.Policy.strictOriginWhenCrossOrigin, "https://app.example/a/b?q=1", "https://app.example/", nil),
            (.noReferrer, nil, nil, nil),
            (.noReferrerWhenDowngrade, "https://app.example/a/b?q=1", "https://app.example/a/b?q=1", nil),
            (.sameOrigin, "https://app.example/a/b?q=1", nil, nil),
            (.origin, "https://app.example/", "https://app.example/", "https://app.example/"),
            (.strictOrigin, "https://app.example/", "https://app.example/", nil),
            (.originWhenCrossOrigin, "https://app.example/a/b?q=1", "https://app.example/", "https://app.example/"),
            (.unsafeURL, "https://app.example/a/b?q=1", "https://app.example/a/b?q=1", "https://app.example/a/b?q=1"),
        ] as [(Referrer.Policy, String?, String?, String?)])
    func eachPolicyTellsWhatTheStandardSays(policy: Referrer.Policy, same: String?, other: String?, downgrade: String?) {
        let referrer = Referrer(source: Self.page, policy: policy)
        #expect(referrer.value(for: URL(string: "https://app.example/api")!) == same)
        #expect(referrer.value(for: URL(string: "https://api.example/v1")!) == other)
        #expect(referrer.value(for: URL(string: "http://api.example/v1")!) == downgrade)
    }

    @Test func loopbackIsNoDowngradeAndOtherSourcesTellNothing() {
        let secure = Referrer(source: URL(string: "https://app.example/p")!)
        #expect(secure.value(for: URL(string: "http://127.0.0.1:8080/x")!) == "https://app.example/")
        #expect(secure.value(for: URL(string: "http://localhost/x")!) == "https://app.example/")
        #expect(Referrer(source: URL(string: "about:blank")!).value(for: URL(string: "https://app.example/")!) == nil)
        #expect(Referrer(source: URL(string: "data:text/html,x")!).value(for: URL(string: "https://app.example/")!) == nil)
        #expect(Referrer(source: nil).value(for: URL(string: "https://app.example/")!) == nil)
        // A URL longer than 4,096 bytes is sent as its origin.
        let long = URL(string: "https://app.example/" + String(repeating: "a", count: 5000))!
        #expect(Referrer(source: long).value(for: URL(string: "https://app.example/x")!) == "https://app.example/")
        #expect(
            Referrer(source: URL(string: "http://app.example")!).value(for: URL(string: "http://app.example/x")!) == "http://app.example/")
    }

    @Test func policiesAreReadFromTheFieldAndTheMetaElement() {
        #expect(Referrer.Policy(field: ["no-referrer, bogus, Origin", "unknown"]) == .origin)
        #expect(Referrer.Policy(field: ["unknown"]) == nil)
        #expect(Referrer.Policy(meta: " never ") == .noReferrer)
        #expect(Referrer.Policy(meta: "always") == .unsafeURL)
        #expect(Referrer.Policy(meta: "origin-when-crossorigin") == .originWhenCrossOrigin)
        #expect(Referrer.Policy(meta: "no-referrer, origin") == nil)
    }

    @Test func fetchMetadataTellsTheSiteOfEveryHop() {
        let list = PublicSuffixList.system
        let page = UserAgentFields(destination: "empty", mode: "cors", initiator: URL(string: "https://app.example.com/p")!)
        func site(_ urls: String...) -> String { page.site(of: urls.map { URL(string: $0)! }, publicSuffixes: list) }
        #expect(site("https://app.example.com/api") == "same-origin")
        #expect(site("https://api.example.com/v1") == "same-site")
        #expect(site("https://app.example.com/go", "https://api.example.com/v1") == "same-site")
        #expect(site("https://other.test/x", "https://app.example.com/back") == "cross-site")
        #expect(UserAgentFields.navigation(from: nil).site(of: [URL(string: "https://app.example.com/")!], publicSuffixes: list) == "none")
        let fields = page.fields(
            for: [URL(string: "https://app.example.com/api")!], pageHeaders: [HTTPHeader("ACCEPT", "text/csv")], publicSuffixes: list)
        #expect(fields.map(\.name) == ["Accept-Language", "Sec-Fetch-Dest", "Sec-Fetch-Mode", "Sec-Fetch-Site"])
    }
}
