import Foundation
import SessionBridgeMessaging
import SessionBridgeScriptEngine

/// Figure 0's message-log row: what recording one bridge call costs the page's thread, alone,
/// away from the round trip's noise (figure 1 measures the log on against off, a difference
/// of two noisy figures).
enum MessageLogBenchmarks {
    /// Nanoseconds per call: recording a call with a number body and reply in a log that keeps
    /// 1,000 (the default), and the floor any timed record pays, two clock reads.
    static func measure(n: Int) -> (record: Double, clocks: Double) {
        let log = MessageLog()
        let route = ScriptMessage.Route(name: "bench", frameInfo: FrameInfo(url: URL(string: "https://app.example/")!), world: .page)
        let clock = ContinuousClock()
        var start = clock.now
        for i in 0..<n {
            log.record(route, body: .number(Double(i)), outcome: .replied(.number(1)), started: .now)
        }
        let record = clock.now - start
        var sink: Int64 = 0
        start = clock.now
        for _ in 0..<n {
            let begun = ContinuousClock.now
            sink &+= (ContinuousClock.now - begun).components.attoseconds
        }
        let clocks = clock.now - start
        guard log.totalCount == n, sink >= 0 else { fatalError("message log: lost records") }
        return (record / .nanoseconds(1) / Double(n), clocks / .nanoseconds(1) / Double(n))
    }
}
