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
/// ```swift
/// let thread = EngineThread(name: "js-1")
/// let context = await ScriptContext(thread: thread)
/// ```
public final class EngineThread: SerialExecutor, Sendable {
    /// How long the thread polls for new work before it blocks. Polling briefly turns a
    /// cross-thread reply from an OS wake-up (about 12 µs on a VM) into about 1 µs.
    public static let defaultSpin: Duration = .microseconds(50)

    /// The thread's name, as the OS shows it.
    public let name: String
    /// The JavaScriptCore context group (one VM) shared by every context on this thread.
    let group: JSContextGroup

    private let state: Mutex<State>
    private let wakeUp = DispatchSemaphore(value: 0)
    private let enqueued = Atomic<UInt64>(0)
    private let threadID = Atomic<UInt>(0)
    private let spinNanoseconds: UInt64
    /// Set by the watchdog callback when it ends a script; read and cleared on the thread.
    let watchdogFired = Atomic<Bool>(false)
    /// The execution time limit currently set on the group (seconds, `.infinity` for none),
    /// only read and written on the thread.
    private let currentTimeLimit = Atomic<UInt64>(Double.infinity.bitPattern)
    /// Whether the current entry into JavaScript was stopped: from then on every further
    /// JavaScript instruction of the entry is ended (see `ScriptContext.stopEntry()`).
    /// Only read and written on the thread.
    let entryStopped = Atomic<Bool>(false)
    /// How many native callbacks, called from JavaScript, are running on the thread right now.
    let nativeDepth = Atomic<Int>(0)
    /// When the current outermost entry into JavaScript began (uptime, nanoseconds).
    let entryStart = Atomic<UInt64>(0)

    private struct State: ~Copyable {
        var jobs = Deque<UnownedJob>()
        var timers = Heap<TimerEntry>()
        var nextTimerSequence: UInt64 = 0
        var waiting = false
        var stopped = false
    }

    /// Creates and starts an engine thread.
    /// - Parameters:
    ///   - name: the thread's name.
    ///   - spin: how long to poll for work before blocking (`.zero` never polls).
    public init(name: String = "ScriptEngine", spin: Duration = EngineThread.defaultSpin) {
        self.name = name
        _ = Self.configureEngine
        self.group = JSContextGroup(ref: JSContextGroupCreate())
        self.state = Mutex(State())
        let (seconds, attoseconds) = spin.components
        self.spinNanoseconds = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
        let thread = Thread { [self] in self.runLoop() }
        thread.name = name
        thread.stackSize = 8 << 20
        thread.start()
        while threadID.load(ordering: .acquiring) == 0 { sched_yield() }
    }

    deinit {
        JSContextGroupRelease(group.ref)
    }

    /// Makes JavaScriptCore stop runaway scripts by polling, before the process's first VM.
    ///
    /// By default JavaScriptCore stops a script that runs in optimized machine code by
    /// suspending its thread with a signal and patching the code it is in. For a loop in
    /// optimized code entered through the C API (a getter that a native conversion reads) that
    /// patching can fail again and again: the watchdog's stop then never arrives and the thread
    /// runs forever (seen about once in eight stops of such a loop under load). With polling
    /// traps every loop and call checks for a stop itself. The option is read from the
    /// environment once, when JavaScriptCore initializes; a value set by the user is kept, and
    /// if JavaScriptCore was initialized earlier in the process this changes nothing.
    private static let configureEngine: Void = {
        setenv("JSC_usePollingTraps", "true", 0)
    }()

    /// Stops the thread after the jobs already queued have run. Contexts on it must be closed first.
    public func shutdown() {
        state.withLock { $0.stopped = true }
        wakeUp.signal()
    }

    /// Whether the caller is running on this thread.
    public var isCurrent: Bool {
        pthread_equal(pthread_self(), pthread_t(threadID.load(ordering: .relaxed))) != 0
    }

    // MARK: SerialExecutor

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let wake = state.withLock { state in
            state.jobs.append(job)
            defer { state.waiting = false }
            return state.waiting
        }
        enqueued.add(1, ordering: .releasing)
        if wake { wakeUp.signal() }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    public func checkIsolated() {
        precondition(isCurrent, "expected to run on engine thread \(name)")
    }

    public func isIsolatingCurrentContext() -> Bool? {
        isCurrent
    }

    // MARK: Timers

    /// Runs `action` on this thread once `delay` has passed, after the jobs queued before it.
    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) {
        let (seconds, attoseconds) = delay.components
        let nanos = max(0, seconds) * 1_000_000_000 + max(0, attoseconds) / 1_000_000_000
        let deadline = DispatchTime.now().uptimeNanoseconds &+ UInt64(nanos)
        let wake = state.withLock { state in
            state.nextTimerSequence += 1
            state.timers.insert(TimerEntry(deadline: deadline, sequence: state.nextTimerSequence, action: action))
            defer { state.waiting = false }
            return state.waiting
        }
        enqueued.add(1, ordering: .releasing)
        if wake { wakeUp.signal() }
    }

    // MARK: Execution time limit

    /// Makes sure the group's watchdog is set to `limit` seconds (`.infinity` clears it).
    /// Called on the thread before entering JavaScript; costs one compare when unchanged.
    func ensureTimeLimit(_ limit: Double, force: Bool = false) {
        guard force || currentTimeLimit.load(ordering: .relaxed) != limit.bitPattern else { return }
        currentTimeLimit.store(limit.bitPattern, ordering: .relaxed)
        if limit.isFinite {
            let context = Unmanaged.passUnretained(self).toOpaque()
            JSContextGroupSetExecutionTimeLimit(group.ref, limit, { _, context in
                guard let context else { return true }
                Unmanaged<EngineThread>.fromOpaque(context).takeUnretainedValue()
                    .watchdogFired.store(true, ordering: .relaxed)
                return true
            }, context)
        } else {
            JSContextGroupClearExecutionTimeLimit(group.ref)
        }
    }

    // MARK: Run loop

    private func runLoop() {
        threadID.store(UInt(pthread_self()), ordering: .releasing)
        let executor = asUnownedSerialExecutor()
        var batch = Deque<UnownedJob>()
        var due: [TimerEntry] = []
        while true {
            var sleepUntil: UInt64? = nil
            var shouldSleep = false
            let seen = enqueued.load(ordering: .acquiring)
            let stop = state.withLock { state -> Bool in
                swap(&batch, &state.jobs)
                let now = DispatchTime.now().uptimeNanoseconds
                while let first = state.timers.min, first.deadline <= now {
                    due.append(state.timers.removeMin())
                }
                if batch.isEmpty && due.isEmpty {
                    if state.stopped { return true }
                    shouldSleep = true
                    sleepUntil = state.timers.min?.deadline
                }
                return false
            }
            if stop { return }
            while let job = batch.popFirst() {
                job.runSynchronously(on: executor)
            }
            for entry in due { entry.action() }
            due.removeAll(keepingCapacity: true)
            guard shouldSleep else { continue }
            if spin(from: seen, until: sleepUntil) { continue }
            let sleep = state.withLock { state -> Bool in
                guard state.jobs.isEmpty, !state.stopped else { return false }
                if let first = state.timers.min, first.deadline <= DispatchTime.now().uptimeNanoseconds { return false }
                state.waiting = true
                return true
            }
            guard sleep else { continue }
            if let deadline = state.withLock({ $0.timers.min?.deadline }) {
                _ = wakeUp.wait(timeout: DispatchTime(uptimeNanoseconds: deadline))
            } else {
                wakeUp.wait()
            }
            state.withLock { $0.waiting = false }
        }
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

/// A timer waiting in an ``EngineThread``'s queue.
struct TimerEntry: Comparable, Sendable {
    var deadline: UInt64
    var sequence: UInt64
    var action: @Sendable () -> Void

    static func < (lhs: TimerEntry, rhs: TimerEntry) -> Bool {
        (lhs.deadline, lhs.sequence) < (rhs.deadline, rhs.sequence)
    }

    static func == (lhs: TimerEntry, rhs: TimerEntry) -> Bool {
        lhs.deadline == rhs.deadline && lhs.sequence == rhs.sequence
    }
}

/// A JavaScriptCore context group (one VM).
///
/// `@unchecked Sendable` is safe: every JavaScriptCore C API function takes the VM's own lock
/// (`JSLockHolder`) for the duration of the call, so the reference may be used from any thread;
/// SessionBridge nevertheless only uses it on its ``EngineThread``.
struct JSContextGroup: @unchecked Sendable {
    let ref: JSContextGroupRef
}
