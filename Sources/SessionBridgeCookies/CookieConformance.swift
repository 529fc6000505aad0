package import Foundation
import Synchronization

/// Cookie conformance cases in the http-state JSON form and its extended form (see the
/// project's conformance data README), and a runner that checks a ``CookieJar`` against them.
///
/// ```swift
/// let cases = try CookieConformance.load(contentsOf: url)
/// for result in CookieConformance.run(cases) where !result.passed { print(result) }
/// ```
package enum CookieConformance {
    /// One `Set-Cookie` (or `document.cookie` write) of a case.
    package struct Entry: Decodable, Sendable, Hashable {
        package var value: String
        package var url: String?
        /// `"http"` (default) or `"script"`.
        package var via: String?

        package init(from decoder: any Decoder) throws {
            if let string = try? decoder.singleValueContainer().decode(String.self) {
                value = string
                return
            }
            let container = try decoder.container(keyedBy: CodingKeys.self)
            value = try container.decode(String.self, forKey: .value)
            url = try container.decodeIfPresent(String.self, forKey: .url)
            via = try container.decodeIfPresent(String.self, forKey: .via)
        }

        enum CodingKeys: String, CodingKey { case value, url, via }
    }

    /// The request context of a case's read.
    package struct Context: Decodable, Sendable, Hashable {
        package var cross_site: Bool?
        package var top_level: Bool?
        package var method: String?
    }

    /// One case.
    package struct Case: Decodable, Sendable, Hashable {
        package var name: String
        package var set_cookie: [Entry]
        package var request_url: String
        package var cookie_url: String
        package var expected_cookie_header: String
        package var read: String?
        package var context: Context?
        package var clock: String?
        package var read_clock: String?
    }

    /// The outcome of one case.
    package struct Result: Sendable, Hashable, CustomStringConvertible {
        package var name: String
        package var expected: String
        package var actual: String
        package var passed: Bool { expected == actual }

        package var description: String {
            "\(name): expected \(expected.isEmpty ? "no Cookie header" : "\"\(expected)\""), got \(actual.isEmpty ? "no Cookie header" : "\"\(actual)\"")"
        }
    }

    /// A case file is not readable as conformance cases.
    package struct LoadError: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    /// The suite's fixed clock, 2017-08-09T00:00:00Z.
    package static let suiteDate = Date(timeIntervalSince1970: 1_502_236_800)

    /// Reads cases; when `adjustments` is given (the `http-state-adjusted-expectations.json`
    /// form), its `rfc6265bis` expectations replace the upstream ones.
    package static func load(contentsOf url: URL, adjustments: URL? = nil) throws(LoadError) -> [Case] {
        var cases: [Case]
        do {
            cases = try JSONDecoder().decode([Case].self, from: Data(contentsOf: url))
        } catch {
            throw LoadError(description: "\(url.path) is not a list of cookie conformance cases: \(error.localizedDescription)")
        }
        guard let adjustments else { return cases }
        struct Adjustment: Decodable { var name: String; var kind: String; var expected_cookie_header: String }
        struct File: Decodable { var adjustments: [Adjustment] }
        do {
            let file = try JSONDecoder().decode(File.self, from: Data(contentsOf: adjustments))
            var expected: [String: String] = [:]
            for adjustment in file.adjustments where adjustment.kind == "rfc6265bis" {
                expected[adjustment.name] = adjustment.expected_cookie_header
            }
            for index in cases.indices { if let value = expected[cases[index].name] { cases[index].expected_cookie_header = value } }
        } catch {
            throw LoadError(description: "\(adjustments.path) is not an adjustments file: \(error.localizedDescription)")
        }
        return cases
    }

    /// Runs one case against a fresh jar.
    package static func run(_ testCase: Case, publicSuffixList: PublicSuffixList? = .system) -> Result {
        let setClock = date(testCase.clock)
        let readClock = testCase.read_clock.map { date($0) } ?? setClock
        let now = ConformanceClock(setClock)
        let jar = CookieJar(publicSuffixList: publicSuffixList, clock: { now.date })
        for entry in testCase.set_cookie {
            guard let url = URL(string: entry.url ?? testCase.request_url) else { continue }
            if entry.via == "script" { jar.setDocumentCookie(entry.value, for: url) } else { jar.setCookie(entry.value, from: url) }
        }
        now.date = readClock
        var actual = ""
        if let cookieURL = URL(string: testCase.cookie_url) {
            if testCase.read == "script" {
                actual = jar.documentCookie(for: cookieURL)
            } else {
                let context = RequestContext(
                    isCrossSite: testCase.context?.cross_site ?? false, isTopLevelNavigation: testCase.context?.top_level ?? true,
                    method: testCase.context?.method ?? "GET")
                actual = jar.cookieHeader(for: cookieURL, context: context) ?? ""
            }
        }
        return Result(name: testCase.name, expected: testCase.expected_cookie_header, actual: actual)
    }

    /// Runs every case.
    package static func run(_ cases: [Case], publicSuffixList: PublicSuffixList? = .system) -> [Result] {
        cases.map { run($0, publicSuffixList: publicSuffixList) }
    }

    static func date(_ rfc3339: String?) -> Date {
        guard let rfc3339 else { return suiteDate }
        return ISO8601DateFormatter().date(from: rfc3339) ?? suiteDate
    }
}

/// The settable clock of one conformance case.
private final class ConformanceClock: Sendable {
    private let mutex: Mutex<Date>
    init(_ date: Date) { mutex = Mutex(date) }
    var date: Date {
        get { mutex.withLock { $0 } }
        set { mutex.withLock { $0 = newValue } }
    }
}
