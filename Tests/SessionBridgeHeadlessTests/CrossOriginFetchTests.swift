import Foundation
import SessionBridgeMessaging
import Testing

@testable import SessionBridgeHeadless

/// The CORS protocol's rules as the headless engine applies them to a page's requests, checked
/// without a network: what needs a preflight, which answers a page may read, what a redirect
/// changes. (Both engines on the wire: `CrossOriginRequestsOnBothEnginesTests`.)
@Suite(.timeLimit(.minutes(1))) struct CrossOriginFetchTests {
    static let home = SecurityOrigin("http://127.0.0.1:8001")!
    static func url(_ text: String) -> URL { URL(string: text)! }

    @Test func safelistedRequestHeadersAreTheFetchStandards() {
        let safelisted: [(String, String)] = [
            ("Accept", "application/json, text/*;q=0.5"), ("accept-language", "en-GB,en;q=0.9"), ("Content-Language", "de-DE"),
            ("content-type", "text/plain;charset=UTF-8"), ("Content-Type", "  Multipart/Form-Data; boundary=--x--"),
            ("content-type", "application/x-www-form-urlencoded"), ("range", "bytes=0-"), ("Range", "bytes=10-20"),
        ]
        let unsafe: [(String, String)] = [
            ("content-type", "application/json"), ("content-type", #"text/plain; charset="utf-8""#), ("content-type", "text/plain("),
            ("content-type", "text"), ("accept", String(repeating: "a", count: 129)), ("accept", "a\u{1}"),
            ("accept-language", "en_GB"), ("content-language", "de@x"), ("range", "bytes=20-10"), ("range", "bytes=0-1,3-4"),
            ("range", "bytes=+1-"), ("range", "items=0-"), ("x-requested-with", "XMLHttpRequest"), ("authorization", "Bearer x"),
            ("cache-control", "no-cache"),
        ]
        for (name, value) in safelisted { #expect(CORSSafelist.isSafelistedRequestHeader(name: name, value: value), "\(name): \(value)") }
        for (name, value) in unsafe { #expect(!CORSSafelist.isSafelistedRequestHeader(name: name, value: value), "\(name): \(value)") }
        #expect(!CORSSafelist.isNoCORSSafelistedRequestHeader(name: "range", value: "bytes=0-"))
    }

    @Test func unsafeNamesAreLowercasedSortedOnceAndAllOfThemPastAKilobyte() {
        let headers = [HTTPHeader("X-B", "1"), HTTPHeader("x-a", "2"), HTTPHeader("X-b", "3"), HTTPHeader("Accept", "a")]
        #expect(CORSSafelist.unsafeRequestHeaderNames(headers) == ["x-a", "x-b"])
        let large = (0..<9).map { _ in HTTPHeader("Accept", String(repeating: "a", count: 120)) }
        #expect(CORSSafelist.unsafeRequestHeaderNames(large) == ["accept"])
    }

    @Test func aHopDecidesCredentialsOriginAndPreflight() throws {
        var request = PageRequest(url: Self.url("http://127.0.0.1:8001/api"), method: "POST")
        var sameOrigin = CrossOriginFetch(origin: Self.home, mode: .cors, credentials: .sameOrigin)
        let home = try sameOrigin.begin(&request)
        #expect(home.includesCredentials && home.origin == "http://127.0.0.1:8001" && home.preflight == nil)
        #expect(sameOrigin.tainting == .basic)

        request = PageRequest(url: Self.url("http://127.0.0.1:8002/api"), method: "PUT", headers: [HTTPHeader("X-Token", "1")])
        var cors = CrossOriginFetch(origin: Self.home, mode: .cors, credentials: .sameOrigin)
        let other = try cors.begin(&request)
        #expect(!other.includesCredentials && other.origin == "http://127.0.0.1:8001")
        #expect(other.preflight == CrossOriginFetch.Preflight(method: "PUT", headerNames: ["x-token"], withCredentials: false))
        #expect(cors.responseType == "cors")

        request = PageRequest(url: Self.url("http://127.0.0.1:8002/api"), headers: [HTTPHeader("X-Token", "1"), HTTPHeader("Accept", "a")])
        var opaque = CrossOriginFetch(origin: Self.home, mode: .noCORS, credentials: .include)
        let blind = try opaque.begin(&request)
        #expect(blind.includesCredentials && blind.origin == nil && blind.preflight == nil)
        #expect(request.headers == [HTTPHeader("Accept", "a")])

        var strict = CrossOriginFetch(origin: Self.home, mode: .sameOrigin, credentials: .include)
        #expect(throws: CrossOriginFetch.Blocked.self) { try strict.begin(&request) }
        var manual = CrossOriginFetch(origin: Self.home, mode: .noCORS, credentials: .include, followsRedirects: false)
        #expect(throws: CrossOriginFetch.Blocked.self) { try manual.begin(&request) }

        // A secure page's POST to an insecure URL does not tell its origin.
        request = PageRequest(url: Self.url("http://127.0.0.1:8002/api"), method: "POST")
        var downgrade = CrossOriginFetch(origin: SecurityOrigin("https://127.0.0.1:8001")!, mode: .noCORS, credentials: .omit)
        #expect(try downgrade.begin(&request).origin == "null")
    }

    @Test func theCORSCheckAsWebKitHasIt() throws {
        var request = PageRequest(url: Self.url("http://127.0.0.1:8002/api"))
        var anonymous = CrossOriginFetch(origin: Self.home, mode: .cors, credentials: .sameOrigin)
        var credentialed = CrossOriginFetch(origin: Self.home, mode: .cors, credentials: .include)
        _ = try anonymous.begin(&request)
        _ = try credentialed.begin(&request)
        func allows(_ fetch: CrossOriginFetch, _ fields: [(String, String)]) -> Bool {
            (try? fetch.check(fields.map { HTTPHeader($0.0, $0.1) }, status: 200)) != nil
        }
        #expect(allows(anonymous, [("Access-Control-Allow-Origin", "*")]))
        #expect(allows(anonymous, [("access-control-allow-origin", "http://127.0.0.1:8001")]))
        #expect(!allows(anonymous, []))
        #expect(!allows(anonymous, [("Access-Control-Allow-Origin", "http://127.0.0.1:8001/")]))
        #expect(!allows(anonymous, [("Access-Control-Allow-Origin", "*"), ("Access-Control-Allow-Origin", "*")]))
        #expect(!allows(credentialed, [("Access-Control-Allow-Origin", "*"), ("Access-Control-Allow-Credentials", "true")]))
        #expect(
            !allows(credentialed, [("Access-Control-Allow-Origin", "http://127.0.0.1:8001"), ("Access-Control-Allow-Credentials", "True")]))
        #expect(
            allows(credentialed, [("Access-Control-Allow-Origin", "http://127.0.0.1:8001"), ("Access-Control-Allow-Credentials", "true")]))

        let headers = [HTTPHeader("Content-Type", "a"), HTTPHeader("X-Custom", "c"), HTTPHeader("X-Other", "o"), HTTPHeader("ETag", "e")]
        func exposed(_ fetch: CrossOriginFetch, _ names: String) -> [String] {
            fetch.exposedHeaders(headers + [HTTPHeader("Access-Control-Expose-Headers", names)]).map(\.name)
        }
        #expect(exposed(anonymous, " x-custom , ETAG") == ["Content-Type", "X-Custom", "ETag"])
        #expect(exposed(anonymous, "*").count == 5)
        #expect(exposed(credentialed, "*") == ["Content-Type"])
    }

    @Test func aPreflightsAnswerAllowsWhatItNames() throws {
        let fetch = CrossOriginFetch(origin: Self.home, mode: .cors, credentials: .sameOrigin)
        var tainted = fetch
        var request = PageRequest(url: Self.url("http://127.0.0.1:8002/api"), method: "PUT")
        _ = try tainted.begin(&request)
        let put = CrossOriginFetch.Preflight(method: "PUT", headerNames: ["authorization", "x-a"], withCredentials: false)
        func answer(_ fields: [(String, String)], status: Int = 204) throws(CrossOriginFetch.Blocked) -> CORSPreflightCache.Grant {
            try tainted.checkPreflight(
                put, headers: [HTTPHeader("Access-Control-Allow-Origin", "*")] + fields.map { HTTPHeader($0.0, $0.1) }, status: status)
        }
        let grant = try answer([
            ("Access-Control-Allow-Methods", "GET, PUT"), ("Access-Control-Allow-Headers", "X-A, Authorization"),
            ("Access-Control-Max-Age", "7200"),
        ])
        #expect(grant.maxAge == .seconds(600))
        // A wildcard allows `Authorization` as in WebKit.
        #expect(try answer([("Access-Control-Allow-Methods", "*"), ("Access-Control-Allow-Headers", "*")]).maxAge == .seconds(5))
        #expect(throws: CrossOriginFetch.Blocked.self) {
            try answer([("Access-Control-Allow-Methods", "put"), ("Access-Control-Allow-Headers", "*")])
        }
        #expect(throws: CrossOriginFetch.Blocked.self) {
            try answer([("Access-Control-Allow-Methods", "PUT"), ("Access-Control-Allow-Headers", "x-a")])
        }
        #expect(throws: CrossOriginFetch.Blocked.self) {
            try answer([("Access-Control-Allow-Methods", "PUT"), ("Access-Control-Allow-Headers", "*")], status: 302)
        }
        #expect(throws: CrossOriginFetch.Blocked.self) {
            try answer([("Access-Control-Allow-Methods", "P(T"), ("Access-Control-Allow-Headers", "*")])
        }
        // With credentials, `*` is a name like any other.
        let credentialed = CrossOriginFetch.Preflight(method: "PUT", headerNames: [], withCredentials: true)
        let wildcard = CORSPreflightCache.Grant(methods: ["*"], headerNames: ["*"], withCredentials: true, maxAge: .seconds(5))
        #expect(wildcard.refusal(of: credentialed) == "Method PUT is not allowed by Access-Control-Allow-Methods.")
        #expect(wildcard.refusal(of: put) == nil)
    }

    @Test func theCacheServesWhatItWasToldForAsLongAsItWasTold() {
        let cache = CORSPreflightCache()
        let url = Self.url("http://127.0.0.1:8002/api")
        let put = CrossOriginFetch.Preflight(method: "PUT", headerNames: [], withCredentials: false)
        let grant = CORSPreflightCache.Grant(methods: ["PUT"], headerNames: [], withCredentials: false, maxAge: .seconds(60))
        cache.store(grant, from: "http://127.0.0.1:8001", to: url)
        #expect(cache.allows(put, from: "http://127.0.0.1:8001", to: url))
        #expect(!cache.allows(put, from: "null", to: url))
        #expect(
            !cache.allows(
                CrossOriginFetch.Preflight(method: "DELETE", headerNames: [], withCredentials: false), from: "http://127.0.0.1:8001",
                to: url))
        #expect(
            !cache.allows(
                CrossOriginFetch.Preflight(method: "PUT", headerNames: [], withCredentials: true), from: "http://127.0.0.1:8001", to: url))
        var expired = grant
        expired.maxAge = .zero
        cache.store(expired, from: "http://127.0.0.1:8001", to: Self.url("http://127.0.0.1:8002/other"))
        #expect(!cache.allows(put, from: "http://127.0.0.1:8001", to: Self.url("http://127.0.0.1:8002/other")))
        cache.removeAll()
        #expect(!cache.allows(put, from: "http://127.0.0.1:8001", to: url))
    }

    @Test func aRedirectTaintsTheOriginAndDropsAuthorizationAcrossOrigins() throws {
        var fetch = CrossOriginFetch(origin: Self.home, mode: .cors, credentials: .sameOrigin)
        var request = PageRequest(url: Self.url("http://127.0.0.1:8001/go"), headers: [HTTPHeader("Authorization", "x")])
        _ = try fetch.begin(&request)
        request.url = Self.url("http://127.0.0.1:8002/api")
        try fetch.redirect(from: Self.url("http://127.0.0.1:8001/go"), to: &request)
        #expect(request.headers.isEmpty && !fetch.originTainted)
        #expect(try fetch.begin(&request).origin == "http://127.0.0.1:8001")
        request.url = Self.url("http://127.0.0.1:8003/api")
        try fetch.redirect(from: Self.url("http://127.0.0.1:8002/api"), to: &request)
        #expect(fetch.originTainted)
        #expect(try fetch.begin(&request).origin == "null")
        request.url = Self.url("http://user:pass@127.0.0.1:8003/api")
        #expect(throws: CrossOriginFetch.Blocked.self) { try fetch.redirect(from: Self.url("http://127.0.0.1:8003/api"), to: &request) }
    }
}
