import Foundation
import SessionBridgeCookies

/// The fuzz body of `fuzz-set-cookie`: one input is parsed as a `Set-Cookie` value through both
/// entry points, then (split into lines) stored into a fresh jar from several request URLs, over
/// HTTP and as `document.cookie`, and read back. Every invariant is a `precondition`, so a
/// violation is a crash that libFuzzer reports and that the replay mode exits non-zero on.
enum SetCookieFuzz {
    /// Request URLs: secure and insecure, loopback (secure although `http`), IPv4 and IPv6,
    /// hosts under public suffixes, a host that is itself a public suffix, and a deep path.
    static let urls: [URL] = [
        "https://www.example.com/account/login",
        "http://example.com/",
        "http://127.0.0.1:8080/a/b/c",
        "https://[::1]/",
        "http://localhost/app/",
        "https://user.github.io/repo/page",
        "http://shop.example.co.uk/basket/items",
        "https://co.uk/",
        "http://EXAMPLE.com./%7Euser/f%6Fo",
    ].map { URL(string: $0)! }

    /// Request contexts, picked by the input's length so that every context is reachable.
    static let contexts: [RequestContext] = [
        .sameSite,
        .crossSite(topLevelNavigation: true, method: "GET"),
        .crossSite(topLevelNavigation: false, method: "GET"),
        .crossSite(topLevelNavigation: true, method: "POST"),
    ]

    /// Loaded once: reading the list per input would dominate the run.
    static let publicSuffixList = PublicSuffixList.system

    /// A fixed clock keeps every run of an input identical (Max-Age and Expires included).
    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    /// At most this many lines of one input are stored (each from every URL, both ways).
    static let maximumLines = 6

    static func run(_ bytes: UnsafeBufferPointer<UInt8>) {
        unsafe checkParser(bytes)

        let jar = CookieJar(publicSuffixList: publicSuffixList, clock: { now })
        let context = contexts[bytes.count % contexts.count]
        let headers = unsafe bytes.split(separator: UInt8(ascii: "\n"), maxSplits: maximumLines, omittingEmptySubsequences: false)
            .prefix(maximumLines).map { unsafe String(decoding: $0, as: UTF8.self) }
        for header in headers {
            for url in urls {
                store(header, from: url, context: context, in: jar)
                storeFromScript(header, at: url, in: jar)
            }
        }
        for url in urls { checkReads(jar, url) }
        checkContents(jar)
    }

    // MARK: Parser

    static func checkParser(_ bytes: UnsafeBufferPointer<UInt8>) {
        let fromBytes = unsafe SetCookieParser.parse(bytes: bytes)
        let string = unsafe String(decoding: bytes, as: UTF8.self)
        let fromString = SetCookieParser.parse(string)
        // Valid UTF-8 reaches both entry points as the same bytes, so they must agree.
        if unsafe string.utf8.elementsEqual(bytes) {
            precondition(fromBytes == fromString, "parse(_:) and parse(bytes:) disagree")
        }
        let isValidUTF8 = unsafe string.utf8.elementsEqual(bytes)
        checkParsed(fromBytes, lengthsAreOctets: isValidUTF8)
        checkParsed(fromString, lengthsAreOctets: true)
    }

    /// Checks a parse result. `lengthsAreOctets` is false when the input was not valid UTF-8:
    /// the parser measures octets, then repairs each invalid byte to U+FFFD (three bytes), so the
    /// resulting strings may be longer than the limits that were checked.
    static func checkParsed(_ result: Result<ParsedSetCookie, SetCookieError>, lengthsAreOctets: Bool) {
        guard case .success(let parsed) = result else { return }
        precondition(
            !lengthsAreOctets || parsed.name.utf8.count + parsed.value.utf8.count <= SetCookieParser.maximumNameValueLength,
            "parsed name and value longer than 4096 bytes")
        precondition(!(parsed.name.isEmpty && parsed.value.isEmpty), "parsed an empty name and value")
        precondition(!parsed.name.utf8.contains(UInt8(ascii: "=")), "parsed name contains '='")
        for text in [parsed.name, parsed.value] {
            precondition(!text.utf8.contains(UInt8(ascii: ";")), "parsed name or value contains ';'")
            precondition(!containsControl(text), "parsed name or value contains a control character")
            precondition(text.utf8.first != 0x20 && text.utf8.last != 0x20, "parsed name or value is not trimmed")
        }
        for attribute in parsed.attributes {
            switch attribute {
            case .domain(let domain):
                // An empty value is ignored, but `Domain=.` records an empty domain (RFC 6265bis
                // 5.6.3 strips the leading dot after that check); the storage model then makes the
                // cookie host-only, and as the last Domain it overrides earlier ones.
                precondition(
                    !lengthsAreOctets || domain.utf8.count <= SetCookieParser.maximumAttributeValueLength,
                    "Domain longer than 1024")
                precondition(!domain.utf8.contains { $0 >= 0x41 && $0 <= 0x5A }, "Domain not lower-cased")
                precondition(!containsControl(domain) && !domain.utf8.contains(UInt8(ascii: ";")), "Domain holds a CTL or ';'")
            case .path(let path):
                precondition(path.isEmpty || path.utf8.first == UInt8(ascii: "/"), "Path does not start with '/'")
                precondition(
                    !lengthsAreOctets || path.utf8.count <= SetCookieParser.maximumAttributeValueLength,
                    "Path longer than 1024")
                precondition(!containsControl(path) && !path.utf8.contains(UInt8(ascii: ";")), "Path holds a CTL or ';'")
            default:
                break
            }
        }
    }

    // MARK: Storing

    static func store(_ header: String, from url: URL, context: RequestContext, in jar: CookieJar) {
        let before = jar.count
        let outcome = jar.setCookie(header, from: url, context: context)
        let after = jar.count
        if case .failure = SetCookieParser.parse(header) {
            precondition(outcome.error != nil, "a parse failure was not rejected")
        }
        checkOutcome(outcome, before: before, after: after, url: url)
        if let cookie = outcome.cookie {
            if url.scheme == "http", !isLoopback(url) {
                precondition(!cookie.isSecure, "a Secure cookie was stored from an insecure origin")
            }
            if cookie.sameSite == .none { precondition(cookie.isSecure, "SameSite=None stored without Secure") }
        }
    }

    static func storeFromScript(_ string: String, at url: URL, in jar: CookieJar) {
        let before = jar.count
        let outcome = jar.setDocumentCookie(string, for: url)
        let after = jar.count
        checkOutcome(outcome, before: before, after: after, url: url)
        switch outcome {
        case .stored(let cookie):
            precondition(!cookie.isHttpOnly, "document.cookie created an HttpOnly cookie")
        case .replaced(let cookie, let previous):
            precondition(!cookie.isHttpOnly && !previous.isHttpOnly, "document.cookie replaced an HttpOnly cookie")
        case .deleted(let old):
            precondition(old?.isHttpOnly != true, "document.cookie deleted an HttpOnly cookie")
        case .rejected:
            break
        }
    }

    /// The jar's count moves exactly as the outcome says (no eviction happens at these sizes).
    static func checkOutcome(_ outcome: SetCookieOutcome, before: Int, after: Int, url: URL) {
        switch outcome {
        case .rejected:
            precondition(after == before, "a rejected cookie changed the jar (\(before) -> \(after))")
        case .stored(let cookie):
            precondition(after == before + 1, "a stored cookie did not add one (\(before) -> \(after))")
            checkCookie(cookie, url: url)
        case .replaced(let cookie, let previous):
            precondition(after == before, "a replacement changed the count (\(before) -> \(after))")
            precondition(cookie.hasSameIdentity(as: previous), "replaced a cookie of another identity")
            checkCookie(cookie, url: url)
        case .deleted(let old):
            precondition(after == before - (old == nil ? 0 : 1), "a deletion moved the count wrongly (\(before) -> \(after))")
        }
    }

    static func checkCookie(_ cookie: Cookie, url: URL) {
        precondition(
            cookie.name.utf8.count + cookie.value.utf8.count <= SetCookieParser.maximumNameValueLength,
            "stored name and value longer than 4096 bytes")
        precondition(!cookie.isExpired(at: now), "stored an expired cookie")
        precondition(cookie.path.utf8.first == UInt8(ascii: "/"), "stored a path not starting with '/'")
        precondition(!cookie.domain.isEmpty, "stored an empty domain")
        precondition(!cookie.domain.utf8.contains { $0 >= 0x80 }, "stored a non-ASCII domain")
        if !cookie.isHostOnly, let publicSuffixList {
            precondition(!publicSuffixList.isPublicSuffix(cookie.domain), "stored a domain cookie on a public suffix")
        }
        if let expiresAt = cookie.expiresAt {
            precondition(expiresAt <= now.addingTimeInterval(CookieJarLimits.default.maximumAge), "lifetime above the cap")
        }
        let lowered = cookie.name.lowercased()
        if lowered.hasPrefix("__secure-") || lowered.hasPrefix("__host-") {
            precondition(cookie.isSecure, "a prefixed cookie without Secure")
        }
    }

    // MARK: Reading

    static func checkReads(_ jar: CookieJar, _ url: URL) {
        let sent = jar.cookies(for: url)
        let header = jar.cookieHeader(for: url)
        let document = jar.documentCookie(for: url)
        for text in [header ?? "", document] {
            precondition(!text.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }, "header holds CR, LF or NUL")
        }
        precondition(header == (sent.isEmpty ? nil : serialize(sent)), "Cookie header differs from cookies(for:)")
        precondition(document == serialize(sent.filter { !$0.isHttpOnly }), "document.cookie holds an HttpOnly cookie")
        if url.scheme == "http", !isLoopback(url) {
            precondition(!sent.contains(where: \.isSecure), "a Secure cookie is sent over an insecure channel")
        }
        for cookie in sent { precondition(!cookie.isExpired(at: now), "an expired cookie is sent") }
    }

    static func checkContents(_ jar: CookieJar) {
        let all = jar.allCookies
        precondition(all.count == jar.count, "count \(jar.count) but \(all.count) cookies held")
        for (i, a) in all.enumerated() {
            for b in all[(i + 1)...] { precondition(!a.hasSameIdentity(as: b), "two cookies share one identity") }
        }
    }

    // MARK: Helpers

    static func serialize(_ cookies: [Cookie]) -> String {
        cookies.map(\.headerPair).joined(separator: "; ")
    }

    static func containsControl(_ text: String) -> Bool {
        text.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
    }

    static func isLoopback(_ url: URL) -> Bool {
        let host = url.host(percentEncoded: false)?.lowercased() ?? ""
        return host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
    }
}
