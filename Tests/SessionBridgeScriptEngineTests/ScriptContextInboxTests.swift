import Foundation
import SessionBridgeTestSupport
import Synchronization
import Testing

@testable import SessionBridgeScriptEngine

/// A context's inbox: items sent from any thread are all handled, on the context's thread, each
/// sender's in the order it sent them; a burst shares one job; a closed context drops the rest.
@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct ScriptContextInboxTests {
    /// What the handler saw: `(sender, sequence)` pairs, and whether each ran on the thread.
    final class Seen: Sendable {
        let items = Mutex<[(sender: Int, sequence: Int)]>([])
        let offThread = Atomic<Int>(0)
    }

    @Test func itemsFromManyThreadsAreHandledOnTheContextsThreadInEachSendersOrder() async throws {
        let thread = EngineThread(name: "sb-inbox-test")
        let context = await ScriptContext(thread: thread)
        let seen = Seen()
        let inbox = ScriptContextInbox<(Int, Int)>(for: context) { context, item in
            if !context.thread.isCurrent { seen.offThread.add(1, ordering: .relaxed) }
            seen.items.withLock { $0.append((item.0, item.1)) }
        }
        let senders = 4, perSender = 2_000
        await withTaskGroup { group in
            for sender in 0..<senders {
                group.addTask { @concurrent in
                    for sequence in 0..<perSender { inbox.send((sender, sequence)) }
                }
            }
        }
        let all = await waitFor(seen, count: senders * perSender)
        #expect(all.count == senders * perSender)
        #expect(seen.offThread.load(ordering: .relaxed) == 0)
        for sender in 0..<senders {
            #expect(all.filter { $0.sender == sender }.map(\.sequence) == Array(0..<perSender), "sender \(sender) out of order")
        }
        await context.close()
        thread.shutdown()
    }

    /// Items sent while the thread is busy wait for one job, which handles them all.
    @Test func aBurstSentWhileTheThreadIsBusyIsHandledInOneJob() async throws {
        let thread = EngineThread(name: "sb-inbox-burst")
        let context = await ScriptContext(thread: thread)
        let seen = Seen()
        let inbox = ScriptContextInbox<(Int, Int)>(for: context) { context, item in
            seen.items.withLock { $0.append((item.0, item.1)) }
        }
        // The thread is held in a job of the context while the burst is sent.
        try await context.holdingItsThread {
            for sequence in 0..<100 { inbox.send((0, sequence)) }
        }
        let all = await waitFor(seen, count: 100)
        #expect(all.map(\.sequence) == Array(0..<100))
        #expect(inbox.deliveryCount == 1, "a burst took \(inbox.deliveryCount) jobs")
        await context.close()
        thread.shutdown()
    }

    @Test func itemsSentToAClosedContextAreDropped() async throws {
        let thread = EngineThread(name: "sb-inbox-closed")
        let context = await ScriptContext(thread: thread)
        let other = await ScriptContext(thread: thread)
        let seen = Seen(), seenByOther = Seen()
        let inbox = ScriptContextInbox<(Int, Int)>(for: context) { _, item in
            seen.items.withLock { $0.append((item.0, item.1)) }
        }
        let otherInbox = ScriptContextInbox<(Int, Int)>(for: other) { _, item in
            seenByOther.items.withLock { $0.append((item.0, item.1)) }
        }
        inbox.send((0, 0))
        _ = await waitFor(seen, count: 1)
        await context.close()
        inbox.send((0, 1))
        // The other context's item, sent after, is handled after the closed one's had its turn.
        otherInbox.send((1, 0))
        _ = await waitFor(seenByOther, count: 1)
        #expect(seen.items.withLock { $0.map(\.sequence) } == [0])
        await other.close()
        thread.shutdown()
    }

    /// An async native function's results come back through the context's task inbox: those
    /// that arrive while the thread is busy settle in one job, each promise with its own value,
    /// and the context is quiescent once they have (a settle awaited on the context took a job,
    /// a hop back to the pool and another job per result).
    @Test func asyncFunctionResultsSentWhileTheThreadIsBusySettleInOneJob() async throws {
        let thread = EngineThread(name: "sb-inbox-tasks")
        let context = await ScriptContext(thread: thread)
        let gate = Gate()
        await context.defineAsyncFunction("later") { arguments in
            await gate.wait()
            return arguments.first ?? .null
        }
        try await context.run("var results = []; for (let i = 0; i < 10; i++) later(i).then(v => results.push(v));")
        let inbox = await context.taskResults
        try await context.holdingItsThread {
            await gate.open()
            let deadline = ContinuousClock.now + .seconds(20)
            while inbox.waitingCount < 10 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        }
        #expect(await context.runUntilQuiescent(timeout: .seconds(20)))
        let results = try await context.evaluate("results.slice().sort((a, b) => a - b)")
        #expect(results == .array((0..<10).map { .number(Double($0)) }))
        #expect(inbox.deliveryCount == 1, "ten results took \(inbox.deliveryCount) jobs")
        #expect(await context.tasks.isEmpty)
        await context.close()
        thread.shutdown()
    }

    private func waitFor(_ seen: Seen, count: Int) async -> [(sender: Int, sequence: Int)] {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            let items = seen.items.withLock { $0 }
            if items.count >= count { return items }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return seen.items.withLock { $0 }
    }
}

extension ScriptContext {
    /// Runs `body` while the context's thread is held in one of its jobs.
    ///
    /// The start is awaited, never waited for on a semaphore: the job is started from the
    /// cooperative pool, which has one thread per core, and two tests blocking theirs at once
    /// on a two-core machine left no thread to start either job (a hang in CI).
    nonisolated fileprivate func holdingItsThread(_ body: () async throws -> Void) async throws {
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let release = DispatchSemaphore(value: 0)
        let holding = Task { await self.block(started: startedContinuation, until: release) }
        for await _ in started { break }
        let failure: (any Error)?
        do {
            try await body()
            failure = nil
        } catch {
            failure = error
        }
        release.signal()
        await holding.value
        if let failure { throw failure }
    }

    /// Holds the context's thread in one of its jobs until `release` is signalled.
    ///
    /// `release` is waited for on the engine thread, which is the point: nothing else of the
    /// cooperative pool is held.
    private func block(started: AsyncStream<Void>.Continuation, until release: DispatchSemaphore) {
        started.yield()
        started.finish()
        release.wait()
    }
}
