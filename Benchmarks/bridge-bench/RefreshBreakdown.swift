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
/// What a run found (release, 2 cores): the navigation step (4.7 ms against 1.7 ms for a bare
/// `GET`) is most of the gap. `strace -c` over the figure shows no `fsync`, 48 `connect`s for
/// about 1,500 cycles and six sleeps; futex waits are two thirds of the time in system calls. A
/// CPU profile (`perf record -g`) is dominated by the reference server and SwiftNIO, with the
/// engine's own work a few percent: the time goes to thread hops between the engine thread, the
/// cooperative pool and the event loops, not to computation. Creating the new document's context
/// costs about 0.9 ms of it (figure 7, "time to create one such page").
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
