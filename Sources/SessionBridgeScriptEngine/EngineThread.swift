import CJavaScriptCore
import DequeModule
import Dispatch
import Foundation
import HeapModule
import Synchronization

/// A thread that runs JavaScript: a Swift `SerialExecutor` whose jobs, timers and JavaScriptCore
/// calls all happen on one OS thread.
///
/// Actors that own JavaScript state (``ScriptContext``, and pages built on it) return this
/// thread's executor as their `unownedExecutor`, so the compiler proves every JavaScript access
/// happens here. Many contexts share one thread; they also share one JavaScriptCore context group
/// (one VM), which makes each further context cheap (about 200 µs and 100 KB).
///
/// JavaScriptCore's own run-loop work runs here too: WebAssembly's asynchronous compilation
/// (`WebAssembly.instantiate`, `WebAssembly.compile`), `FinalizationRegistry` callbacks and the
/// collector's incremental sweeping. JavaScriptCore schedules it on a GLib main context, the one
/// of the thread that made the VM; so the thread makes its VMs itself, with a main context of its
/// own, and runs that context's sources whenever no lane waits (see ``runOthers(until:timeout:)``).
///
/// A thread can also host *lanes* (``makeLane(name:)``): executors with a VM of their own whose
/// jobs and timers run on the hosting thread, taking turns with its other work. Code on a lane
/// can wait for something outside JavaScript (`runOthers(until:timeout:)`) while the thread
/// runs every other lane's work, as a browser keeps its other pages running while one shows a
/// modal panel.
///
/// ```swift
/// let thread = EngineThread(name: "js-1")
/// let context = await ScriptContext(thread: thread)
/// ```
public final class EngineThread: SerialExecutor, Sendable {
    /// How long the thread polls for new work before it blocks. Polling briefly turns a
    /// cross-thread reply from an OS wake-up (about 12 µs on a VM) into about 1 µs.
    public static let defaultSpin: Duration = .microseconds(50)

    /// The thread's name; the OS shows its first 15 bytes (a lane's name is for logs only).
    public let name: String
    /// The JavaScriptCore context group (one VM) shared by every context on this thread or lane
    /// (pointer bits; a lane's is made on first use, see ``group``).
    private let groupBits: Atomic<UInt>
    /// The thread whose run loop runs a lane's work; `nil` for a thread.
    private let host: EngineThread?

    private let state: Mutex<State>
    private let wakeUp = DispatchSemaphore(value: 0)
    /// The GLib main context (pointer bits) JavaScriptCore's run-loop timers of this thread's
    /// VMs are attached to, owned by the thread; `0` for a lane, which uses its host's.
    private let mainContextBits: UInt
    private let enqueued = Atomic<UInt64>(0)
    private let threadID = Atomic<UInt>(0)
    private let spinNanoseconds: UInt64
    /// Made on first use (it refers back to the thread); a lane uses its host's.
    private let ownTaskExecutor = Mutex<EngineTaskExecutor?>(nil)
    /// The lane whose job or timer the thread is running (`0` for the thread's own executor),
    /// only read and written on the thread; shared with the native functions of the thread's
    /// contexts, which may outlive a context (``RunningLane``).
    package let running = RunningLane()
    /// Set by the watchdog callback when it ends a script; read and cleared on the thread.
    let watchdogFired = Atomic<Bool>(false)
    /// The process's resident memory (bytes) past which a running script is ended; `0` for none.
    /// Set per entry from the entering context's configuration; only read and written on the thread.
    let memoryLimit = Atomic<UInt64>(0)
    /// Set with ``watchdogFired`` when the stop was for ``memoryLimit``; read and cleared on the thread.
    let memoryLimitFired = Atomic<Bool>(false)
    /// Set (from any thread) by ``makeInterruptible()``: the watchdog runs in quanta, as with a
    /// memory limit, so that ``interrupt()`` is heard within one.
    private let interruptible = Atomic<Bool>(false)
    /// Set (from any thread) by ``interrupt()``; read by the watchdog's callback on the thread.
    private let interrupted = Atomic<Bool>(false)
    /// The ``ScriptInterruption`` of the context in the outermost entry running now (its
    /// unretained pointer's bits), `0` for none. Only read and written on the thread, and only
    /// non-zero between that entry's `enterJavaScript` and `leaveJavaScript`, while the context
    /// (which holds the interruption in its configuration) runs it.
    private let entryInterruption = Atomic<UInt>(0)
    /// With a memory limit, the watchdog is set in quanta (``memoryQuantum``): what is left of
    /// the entry's time limit, and the quantum set now (seconds). Only used on the thread.
    private let limitLeft = Atomic<UInt64>(Double.infinity.bitPattern)
    private let quantumSet = Atomic<UInt64>(0)
    /// When the resident memory was last read between scripts (uptime, nanoseconds).
    private let memoryReadAt = Atomic<UInt64>(0)
    /// The execution time limit currently set on the group (seconds, `.infinity` for none),
    /// only read and written on the thread.
    private let currentTimeLimit = Atomic<UInt64>(Double.infinity.bitPattern)
    /// The limit JavaScriptCore's deferred work of this VM runs under (seconds, `.infinity` for
    /// none): the last finite limit an entry asked for. An entry without a limit leaves it, so
    /// a page's finalization callback is not left unbounded by another context's last entry.
    /// Only read and written on the thread.
    private let deferredWorkLimit = Atomic<UInt64>(Double.infinity.bitPattern)
    /// A thread's lanes, for setting their VMs' limits before deferred work runs; empty for a lane.
    private let lanes = Mutex<[WeakLane]>([])
    /// Whether the current entry into JavaScript was stopped: from then on every further
    /// JavaScript instruction of the entry is ended (see `ScriptContext.stopEntry()`).
    /// Only read and written on the thread.
    let entryStopped = Atomic<Bool>(false)
    /// How many native callbacks, called from JavaScript, are running on the thread right now.
    /// Only read and written on the thread.
    let nativeDepth = Atomic<Int>(0)
    /// The context (as bits) of the innermost native callback holding this VM's API lock, which
    /// ``runOthers(until:timeout:)`` lets go of while it waits; 0 when none does. Only read and
    /// written on the thread.
    let lockingContext = Atomic<UInt>(0)
    /// When the current outermost entry into JavaScript began (uptime, nanoseconds).
    let entryStart = Atomic<UInt64>(0)
    /// When the job, timer or JavaScriptCore work the thread runs began (uptime, nanoseconds);
    /// `0` between them and while a lane waits in ``runOthers(until:timeout:)``. Written only on
    /// the thread (a plain load and store, no read-modify-write), read by ``isHeld`` from any.
    private let turnStarted = Atomic<UInt64>(0)
    /// The context and function behind ``rejectionSink()`` (pointers' bits; `0` until made).
    private let rejectionSinkParts = Mutex<(context: UInt, function: UInt)>((0, 0))
    /// The scripts made for this VM (``script(for:)``): each source's `JSScriptRef` bits, `0`
    /// for a source JavaScriptCore did not parse, ``evaluatedOnce`` for one evaluated once. The
    /// source is held, so that its identifier stays its own.
    private let scripts = Mutex<[ObjectIdentifier: (source: ScriptSource, script: UInt)]>([:])

    private struct State: ~Copyable {
        var jobs = Deque<QueuedJob>()
        var timers = Heap<TimerEntry>()
        /// Due timers of paused lanes, kept (in order) until their lane runs again.
        var heldTimers: [TimerEntry] = []
        /// The lanes waiting in ``EngineThread/runOthers(until:timeout:)``, innermost last.
        var paused: [UInt] = []
        var nextTimerSequence: UInt64 = 0
        var sleeping = Sleeper.awake
        var stopped = false

        /// Takes the first job whose lane is not paused.
        mutating func takeRunnableJob() -> QueuedJob? {
            guard !paused.isEmpty else { return jobs.popFirst() }
            guard let index = jobs.firstIndex(where: { !paused.contains($0.lane) }) else { return nil }
            return jobs.remove(at: index)
        }

        var hasRunnableJob: Bool {
            paused.isEmpty ? !jobs.isEmpty : jobs.contains { !paused.contains($0.lane) }
        }
    }

    /// Creates and starts an engine thread.
    /// - Parameters:
    ///   - name: the thread's name.
    ///   - spin: how long to poll for work before blocking (`.zero` never polls).
    public init(name: String = "ScriptEngine", spin: Duration = EngineThread.defaultSpin) {
        self.name = name
        _ = JavaScriptCoreSettings.applied
        // The VM is made on the thread, under the thread's own main context (see the type's notes).
        let start = ThreadStart()
        let thread = Thread { start.run() }
        thread.name = name
        thread.stackSize = 8 << 20
        thread.start()
        let made = start.waitForVM()
        self.groupBits = Atomic(made.group)
        self.mainContextBits = made.mainContext
        self.host = nil
        self.state = Mutex(State())
        let (seconds, attoseconds) = spin.components
        self.spinNanoseconds = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
        start.begin(self)
        while threadID.load(ordering: .acquiring) == 0 { sched_yield() }
    }

    /// Creates a lane hosted on `host`.
    private init(lane name: String, on host: EngineThread) {
        self.name = name
        self.groupBits = Atomic(0)
        self.mainContextBits = 0
        self.host = host
        self.state = Mutex(State())
        self.spinNanoseconds = 0
    }

    deinit {
        for (_, made) in scripts.withLock({ $0 }) where made.script != 0 && made.script != Self.evaluatedOnce {
            unsafe JSScriptRelease(OpaquePointer(bitPattern: made.script))
        }
        let sink = rejectionSinkParts.withLock { $0 }
        if let context = unsafe OpaquePointer(bitPattern: sink.context), let function = unsafe OpaquePointer(bitPattern: sink.function) {
            unsafe JSValueUnprotect(context, function)
            unsafe JSGlobalContextRelease(context)
        }
        if let group = unsafe OpaquePointer(bitPattern: groupBits.load(ordering: .acquiring)) { unsafe JSContextGroupRelease(group) }
    }

    /// A function of this VM that belongs to no document: what a context's unhandled-rejection
    /// callback is set to before its global object is released (``GlobalContext/release()``).
    ///
    /// JavaScriptCore keeps a global object's unhandled-rejection callback in a strong handle,
    /// one of the garbage collector's roots. A callback made in the document's own context so
    /// kept its global object, and all that is reachable from it, alive after the context was
    /// released: no closed document was ever collected (after 300 contexts made and closed, a
    /// full collection left 301 global objects and 28 MB; with this sink, 2, the probe's and
    /// the sink's, and 186 KB). The sink lives in a context of its own, made on first use and
    /// kept for the VM's life.
    func rejectionSink() -> JSObjectRef? {
        if let made = unsafe rejectionSinkParts.withLock({ unsafe OpaquePointer(bitPattern: $0.function) }) { return unsafe made }
        // Made outside the lock: making a context takes the VM's lock, which the thread may hold.
        guard let context = unsafe JSGlobalContextCreateInGroup(group.ref, nil) else { return nil }
        let callback: JSObjectCallAsFunctionCallback = { ctx, _, _, _, _, _ in unsafe JSValueMakeUndefined(ctx) }
        guard let function = unsafe JSObjectMakeFunctionWithCallback(context, nil, callback) else {
            unsafe JSGlobalContextRelease(context)
            return nil
        }
        unsafe JSValueProtect(context, function)
        let kept = rejectionSinkParts.withLock { parts -> UInt in
            if parts.function == 0 {
                parts = (UInt(bitPattern: Int(bitPattern: context)), UInt(bitPattern: Int(bitPattern: function)))
            }
            return parts.function
        }
        if kept != UInt(bitPattern: Int(bitPattern: function)) {
            // Another thread made one first.
            unsafe JSValueUnprotect(context, function)
            unsafe JSGlobalContextRelease(context)
        }
        return unsafe OpaquePointer(bitPattern: kept)
    }

    /// `source` parsed for this VM, or `nil` to evaluate it as text: at its first evaluation
    /// in the VM (a worker's VM, which runs one document, never pays for a parse of its own
    /// on top of the evaluation's), or when JavaScriptCore does not parse it (as text, it then
    /// reports its error). Made at the second evaluation, then kept for the VM's life.
    /// Evaluate it only in a context of this VM.
    func script(for source: ScriptSource) -> JSScriptRef? {
        let key = ObjectIdentifier(source)
        let seen = scripts.withLock { scripts -> UInt? in
            guard let made = scripts[key]?.script else {
                scripts[key] = (source, Self.evaluatedOnce)
                return nil
            }
            return made
        }
        guard let seen else { return nil }
        if seen != Self.evaluatedOnce { return unsafe OpaquePointer(bitPattern: seen) }
        // Made outside the lock (it takes the VM's lock); only the VM's thread gets here.
        let text = unsafe makeJSString(source.text)
        defer { unsafe JSStringRelease(text) }
        let url = unsafe makeJSString(source.sourceURL)
        defer { unsafe JSStringRelease(url) }
        var message: JSStringRef? = nil
        let script = unsafe JSScriptCreateFromString(group.ref, url, 1, text, &message, nil)
        unsafe message.map(JSStringRelease)
        scripts.withLock { $0[key] = (source, UInt(bitPattern: Int(bitPattern: script))) }
        return unsafe script
    }

    /// The script made for `source` in this VM, if one was (for tests).
    func madeScript(for source: ScriptSource) -> JSScriptRef? {
        let made = scripts.withLock { $0[ObjectIdentifier(source)]?.script } ?? 0
        return made == Self.evaluatedOnce ? nil : unsafe OpaquePointer(bitPattern: made)
    }

    /// In ``scripts``: the source was evaluated once here, as text.
    private static let evaluatedOnce = UInt.max

    /// Makes a lane on this thread: an executor with a JavaScriptCore VM of its own, whose jobs
    /// and timers run on this thread.
    ///
    /// Contexts on a lane cost a VM (a few megabytes) instead of sharing the thread's, and in
    /// return can wait with `runOthers(until:timeout:)` while the thread's other work goes on.
    /// A lane made on a lane is hosted on the same thread. A lane lives as long as something
    /// refers to it, and stops with its thread.
    public func makeLane(name: String) -> EngineThread {
        let host = hostThread
        let lane = EngineThread(lane: name, on: host)
        host.lanes.withLock { lanes in
            lanes.removeAll { $0.lane == nil }
            lanes.append(WeakLane(lane: lane))
        }
        return lane
    }

    /// The JavaScriptCore context group (one VM) shared by every context on this thread or lane.
    ///
    /// A thread's is made with the thread. A lane's is made on first use: on its host thread it
    /// belongs to the thread's main context, so JavaScriptCore's run-loop work for it runs there
    /// (``ScriptContext``'s initializer first makes it there, ``prepareGroup()``); made on another
    /// thread, it works, but that work of its never runs.
    var group: JSContextGroup {
        let bits = groupBits.load(ordering: .acquiring)
        if let made = unsafe OpaquePointer(bitPattern: bits) { return unsafe JSContextGroup(ref: made) }
        let made = UInt(bitPattern: Int(bitPattern: unsafe JSContextGroupCreate()))
        let (exchanged, original) = groupBits.compareExchange(expected: 0, desired: made, ordering: .acquiringAndReleasing)
        if !exchanged { unsafe JSContextGroupRelease(OpaquePointer(bitPattern: made)) }
        return unsafe JSContextGroup(ref: OpaquePointer(bitPattern: exchanged ? made : original)!)
    }

    /// Makes a lane's VM on its host thread if it has none yet (see ``group``), without blocking
    /// the caller's thread: a cooperative pool thread blocked on an engine thread could be the
    /// one the engine thread waits for (a panel's delegate).
    package func prepareGroup() async {
        guard groupBits.load(ordering: .acquiring) == 0 else { return }
        let host = hostThread
        if host.isCurrent {
            _ = group
            return
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            // Due at once, for no lane that could be paused: it runs even inside another lane's
            // wait. A stopped thread runs nothing more: the VM is then made here.
            let queued = host.insertTimer(deadline: 0, lane: QueuedJob.anyLane, executor: nil, unlessStopped: true) {
                _ = self.group
                continuation.resume()
            }
            if !queued {
                _ = group
                continuation.resume()
            }
        }
    }

    /// Makes a global object of this VM on the thread that runs it, with the VM's rejection
    /// sink (``rejectionSink()``), and returns its bits: made on another thread, it could be
    /// made while the thread's deferred work was being stopped, its termination still pending
    /// (``absorbDeferredWorkStop()``), on which JavaScriptCore aborts the process.
    package func makeGlobalContextOnItsThread() async -> UInt {
        await prepareGroup()
        let host = hostThread
        let make = { @Sendable () -> UInt in
            _ = unsafe self.rejectionSink()
            return UInt(bitPattern: unsafe JSGlobalContextCreateInGroup(self.group.ref, nil).map { Int(bitPattern: $0) } ?? 0)
        }
        if host.isCurrent { return make() }
        return await withCheckedContinuation { (continuation: CheckedContinuation<UInt, Never>) in
            let queued = host.insertTimer(deadline: 0, lane: QueuedJob.anyLane, executor: nil, unlessStopped: true) {
                continuation.resume(returning: make())
            }
            if !queued { continuation.resume(returning: make()) }
        }
    }

    /// This thread as a task executor, for waits that should resume here directly (see
    /// ``EngineTaskExecutor``); a lane's is its host's.
    package var taskExecutor: EngineTaskExecutor {
        let thread = hostThread
        return thread.ownTaskExecutor.withLock { executor in
            if let executor { return executor }
            let made = EngineTaskExecutor(thread: thread)
            executor = made
            return made
        }
    }

    /// The thread that runs this executor's work: the thread itself, or the one hosting a lane.
    public var hostThread: EngineThread { host ?? self }

    /// Whether the thread has been running one job, timer or piece of JavaScriptCore's work for
    /// more than ``heldAfter``: a script near its time limit, or one the limit cannot stop (a
    /// built-in already running, such as one call that builds a 2 GB string). ``EnginePool``
    /// gives new contexts to other threads meanwhile. A lane answers for its thread.
    var isHeld: Bool {
        let started = hostThread.turnStarted.load(ordering: .relaxed)
        return started != 0 && DispatchTime.now().uptimeNanoseconds &- started > Self.heldAfter
    }

    /// How long one turn runs before the thread counts as held: 1 s (nanoseconds).
    static let heldAfter: UInt64 = 1_000_000_000

    /// Whether this is a lane hosted on another thread (``makeLane(name:)``).
    public var isLane: Bool { host != nil }

    /// Stops the thread after the jobs already queued have run. Contexts on it must be closed
    /// first. A lane has nothing to stop: it stops with its thread.
    public func shutdown() {
        guard host == nil else { return }
        let sleeper = state.withLock { state in
            state.stopped = true
            defer { state.sleeping = .awake }
            return state.sleeping
        }
        rouse(sleeper)
    }

    /// Whether the caller is running on this thread (for a lane: on the thread hosting it).
    public var isCurrent: Bool {
        if let host { return host.isCurrent }
        return pthread_equal(pthread_self(), pthread_t(threadID.load(ordering: .relaxed))) != 0
    }

    /// This executor's tag in its host's queue: `0` for a thread's own executor.
    private var laneTag: UInt {
        host == nil ? 0 : UInt(bitPattern: ObjectIdentifier(self))
    }

    // MARK: SerialExecutor

    public func enqueue(_ job: consuming ExecutorJob) {
        hostThread.append(QueuedJob(job: UnownedJob(job), lane: laneTag, executor: host == nil ? nil : self))
    }

    func append(_ job: QueuedJob) {
        let sleeper = state.withLock { state in
            state.jobs.append(job)
            defer { state.sleeping = .awake }
            return state.sleeping
        }
        enqueued.add(1, ordering: .releasing)
        rouse(sleeper)
    }

    /// How many jobs wait in the thread's queue (tests).
    var queuedJobCount: Int { hostThread.state.withLock { $0.jobs.count } }

    /// Wakes the thread from the sleep it was found in (``Sleeper``).
    @inline(__always)
    private func rouse(_ sleeper: Sleeper) {
        switch sleeper {
        case .awake: break
        case .onSemaphore: wakeUp.signal()
        case .onMainContext: unsafe sb_g_main_context_wakeup(UnsafeMutableRawPointer(bitPattern: mainContextBits))
        }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        unsafe UnownedSerialExecutor(ordinary: self)
    }

    public func checkIsolated() {
        precondition(isIsolatingCurrentContext() == true, "expected to run on engine thread \(name)")
    }

    /// Whether the caller runs on this executor: on the thread, in a job or timer of this
    /// thread's own executor or of this lane.
    public func isIsolatingCurrentContext() -> Bool? {
        let thread = hostThread
        guard thread.isCurrent else { return false }
        let running = thread.running.lane.load(ordering: .relaxed)
        // JavaScriptCore's run-loop work runs between jobs, when no lane waits, for whichever
        // of the thread's VMs it belongs to: no job of any of the thread's executors is running.
        return running == laneTag || running == QueuedJob.mainContextLane
    }

    // MARK: Timers

    /// Runs `action` on this thread once `delay` has passed, after the jobs queued before it
    /// (for a lane: on its thread, as the lane's work).
    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) {
        let (seconds, attoseconds) = delay.components
        let nanos = max(0, seconds) * 1_000_000_000 + max(0, attoseconds) / 1_000_000_000
        let deadline = DispatchTime.now().uptimeNanoseconds &+ UInt64(nanos)
        hostThread.insertTimer(deadline: deadline, lane: laneTag, executor: host == nil ? nil : self, action: action)
    }

    /// Queues a timer on this thread (a host thread) and wakes it; `false`, queuing nothing, when
    /// `unlessStopped` and the thread has stopped.
    @discardableResult
    private func insertTimer(
        deadline: UInt64, lane: UInt, executor: EngineThread?, unlessStopped: Bool = false, action: @escaping @Sendable () -> Void
    ) -> Bool {
        let sleeper = state.withLock { state -> Sleeper? in
            if unlessStopped && state.stopped { return nil }
            state.nextTimerSequence += 1
            state.timers.insert(
                TimerEntry(deadline: deadline, sequence: state.nextTimerSequence, lane: lane, executor: executor, action: action))
            defer { state.sleeping = .awake }
            return state.sleeping
        }
        guard let sleeper else { return false }
        enqueued.add(1, ordering: .releasing)
        rouse(sleeper)
        return true
    }

    /// Wakes the thread so that a waiting `runOthers(until:timeout:)` checks its condition again;
    /// call it, from any thread, after making the condition true.
    package func wake() {
        if let host { return host.wake() }
        enqueued.add(1, ordering: .releasing)
        let sleeper = state.withLock { state in
            defer { state.sleeping = .awake }
            return state.sleeping
        }
        rouse(sleeper)
    }

    // MARK: Execution time limit

    /// Makes sure the group's watchdog is set to `limit` seconds (`.infinity` clears it).
    /// Called on the thread before entering JavaScript; costs one compare when unchanged.
    /// An entry's own finite limit (not `force`d: not a stop's or a wait's remainder) is also
    /// the one the VM's deferred work runs under from then on.
    func ensureTimeLimit(_ limit: Double, force: Bool = false) {
        let quanta = memoryLimit.load(ordering: .relaxed) != 0 || interruptible.load(ordering: .relaxed)
        // In quanta, the limit is counted down anew for every entry.
        if quanta { limitLeft.store(limit.bitPattern, ordering: .relaxed) }
        guard force || currentTimeLimit.load(ordering: .relaxed) != limit.bitPattern else { return }
        currentTimeLimit.store(limit.bitPattern, ordering: .relaxed)
        if !force && limit.isFinite { deferredWorkLimit.store(limit.bitPattern, ordering: .relaxed) }
        if quanta {
            setQuantum(min(limit, Self.memoryQuantum))
        } else if limit.isFinite {
            let context = unsafe Unmanaged.passUnretained(self).toOpaque()
            unsafe JSContextGroupSetExecutionTimeLimit(
                group.ref, limit,
                { _, context in
                    guard let context = unsafe context else { return true }
                    unsafe Unmanaged<EngineThread>.fromOpaque(context).takeUnretainedValue()
                        .watchdogFired.store(true, ordering: .relaxed)
                    return true
                }, unsafe context)
        } else {
            unsafe JSContextGroupClearExecutionTimeLimit(group.ref)
        }
    }

    // MARK: Interruption

    /// Makes the scripts of this thread's contexts stoppable by ``interrupt()``: the watchdog
    /// then wakes every ``memoryQuantum`` of a script's CPU time, as under a memory limit, and
    /// counts the entry's time limit down itself. Call it before the thread's first script (a
    /// worker's thread, which its `terminate()` must free at once, as WebKit frees its worker).
    package func makeInterruptible() {
        guard !interruptible.exchange(true, ordering: .relaxed) else { return }
        // No limit equals this one: the next entry sets the watchdog anew, in quanta.
        currentTimeLimit.store(Double.nan.bitPattern, ordering: .relaxed)
    }

    /// Stops the script running on this thread within one quantum of its CPU time, as its time
    /// limit stops it (it ends with `TimeLimitExceeded`), and any later one that runs as long;
    /// from any thread. Only an interruptible thread (``makeInterruptible()``) hears it. The
    /// thread is meant to be shut down after it.
    package func interrupt() {
        interrupted.store(true, ordering: .relaxed)
    }

    /// An outermost entry of a context with `interruption` (or none) starts (on the thread).
    func enter(_ interruption: ScriptInterruption?) {
        let bits = interruption.map { UInt(bitPattern: unsafe Unmanaged.passUnretained($0).toOpaque()) } ?? 0
        entryInterruption.store(bits, ordering: .relaxed)
    }

    /// That entry has ended (on the thread).
    func leaveInterruption() {
        entryInterruption.store(0, ordering: .relaxed)
    }

    /// Whether the script running now was interrupted: the thread's, or its entry's context's.
    private var entryInterrupted: Bool {
        if interrupted.load(ordering: .relaxed) { return true }
        let bits = entryInterruption.load(ordering: .relaxed)
        guard bits != 0, let pointer = unsafe UnsafeRawPointer(bitPattern: bits) else { return false }
        return unsafe Unmanaged<ScriptInterruption>.fromOpaque(pointer).takeUnretainedValue().isInterrupted
    }

    // MARK: Memory limit

    /// Collects this VM's garbage now, in a context of its own made for it (a closed
    /// document's objects are otherwise collected when JavaScriptCore next decides to). Call it
    /// on the thread.
    package func collectGarbage() {
        precondition(isIsolatingCurrentContext() == true, "collectGarbage() must run on \(name)")
        guard let context = unsafe JSGlobalContextCreateInGroup(group.ref, nil) else { return }
        unsafe JSSynchronousGarbageCollectForDebugging(context)
        unsafe JSGlobalContextRelease(context)
        ResidentMemory.releaseFreeMemory()
    }

    /// How much of the thread's CPU time a script runs between two readings of the resident
    /// memory, when a memory limit is set. A page that allocates as fast as JavaScriptCore
    /// lets it (about 1.5 GB/s here) goes some 150 MB past the limit before it is read (120 MB in a
    /// run of the runner under a 600 MB limit).
    static let memoryQuantum = 0.1

    /// Sets the memory limit (bytes, `0` for none) for the entries that follow. With one, the
    /// watchdog wakes every ``memoryQuantum`` of the script's CPU time to read the process's
    /// resident memory, and counts the entry's time limit down itself; without, it is set to
    /// the time limit alone, as before.
    func setMemoryLimit(_ bytes: UInt64) {
        guard memoryLimit.load(ordering: .relaxed) != bytes else { return }
        memoryLimit.store(bytes, ordering: .relaxed)
        ensureTimeLimit(Double(bitPattern: currentTimeLimit.load(ordering: .relaxed)), force: true)
    }

    /// Whether the process's resident memory is past the limit, read at most every 100 ms
    /// between scripts (a page that grows a little in each of many short tasks never runs a
    /// quantum). Sets ``memoryLimitFired`` when it is.
    func memoryLimitPassed(now: UInt64) -> Bool {
        let limit = memoryLimit.load(ordering: .relaxed)
        guard limit != 0, now &- memoryReadAt.load(ordering: .relaxed) >= 100_000_000 else { return false }
        memoryReadAt.store(now, ordering: .relaxed)
        guard let resident = ResidentMemory.bytes(), resident > limit else { return false }
        memoryLimitFired.store(true, ordering: .relaxed)
        return true
    }

    private func setQuantum(_ seconds: Double) {
        quantumSet.store(seconds.bitPattern, ordering: .relaxed)
        let context = unsafe Unmanaged.passUnretained(self).toOpaque()
        unsafe JSContextGroupSetExecutionTimeLimit(
            group.ref, seconds,
            { _, context in
                guard let context = unsafe context else { return true }
                return unsafe Unmanaged<EngineThread>.fromOpaque(context).takeUnretainedValue().quantumEnded()
            }, unsafe context)
    }

    /// The watchdog's callback in quanta, on the thread, while the script waits: ends it when
    /// the process is past the memory limit or the entry's time is up, and otherwise sets the
    /// next quantum (JavaScriptCore calls a callback that answers `false` again only once a
    /// limit is set anew).
    private func quantumEnded() -> Bool {
        if entryInterrupted {
            watchdogFired.store(true, ordering: .relaxed)
            return true
        }
        let limit = memoryLimit.load(ordering: .relaxed)
        if limit != 0, let resident = ResidentMemory.bytes(), resident > limit {
            memoryLimitFired.store(true, ordering: .relaxed)
            watchdogFired.store(true, ordering: .relaxed)
            return true
        }
        let left = Double(bitPattern: limitLeft.load(ordering: .relaxed)) - Double(bitPattern: quantumSet.load(ordering: .relaxed))
        guard left > 0 else {
            watchdogFired.store(true, ordering: .relaxed)
            return true
        }
        limitLeft.store(left.bitPattern, ordering: .relaxed)
        setQuantum(min(left, Self.memoryQuantum))
        return false
    }

    // MARK: Waiting while others run

    /// Waits on the thread until `isFinished` returns true or `timeout` passes, running every
    /// other lane's jobs and timers meanwhile; this executor's own jobs and timers wait, in order,
    /// and so does JavaScriptCore's run-loop work (it may belong to this lane's VM).
    ///
    /// Call it from a job of this executor, such as a native callback that can only answer
    /// once something outside JavaScript happened. Contexts on other lanes keep running: their
    /// VMs are not the one this call holds locked, so their calls enter at depth zero and their
    /// promise reactions run. Waits nest: when a lane waits during another lane's wait, the
    /// outer wait goes on only after the inner one ended.
    ///
    /// JavaScriptCore's watchdog measures the thread's CPU time, which the other lanes use
    /// meanwhile; so the current entry's execution time limit is lifted for the wait and then
    /// set to what the entry had left, and the wait does not count as the entry's own time.
    /// - Returns: whether `isFinished` returned true (`false` when the timeout passed first).
    package func runOthers(until isFinished: () -> Bool, timeout: Duration) -> Bool {
        precondition(isIsolatingCurrentContext() == true, "runOthers(until:timeout:) must run on \(name)")
        let thread = hostThread
        let lane = laneTag
        let limit = Double(bitPattern: currentTimeLimit.load(ordering: .relaxed))
        let begin = DispatchTime.now().uptimeNanoseconds
        let used = Double(begin &- entryStart.load(ordering: .relaxed)) * 1e-9
        thread.state.withLock { $0.paused.append(lane) }
        ensureTimeLimit(.infinity)
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
        // The native call that waits holds this VM's API lock (see the native function
        // trampoline): let go of it for the wait, as JavaScriptCore does around native calls.
        let locking = unsafe JSContextRef(bitPattern: lockingContext.load(ordering: .relaxed))
        let lock = MicrotaskCheckpoint.functions
        if let locking = unsafe locking { unsafe lock?.unlock(locking) }
        // A thread that waits here still runs the others' work: it is not held.
        let turn = thread.turnStarted.load(ordering: .relaxed)
        thread.turnStarted.store(0, ordering: .relaxed)
        thread.drive(until: isFinished, nested: true, deadline: begin &+ nanoseconds)
        thread.turnStarted.store(turn == 0 ? 0 : DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
        if let locking = unsafe locking { unsafe lock?.lock(locking) }
        thread.state.withLock { state in
            if let index = state.paused.lastIndex(of: lane) { state.paused.remove(at: index) }
            let held = state.heldTimers
            state.heldTimers = held.filter { state.paused.contains($0.lane) }
            for entry in held where !state.paused.contains(entry.lane) { state.timers.insert(entry) }
        }
        entryStart.add(DispatchTime.now().uptimeNanoseconds &- begin, ordering: .relaxed)
        if limit.isFinite { ensureTimeLimit(max(limit - used, Self.minimumRemainingLimit), force: true) }
        return isFinished()
    }

    /// The least time limit an entry gets back after a wait, however long it ran before.
    private static let minimumRemainingLimit = 0.001

    // MARK: Run loop

    fileprivate func runLoop() {
        // Foundation names a thread in the OS only when the name is set from the thread itself.
        _ = unsafe pthread_setname_np(pthread_self(), Self.osName(name))
        threadID.store(UInt(pthread_self()), ordering: .releasing)
        drive(until: { false }, nested: false, deadline: nil)
    }

    /// `name` as Linux keeps a thread's name: at most 15 bytes, cut between characters.
    static func osName(_ name: String) -> String {
        var cut = ""
        for character in name {
            guard cut.utf8.count + character.utf8.count <= 15 else { break }
            cut.append(character)
        }
        return cut
    }

    /// Runs the thread's jobs and timers, except those of paused lanes, one at a time (so a
    /// nested loop sees everything queued), until `isFinished` returns true or `deadline`
    /// (uptime nanoseconds) passes; the outermost loop (not `nested`) runs until ``shutdown()``
    /// and no job is left.
    ///
    /// Each turn takes one job or one due timer out of the queue, never more: a job or timer
    /// that waits in ``runOthers(until:timeout:)`` leaves everything else where the nested loop
    /// finds it. When both are ready they take turns, so neither starves the other.
    private func drive(until isFinished: () -> Bool, nested: Bool, deadline: UInt64?) {
        var pollFDs = [SBPollFD](repeating: SBPollFD(), count: 4)
        var mainContextRan = DispatchTime.now().uptimeNanoseconds
        var timerFirst = false
        while true {
            // Read before the check: a wake-up (``wake()``) after it counts, so the loop does
            // not sleep past it.
            let seen = enqueued.load(ordering: .acquiring)
            let now = DispatchTime.now().uptimeNanoseconds
            // A nested loop ends at its deadline even while other lanes keep the thread busy.
            if nested && (isFinished() || deadline.map { now >= $0 } ?? false) { return }
            var sleepUntil: UInt64? = nil
            var shouldSleep = false
            var next: QueuedJob? = nil
            var timer: TimerEntry? = nil
            var runsMainContext = false
            let stop = state.withLock { state -> Bool in
                runsMainContext = mainContextBits != 0 && state.paused.isEmpty
                // Due timers of paused lanes wait aside; the first other due timer stays first.
                while let first = state.timers.min, first.deadline <= now, state.paused.contains(first.lane) {
                    state.heldTimers.append(state.timers.removeMin())
                }
                let timerDue = state.timers.min.map { $0.deadline <= now } ?? false
                if !(timerDue && timerFirst) { next = state.takeRunnableJob() }
                if next == nil && timerDue { timer = state.timers.removeMin() }
                if next == nil && timer == nil {
                    if !nested && state.stopped { return true }
                    shouldSleep = true
                    sleepUntil = state.timers.min?.deadline
                }
                return false
            }
            if stop { return }
            if next != nil || timer != nil {
                let outer = turnStarted.load(ordering: .relaxed)
                turnStarted.store(now, ordering: .relaxed)
                if let next { run(next) } else if let timer { run(timer) }
                turnStarted.store(outer, ordering: .relaxed)
                timerFirst = next != nil
            }
            // A thread kept busy still runs JavaScriptCore's work, about once a millisecond.
            if runsMainContext && now &- mainContextRan >= Self.mainContextInterval {
                runMainContext(waitingUntil: nil, waits: false, fds: &pollFDs)
                mainContextRan = now
            }
            guard shouldSleep else { continue }
            if let deadline { sleepUntil = min(sleepUntil ?? deadline, deadline) }
            if spin(from: seen, until: sleepUntil) { continue }
            let sleep = state.withLock { state -> Bool in
                guard !state.hasRunnableJob, !state.stopped || nested,
                    enqueued.load(ordering: .acquiring) == seen
                else { return false }
                if let first = state.timers.min, first.deadline <= DispatchTime.now().uptimeNanoseconds { return false }
                runsMainContext = mainContextBits != 0 && state.paused.isEmpty
                state.sleeping = runsMainContext ? .onMainContext : .onSemaphore
                return true
            }
            guard sleep else { continue }
            let wakeAt = [state.withLock({ $0.timers.min?.deadline }), deadline].compactMap({ $0 }).min()
            if runsMainContext {
                runMainContext(waitingUntil: wakeAt, waits: true, fds: &pollFDs)
                mainContextRan = DispatchTime.now().uptimeNanoseconds
            } else if let wakeAt {
                _ = wakeUp.wait(timeout: DispatchTime(uptimeNanoseconds: wakeAt))
            } else {
                wakeUp.wait()
            }
            state.withLock { $0.sleeping = .awake }
        }
    }

    /// How often a busy thread runs its main context's ready sources: 1 ms (a check costs a few
    /// microseconds).
    private static let mainContextInterval: UInt64 = 1_000_000

    /// Runs the thread's GLib main context once: waits (when `waits`) until one of its sources is
    /// ready, the thread is woken (``rouse(_:)`` wakes the context), or `wakeAt` (uptime
    /// nanoseconds) passes, then dispatches the sources that are ready. Its sources are
    /// JavaScriptCore's run-loop timers and run loop: they run page code (WebAssembly's
    /// compilation results, `FinalizationRegistry` callbacks) as an entry of their own, under
    /// the VM's time limit as it was last set, between jobs (``QueuedJob/mainContextLane``).
    private func runMainContext(waitingUntil wakeAt: UInt64?, waits: Bool, fds: inout [SBPollFD]) {
        guard let context = unsafe UnsafeMutableRawPointer(bitPattern: mainContextBits) else { return }
        var priority: Int32 = 0
        let ready = unsafe sb_g_main_context_prepare(context, &priority) != 0
        var timeout: Int32 = 0
        var count: Int32 = 0
        while true {
            count = unsafe fds.withUnsafeMutableBufferPointer { buffer in
                unsafe sb_g_main_context_query(context, priority, &timeout, buffer.baseAddress, Int32(buffer.count))
            }
            guard Int(count) > fds.count else { break }
            fds = [SBPollFD](repeating: SBPollFD(), count: Int(count))
        }
        // Nanoseconds to wait; negative waits until something happens.
        var wait: Int64 = 0
        if waits && !ready {
            wait = timeout >= 0 ? Int64(timeout) * 1_000_000 : -1
            if let wakeAt {
                let left = Int64(clamping: wakeAt &- min(wakeAt, DispatchTime.now().uptimeNanoseconds))
                wait = wait < 0 ? left : min(wait, left)
            }
        }
        unsafe fds.withUnsafeMutableBufferPointer { buffer in
            if wait < 0 {
                _ = unsafe sb_ppoll(buffer.baseAddress, UInt(count), nil, nil)
            } else {
                var span = timespec(tv_sec: Int(wait / 1_000_000_000), tv_nsec: Int(wait % 1_000_000_000))
                _ = unsafe sb_ppoll(buffer.baseAddress, UInt(count), &span, nil)
            }
            guard unsafe sb_g_main_context_check(context, priority, buffer.baseAddress, count) != 0 else { return }
            limitDeferredWork()
            let previous = running.lane.exchange(QueuedJob.mainContextLane, ordering: .relaxed)
            let began = DispatchTime.now().uptimeNanoseconds
            entryStart.store(began, ordering: .relaxed)
            let outer = turnStarted.load(ordering: .relaxed)
            turnStarted.store(began, ordering: .relaxed)
            unsafe sb_g_main_context_dispatch(context)
            turnStarted.store(outer, ordering: .relaxed)
            running.lane.store(previous, ordering: .relaxed)
            if watchdogFired.exchange(false, ordering: .relaxed) { absorbDeferredWorkStop() }
        }
    }

    /// Ends the stop the time limit made in JavaScriptCore's deferred work (a
    /// `FinalizationRegistry` callback that never returns): no call of a context's absorbs
    /// it there, and the VM kept its termination pending, on which the next global object
    /// made for a document aborted the process. An empty script in each VM's own context
    /// (``rejectionSink()``'s) takes it, as ``ScriptContext`` takes a stopped entry's.
    private func absorbDeferredWorkStop() {
        for vm in [self] + lanes.withLock({ $0.compactMap(\.lane) }) {
            guard let context = unsafe OpaquePointer(bitPattern: vm.rejectionSinkParts.withLock { $0.context }) else { continue }
            let script = unsafe makeJSString("void 0")
            var exception: JSValueRef? = nil
            unsafe JSEvaluateScript(context, script, nil, nil, 1, &exception)
            unsafe JSStringRelease(script)
        }
        entryStopped.store(false, ordering: .relaxed)
    }

    /// Sets each of the thread's VMs (its own and its lanes') to the limit its deferred work runs
    /// under (``deferredWorkLimit``), in place of whatever its last entry left: no limit, or
    /// the few milliseconds left to a stopped or long entry.
    private func limitDeferredWork() {
        ensureTimeLimit(Double(bitPattern: deferredWorkLimit.load(ordering: .relaxed)), force: false)
        for lane in lanes.withLock({ $0.compactMap(\.lane) }) where lane.groupBits.load(ordering: .acquiring) != 0 {
            lane.ensureTimeLimit(Double(bitPattern: lane.deferredWorkLimit.load(ordering: .relaxed)), force: false)
        }
    }

    /// Runs one job on its executor, as the lane it was queued for.
    ///
    /// A job may run nested inside another executor's job (a lane's job while another lane
    /// waits in `runOthers(until:timeout:)`): the Swift runtime allows it, as nested run loops
    /// and GLib-based executors rely on. `swift_job_run` (stdlib/public/Concurrency/Actor.cpp)
    /// enters a fresh `ExecutorTrackingInfo` with `enterAndShadow`, which saves the tracking of
    /// the job it is nested in and restores it on `leave()`; `runJobInEstablishedExecutorContext`
    /// swaps the thread's active task (`ActiveTask::swap`) and sets the outer task back after.
    /// The outer job's executor stays exclusive because the loop never runs a paused lane's job.
    private func run(_ queued: QueuedJob) {
        let previous = running.lane.exchange(queued.lane, ordering: .relaxed)
        if let taskExecutor = queued.taskExecutor {
            unsafe queued.job.runSynchronously(on: taskExecutor.asUnownedTaskExecutor())
        } else {
            unsafe queued.job.runSynchronously(on: (queued.executor ?? self).asUnownedSerialExecutor())
        }
        running.lane.store(previous, ordering: .relaxed)
    }

    /// Runs one due timer as the lane that scheduled it.
    private func run(_ timer: TimerEntry) {
        let previous = running.lane.exchange(timer.lane, ordering: .relaxed)
        withExtendedLifetime(timer.executor) { timer.action() }
        running.lane.store(previous, ordering: .relaxed)
    }

    /// Polls for new work for up to `spinNanoseconds`; returns true when some arrived.
    private func spin(from seen: UInt64, until deadline: UInt64?) -> Bool {
        guard spinNanoseconds > 0 else { return false }
        let start = DispatchTime.now().uptimeNanoseconds
        var end = start &+ spinNanoseconds
        if let deadline { end = min(end, deadline) }
        while DispatchTime.now().uptimeNanoseconds < end {
            if enqueued.load(ordering: .acquiring) != seen { return true }
            for _ in 0..<64 { _ = enqueued.load(ordering: .relaxed) }
        }
        return enqueued.load(ordering: .acquiring) != seen
    }
}

/// A lane as its thread knows it: the lane lives as long as something else refers to it.
struct WeakLane: Sendable {
    weak var lane: EngineThread?
}

/// A timer waiting in an ``EngineThread``'s queue.
struct TimerEntry: Comparable, Sendable {
    var deadline: UInt64
    var sequence: UInt64
    /// The lane that scheduled it (`0` for the thread's own executor), kept alive until it ran.
    var lane: UInt
    var executor: EngineThread?
    var action: @Sendable () -> Void

    static func < (lhs: TimerEntry, rhs: TimerEntry) -> Bool {
        (lhs.deadline, lhs.sequence) < (rhs.deadline, rhs.sequence)
    }

    static func == (lhs: TimerEntry, rhs: TimerEntry) -> Bool {
        lhs.deadline == rhs.deadline && lhs.sequence == rhs.sequence
    }
}

/// A job waiting in an ``EngineThread``'s queue, with the lane it belongs to (`0` for the
/// thread's own executor; the lane is kept alive until the job ran).
struct QueuedJob: Sendable {
    var job: UnownedJob
    var lane: UInt
    var executor: EngineThread?
    /// Set for the job of a task that prefers the thread as its task executor: nonisolated
    /// code, isolated to no lane (``anyLane``), which runs even while a lane waits.
    var taskExecutor: EngineTaskExecutor? = nil

    /// The lane of a task executor's job: never paused.
    static let anyLane = UInt.max
    /// The lane the thread runs JavaScriptCore's run-loop work as (``EngineThread``'s main
    /// context): isolated to each of the thread's executors, since it runs between their jobs.
    static let mainContextLane = UInt.max - 1
}

/// The lane an ``EngineThread`` is running, in an object of its own: a context's native
/// functions keep it, since they may outlive the context and its thread (a finalizer frees
/// them), and must be able to ask whether they run from JavaScriptCore's deferred work.
///
/// Sendable: its one member is atomic.
package final class RunningLane: Sendable {
    let lane = Atomic<UInt>(0)

    /// Whether the thread is running JavaScriptCore's run-loop work; ask on the thread.
    @inline(__always)
    package var isMainContextWork: Bool { lane.load(ordering: .relaxed) == QueuedJob.mainContextLane }
}

/// How an ``EngineThread`` sleeps, so that whoever gives it work wakes it the right way.
enum Sleeper {
    case awake
    /// On its semaphore: inside a lane's wait, when JavaScriptCore's run-loop work waits too.
    case onSemaphore
    /// In a poll of its main context's sources (``EngineThread``'s main context).
    case onMainContext
}

/// The start of an ``EngineThread``: the thread makes its main context and its VM, hands them to
/// the initializer, and runs the engine's loop once the initializer has made it.
///
/// Sendable: its mutable parts are behind a `Mutex` and read only after a semaphore orders them.
private final class ThreadStart: Sendable {
    private let parts = Mutex<(group: UInt, mainContext: UInt, engine: EngineThread?)>((0, 0, nil))
    private let vmMade = DispatchSemaphore(value: 0)
    private let engineMade = DispatchSemaphore(value: 0)

    /// The thread's body.
    func run() {
        // JavaScriptCore's run loop for this thread takes the thread-default main context when it
        // is first made, for the thread's first VM; every VM made on the thread then shares it.
        let context = unsafe sb_g_main_context_new()
        unsafe sb_g_main_context_push_thread_default(context)
        _ = unsafe sb_g_main_context_acquire(context)
        let group = unsafe JSContextGroupCreate()
        parts.withLock { parts in
            parts.group = UInt(bitPattern: Int(bitPattern: group))
            parts.mainContext = UInt(bitPattern: Int(bitPattern: context))
        }
        vmMade.signal()
        engineMade.wait()
        let engine = parts.withLock { parts in
            defer { parts.engine = nil }
            return parts.engine
        }
        engine?.runLoop()
        unsafe sb_g_main_context_release(context)
        unsafe sb_g_main_context_pop_thread_default(context)
        unsafe sb_g_main_context_unref(context)
    }

    /// Waits for the thread's VM and main context (pointer bits).
    func waitForVM() -> (group: UInt, mainContext: UInt) {
        vmMade.wait()
        return parts.withLock { ($0.group, $0.mainContext) }
    }

    /// Lets the thread run `engine`'s loop.
    func begin(_ engine: EngineThread) {
        parts.withLock { $0.engine = engine }
        engineMade.signal()
    }
}

/// A JavaScriptCore context group (one VM).
///
/// `@unchecked Sendable` is safe: every JavaScriptCore C API function takes the VM's own lock
/// (`JSLockHolder`) for the duration of the call, so the reference may be used from any thread;
/// SessionBridge nevertheless only uses it on its ``EngineThread``.
@safe  // its JavaScriptCore references are used only on its context's engine thread, while the context lives
struct JSContextGroup: @unchecked Sendable {
    let ref: JSContextGroupRef
}
