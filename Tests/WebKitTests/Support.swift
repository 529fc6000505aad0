import Foundation
import OrderedCollections
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeWebKit
import Testing

/// A view for one test, closed when the body ends (also when it throws).
@WebKitActor
func withView<T: Sendable>(
    _ configuration: WebKitWebViewConfiguration = WebKitWebViewConfiguration(),
    _ body: @WebKitActor (WebKitWebView) async throws -> T
) async throws -> T {
    let view = try WebKitWebView(configuration: configuration)
    do {
        let result = try await body(view)
        await view.close()
        return result
    } catch {
        await view.close()
        throw error
    }
}

/// A test site for one test, stopped when the body ends.
func withSite<T: Sendable>(pages: [String: String] = [:], _ body: (TestSite) async throws -> T) async throws -> T {
    let site = try await TestSite.start(pages: pages)
    do {
        let result = try await body(site)
        await site.stop()
        return result
    } catch {
        await site.stop()
        throw error
    }
}

func temporaryDirectory() -> URL {
    (try? TestDirectory.make(prefix: "webkit-tests-"))
        ?? FileManager.default.temporaryDirectory.appendingPathComponent("webkit-tests-\(UUID().uuidString)")
}

extension TestSite {
    var origin: SecurityOrigin { SecurityOrigin(url: baseURL)! }
}

/// A navigation delegate made of a closure.
struct ClosureNavigationDelegate: NavigationDelegate {
    let decide: @Sendable (any WebView, NavigationAction) async -> NavigationActionPolicy

    func webPage(_ page: any WebView, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy {
        await decide(page, action)
    }
}

extension ScriptValue {
    /// The value with every object's keys sorted, for comparisons that ignore key order.
    var sortedKeys: ScriptValue {
        switch self {
        case .object(let members):
            return .object(.init(uniqueKeysWithValues: members.sorted { $0.key < $1.key }.map { ($0.key, $0.value.sortedKeys) }))
        case .array(let elements):
            return .array(elements.map(\.sortedKeys))
        default:
            return self
        }
    }
}

/// Checks `condition` every 20 ms until it holds; `false` after ten seconds.
func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .seconds(10)
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return false
}
