import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeScriptEngine

/// A pool gives new contexts to threads that are not held: a script the time limit cannot stop
/// (a WebAssembly loop that calls nothing outside its module) holds its thread for good.
@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct EnginePoolTests {
    typealias Runner = EngineThreadTurnsTests.Runner
    typealias Flag = EngineThreadTurnsTests.Flag

    @Test func newContextsGoToThreadsThatAreNotHeld() async throws {
        let pool = EnginePool(threadCount: 2)
        defer { for thread in pool.threads { thread.shutdown() } }
        let held = pool.threads[0]
        let release = Flag()
        let holding = Flag()
        let runner = Runner(on: held)
        let hold = Task { await runner.hold(until: release, holding: holding) }
        try await poll { holding.isSet }
        try await Task.sleep(for: .milliseconds(1200))
        #expect(held.isHeld)
        #expect(!pool.threads[1].isHeld)
        let chosen = (0..<10).map { _ in pool.nextThread() }
        #expect(chosen.allSatisfy { $0 === pool.threads[1] })
        release.set()
        await hold.value
        // The task ends inside the job; the thread marks the turn's end just after.
        #expect(try await poll { !held.isHeld })
        let after = (0..<4).map { _ in pool.nextThread() }
        #expect(after.contains { $0 === held })
    }

    /// A thread whose lane waits (a page's modal panel) runs the others' work meanwhile: it is
    /// not held, however long the wait.
    @Test func aThreadWaitingInALaneIsNotHeld() async throws {
        let thread = EngineThread(name: "sb-pool-wait")
        defer { thread.shutdown() }
        let answered = Flag()
        let waiting = Runner(on: thread.makeLane(name: "panel"))
        let wait = Task { await waiting.wait(for: answered) }
        try await Task.sleep(for: .milliseconds(1200))
        #expect(!thread.isHeld)
        answered.set()
        thread.wake()
        #expect(await wait.value)
    }
}
