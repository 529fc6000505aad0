import Synchronization

/// The messages a document posts to other windows (`proxy.postMessage`, `opener.postMessage`),
/// delivered one after another in the order they were posted, as HTML's posted message task
/// source keeps them: each delivery waits for the one posted before it.
final class PostedMessages: Sendable {
    private let last = Mutex<Task<Void, Never>?>(nil)

    init() {}

    /// Runs `deliver` once every message posted before it was delivered (or dropped).
    func post(_ deliver: @escaping @Sendable () async -> Void) {
        last.withLock { last in
            let previous = last
            last = Task {
                await previous?.value
                await deliver()
            }
        }
    }
}
