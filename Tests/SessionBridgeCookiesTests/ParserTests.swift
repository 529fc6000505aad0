import Foundation
import PropertyBased
import SessionBridgeCookies
import SessionBridgeTestSupport
import Testing

@Suite(.timeLimit(.minutes(5)), .hangWatchdog) struct ParserTests {
    func parsed(_ header: String) throws -> ParsedSetCookie {
        try SetCookieParser.parse(header).get()
    }

    @Test func nameValueAndAttributes() throws {
        let p = try parsed(
            " sid = a b ; Path=/app; Domain=.Example.COM; Secure; HttpOnly; SameSite=Strict; Max-Age=60; Partitioned")
        #expect(p.name == "sid")
        #expect(p.value == "a b")
        #expect(p.path == "/app")
        #expect(p.domain == "example.com")
        #expect(p.isSecure && p.isHttpOnly && p.isPartitioned)
        #expect(p.sameSite == .strict)
        #expect(p.maxAge == 60)
        #expect(p.ignored.isEmpty)
    }

    /// The scan reads eight bytes at a time: every byte position of a long line, in every
    /// alignment, must be seen exactly as a byte-by-byte scan sees it.
    @Test func controlsAndSemicolonsAreFoundAtEveryOffsetOfALongLine() throws {
        let base = "name=" + String(repeating: "v", count: 40) + "; Path=/; Secure"
        let bytes = Array(base.utf8)
        for position in 0..<bytes.count {
            for control: UInt8 in [0x00, 0x0A, 0x0D, 0x1F, 0x7F] {
                var line = bytes
                line[position] = control
                #expect(SetCookieParser.parse(String(decoding: line, as: UTF8.self)) == .failure(.controlCharacter(offset: position)))
            }
        }
        // A tab anywhere in a value is kept; high bytes are not controls.
        for position in 6..<44 {
            var line = bytes
            line[position] = 0x09
            #expect(try parsed(String(decoding: line, as: UTF8.self)).value.contains("\t"))
        }
        #expect(try parsed("k=" + String(repeating: "é", count: 20) + "; Path=/x").path == "/x")
        // Attributes after semicolons in any alignment.
        for padding in 0..<9 {
            let p = try parsed("a=" + String(repeating: "b", count: padding) + ";Secure;HttpOnly;Path=/p;SameSite=Lax;Max-Age=5")
            #expect(p.isSecure && p.isHttpOnly && p.path == "/p" && p.sameSite == .lax && p.maxAge == 5)
            #expect(p.value.count == padding)
        }
    }

    @Test func namelessCookies() throws {
        let a = try parsed("foo")
        #expect(a.name == "" && a.value == "foo")
        let b = try parsed("=x=y")
        #expect(b.name == "" && b.value == "x=y")
        #expect(SetCookieParser.parse("=") == .failure(.emptyNameAndValue))
        #expect(SetCookieParser.parse("  ") == .failure(.emptyNameAndValue))
        #expect(SetCookieParser.parse("; Path=/") == .failure(.emptyNameAndValue))
    }

    /// The name a report shows for a line: a nameless cookie's is empty, never its value.
    @Test func cookieNameForReportsIsNeverTheValue() {
        let cases: [(String, String)] = [
            ("a=b", "a"), (" a \t= b ; Path=/", "a"), ("sid=x=y; Secure", "sid"), ("secret", ""), ("secret; Path=/", ""),
            ("=secret", ""), (";a=b", ""), ("", ""), ("  =v", ""), ("é=1", "é"),
        ]
        for (line, name) in cases {
            #expect(SetCookieParser.cookieName(of: line) == name, "\(line)")
            // The parser agrees wherever it keeps the cookie.
            if case .success(let parsed) = SetCookieParser.parse(line) { #expect(parsed.name == name, "\(line)") }
        }
    }

    @Test func controlCharactersIgnoreTheWholeLine() {
        #expect(SetCookieParser.parse("a=b\u{0}c") == .failure(.controlCharacter(offset: 3)))
        #expect(SetCookieParser.parse("a=b; Path=/\r") == .failure(.controlCharacter(offset: 11)))
        #expect(SetCookieParser.parse("a=b\u{7F}") == .failure(.controlCharacter(offset: 3)))
        #expect((try? SetCookieParser.parse("a=b\tc").get())?.value == "b\tc")
    }

    @Test func sizeLimits() throws {
        let name = String(repeating: "n", count: 2000)
        let value = String(repeating: "v", count: 2096)
        #expect((try? SetCookieParser.parse("\(name)=\(value)").get()) != nil)
        #expect(SetCookieParser.parse("\(name)=\(value)v") == .failure(.nameAndValueTooLong(length: 4097)))
        let longPath = "/" + String(repeating: "p", count: 1024)
        let p = try parsed("a=b; Path=\(longPath); Path=/ok")
        #expect(p.path == "/ok")
        #expect(p.ignored.first?.reason == .valueTooLong(length: 1025))
        let ok = try parsed("a=b; Path=\(longPath.dropLast())")
        #expect(ok.path?.utf8.count == 1024)
    }

    @Test func maxAgeForms() throws {
        #expect(try parsed("a=b; Max-Age=0").maxAge == 0)
        #expect(try parsed("a=b; Max-Age=-5").maxAge == -5)
        #expect(try parsed("a=b; max-age=99999999999999999999999").maxAge == Int64.max)
        for bad in ["a=b; Max-Age=", "a=b; Max-Age=1.5", "a=b; Max-Age=+3", "a=b; Max-Age=-", "a=b; Max-Age=3x"] {
            let p = try parsed(bad)
            #expect(p.maxAge == nil, "\(bad)")
            #expect(p.ignored.first?.reason == .invalidMaxAge, "\(bad)")
        }
    }

    @Test func sameSiteValues() throws {
        #expect(try parsed("a=b; SameSite=lax").sameSite == .lax)
        #expect(try parsed("a=b; samesite=NONE").sameSite == SameSite.none)
        #expect(try parsed("a=b; SameSite=bogus").sameSite == .unspecified)
        #expect(try parsed("a=b; SameSite").sameSite == .unspecified)
        #expect(try parsed("a=b; SameSite=Lax; SameSite=Strict").sameSite == .strict)
    }

    @Test func domainAndPathAttributes() throws {
        #expect(try parsed("a=b; Domain=").domain == nil)
        #expect(try parsed("a=b; Domain=").ignored.first?.reason == .emptyDomain)
        #expect(try parsed("a=b; Domain=.EXAMPLE.org").domain == "example.org")
        // `Domain=.` is not empty, so it is kept; without its dot it records an empty domain,
        // which as the last Domain attribute wins (RFC 6265bis 5.6.3, 5.7 step 9).
        #expect(try parsed("a=b; Domain=example.org; Domain=.").domain == "")
        #expect(try parsed("a=b; Domain=BÜCHER.example").domain == "bÜcher.example")  // ASCII-only lower-casing
        #expect(try parsed("a=b; Path=relative").path == "")
        #expect(try parsed("a=b; Path=").path == "")
        #expect(try parsed("a=b; Unknown=1").ignored.first?.reason == .unknownAttribute)
    }

    @Test func commasAreNotSeparators() throws {
        let p = try parsed("a=b, c=d; Expires=Wed, 09 Jun 2021 10:18:14 GMT")
        #expect(p.name == "a" && p.value == "b, c=d")
        #expect(p.expires == Date(timeIntervalSince1970: 1_623_233_894))
    }

    static let nov6 = Date(timeIntervalSince1970: 784_111_777)  // 1994-11-06T08:49:37Z

    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT",  // RFC 1123
        "Sunday, 06-Nov-94 08:49:37 GMT",  // RFC 850
        "Sun Nov  6 08:49:37 1994",  // asctime
        "Sun, 06-Nov-1994 08:49:37 GMT",
        "06 Nov 1994 08:49:37",
        "6 November 94 8:49:37",
        "1994 Nov 06 08:49:37 UTC",
        "Sun,06 Nov 1994 08:49:37",
        "nov 06 1994 08:49:37xyz",
        "08:49:37 6 NOVEMBER 1994 +0000",
    ])
    func dateForms(_ text: String) {
        #expect(CookieDate.parse(text) == Self.nov6, "\(text)")
    }

    @Test func twoDigitYears() {
        #expect(CookieDate.parse("01 Jan 70 00:00:00") == Date(timeIntervalSince1970: 0))
        #expect(CookieDate.parse("01 Jan 69 00:00:00") == Date(timeIntervalSince1970: 3_124_224_000))  // 2069
        #expect(CookieDate.parse("29 Feb 2000 00:00:00") == Date(timeIntervalSince1970: 951_782_400))
    }

    @Test(arguments: [
        "30 Feb 2020 00:00:00", "29 Feb 2100 00:00:00", "06 Nov 1994 24:00:00", "06 Nov 1994 08:60:00",
        "06 Nov 1994 08:49:60", "06 Nov 1600 08:49:37", "06 Nov 1994", "Nov 1994 08:49:37", "32 Nov 1994 08:49:37",
        "06 Foo 1994 08:49:37", "", "06 Nov 19940 08:49:37", "Sun,06Nov 1994 08:49:37",
    ])
    func invalidDates(_ text: String) {
        #expect(CookieDate.parse(text) == nil, "\(text)")
    }

    @Test func invalidExpiresIsIgnoredNotFatal() throws {
        let p = try parsed("a=b; Expires=never")
        #expect(p.expires == nil)
        #expect(p.ignored == [IgnoredAttribute(name: "Expires", value: "never", reason: .invalidDate)])
    }

    @Test func errorsHaveDescriptions() {
        #expect(SetCookieError.publicSuffixDomain("com").description.contains("public suffix"))
        #expect(AttributeIssue.invalidDate.description.contains("Expires"))
    }

    /// Random bytes never crash the parser, and a success always satisfies the parser's
    /// invariants; stored into a jar, the cookie is either fully applied or not at all.
    @Test func randomBytesNeverCrashOrHalfApply() async {
        let url = URL(string: "https://www.example.com/a/b")!
        await propertyCheck(count: 2000, input: Gen.uint8().array(of: 0...120)) { bytes in
            let result = unsafe bytes.withUnsafeBufferPointer { unsafe SetCookieParser.parse(bytes: $0) }
            let asString = SetCookieParser.parse(String(decoding: bytes, as: UTF8.self))
            if case .success(let p) = result {
                #expect(!(p.name.isEmpty && p.value.isEmpty))
                #expect(p.name.utf8.count + p.value.utf8.count <= 4096)
                #expect(!p.name.utf8.contains { $0 < 0x20 && $0 != 0x09 })
                #expect(!p.value.utf8.contains(0x3B))
            }
            let jar = CookieJar(publicSuffixList: nil, clock: { Date(timeIntervalSince1970: 1_502_236_800) })
            let outcome = jar.setCookie(String(decoding: bytes, as: UTF8.self), from: url)
            switch outcome {
            case .rejected:
                #expect(jar.allCookies.isEmpty)
            case .deleted:
                #expect(jar.allCookies.isEmpty)
            case .stored(let cookie), .replaced(let cookie, _):
                guard case .success(let p) = asString else {
                    Issue.record("stored a cookie the parser rejected")
                    return
                }
                #expect(jar.allCookies == [cookie])
                #expect(cookie.name == p.name && cookie.value == p.value)
                #expect(cookie.isSecure == p.isSecure && cookie.isHttpOnly == p.isHttpOnly)
                #expect(cookie.sameSite == (p.sameSite ?? .unspecified))
                #expect(cookie.isPersistent == (p.maxAge != nil || p.expires != nil))
            }
        }
    }

    @Test func randomAttributeSoupNeverHalfApplies() async {
        let pieces = [
            "a=b", "=", ";", " ", "Secure", "HttpOnly", "Path=/", "Path=x", "Domain=example.com", "Domain=com",
            "Max-Age=0", "Max-Age=10", "Expires=Sun, 06 Nov 1994 08:49:37 GMT", "SameSite=None", "SameSite=Lax",
            "__Host-x=1", "__Secure-y=2", "\u{1}", "\t", "é", "Partitioned", "Domain=.other.org",
        ]
        let url = URL(string: "https://www.example.com/")!
        await propertyCheck(count: 1000, input: Gen.int(in: 0...(pieces.count - 1)).array(of: 0...12)) { indices in
            let header = indices.map { pieces[$0] }.joined()
            let jar = CookieJar(clock: { Date(timeIntervalSince1970: 1_502_236_800) })
            let outcome = jar.setCookie(header, from: url)
            if let cookie = outcome.cookie {
                #expect(jar.allCookies == [cookie], "\(header)")
            } else {
                #expect(jar.allCookies.isEmpty, "\(header)")
            }
        }
    }
}
