import Synchronization

/// An ``EngineThread`` as a Swift `TaskExecutor`: where a task that prefers the thread runs its
/// nonisolated code, and where the runtime resumes it.
///
/// A continuation resumed, or a task's value delivered, wakes its task on the concurrency pool,
/// which then hops to the engine thread the task is isolated to: two thread hops, and a wait for
/// a pool thread in between (about 60 µs on an idle 2-core machine, milliseconds while the pool
/// is busy). A task that prefers this executor while it waits is woken here directly.
/// ``EngineThread/resumingHere(isolation:_:)`` scopes that preference to one wait.
package final class EngineTaskExecutor: TaskExecutor {
    /// The thread whose run loop runs the jobs. It owns this executor, and a task can prefer
    /// the executor only inside a context on that thread, which keeps the thread alive.
    unowned let thread: EngineThread
    /// How many jobs it was given (a wait that resumed here counts one).
    private let jobs = Atomic<Int>(0)

    init(thread: EngineThread) {
        self.thread = thread
    }

    /// How many jobs it was given so far.
    package var jobCount: Int { jobs.load(ordering: .relaxed) }

    package func enqueue(_ job: consuming ExecutorJob) {
        jobs.add(1, ordering: .relaxed)
        thread.append(QueuedJob(job: UnownedJob(job), lane: QueuedJob.anyLane, executor: nil, taskExecutor: self))
    }
}

extension EngineThread {
    /// Runs `operation` preferring this thread as task executor, so that what it awaits (a
    /// continuation, a task's value) resumes on the thread directly instead of through the
    /// concurrency pool. Nonisolated code `operation` calls runs on the thread too: keep the
    /// scope to the wait.
    ///
    /// Entering it is a suspension point, even on this thread: the jobs queued before it run
    /// first (measured: a job an actor of the thread queued just before the call ran before
    /// `operation` began), so state read before the call must be checked again inside it.
    package func resumingHere<T, Failure: Error>(
        isolation: isolated (any Actor)? = #isolation, _ operation: () async throws(Failure) -> T
    ) async throws(Failure) -> T {
        try await withTaskExecutorPreference(taskExecutor, isolation: isolation, operation: operation)
    }
}

/// Runs `operation` so that what it awaits resumes directly on the engine thread of the
/// calling ``ScriptContext`` (see ``EngineThread/resumingHere(isolation:_:)``); called from
/// anywhere else, it just runs `operation`.
package func resumingOnEngineThread<T, Failure: Error>(
    isolation: isolated (any Actor)? = #isolation, _ operation: () async throws(Failure) -> T
) async throws(Failure) -> T {
    guard let context = isolation as? ScriptContext else { return try await operation() }
    return try await context.thread.resumingHere(isolation: isolation, operation)
}
