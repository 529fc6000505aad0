import Foundation
import SessionBridgeHeadless
import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeWebKit

/// WebKit cancels the navigation a new load replaces, and its report of that cancellation comes
/// from another process: it can arrive after the new load has started. Replayed in that order,
/// it neither fails the new load nor hides its end (seen under load as a load that superseded
/// another failing with "the navigation was cancelled"), and the end WebKit reports right after
/// it is not the new load's (seen under load as the new load ending at the old page's URL).
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct ReplacedNavigationTests {
    @Test func aReplacedNavigationsLateCancellationIsNotTheNewLoads() async throws {
        try await withSite { site in
            try await withView(WebKitWebViewConfiguration()) { view in
                try await view.load(site.url("/start"))
                let replaced = site.url("/slow/5000")
                let first = Task { @WebKitActor in try await view.load(replaced) }
                for _ in 0..<1000 where site.requests(to: "/slow/5000").isEmpty { try await Task.sleep(for: .milliseconds(10)) }
                let second = Task { @WebKitActor in try await view.load(site.url("/held/second")) }
                // Until WebKit has started the new load (the server holds its answer until then).
                #expect(try await hasStarted("/held/second", in: view))
                view.navigationWasCancelled(uri: replaced.absoluteString)
                site.release("second")
                let navigation = try await second.value
                #expect(navigation.url.path == "/held/second")
                #expect(view.url?.path == "/held/second")
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
                let target = site.url("/held/current")
                let load = Task { @WebKitActor in try await view.load(target) }
                #expect(try await hasStarted("/held/current", in: view))
                view.navigationWasCancelled(uri: target.absoluteString)
                // Failed, not the page the server sends once released.
                let failure = await #expect(throws: PageError.self) { try await load.value }
                #expect(failure?.code == .cancelled)
                site.release("current")
            }
        }
    }

    /// Waits (up to 2,000 polls) until WebKit has started the view's pending load of `path`.
    @WebKitActor private func hasStarted(_ path: String, in view: WebKitWebView) async throws -> Bool {
        for _ in 0..<2000 where view.pendingLoad?.started != true || view.provisionalURL?.path != path {
            try await Task.sleep(for: .milliseconds(5))
        }
        return view.pendingLoad?.started == true && view.provisionalURL?.path == path
    }
}
