import Foundation
import SessionBridgeHeadless
import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeWebKit

/// WebKit cancels the navigation a new load replaces, and its report of that cancellation comes
/// from another process: it can arrive after the new load has started. Replayed in that order,
/// it neither fails the new load nor hides its end (seen under load as a load that superseded
/// another failing with "the navigation was cancelled").
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct ReplacedNavigationTests {
    @Test func aReplacedNavigationsLateCancellationIsNotTheNewLoads() async throws {
        try await withSite { site in
            try await withView(WebKitWebViewConfiguration()) { view in
                try await view.load(site.url("/start"))
                let replaced = site.url("/slow/5000")
                let first = Task { @WebKitActor in try await view.load(replaced) }
                for _ in 0..<300 where site.requests(to: "/slow/5000").isEmpty { try await Task.sleep(for: .milliseconds(10)) }
                let second = Task { @WebKitActor in try await view.load(site.url("/slow/800")) }
                // Until WebKit has started the new load (the server answers it after 800 ms).
                for _ in 0..<300 where view.pendingLoad?.started != true || view.provisionalURL?.path != "/slow/800" {
                    try await Task.sleep(for: .milliseconds(5))
                }
                #expect(view.pendingLoad?.started == true && view.provisionalURL?.path == "/slow/800")
                view.navigationWasCancelled(uri: replaced.absoluteString)
                let navigation = try await second.value
                #expect(navigation.url.path == "/slow/800")
                #expect(view.url?.path == "/slow/800")
                let superseded = await #expect(throws: PageError.self) { try await first.value }
                #expect(superseded?.code == .superseded)
            }
        }
    }

    /// The current navigation's own cancellation still fails its load at once.
    @Test func theCurrentNavigationsCancellationFailsItsLoad() async throws {
        try await withSite { site in
            try await withView(WebKitWebViewConfiguration()) { view in
                try await view.load(site.url("/start"))
                let target = site.url("/slow/3000")
                let load = Task { @WebKitActor in try await view.load(target) }
                for _ in 0..<300 where view.pendingLoad?.started != true || view.provisionalURL != target {
                    try await Task.sleep(for: .milliseconds(5))
                }
                view.navigationWasCancelled(uri: target.absoluteString)
                // Failed, not the page the server sends after 3 s.
                let failure = await #expect(throws: PageError.self) { try await load.value }
                #expect(failure?.code == .cancelled)
            }
        }
    }
}
