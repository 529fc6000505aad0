import Bridge
import Cookies
import Foundation
import Session
import SessionBridgeTesting
import WebPage

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
