import Foundation
import SessionBridgeCookies
import SessionBridgeTestSupport
import Synchronization
import Testing

/// The IETF http-state parser suite, with the rfc6265bis adjustments, run against `CookieJar`.
@Suite(.timeLimit(.minutes(2)), .hangWatchdog) struct ConformanceTests {
    static let directory: URL = {
        if let override = ProcessInfo.processInfo.environment["COOKIES_CONFORMANCE_DIR"] {
            return URL(fileURLWithPath: override)
        }
        return Bundle.module.url(forResource: "Conformance", withExtension: nil)!
    }()

    static func loadCases() throws -> [CookieConformance.Case] {
        try CookieConformance.load(
            contentsOf: directory.appendingPathComponent("http-state.json"),
            adjustments: directory.appendingPathComponent("http-state-adjusted-expectations.json"))
    }

    static let cases: [CookieConformance.Case] = (try? loadCases()) ?? []

    @Test func suiteIsPresent() throws {
        let cases = try Self.loadCases()
        #expect(cases.count == 222)
        #expect(PublicSuffixList.system != nil, "Public Suffix List missing: run Scripts/setup")
    }

    @Test(arguments: cases)
    func httpState(_ testCase: CookieConformance.Case) {
        let result = CookieConformance.run(testCase)
        #expect(result.passed, "\(result) for \(testCase.set_cookie.map(\.value))")
    }
}

extension CookieConformance.Case: CustomTestStringConvertible {
    public var testDescription: String { name }
}

/// A settable clock for tests.
final class TestClock: Sendable {
    private let now: LockedValue<Date>

    init(_ date: Date) { now = LockedValue(date) }

    func set(_ date: Date) { now.set(date) }
    func advance(_ seconds: TimeInterval) { now.update { $0 += seconds } }
    var read: @Sendable () -> Date { { [now] in now.get() } }
}

final class LockedValue<T: Sendable>: Sendable {
    private let mutex: Mutex<T>
    init(_ value: T) { mutex = Mutex(value) }
    func get() -> T { mutex.withLock { $0 } }
    func set(_ value: T) { mutex.withLock { $0 = value } }
    func update(_ body: (inout T) -> Void) { mutex.withLock { body(&$0) } }
}
