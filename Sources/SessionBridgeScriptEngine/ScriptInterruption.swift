import Synchronization

/// Stops the scripts of the contexts given it (``ScriptContext/Configuration/interruption``),
/// from any thread: the one running now within one quantum of its CPU time (about 100 ms), on
/// a thread that hears interruptions (``EngineThread/makeInterruptible()``), and every later
/// entry of those contexts before it runs. A headless page gives one to all its documents and
/// interrupts them as it closes, as WebKit ends the web process of a view it closes: a script
/// that never returns would otherwise hold the page's thread, and the pages sharing it, until
/// its time limit.
public final class ScriptInterruption: Sendable {
    private let interrupted = Atomic<Bool>(false)

    public init() {}

    /// Whether ``interrupt()`` was called.
    public var isInterrupted: Bool { interrupted.load(ordering: .relaxed) }

    /// Stops the contexts' scripts, now and from now on. What a stopped script is ended with
    /// (``ScriptError/Kind/timeLimitExceeded``) is not reported as the context's uncaught error.
    public func interrupt() {
        interrupted.store(true, ordering: .relaxed)
    }
}
