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
/// - The cycle is waits, not work: during figure 6 the process uses less than half of one core.
/// - The navigation step is most of the cycle (2.7–3.2 ms against 0.4–0.9 ms for its `GET`).
///   A temporary probe (averages): the next document's contexts 0.9 ms and its request 1.2 ms,
///   side by side; after the response, installing the page APIs and the bridge 0.55 ms, the
///   document's and user scripts 0.75 ms (the `/app` page starts a `fetch` of its own), `load` and
///   the delegate 0.2 ms. Both preludes now run during the request (they depend on nothing the
///   response decides), which took the install after the response to 0.12 ms. Touching the
///   realm's lazily made built-ins ahead of the scripts did not make them faster.
/// - The native refresh alone is 0.78–0.98 ms against 0.46 ms for the bare `POST` with its
///   cookies: thread hops (futex waits are two thirds of the system-call time; `strace -c` shows
///   no `fsync`, 48 `connect`s for about 1,500 cycles, six sleeps). A page's refresh takes one
///   turn of the session's actor (it took three), which is most of what 100 callers gained.
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
