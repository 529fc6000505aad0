import Dispatch
import Foundation
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import Synchronization

/// The reply the page expects for a body: the number itself, or `{ok: true, expiresAt: id}`
/// for `{action: "refresh", id}` (the realistic body, read by two lookups as the C baseline does).
func reply(to body: ScriptValue) throws -> ScriptValue {
    if case .number = body { return body }
    guard body["action"]?.stringValue == "refresh", let id = body["id"]?.numberValue else {
        throw BenchFailure("unexpected body \(body)")
    }
    return ["ok": true, "expiresAt": .number(id)]
}

/// A thread that resumes continuations, or sends replies, handed to it: the Swift counterpart of
/// the C baseline's worker (a lock-protected queue; the worker blocks on a semaphore when idle,
/// never spins).
final class ReplyWorker: Sendable {
    private enum Item {
        case resume(CheckedContinuation<ScriptValue, Never>)
        case send(ScriptMessageReply)
    }

    private struct State {
        var items: [(Item, ScriptValue)] = []
        var waiting = false
        var stopped = false
    }

    private let state = Mutex(State())
    private let wakeUp = DispatchSemaphore(value: 0)

    init() {
        let thread = Thread { [self] in self.loop() }
        thread.name = "bench-reply-worker"
        thread.start()
    }

    /// Suspends until the worker thread replies with `value`.
    func reply(_ value: ScriptValue) async -> ScriptValue {
        await withCheckedContinuation { continuation in add(.resume(continuation), value) }
    }

    /// ``reply(_:)`` waiting where its caller runs (`nonisolated(nonsending)`, what a plain
    /// async function is in Swift 6.2 under `NonisolatedNonsendingByDefault`): the worker's
    /// resume wakes the page's thread directly, where ``reply(_:)`` (a `@concurrent` function
    /// here) suspends and resumes on the concurrency pool and then hops to the page.
    nonisolated(nonsending) func replyWhereCalled(_ value: ScriptValue) async -> ScriptValue {
        await withCheckedContinuation { continuation in add(.resume(continuation), value) }
    }

    /// Has the worker thread send `value` through `reply`.
    func send(_ value: ScriptValue, through reply: ScriptMessageReply) {
        add(.send(reply), value)
    }

    private func add(_ item: Item, _ value: ScriptValue) {
        let wake = state.withLock { state in
            state.items.append((item, value))
            defer { state.waiting = false }
            return state.waiting
        }
        if wake { wakeUp.signal() }
    }

    func stop() {
        state.withLock { $0.stopped = true }
        wakeUp.signal()
    }

    private func loop() {
        while true {
            let batch = state.withLock { state -> [(Item, ScriptValue)]? in
                if state.items.isEmpty {
                    if state.stopped { return nil }
                    state.waiting = true
                    return []
                }
                defer { state.items.removeAll(keepingCapacity: true) }
                return state.items
            }
            guard let batch else { return }
            if batch.isEmpty {
                wakeUp.wait()
                continue
            }
            for (item, value) in batch {
                switch item {
                case .resume(let continuation): continuation.resume(returning: value)
                case .send(let reply): reply.reply(value)
                }
            }
        }
    }
}

/// An actor on the default executor that the handler awaits.
///
/// It counts its replies, as an actor's method uses the actor's state: a method that touches
/// none needs no hop, and the optimizer removes the hop to the actor (the reply then ran on the
/// page's thread, inside the handler's task: the first tables' actor rows measured no actor).
actor ReplyActor {
    private(set) var replies = 0

    func reply(_ value: ScriptValue) -> ScriptValue {
        replies += 1
        return value
    }
}

/// The handlers the round-trip figures use.
enum BenchHandlers {
    /// Replies inside the page's call, without a task (the fast path).
    static func immediate() -> any ScriptMessageHandlerWithReply {
        ImmediateClosureMessageHandler { message in try reply(to: message.body) }
    }

    /// A plain async handler that never suspends (started with `Task.immediate` by the bridge).
    static func plainAsync() -> any ScriptMessageHandlerWithReply {
        ClosureMessageHandler { message in try reply(to: message.body) }
    }

    /// Suspends; the reply comes back from a dedicated worker thread.
    static func workerThread(_ worker: ReplyWorker) -> any ScriptMessageHandlerWithReply {
        ClosureMessageHandler { message in await worker.reply(try reply(to: message.body)) }
    }

    /// The same, its wait `nonisolated(nonsending)` (``ReplyWorker/replyWhereCalled(_:)``).
    static func workerThreadWaitingWhereCalled(_ worker: ReplyWorker) -> any ScriptMessageHandlerWithReply {
        ClosureMessageHandler { message in await worker.replyWhereCalled(try reply(to: message.body)) }
    }

    /// Answers through its reply handler, which a dedicated worker thread calls (WebKit's
    /// `replyHandler`): no task, no continuation.
    static func workerReplyHandler(_ worker: ReplyWorker) -> any ScriptMessageHandlerWithReplyHandler {
        WorkerReplyHandler(worker: worker)
    }

    /// Suspends; the reply comes back from a Dispatch queue.
    static func dispatchQueue(_ queue: DispatchQueue) -> any ScriptMessageHandlerWithReply {
        ClosureMessageHandler { message in
            let value = try reply(to: message.body)
            return await withCheckedContinuation { continuation in
                queue.async { continuation.resume(returning: value) }
            }
        }
    }

    /// Suspends on an actor on the default (global concurrent) executor.
    static func actor(_ actor: ReplyActor) -> any ScriptMessageHandlerWithReply {
        ClosureMessageHandler { message in await actor.reply(try reply(to: message.body)) }
    }
}

/// A reply handler answered by a ``ReplyWorker``.
struct WorkerReplyHandler: ScriptMessageHandlerWithReplyHandler {
    let worker: ReplyWorker

    func userContentController(_ controller: UserContentController, didReceive message: ScriptMessage, replyHandler: ScriptMessageReply) {
        do {
            worker.send(try reply(to: message.body), through: replyHandler)
        } catch {
            replyHandler.reject(error)
        }
    }
}
