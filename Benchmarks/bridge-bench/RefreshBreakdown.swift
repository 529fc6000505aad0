#if canImport(SessionBridgeTesting) && canImport(AsyncHTTPClient)
import AsyncHTTPClient
import Foundation
import NIOCore
import SessionBridgeTesting
import SessionBridge
import SessionBridgeHeadless

/// Where figure 6's cycle goes: each step of the full cycle timed on its own, in one fixture,
/// interleaved cycle by cycle so that machine noise hits every step alike.
///
/// What the runs found (release, 2 cores, loopback):
/// - The navigation step is most of the cycle (2.3–2.9 ms against 0.4 ms for its `GET`). Timed
///   piece by piece with a temporary probe: policy 0.04 ms, the request 0.8 ms, a new
///   JavaScriptCore global context 0.42 ms plus the engine's own globals 0.31 ms, the document
///   environment 0.57 ms, the document's and user scripts 0.7 ms, `load` and the delegate
///   0.24 ms. The contexts are made while the request is out (since 91be75a), which on loopback
///   hides about as much as the request takes.
/// - The native refresh alone is 0.75–0.9 ms against 0.46–0.49 ms for the bare `POST` with its
///   cookies: thread hops (futex waits are two thirds of the system-call time; `strace -c` shows
///   no `fsync`, 48 `connect`s for about 1,500 cycles, six sleeps). Cookie stores and the token
///   client start on the caller's executor since 16118e4, which removed some of them.
/// - Making the next document's contexts ahead took 0.2 ms off the navigation step but did not
///   move the full cycle; it was left out.
enum RefreshBreakdown {
    struct Steps {
        var names: [String]
        var medians: [Double]
    }

    static func measure(cycles: Int) async throws -> Steps {
        let fixture = try await SessionFixture.start(session: { $0.freshnessWindow = .milliseconds(5) })
        defer { Task { await fixture.stop() } }
        try await fixture.page.loadHTMLString("<p>bench</p>", baseURL: fixture.url("/bench"))
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { _ = client.shutdown() }
        let appURL = fixture.url("/app").absoluteString
        let steps: [(String, () async throws -> Void)] = [
            ("page entry: callAsyncJavaScript(\"return 1\")", { _ = try await fixture.page.callAsyncJavaScript("return 1") }),
            (
                "page asks, native refresh, cookies written, reply",
                {
                    _ = try await fixture.page.callAsyncJavaScript(
                        "return await window.webkit.messageHandlers.session.postMessage({action: \"refresh\"})")
                }
            ),
            ("native refresh alone (SessionController.refresh)", { _ = try await fixture.session.refresh() }),
            ("navigation to /app, session fresh (no refresh)", { _ = try await fixture.page.load(fixture.url("/app")) }),
            (
                "bare GET /app with AsyncHTTPClient (no cookie: 302)",
                {
                    let response = try await client.execute(HTTPClientRequest(url: appURL), timeout: .seconds(10))
                    _ = try await response.body.collect(upTo: 1 << 20)
                }
            ),
        ]
        var samples = Array(repeating: [Double](), count: steps.count)
        let clock = ContinuousClock()
        for cycle in 0..<(cycles + cycles / 10) {
            for (index, step) in steps.enumerated() {
                if index == 1 || index == 2 { try await Task.sleep(for: .milliseconds(6)) }  // past the freshness window
                let start = clock.now
                try await step.1()
                if cycle >= cycles / 10 { samples[index].append((clock.now - start).nanoseconds) }
            }
        }
        return Steps(names: steps.map(\.0), medians: samples.map(Stats.median))
    }
}
#endif
