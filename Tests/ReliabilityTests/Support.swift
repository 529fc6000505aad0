import Foundation
import SessionBridge
import SessionBridgeCookies
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeTesting
import Testing

/// How the token server treats a refresh token presented again after its rotation.
enum TokenServer: String, Sendable, CaseIterable, CustomTestStringConvertible {
    /// No reuse grace: any second use revokes the session. When an answer was lost after a
    /// rotation, the documented end is `invalid_grant` on the next refresh.
    case strict
    /// A 30 s reuse grace on the server, and the client configured with it: a lost answer is
    /// asked again and nothing is lost.
    case grace

    var testDescription: String { rawValue }
    var reuseGrace: Duration { self == .strict ? .zero : .seconds(30) }
    var serverConfiguration: ReferenceServerConfiguration { ReferenceServerConfiguration(refreshTokenReuseGrace: reuseGrace) }
}

/// A reference server shared by one test, stopped when the body ends (thrown or not).
func withReferenceServer<T>(
    _ configuration: ReferenceServerConfiguration = .init(), _ body: (ReferenceServer) async throws -> T
) async throws -> T {
    try await ReferenceServer.withRunning(configuration, body)
}

extension CookieJar {
    func value(_ name: String, for url: URL) -> String? {
        cookies(for: url).first { $0.name == name }?.value
    }
}

/// A fresh directory under the temporary directory.
func makeTemporaryDirectory(_ label: String) -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("reliability-\(label)-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Every string inside a script value.
func strings(of value: ScriptValue) -> [String] {
    var result: [String] = []
    value.forEachString { result.append($0) }
    return result
}

/// Which of `tokens` occur in any of `haystack`.
func hits(of tokens: [String], in haystack: [String]) -> [String] {
    tokens.filter { token in haystack.contains { $0.contains(token) } }
}

extension Result {
    /// The error, if this is a failure.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
