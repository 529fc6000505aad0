import CJavaScriptCore
import Dispatch

extension EngineThread {
    /// Checks the running entry's time limit at the end of every garbage collection.
    ///
    /// JavaScriptCore runs the microtasks an entry queued as the entry's API call returns, each
    /// as an entry of its own whose watchdog timer starts afresh, so a chain of short microtasks
    /// (`async function f() { await null; f() }`, `for (;;) await Promise.resolve()`, an endless
    /// `for await`) never meets the time limit. Such a chain allocates (promises, async frames,
    /// iteration results), so collections keep happening while it runs; the check below stops
    /// the entry once it is past its deadline. A chain that allocates nothing
    /// (`for (;;) await 0`) is not seen here: the hard bound of the process still ends it.
    ///
    /// Why not the watchdog itself: it reaches its callback only once the running microtask has
    /// used the whole limit, so a limit near zero is needed while microtasks drain; that starts
    /// one watchdog timer per microtask (100,000 `await`s took 0.8 to 1.4 s instead of 0.7 s),
    /// and at that rate JavaScriptCore 2.50 aborts the process in
    /// `VMTraps::requestThreadStopIfNeeded` (a race between the timer thread and the thread
    /// handling the trap), in about half of such runs. A sentinel microtask that re-queues
    /// itself sees every round of the queue, but must leave once the page's microtasks are done,
    /// and an `await` that touches nothing is only visible as time: the rounds with and without
    /// one overlap too much, on a busy machine, to tell apart.
    func installCollectionCheck() {
        JSContextGroupAddHeapFinalizer(group.ref, engineCollectionCheck, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Removes the check; called before the group is released.
    func removeCollectionCheck() {
        JSContextGroupRemoveHeapFinalizer(group.ref, engineCollectionCheck, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Stops the current entry if it has run past its deadline (see ``installCollectionCheck()``).
    ///
    /// The stop uses the stopped entry's tiny limit, and the thread then waits a little in the
    /// microtask that allocated, so the single watchdog timer fires while that microtask still
    /// runs: the termination lands there, and JavaScriptCore drains no further microtask.
    func checkEntryDeadlineAfterCollection() {
        // JavaScriptCore may finish a collection on its collector thread, while this thread
        // waits for it with the VM's lock held; nothing is done from there.
        guard isCurrent else { return }
        let deadline = entryDeadline.load(ordering: .relaxed)
        // A stopped entry is checked again: if its termination missed the microtask that
        // allocated, the next collection repeats it.
        guard deadline != 0 else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        guard now > deadline else { return }
        entryStopped.store(true, ordering: .relaxed)
        ensureTimeLimit(ScriptContext.stoppedEntryLimitSeconds, force: true)
        let waitUntil = now &+ Self.stopSettleNanoseconds
        while DispatchTime.now().uptimeNanoseconds < waitUntil {}
    }

    /// How long a stop made after a collection waits for the watchdog: ten times the stopped
    /// entry's limit, so the timer has fired before JavaScript resumes.
    static let stopSettleNanoseconds = UInt64(ScriptContext.stoppedEntryLimitSeconds * 10 * 1e9)
}

/// Called by JavaScriptCore at the end of every garbage collection of an engine thread's group,
/// on that thread.
private func engineCollectionCheck(_ group: JSContextGroupRef?, _ userData: UnsafeMutableRawPointer?) {
    guard let userData else { return }
    Unmanaged<EngineThread>.fromOpaque(userData).takeUnretainedValue().checkEntryDeadlineAfterCollection()
}
