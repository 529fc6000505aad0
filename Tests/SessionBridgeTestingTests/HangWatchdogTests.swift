import SessionBridgeTestSupport
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct HangWatchdogTests {
    /// Waits for the watchdog's report, at most `seconds`.
    private func report(
        of watchdog: HangWatchdog, _ reports: AsyncStream<[HangWatchdog.WatchedTest]>, seconds: Int
    ) async
        -> [HangWatchdog.WatchedTest]?
    {
        let (first, continuation) = AsyncStream.makeStream(of: [HangWatchdog.WatchedTest]?.self)
        let reader = Task {
            for await overdue in reports {
                continuation.yield(overdue)
                return
            }
        }
        let timer = Task {
            try? await Task.sleep(for: .seconds(seconds))
            continuation.yield(nil)
        }
        defer {
            reader.cancel()
            timer.cancel()
        }
        for await result in first { return result }
        return nil
    }

    @Test func aTestPastItsDeadlineIsReportedByName() async {
        let (reports, continuation) = AsyncStream.makeStream(of: [HangWatchdog.WatchedTest].self)
        let watchdog = HangWatchdog(interval: .milliseconds(10)) { continuation.yield($0) }
        defer { watchdog.stop() }
        _ = watchdog.watch("hangs()", limit: .seconds(60), deadline: .now + .milliseconds(50))
        _ = watchdog.watch("runs on()", limit: .seconds(60), deadline: .now + .seconds(3600))
        let overdue = await report(of: watchdog, reports, seconds: 10)
        #expect(overdue?.map(\.name) == ["hangs()"])
        #expect(overdue?.map(\.limit) == [.seconds(60)])
    }

    @Test func aTestThatReturnsInTimeIsNotReported() async {
        let (reports, continuation) = AsyncStream.makeStream(of: [HangWatchdog.WatchedTest].self)
        let watchdog = HangWatchdog(interval: .milliseconds(10)) { continuation.yield($0) }
        defer { watchdog.stop() }
        let token = watchdog.watch("returns()", limit: .seconds(60), deadline: .now + .milliseconds(200))
        watchdog.end(token)
        // Past the deadline, and past many checks: no report.
        let overdue = await report(of: watchdog, reports, seconds: 1)
        #expect(overdue == nil)
    }

    /// The trait watches the running test under its name, with its time limit.
    @Test func theTraitWatchesTheRunningTest() async {
        let running = HangWatchdog.shared.running
        #expect(running.contains { $0.name.contains("theTraitWatchesTheRunningTest") && $0.limit == .seconds(60) })
    }
}
