package import CJavaScriptCore

/// A promise made by native code and settled later from the context's executor.
package struct DeferredPromise: Sendable, Hashable {
    let id: Int
}

/// The protected resolve and reject functions of a pending ``DeferredPromise``.
@safe  // its JavaScriptCore references are used only on its context's engine thread, while the context lives
struct Deferred {
    let resolve: JSObjectRef
    let reject: JSObjectRef

    var protectedValues: [JSValueRef] { unsafe [resolve, reject] }
}

extension ScriptContext {
    /// Makes a promise that stays pending (and keeps the context from being quiescent) until
    /// ``settle(_:with:)`` or the context closes.
    package func makeDeferredPromise() throws(ScriptError) -> (promise: JSObjectRef, deferred: DeferredPromise) {
        guard !isClosed else { throw .contextClosed }
        var resolve: JSObjectRef? = nil
        var reject: JSObjectRef? = nil
        var exception: JSValueRef? = nil
        guard let promise = unsafe JSObjectMakeDeferredPromise(ctx, &resolve, &reject, &exception), let resolve = unsafe resolve,
            let reject = unsafe reject
        else {
            throw unsafe exception.map { unsafe scriptError(from: $0) } ?? .conversion("could not make a promise")
        }
        unsafe protect(resolve)
        unsafe protect(reject)
        let id = nextDeferredID
        nextDeferredID += 1
        deferreds[id] = unsafe Deferred(resolve: resolve, reject: reject)
        return unsafe (promise, DeferredPromise(id: id))
    }

    /// Whether the promise is still waiting (not settled, context open).
    package func isPending(_ deferred: DeferredPromise) -> Bool {
        deferreds[deferred.id] != nil
    }

    /// Settles a deferred promise; does nothing if it was settled already or the context closed.
    package func settle(_ deferred: DeferredPromise, with result: Result<ScriptValue, any Error>) {
        switch result {
        case .success(let value): unsafe settle(deferred, resolving: true) { unsafe makeJSValue(value, in: $0) }
        case .failure(let error): unsafe settle(deferred, resolving: false) { unsafe makeError(in: $0, error) }
        }
    }

    /// Settles a deferred promise with a raw value made by `value` (called only if still pending).
    package func settle(_ deferred: DeferredPromise, resolving: Bool, _ value: (JSContextRef) -> JSValueRef) {
        guard let pending = deferreds.removeValue(forKey: deferred.id) else { return }
        var argument: JSValueRef? = unsafe value(ctx)
        var exception: JSValueRef? = nil
        let settle = unsafe resolving ? pending.resolve : pending.reject
        if enterJavaScriptWithCheckpoint(), let checkpoint = unsafe checkpointFunction {
            // One entry: the checkpoint's function settles the promise, then runs the microtasks.
            var arguments: [JSValueRef?] = unsafe [settle, argument]
            unsafe JSObjectCallAsFunction(ctx, checkpoint, nil, 2, &arguments, &exception)
        } else {
            unsafe JSObjectCallAsFunction(ctx, settle, nil, 1, &argument, &exception)
        }
        unsafe unprotect(pending.resolve)
        unsafe unprotect(pending.reject)
        if let exception = unsafe exception { unsafe report(.uncaughtError(scriptError(from: exception))) }
        leaveJavaScript()
        checkQuiescence()
    }

    // MARK: Tasks

    /// Runs `operation` as a task on the concurrency pool and settles `deferred` with its
    /// result on this context's thread. The context is not quiescent while it runs, and it is
    /// cancelled when the context closes (a result that arrives after that is dropped).
    ///
    /// The result comes back through the context's task inbox: the pool's thread sends it and
    /// is done, and one job on this thread settles every result sent before it ran. (Settling
    /// through an `await` on the context made two more hops per task: back to the pool when the
    /// settle returned, which this thread paid for with a wake-up of a pool thread, 25-100 µs on
    /// a virtual machine, and to this thread again to mark the task finished.)
    ///
    /// With `outlivingTheContext`, a close does not cancel the task (a request the page asked to
    /// be kept alive, such as a beacon, goes on after its document is gone); its result is
    /// dropped all the same.
    ///
    /// Returns the task's number, for ``cancelTask(_:)``.
    @discardableResult
    package func startTask(
        settling deferred: DeferredPromise, outlivingTheContext: Bool = false,
        _ operation: @escaping @Sendable () async -> Result<ScriptValue, any Error>
    ) -> Int {
        let id = nextTaskID
        nextTaskID += 1
        let inbox = taskResults
        let task = Task {
            let result = await operation()
            inbox.send(TaskResult(id: id, deferred: deferred, result: result))
        }
        tasks[id] = task
        if outlivingTheContext { tasksOutlivingTheContext.insert(id) }
        return id
    }

    /// Cancels task `id` of ``startTask(settling:outlivingTheContext:_:)`` (a request the page
    /// aborted); its promise still settles with what the task returns. A task that ended, or a
    /// number that is no task's, is left alone.
    package func cancelTask(_ id: Int) {
        tasks[id]?.cancel()
    }

    /// A task's result, sent to the context's task inbox.
    struct TaskResult: Sendable {
        let id: Int
        let deferred: DeferredPromise
        let result: Result<ScriptValue, any Error>
    }

    /// The task inbox's handler: the task is no longer pending when its promise settles (a
    /// quiescence waiter resumes once the settle's JavaScript has run).
    static func taskEnded(_ ended: TaskResult, in context: isolated ScriptContext) {
        context.tasks[ended.id] = nil
        context.tasksOutlivingTheContext.remove(ended.id)
        context.settle(ended.deferred, with: ended.result)
        context.checkQuiescence()
    }

    // MARK: Quiescence

    /// Keeps the context from being quiescent until the returned release is called
    /// (for work outside JavaScript the page waits for, such as a fetch in flight).
    package func hold() {
        holds += 1
    }

    /// Releases one ``hold()``.
    package func release() {
        holds -= 1
        checkQuiescence()
    }

    /// Pending work that keeps the context from being quiescent.
    public var pendingWork: (timers: Int, promises: Int, tasks: Int) {
        (timers.count, deferreds.count, tasks.count + holds)
    }

    /// Whether nothing is pending: no timers, no unsettled native promises, no running tasks.
    public var isQuiescent: Bool {
        isClosed || (timers.isEmpty && deferreds.isEmpty && tasks.isEmpty && holds == 0)
    }

    /// Lets timers, replies and tasks run until nothing is pending or `timeout` passes.
    /// - Returns: `true` when the context became quiescent, `false` on timeout.
    public func runUntilQuiescent(timeout: Duration) async -> Bool {
        if isQuiescent { return true }
        let id = nextWaiterID
        nextWaiterID += 1
        return await withCheckedContinuation { continuation in
            quiescenceWaiters[id] = continuation
            thread.schedule(after: timeout) { [weak self] in
                self?.assumeIsolated { $0.quiescenceTimedOut(id) }
            }
        }
    }

    private func quiescenceTimedOut(_ id: Int) {
        quiescenceWaiters.removeValue(forKey: id)?.resume(returning: isQuiescent)
    }

    func checkQuiescence() {
        if !quiescenceWaiters.isEmpty && isQuiescent { resumeQuiescenceWaiters() }
    }

    func resumeQuiescenceWaiters() {
        let waiters = quiescenceWaiters.sorted { $0.key < $1.key }
        quiescenceWaiters.removeAll()
        // In the order they began to wait.
        for (_, waiter) in waiters { waiter.resume(returning: true) }
        lastResumedQuiescenceWaiters = waiters.map(\.key)
    }
}
