public import Foundation
import Synchronization

/// A small pool of ``EngineThread``s that many contexts share.
///
/// A thousand pages are a thousand contexts on a few threads, not a thousand threads. Contexts
/// on different threads run in parallel; contexts on one thread take turns.
public final class EnginePool: Sendable {
    /// A process-wide pool with one thread per core.
    public static let shared = EnginePool()

    /// The pool's threads.
    public let threads: [EngineThread]
    private let next = Atomic<Int>(0)

    /// Creates a pool.
    /// - Parameters:
    ///   - threadCount: how many engine threads; defaults to the number of active cores.
    ///   - spin: how long each thread polls for work before blocking (`.zero` never polls).
    public init(threadCount: Int = ProcessInfo.processInfo.activeProcessorCount, spin: Duration = EngineThread.defaultSpin) {
        let count = max(1, threadCount)
        self.threads = (0..<count).map { EngineThread(name: "ScriptEngine-\($0)", spin: spin) }
    }

    /// The thread for the next context, round robin among the threads that are not held (see
    /// ``EngineThread``'s `isHeld`: one turn running for more than a second), or among all of
    /// them when every one is.
    ///
    /// A script the time limit cannot stop holds its thread for good, and every context on it
    /// with it; new contexts then go to the others.
    public func nextThread() -> EngineThread {
        // Unsigned, so that the count wrapping around picks a thread all the same.
        let index = UInt(bitPattern: next.add(1, ordering: .relaxed).oldValue)
        let count = UInt(threads.count)
        for offset in 0..<count {
            let thread = threads[Int((index &+ offset) % count)]
            if !thread.isHeld { return thread }
        }
        return threads[Int(index % count)]
    }
}
