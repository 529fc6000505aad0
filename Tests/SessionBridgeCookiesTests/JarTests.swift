import Foundation
import SessionBridgeCookies
import SessionBridgeTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let suiteDate = Date(timeIntervalSince1970: 1_502_236_800)  // 2017-08-09T00:00:00Z

func url(_ s: String) -> URL { URL(string: s)! }

@Suite(.timeLimit(.minutes(5)), .hangWatchdog) struct JarTests {
    let clock = TestClock(suiteDate)
    var jar: CookieJar { CookieJar(clock: clock.read) }

    @Test func deletionByMaxAgeZeroAndPastExpires() {
        let jar = self.jar
        let u = url("https://example.com/")
        jar.setCookie("a=1", from: u)
        jar.setCookie("b=2; Max-Age=100", from: u)
        #expect(jar.cookieHeader(for: u) == "a=1; b=2")
        let outcome = jar.setCookie("a=gone; Max-Age=0", from: u)
        guard case .deleted(let removed?) = outcome else {
            Issue.record("expected a deletion, got \(outcome)")
            return
        }
        #expect(removed.value == "1")
        jar.setCookie("b=x; Expires=Thu, 01 Jan 1970 00:00:00 GMT", from: u)
        #expect(jar.cookieHeader(for: u) == nil)
        #expect(jar.setCookie("c=1; Max-Age=-1", from: u) == .deleted(nil))
        #expect(jar.allCookies.isEmpty)
    }

    @Test func maxAgeWinsOverExpiresAndExpires() {
        let jar = self.jar
        let u = url("http://example.com/")
        jar.setCookie("a=1; Max-Age=10; Expires=Thu, 01 Jan 1970 00:00:00 GMT", from: u)
        #expect(jar.cookieHeader(for: u) == "a=1")
        clock.advance(11)
        #expect(jar.cookieHeader(for: u) == nil)
        jar.setCookie("far=1; Expires=Fri, 01 Jan 2100 00:00:00 GMT", from: u)
        let far = jar.allCookies.first { $0.name == "far" }
        #expect(far?.expiresAt == clock.read().addingTimeInterval(400 * 86_400))  // capped at 400 days
    }

    /// An attribute given twice counts once, the last time (RFC 6265bis, "the last attribute
    /// in the cookie-attribute-list"): the stored cookie takes every kind's last value.
    @Test func theLastOfEachRepeatedAttributeIsStored() throws {
        let jar = self.jar
        let header =
            "a=1; Domain=other.example; Path=/x; Max-Age=0; SameSite=Strict; Domain=example.com; Path=/y; Max-Age=100; SameSite=Lax; Secure"
        let cookie = try #require(jar.setCookie(header, from: url("https://www.example.com/")).cookie)
        #expect(cookie.domain == "example.com" && !cookie.isHostOnly)
        #expect(cookie.path == "/y")
        #expect(cookie.expiresAt == clock.read().addingTimeInterval(100))
        #expect(cookie.sameSite == .lax)
        #expect(cookie.isSecure)
        let parsed = try SetCookieParser.parse(header).get()
        #expect([parsed.domain, parsed.path] == ["example.com", "/y"] && parsed.maxAge == 100 && parsed.sameSite == .lax)
    }

    @Test func commaDatesArriveAsSeparateValues() {
        let jar = self.jar
        let u = url("http://example.com/")
        let outcomes = jar.setCookies(
            ["a=1; Expires=Tue, 09 Jan 2018 10:18:14 GMT", "b=2; Expires=Thu, 01 Jan 1970 00:00:00 GMT", "c=3"],
            from: u)
        #expect(outcomes.count == 3)
        #expect(jar.cookieHeader(for: u) == "a=1; c=3")
        #expect(jar.allCookies.first?.expiresAt == Date(timeIntervalSince1970: 1_515_493_094))
    }

    @Test func prefixRules() {
        let jar = self.jar
        let secure = url("https://www.example.com/dir/page")
        #expect(jar.setCookie("__Secure-a=1", from: secure).error == .securePrefixRequirements)
        #expect(jar.setCookie("__secure-a=1", from: secure).error == .securePrefixRequirements)
        #expect(jar.setCookie("__Secure-a=1; Secure", from: secure).cookie != nil)
        #expect(jar.setCookie("__Secure-a=1; Secure", from: url("http://www.example.com/")).error == .secureFromInsecureOrigin)
        #expect(jar.setCookie("__Host-b=1; Secure", from: secure).error == .hostPrefixRequirements)  // no Path
        #expect(jar.setCookie("__Host-b=1; Secure; Path=/dir", from: secure).error == .hostPrefixRequirements)
        #expect(
            jar.setCookie("__Host-b=1; Secure; Path=/; Domain=example.com", from: secure).error
                == .hostPrefixRequirements)
        #expect(jar.setCookie("__HOST-b=1; Path=/", from: secure).error == .hostPrefixRequirements)
        #expect(jar.setCookie("__Host-b=1; Secure; Path=/", from: secure).cookie != nil)
        #expect(jar.setCookie("__Host-c", from: secure).error == .namelessWithPrefix)
        #expect(jar.setCookie("=__secure-c", from: secure).error == .namelessWithPrefix)
        #expect(jar.cookieHeader(for: secure) == "__Secure-a=1; __Host-b=1")
    }

    @Test func publicSuffixRefusal() throws {
        let jar = self.jar
        #expect(jar.publicSuffixList != nil)
        #expect(jar.setCookie("a=1; Domain=com", from: url("https://example.com/")).error == .publicSuffixDomain("com"))
        #expect(
            jar.setCookie("a=1; Domain=co.uk", from: url("https://shop.example.co.uk/")).error
                == .publicSuffixDomain("co.uk"))
        #expect(jar.setCookie("a=1; Domain=example.co.uk", from: url("https://shop.example.co.uk/")).cookie != nil)
        #expect(jar.cookieHeader(for: url("https://other.example.co.uk/")) == "a=1")
        #expect(jar.cookieHeader(for: url("https://evil.co.uk/")) == nil)
        // `Domain=.` after a real Domain leaves the last Domain empty: a host-only cookie.
        let dot = jar.setCookie("d=1; Domain=example.co.uk; Domain=.", from: url("https://shop.example.co.uk/"))
        #expect(dot.cookie?.isHostOnly == true && dot.cookie?.domain == "shop.example.co.uk")
        #expect(jar.cookieHeader(for: url("https://other.example.co.uk/")) == "a=1")
        // A public-suffix host setting Domain=itself gets a host-only cookie.
        let outcome = jar.setCookie("b=1; Domain=github.io", from: url("https://github.io/"))
        #expect(outcome.cookie?.isHostOnly == true)
        #expect(jar.cookieHeader(for: url("https://user.github.io/")) == nil)
        let psl = try PublicSuffixList.requireSystem()
        #expect(psl.registrableDomain(of: "a.b.example.co.uk") == "example.co.uk")
        #expect(psl.registrableDomain(of: "co.uk") == nil)
        #expect(throws: PublicSuffixList.LoadError.missing(path: "/nonexistent/psl.dat")) {
            try PublicSuffixList(contentsOfFile: "/nonexistent/psl.dat")
        }
    }

    @Test func hostOnlyAndDomainCookies() {
        let jar = self.jar
        jar.setCookie("host=1", from: url("http://www.example.com/"))
        jar.setCookie("dom=1; Domain=example.com", from: url("http://www.example.com/"))
        #expect(jar.cookieHeader(for: url("http://www.example.com/")) == "host=1; dom=1")
        #expect(jar.cookieHeader(for: url("http://a.www.example.com/")) == "dom=1")
        #expect(jar.cookieHeader(for: url("http://example.com/")) == "dom=1")
        #expect(jar.cookieHeader(for: url("http://notexample.com/")) == nil)
        #expect(
            jar.setCookie("x=1; Domain=other.com", from: url("http://www.example.com/")).error
                == .domainMismatch(domain: "other.com", host: "www.example.com"))
    }

    @Test func documentCookieHttpOnlyRules() {
        let jar = self.jar
        let page = url("https://example.com/app")
        jar.setCookie("session=s1; HttpOnly; Path=/", from: page)
        jar.setCookie("theme=dark; Path=/", from: page)
        #expect(jar.documentCookie(for: page) == "theme=dark")
        #expect(jar.cookieHeader(for: page) == "session=s1; theme=dark")
        #expect(jar.setDocumentCookie("x=1; HttpOnly", for: page).error == .httpOnlyFromScript)
        #expect(jar.setDocumentCookie("session=stolen; Path=/", for: page).error == .wouldOverwriteHttpOnlyCookie)
        #expect(jar.setDocumentCookie("session=; Max-Age=0; Path=/", for: page).error == .wouldOverwriteHttpOnlyCookie)
        #expect(jar.setDocumentCookie("lang=en; Path=/", for: page).cookie != nil)
        #expect(jar.documentCookie(for: page) == "theme=dark; lang=en")
        #expect(jar.cookieHeader(for: page) == "session=s1; theme=dark; lang=en")
    }

    /// A change is told to a document's Cookie Store only for a cookie its scripts see:
    /// domain- and path-matched, not `HttpOnly`, `Secure` only on a secure origin.
    @Test func cookiesVisibleToScriptsAreTheDocumentsOwn() {
        let jar = self.jar
        let page = url("https://www.example.com/app/page")
        for header in [
            "host=1; Path=/", "dom=1; Domain=example.com; Path=/", "deep=1; Path=/app", "other=1; Path=/elsewhere", "secret=1; HttpOnly",
            "secure=1; Secure; Path=/",
        ] {
            jar.setCookie(header, from: page)
        }
        let all = Dictionary(uniqueKeysWithValues: jar.allCookies.map { ($0.name, $0) })
        func visible(at address: String) -> Set<String> {
            Set(all.values.filter { jar.isVisibleToScripts($0, at: url(address)) }.map(\.name))
        }
        #expect(visible(at: "https://www.example.com/app/page") == ["host", "dom", "deep", "secure"])
        #expect(Set(jar.documentCookies(for: page).map(\.name)) == visible(at: "https://www.example.com/app/page"))
        #expect(visible(at: "https://a.example.com/elsewhere/x") == ["dom"])
        #expect(visible(at: "http://www.example.com/") == ["host", "dom"])
        #expect(visible(at: "https://notexample.com/app/") == [])
    }

    @Test func secureCookiesAreNotOverwrittenFromInsecureOrigins() {
        let jar = self.jar
        jar.setCookie("token=secure; Secure; Path=/", from: url("https://example.com/"))
        #expect(
            jar.setCookie("token=evil; Path=/", from: url("http://example.com/")).error == .wouldOverwriteSecureCookie)
        #expect(
            jar.setCookie("token=evil; Path=/sub", from: url("http://www.example.com/")).error
                == .wouldOverwriteSecureCookie)
        #expect(jar.setCookie("token=ok; Secure; Path=/", from: url("https://example.com/")).cookie != nil)
        #expect(jar.setCookie("other=1", from: url("http://example.com/")).cookie != nil)
        #expect(jar.cookieHeader(for: url("https://example.com/")) == "token=ok; other=1")
        #expect(jar.cookieHeader(for: url("http://example.com/")) == "other=1")
    }

    @Test(arguments: ["http://127.0.0.1:8080/", "http://localhost:3000/", "http://[::1]:9000/"])
    func loopbackIsSecure(_ address: String) {
        let jar = self.jar
        let u = url(address)
        #expect(jar.setCookie("s=1; Secure; SameSite=None", from: u).cookie != nil)
        #expect(jar.cookieHeader(for: u) == "s=1")
    }

    /// An IP address's own address as `Domain` sets a host-only cookie, as WebKit (libsoup) and
    /// Chrome have it; with a leading dot, a domain cookie, as in WebKit. Each was a second
    /// cookie of the name: a deletion of that form left the host-only one in place.
    @Test func anIPAddressAsItsOwnDomainSetsAHostOnlyCookie() throws {
        let jar = self.jar
        let u = url("http://127.0.0.1:8080/")
        jar.setCookie("a=1; Path=/", from: u)
        #expect(jar.setCookie("a=; Domain=127.0.0.1; Path=/; Max-Age=0", from: u).cookie == nil)
        #expect(jar.cookieHeader(for: u) == nil)
        let b = try #require(jar.setCookie("b=1; Domain=127.0.0.1; Path=/", from: u).cookie)
        #expect(b.isHostOnly && b.domain == "127.0.0.1")
        jar.setCookie("b=2; Path=/", from: u)
        #expect(jar.cookieHeader(for: u) == "b=2")
        jar.setCookie("b=; Path=/; Max-Age=0", from: u)
        let c = try #require(jar.setCookie("c=1; Domain=.127.0.0.1; Path=/", from: u).cookie)
        #expect(!c.isHostOnly)
        jar.setCookie("c=2; Path=/", from: u)
        #expect(jar.allCookies.filter { $0.name == "c" }.count == 2)
        #expect(jar.setCookie("d=1; Domain=127.0.0.2; Path=/", from: u).cookie == nil)
        #expect(jar.cookieHeader(for: url("http://127.0.0.2:8080/")) == nil)
    }

    /// A deletion written to the store names one cookie: of a host-only and a domain cookie of
    /// one name, path and host, it removes only the one of its own kind (the native store had
    /// lost both when a page deleted its host-only one).
    @Test func aWrittenDeletionRemovesOnlyTheCookieOfItsIdentity() throws {
        let jar = self.jar
        let u = url("https://www.example.com/")
        jar.setCookie("c=1; Domain=www.example.com; Path=/", from: u)
        let hostOnly = try #require(jar.setCookie("c=2; Path=/", from: u).cookie)
        #expect(jar.allCookies.count == 2)
        jar.write([.delete(hostOnly)])
        #expect(jar.allCookies.map(\.value) == ["1"])
        #expect(jar.allCookies.first?.isHostOnly == false)
    }

    @Test func sameSiteContexts() {
        let jar = self.jar
        let u = url("https://example.com/")
        jar.setCookies(
            ["strict=1; SameSite=Strict", "lax=1; SameSite=Lax", "none=1; SameSite=None; Secure", "default=1"], from: u)
        #expect(jar.cookieHeader(for: u) == "strict=1; lax=1; none=1; default=1")
        #expect(jar.cookieHeader(for: u, context: .crossSite()) == "lax=1; none=1; default=1")
        #expect(jar.cookieHeader(for: u, context: .crossSite(method: "POST")) == "none=1")
        #expect(jar.cookieHeader(for: u, context: .crossSite(topLevelNavigation: false)) == "none=1")
        #expect(jar.setCookie("n=1; SameSite=None", from: u).error == .sameSiteNoneRequiresSecure)
        // A jar that keeps what WebKit keeps (a web view's store) takes it, and sends it cross-site.
        let webKitLike = CookieJar(sameSiteNoneRequiresSecure: false)
        #expect(webKitLike.setCookie("n=1; SameSite=None", from: url("http://example.com/")).error == nil)
        #expect(webKitLike.cookieHeader(for: url("http://example.com/"), context: .crossSite(method: "POST")) == "n=1")
        // Cross-site subresource responses can only set SameSite=None cookies.
        let sub = RequestContext.crossSite(topLevelNavigation: false)
        #expect(jar.setCookie("x=1; SameSite=Lax", from: u, context: sub).error == .sameSiteFromCrossSiteRequest)
        #expect(jar.setCookie("x=1", from: u, context: sub).error == .sameSiteFromCrossSiteRequest)
        #expect(jar.setCookie("x=1; SameSite=None; Secure", from: u, context: sub).cookie != nil)
        #expect(jar.setCookie("y=1; SameSite=Strict", from: u, context: .crossSite()).cookie != nil)
    }

    @Test func orderingLongerPathsThenCreation() {
        let jar = self.jar
        let u = url("http://example.com/a/b/c")
        jar.setCookie("first=1; Path=/", from: u)
        clock.advance(1)
        jar.setCookie("deep=1; Path=/a/b", from: u)
        clock.advance(1)
        jar.setCookie("mid=1; Path=/a", from: u)
        clock.advance(1)
        jar.setCookie("second=1; Path=/", from: u)
        clock.advance(1)
        jar.setCookie("first=2; Path=/", from: u)  // replacement keeps the creation time
        #expect(jar.cookieHeader(for: u) == "deep=1; mid=1; first=2; second=1")
        #expect(jar.cookieHeader(for: url("http://example.com/ab")) == "first=2; second=1")
        #expect(jar.cookieHeader(for: url("http://example.com/a")) == "mid=1; first=2; second=1")
        // Default path is the directory of the request path.
        #expect(jar.setCookie("dp=1", from: url("http://example.com/x/y/page")).cookie?.path == "/x/y")
    }

    @Test func evictionPerDomainAndTotal() {
        let changes = LockedValue<[CookieChange]>([])
        let jar = CookieJar(limits: CookieJarLimits(perDomain: 3, total: 5), clock: clock.read)
        let observation = jar.observe { change in changes.update { $0.append(change) } }
        defer { observation.cancel() }
        let u = url("http://a.example.com/")
        for i in 0..<3 {
            jar.setCookie("c\(i)=1", from: u)
            clock.advance(1)
        }
        _ = jar.cookieHeader(for: u)  // touches c0..c2
        clock.advance(1)
        jar.setCookie("s=1; Max-Age=5", from: url("http://b.example.com/"))
        clock.advance(1)
        jar.setCookie("c3=1", from: u)  // a.example.com over 3: the least recently used goes
        #expect(jar.cookieHeader(for: u) == "c1=1; c2=1; c3=1")
        #expect(changes.get().filter { $0.kind == .evicted }.map(\.cookie.name) == ["c0"])
        clock.advance(10)  // s expires
        jar.setCookie("d0=1", from: url("http://c.example.com/"))
        jar.setCookie("d1=1", from: url("http://c.example.com/"))
        jar.setCookie("d2=1", from: url("http://c.example.com/"))
        // Total 5: the expired cookie goes first, then the oldest last access.
        #expect(jar.count == 5)
        let evictedOrExpired = changes.get().filter { $0.kind == .evicted || $0.kind == .expired }.map(\.cookie.name)
        #expect(evictedOrExpired == ["c0", "s", "c1"])
    }

    @Test func expiredCookiesOfEveryDomainGoOnceTheEarliestExpiryHasPassed() {
        let changes = LockedValue<[CookieChange]>([])
        let jar = self.jar
        let observation = jar.observe { change in changes.update { $0.append(change) } }
        defer { observation.cancel() }
        jar.setCookie("short=1; Max-Age=5", from: url("http://a.example.com/"))
        jar.setCookie("long=1; Max-Age=60", from: url("http://b.example.com/"))
        clock.advance(4)
        jar.setCookie("x=1", from: url("http://c.example.com/"))
        #expect(changes.get().filter { $0.kind == .expired }.isEmpty)
        #expect(jar.count == 3)
        clock.advance(2)  // "short" has expired; setting a cookie on another site drops it
        jar.setCookie("y=1", from: url("http://c.example.com/"))
        #expect(changes.get().filter { $0.kind == .expired }.map(\.cookie.name) == ["short"])
        #expect(jar.count == 3)
        clock.advance(60)  // the mark moved to "long", which goes next
        jar.setCookie("z=1", from: url("http://c.example.com/"))
        #expect(changes.get().filter { $0.kind == .expired }.map(\.cookie.name) == ["short", "long"])
        #expect(jar.cookieHeader(for: url("http://b.example.com/")) == nil)
        #expect(jar.count == 3)
    }

    @Test func observationReportsEveryKindWithCause() {
        let changes = LockedValue<[CookieChange]>([])
        let jar = self.jar
        let observation = jar.observe { change in changes.update { $0.append(change) } }
        let u = url("https://example.com/")
        jar.setCookie("a=1", from: u)
        jar.setCookie("a=2", from: u)
        jar.setDocumentCookie("b=1; Max-Age=5", for: u)
        jar.setCookie("a=; Max-Age=0", from: u)
        clock.advance(6)
        _ = jar.cookieHeader(for: u)
        jar.insert(Cookie(name: "c", value: "1", domain: "example.com", creationTime: clock.read()))
        jar.remove(name: "c", domain: "example.com", path: "/")
        let got = changes.get().map { "\($0.kind.rawValue):\($0.cause.rawValue):\($0.cookie.name)" }
        #expect(
            got == [
                "added:httpResponse:a", "replaced:httpResponse:a", "added:script:b", "deleted:httpResponse:a",
                "expired:expiry:b", "added:api:c", "deleted:api:c",
            ])
        #expect(changes.get()[1].previous?.value == "1")
        observation.cancel()
        jar.setCookie("z=1", from: u)
        #expect(changes.get().count == 7)
    }

    @Test func anotherJarCanFollowThroughObservation() {
        let source = self.jar
        let follower = self.jar
        let observation = source.observe { change in
            switch change.kind {
            case .added, .replaced: follower.insert(change.cookie)
            case .deleted, .expired, .evicted:
                follower.remove(name: change.cookie.name, domain: change.cookie.domain, path: change.cookie.path)
            }
        }
        defer { observation.cancel() }
        let u = url("https://example.com/")
        source.setCookies(["a=1; HttpOnly", "b=2", "a=3; HttpOnly", "b=; Max-Age=0"], from: u)
        #expect(follower.allCookies == source.allCookies)
        #expect(follower.cookieHeader(for: u) == "a=3")
    }

    @Test func httpCookieRoundTrip() throws {
        let original = Cookie(
            name: "sid", value: "abc", domain: "example.com", path: "/app",
            expiresAt: Date(timeIntervalSince1970: 1_900_000_000), creationTime: suiteDate, isSecure: true,
            isHttpOnly: true, isHostOnly: false, sameSite: .lax, isPartitioned: true)
        let foundation = try #require(original.httpCookie)
        #expect(foundation.domain == ".example.com")
        #expect(foundation.isHTTPOnly && foundation.isSecure)
        let back = Cookie(foundation, now: suiteDate)
        var expected = original
        expected.isPartitioned = false  // HTTPCookie cannot carry it
        #if !canImport(Darwin)
        expected.sameSite = .unspecified  // swift-corelibs-foundation has no SameSite property
        #endif
        #expect(back == expected)
        let hostOnly = Cookie(name: "h", value: "1", domain: "www.example.com", creationTime: suiteDate)
        #expect(Cookie(try #require(hostOnly.httpCookie), now: suiteDate) == hostOnly)
        #expect(Cookie(name: "", value: "nameless", domain: "x.com").httpCookie == nil)
    }

    @Test func replaceAllAndRemoveAll() {
        let jar = self.jar
        let cookies = [
            Cookie(name: "a", value: "1", domain: "example.com", creationTime: suiteDate),
            Cookie(name: "b", value: "2", domain: "example.com", creationTime: suiteDate.addingTimeInterval(1)),
        ]
        jar.setCookie("old=1", from: url("http://example.com/"))
        jar.replaceAll(with: cookies)
        #expect(jar.allCookies == cookies)
        #expect(jar.cookieHeader(for: url("http://example.com/")) == "a=1; b=2")
        jar.removeAll()
        #expect(jar.allCookies.isEmpty && jar.count == 0)
    }

    @Test func lookupIndexScales() {
        let jar = CookieJar(limits: CookieJarLimits(perDomain: 180, total: 40_000), clock: clock.read)
        for i in 0..<30_000 {
            jar.insert(Cookie(name: "c", value: "\(i)", domain: "host\(i).example\(i % 100).com", creationTime: suiteDate))
        }
        #expect(jar.count == 30_000)
        let start = ContinuousClock.now
        for _ in 0..<1000 { _ = jar.cookieHeader(for: url("http://host42.example42.com/")) }
        #expect(jar.cookieHeader(for: url("http://host42.example42.com/")) == "c=42")
        #expect(ContinuousClock.now - start < .seconds(2))
    }

    @Test func threadSafety() async {
        let jar = self.jar
        await withTaskGroup(of: Void.self) { group in
            for t in 0..<8 {
                group.addTask {
                    for i in 0..<200 {
                        jar.setCookie("k\(t)_\(i % 20)=\(i)", from: url("http://example.com/"))
                        _ = jar.cookieHeader(for: url("http://example.com/"))
                    }
                }
            }
        }
        #expect(jar.count == 160)
    }
}
