import CWebKitGTK
import Foundation
import SessionBridgeScriptEngine
import Synchronization

/// The one thread of the process that runs GTK and WebKit: a GLib main loop exposed to Swift as
/// a `SerialExecutor`.
///
/// Every GTK and WebKit call of this module happens on this thread; ``WebKitActor`` runs its
/// jobs here, so the compiler proves it. Jobs are queued as idle sources of the default main
/// context (never `g_main_context_invoke`, which would run a job inline on the owner thread and
/// break the executor's ordering). The thread starts on first use: it makes sure a display
/// exists (see ``DisplayServer``), initialises GTK once, and runs the loop until the process
/// exits.
public final class WebKitMainLoop: SerialExecutor, Sendable {
    /// The process's loop, started on first use.
    public static let shared = WebKitMainLoop()

    /// Why GTK could not start, if it could not; the loop still runs jobs, and every view
    /// creation reports this error.
    public var startupError: WebKitError? { startup.withLock { $0 } ?? nil }

    private let startup = Mutex<WebKitError??>(nil)
    private let started = DispatchSemaphore(value: 0)

    private init() {
        let thread = Thread { [self] in run() }
        thread.name = "WebKitGTK"
        thread.stackSize = 8 << 20
        thread.start()
        started.wait()
    }

    private func run() {
        var failure: WebKitError? = nil
        do {
            try DisplayServer.ensureDisplay()
            // GL compositing on a virtual display costs about 50 MB per page and buys nothing
            // headless; an explicit setting wins.
            unsafe setenv("WEBKIT_DISABLE_COMPOSITING_MODE", "1", 0)
            // Before WebKit starts JavaScriptCore in this process (results of scripts are values
            // of a context here) and before its web processes, which inherit them.
            _ = JavaScriptCoreSettings.applied
            if gtk_init_check(nil, nil) == 0 {
                failure = WebKitError(.displayUnavailable, "GTK could not open the display \(DisplayServer.currentDisplay ?? "(none)")")
            }
        } catch {
            failure = error
        }
        let context = unsafe g_main_context_default()
        unsafe g_main_context_acquire(context)
        startup.withLock { $0 = .some(failure) }
        let loop = unsafe g_main_loop_new(context, 0)
        started.signal()
        unsafe g_main_loop_run(loop)
    }

    /// Queues `job` as an idle source on the loop's context.
    public func enqueue(_ job: consuming ExecutorJob) {
        let box = unsafe Unmanaged.passRetained(QueuedJob(UnownedJob(job), executor: asUnownedSerialExecutor())).toOpaque()
        unsafe g_idle_add_full(
            G_PRIORITY_DEFAULT,
            { data in
                let queued = unsafe Unmanaged<QueuedJob>.fromOpaque(data!).takeRetainedValue()
                unsafe queued.job.runSynchronously(on: queued.executor)
                return 0  // G_SOURCE_REMOVE
            }, unsafe box, nil)
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        unsafe UnownedSerialExecutor(ordinary: self)
    }

    /// Stops the process when called off the loop's thread: WebKit state would be corrupted.
    public func checkIsolated() {
        precondition(isOnLoopThread, "WebKitGTK was called off its main-loop thread")
    }

    public func isIsolatingCurrentContext() -> Bool? {
        isOnLoopThread
    }

    /// Whether the caller runs on the loop's thread (it owns the default main context).
    public var isOnLoopThread: Bool {
        unsafe g_main_context_is_owner(g_main_context_default()) != 0
    }
}

/// A job waiting in an idle source.
@safe  // its GLib pointers are used only on the WebKit main-loop thread, while their object lives
private final class QueuedJob {
    let job: UnownedJob
    let executor: UnownedSerialExecutor

    init(_ job: UnownedJob, executor: UnownedSerialExecutor) {
        self.job = job
        unsafe self.executor = unsafe executor
    }
}

/// The global actor of GTK and WebKit objects: everything isolated to it runs on
/// ``WebKitMainLoop``'s thread.
@globalActor public actor WebKitActor {
    public static let shared = WebKitActor()

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        unsafe WebKitMainLoop.shared.asUnownedSerialExecutor()
    }

    /// Runs `operation` synchronously as isolated to the actor; only valid on the loop's thread
    /// (inside a GLib callback), and stops the process otherwise. (What `MainActor.assumeIsolated`
    /// is to the main thread.)
    public static func assumeIsolated<T: Sendable>(_ operation: @WebKitActor () throws -> T) rethrows -> T {
        WebKitMainLoop.shared.checkIsolated()
        return try withoutActuallyEscaping(operation) { isolated in
            // The loop's thread is the actor's only thread, checked above, so running the
            // isolated closure here is running it on the actor.
            try unsafe unsafeBitCast(isolated, to: (() throws -> T).self)()
        }
    }
}
