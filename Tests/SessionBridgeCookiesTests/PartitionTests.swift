import Foundation
import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeCookies

/// CHIPS: a `Partitioned` cookie is keyed by the top-level site it was set under and sent
/// only under that site.
@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct PartitionTests {
    let widget = URL(string: "https://widget.example/embed")!
    let list = PublicSuffixList(rules: ["example", "com"])

    func embedded(in topLevelSite: String) -> RequestContext {
        RequestContext(isCrossSite: true, isTopLevelNavigation: false, method: "GET", topLevelSite: topLevelSite)
    }

    @Test func aPartitionedCookieIsKeyedByTheTopLevelSiteAndSentOnlyUnderIt() throws {
        let jar = CookieJar(publicSuffixList: list)
        let underA = embedded(in: "https://a.example")
        let underB = embedded(in: "https://b.example")
        let line = "__Host-embed=a; Secure; Path=/; SameSite=None; Partitioned"
        guard case .stored(let cookie) = jar.setCookie(line, from: widget, context: underA) else {
            Issue.record("not stored")
            return
        }
        #expect(cookie.partitionKey == "https://a.example")
        #expect(jar.cookieHeader(for: widget, context: underA) == "__Host-embed=a")
        #expect(jar.cookieHeader(for: widget, context: underB) == nil)
        // The widget as a top-level site has its own partition.
        #expect(jar.cookieHeader(for: widget) == nil)

        // The same name under another top-level site is another cookie, not a replacement.
        jar.setCookie("__Host-embed=b; Secure; Path=/; SameSite=None; Partitioned", from: widget, context: underB)
        #expect(jar.allCookies.map(\.value).sorted() == ["a", "b"])
        #expect(jar.cookieHeader(for: widget, context: underA) == "__Host-embed=a")
        #expect(jar.cookieHeader(for: widget, context: underB) == "__Host-embed=b")

        // Unpartitioned cookies are sent whatever the top-level site.
        jar.setCookie("plain=1; Secure; Path=/; SameSite=None", from: widget, context: underA)
        #expect(jar.cookieHeader(for: widget, context: underB) == "__Host-embed=b; plain=1")

        // A top-level partitioned cookie is keyed by its own site (registrable domain).
        jar.setCookie("top=1; Secure; Path=/; Partitioned", from: URL(string: "https://www.site.example/")!)
        #expect(jar.allCookies.first { $0.name == "top" }?.partitionKey == "https://site.example")
        #expect(jar.cookieHeader(for: URL(string: "https://www.site.example/")!) == "top=1")
    }

    @Test func thePartitionKeyIsStoredAndAVersionOneFileIsStillRead() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = PersistentCookieStore(directory: directory, profile: "chips")
        let partitioned = Cookie(
            name: "__Host-embed", value: "a", domain: "widget.example", isSecure: true, sameSite: .none,
            isPartitioned: true, partitionKey: "https://a.example")
        let plain = Cookie(name: "plain", value: "1", domain: "widget.example", isSecure: true)
        try store.save([partitioned, plain])
        let bytes = try [UInt8](Data(contentsOf: try #require(store.fileURL)))
        #expect(CookieStoreFormat.readBigEndian(bytes, 8, 4) == 2)
        #expect(try store.load().cookies == [partitioned, plain])

        // A file written before partition keys existed (format 1): it loads, and its
        // partitioned cookie is keyed by its own domain's site.
        var old = partitioned
        old.partitionKey = nil
        let versionOne = try CookieStoreFormat.encode([old, plain], generation: 7, version: 1)
        #expect(CookieStoreFormat.readBigEndian(versionOne, 8, 4) == 1)
        #expect(!String(decoding: versionOne, as: UTF8.self).contains("partitionKey"))
        try Data(versionOne).write(to: try #require(store.fileURL))
        let loaded = try store.load()
        #expect(loaded.generation == 7)
        #expect(loaded.recovery == nil)
        #expect(loaded.cookies.map(\.name) == ["__Host-embed", "plain"])
        #expect(loaded.cookies[0].isPartitioned)
        #expect(loaded.cookies[0].partitionKey == CookieJar.site(scheme: "https", host: "widget.example", PublicSuffixList.system))
        #expect(loaded.cookies[1].partitionKey == nil)
        // Saving again writes format 2.
        try store.save(loaded.cookies)
        #expect(CookieStoreFormat.readBigEndian(try [UInt8](Data(contentsOf: try #require(store.fileURL))), 8, 4) == 2)
    }
}
