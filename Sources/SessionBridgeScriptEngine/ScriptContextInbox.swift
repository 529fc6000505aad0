import Synchronization

/// Items sent to a context from any thread, handled on the context's thread in the order they
/// were sent.
///
/// The first item sent to an empty inbox schedules one job on the context's thread; that job
/// handles every item sent before it ran, each on its own (a handler's entry into JavaScript
/// runs its own microtask checkpoint). So a burst of replies from a worker costs the worker one
/// lock each and the context one job, where a job per item cost each side a queue entry, a
/// timer and a closure (figure 2's "64 in flight" rows).
///
/// Items sent after the context closed, or while it closes, are dropped with the inbox.
package final class ScriptContextInbox<Item: Sendable>: Sendable {
    private struct Buffers: ~Copyable {
        var incoming: [Item] = []
        /// The last batch's storage, emptied, for the next batch (no allocation per batch).
        var spare: [Item] = []
    }

    private let buffers = Mutex(Buffers())
    private weak let context: ScriptContext?
    private let handle: @Sendable (isolated ScriptContext, Item) -> Void
    private let deliveries = Atomic<Int>(0)

    /// - Parameters:
    ///   - context: where items are handled; held weakly.
    ///   - handle: called on the context's thread, once per item, in the order sent.
    package init(for context: ScriptContext, handle: @escaping @Sendable (isolated ScriptContext, Item) -> Void) {
        self.context = context
        self.handle = handle
    }

    /// Sends `item` from any thread.
    package func send(_ item: Item) {
        let first = buffers.withLock { buffers in
            buffers.incoming.append(item)
            return buffers.incoming.count == 1
        }
        guard first, let context else { return }
        context.schedule(after: .zero) { [self] context in deliver(in: context) }
    }

    /// How many jobs have handled items so far (each handles every item sent before it ran).
    package var deliveryCount: Int { deliveries.load(ordering: .relaxed) }

    /// How many items were sent and wait for a job to handle them.
    package var waitingCount: Int { buffers.withLock { $0.incoming.count } }

    private func deliver(in context: isolated ScriptContext) {
        deliveries.add(1, ordering: .relaxed)
        var batch = buffers.withLock { buffers in
            var batch: [Item] = []
            swap(&batch, &buffers.spare)
            swap(&batch, &buffers.incoming)
            return batch
        }
        for item in batch where !context.isClosed { handle(context, item) }
        batch.removeAll(keepingCapacity: true)
        buffers.withLock { $0.spare = batch }
    }
}
