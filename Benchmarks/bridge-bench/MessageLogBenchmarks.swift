import Foundation
import SessionBridgeMessaging
import SessionBridgeScriptEngine

/// Figure 0's message-log row: what recording one bridge call costs the page's thread, alone,
/// away from the round trip's noise (figure 1 measures the log on against off, a difference
/// of two noisy figures).
enum MessageLogBenchmarks {
    /// Nanoseconds per call: recording a call with a number body and reply in a log that keeps
    /// 1,000 (the default); the same with figure 3's realistic body and reply (the redaction's
    /// walk over their members) against making those values alone; and the floor any timed record pays, two clock reads.
    static func measure(n: Int) -> (record: Double, realistic: Double, made: Double, clocks: Double) {
        let log = MessageLog()
        let route = ScriptMessage.Route(name: "bench", frameInfo: FrameInfo(url: URL(string: "https://app.example/")!), world: .page)
        let clock = ContinuousClock()
        var start = clock.now
        for i in 0..<n {
            log.record(route, body: .number(Double(i)), outcome: .replied(.number(1)), started: .now)
        }
        let record = clock.now - start
        let realisticLog = MessageLog()
        start = clock.now
        for i in 0..<n {
            // Made per call, as the bridge reads each body afresh.
            let body: ScriptValue = ["action": "refresh", "id": .number(Double(i)), "meta": ["a": 1, "b": "x"]]
            let reply: ScriptValue = ["ok": true, "expiresAt": .number(Double(i))]
            realisticLog.record(route, body: body, outcome: .replied(reply), started: .now)
        }
        let realistic = clock.now - start
        // The same values made and dropped: the realistic row's baseline.
        var members = 0
        start = clock.now
        for i in 0..<n {
            let body: ScriptValue = ["action": "refresh", "id": .number(Double(i)), "meta": ["a": 1, "b": "x"]]
            let reply: ScriptValue = ["ok": true, "expiresAt": .number(Double(i))]
            if body["meta"] != nil { members &+= 1 }
            if reply["ok"] != nil { members &+= 1 }
        }
        let made = clock.now - start
        var sink: Int64 = 0
        start = clock.now
        for _ in 0..<n {
            let begun = ContinuousClock.now
            sink &+= (ContinuousClock.now - begun).components.attoseconds
        }
        let clocks = clock.now - start
        guard log.totalCount == n, realisticLog.totalCount == n, members == 2 * n, sink >= 0 else {
            fatalError("message log: lost records")
        }
        return (
            record / .nanoseconds(1) / Double(n), realistic / .nanoseconds(1) / Double(n), made / .nanoseconds(1) / Double(n),
            clocks / .nanoseconds(1) / Double(n)
        )
    }
}
