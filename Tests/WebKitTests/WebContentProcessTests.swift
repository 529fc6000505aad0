import Foundation
import SessionBridgeHeadless
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeWebKit
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A page's web content process that ends is reported with WebKit's reason: to the pending
/// load, as `PageEvent.webContentProcessTerminated`, and to the navigation delegate
/// (`webContentProcessDidTerminate`), as a WKWebView app hears of it; the next load starts a new
/// process.
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct WebContentProcessTests {
    /// Records what the delegate and the event handler heard of the process.
    final class Heard: NavigationDelegate {
        let delegate = Mutex<[WebContentProcessTerminationReason]>([])
        let events = Mutex<[WebContentProcessTerminationReason]>([])

        func webPage(_ page: any WebView, webContentProcessDidTerminate reason: WebContentProcessTerminationReason) async {
            delegate.withLock { $0.append(reason) }
        }

        func record(_ event: PageEvent) {
            if case .webContentProcessTerminated(let reason, _) = event { events.withLock { $0.append(reason) } }
        }

        /// Waits (a bounded while) until the delegate has heard `count` reports.
        func waitForReports(_ count: Int) async {
            for _ in 0..<400 where delegate.withLock({ $0.count }) < count {
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    @Test func aProcessEndedForTheTimeLimitIsReportedAsSuch() async throws {
        try await withSite(pages: ["/spin": "<script>for (;;) {}</script>", "/after": "<title>after</title>"]) { site in
            let heard = Heard()
            let configuration = WebKitWebViewConfiguration(
                navigationDelegate: heard, eventHandler: { heard.record($0) }, scriptTimeLimit: .seconds(1))
            try await withView(configuration) { view in
                await #expect(throws: (any Error).self) { try await view.load(site.url("/spin")) }
                await heard.waitForReports(1)
                #expect(heard.delegate.withLock { $0 } == [.exceededTimeLimit])
                #expect(heard.events.withLock { $0 } == [.exceededTimeLimit])
                try await view.load(site.url("/after"))
                #expect(try await view.evaluateJavaScript("document.title") == .string("after"))
            }
        }
    }

    /// A process killed from outside (as the system kills one) is reported as crashed, whether
    /// or not a load was pending. The page's process is found by the memory its page holds.
    @Test func aKilledProcessIsReportedAsCrashed() async throws {
        let holding = "<title>holding</title><script>globalThis.held = new Uint8Array(512 << 20).fill(1);</script>"
        try await withSite(pages: ["/hold": holding, "/after": "<title>after</title>"]) { site in
            let heard = Heard()
            let configuration = WebKitWebViewConfiguration(navigationDelegate: heard, eventHandler: { heard.record($0) })
            try await withView(configuration) { view in
                try await view.load(site.url("/hold"))
                let process = try #require(Self.webProcess(holdingAtLeast: 400 << 20), "no web process holds the page's memory")
                kill(process, SIGKILL)
                await heard.waitForReports(1)
                #expect(heard.delegate.withLock { $0 } == [.crashed])
                #expect(heard.events.withLock { $0 } == [.crashed])
                try await view.load(site.url("/after"))
                #expect(try await view.evaluateJavaScript("document.title") == .string("after"))
            }
        }
    }

    /// A store's web process memory limit: a page that holds more is ended by WebKit, reported
    /// as over its memory limit, and the next load has a process of its own. (WebKit's default
    /// did not end a process holding 6 GB.)
    @Test func aPageOverItsStoresMemoryLimitHasItsProcessEnded() async throws {
        let hoarding = """
            <title>hoarding</title><script>
            globalThis.held = [];
            setInterval(() => { if (held.length < 16) held.push(new Uint8Array(64 << 20).fill(1)); }, 10);
            </script>
            """
        try await withSite(pages: ["/hoard": hoarding, "/after": "<title>after</title>"]) { site in
            let heard = Heard()
            let store = WebKitWebsiteDataStore.nonPersistent(webProcessMemoryLimitMB: 300)
            #expect(store.webProcessMemoryLimitMB == 300)
            let configuration = WebKitWebViewConfiguration(
                websiteDataStore: store, navigationDelegate: heard, eventHandler: { heard.record($0) })
            try await withView(configuration) { view in
                try await view.load(site.url("/hoard"))
                await heard.waitForReports(1)
                #expect(heard.delegate.withLock { $0 } == [.exceededMemoryLimit])
                #expect(heard.events.withLock { $0 } == [.exceededMemoryLimit])
                try await view.load(site.url("/after"))
                #expect(try await view.evaluateJavaScript("document.title") == .string("after"))
            }
        }
    }

    /// The WebKit web process whose resident memory is at least `bytes`, if one is.
    static func webProcess(holdingAtLeast bytes: Int) -> pid_t? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = pid_t(entry),
                let name = try? String(contentsOfFile: "/proc/\(entry)/comm", encoding: .utf8), name.hasPrefix("WebKitWebProces"),
                let status = try? String(contentsOfFile: "/proc/\(entry)/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
                let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
            else { continue }
            if kilobytes * 1024 >= bytes { return pid }
        }
        return nil
    }
}
