import Cookies
import Foundation
import Testing

/// The IETF http-state parser suite, with the rfc6265bis adjustments, run against `CookieJar`.
struct ConformanceTests {
    struct SetCookieEntry: Decodable, Sendable {
        var value: String
        var url: String?
        var via: String?

        init(from decoder: any Decoder) throws {
            if let string = try? decoder.singleValueContainer().decode(String.self) {
                value = string
                return
            }
            let c = try decoder.container(keyedBy: CodingKeys.self)
            value = try c.decode(String.self, forKey: .value)
            url = try c.decodeIfPresent(String.self, forKey: .url)
            via = try c.decodeIfPresent(String.self, forKey: .via)
        }

        enum CodingKeys: String, CodingKey { case value, url, via }
    }

    struct Context: Decodable, Sendable {
        var cross_site: Bool?
        var top_level: Bool?
        var method: String?
    }

    struct Case: Decodable, Sendable, CustomTestStringConvertible {
        var name: String
        var set_cookie: [SetCookieEntry]
        var request_url: String
        var cookie_url: String
        var expected_cookie_header: String
        var read: String?
        var context: Context?
        var clock: String?
        var read_clock: String?

        var testDescription: String { name }
    }

    struct Adjustment: Decodable {
        var name: String
        var kind: String
        var expected_cookie_header: String
    }

    struct Adjustments: Decodable { var adjustments: [Adjustment] }

    static let directory: URL = {
        if let override = ProcessInfo.processInfo.environment["COOKIES_CONFORMANCE_DIR"] {
            return URL(fileURLWithPath: override)
        }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()
            .appendingPathComponent("../../../shared/conformance/cookies/")
            .standardizedFileURL
    }()

    static func loadCases() throws -> [Case] {
        let data = try Data(contentsOf: directory.appendingPathComponent("http-state.json"))
        var cases = try JSONDecoder().decode([Case].self, from: data)
        let adjData = try Data(contentsOf: directory.appendingPathComponent("http-state-adjusted-expectations.json"))
        let adjustments = try JSONDecoder().decode(Adjustments.self, from: adjData).adjustments
        var byName: [String: String] = [:]
        for a in adjustments where a.kind == "rfc6265bis" { byName[a.name] = a.expected_cookie_header }
        for i in cases.indices {
            if let adjusted = byName[cases[i].name] { cases[i].expected_cookie_header = adjusted }
        }
        return cases
    }

    static let cases: [Case] = (try? loadCases()) ?? []

    static func date(_ rfc3339: String?) -> Date {
        guard let rfc3339 else { return Date(timeIntervalSince1970: 1_502_236_800) }  // 2017-08-09T00:00:00Z
        return ISO8601DateFormatter().date(from: rfc3339)!
    }

    /// Runs one case; returns the header the jar produced.
    static func run(_ c: Case) -> String {
        let setClock = date(c.clock)
        let readClock = c.read_clock.map { date($0) } ?? setClock
        let now = TestClock(setClock)
        let jar = CookieJar(publicSuffixList: PublicSuffixList.system, clock: now.read)
        for entry in c.set_cookie {
            let url = URL(string: entry.url ?? c.request_url)!
            if entry.via == "script" {
                jar.setDocumentCookie(entry.value, for: url)
            } else {
                jar.setCookie(entry.value, from: url)
            }
        }
        now.set(readClock)
        let cookieURL = URL(string: c.cookie_url)!
        if c.read == "script" { return jar.documentCookie(for: cookieURL) }
        let context = RequestContext(
            isCrossSite: c.context?.cross_site ?? false,
            isTopLevelNavigation: c.context?.top_level ?? true,
            method: c.context?.method ?? "GET")
        return jar.cookieHeader(for: cookieURL, context: context) ?? ""
    }

    @Test func suiteIsPresent() throws {
        let cases = try Self.loadCases()
        #expect(cases.count == 222)
        #expect(PublicSuffixList.system != nil, "Public Suffix List missing: run Scripts/setup")
    }

    @Test(arguments: cases)
    func httpState(_ c: Case) {
        let header = Self.run(c)
        #expect(header == c.expected_cookie_header, "case \(c.name): \(c.set_cookie.map(\.value))")
    }
}

/// A settable clock for tests.
final class TestClock: Sendable {
    private let now: LockedValue<Date>

    init(_ date: Date) { now = LockedValue(date) }

    func set(_ date: Date) { now.set(date) }
    func advance(_ seconds: TimeInterval) { now.update { $0 += seconds } }
    var read: @Sendable () -> Date { { [now] in now.get() } }
}

import Synchronization

final class LockedValue<T: Sendable>: Sendable {
    private let mutex: Mutex<T>
    init(_ value: T) { mutex = Mutex(value) }
    func get() -> T { mutex.withLock { $0 } }
    func set(_ value: T) { mutex.withLock { $0 = value } }
    func update(_ body: (inout T) -> Void) { mutex.withLock { body(&$0) } }
}
