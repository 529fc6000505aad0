import Foundation
import Synchronization

/// A hard bound on a whole `run`: past it the process ends with exit code 3, even when a
/// script holds its engine thread and nothing awaiting it can come back.
///
/// It is a plain thread, not a task, so a stuck engine thread or a busy cooperative pool
/// cannot delay it.
enum RunDeadline {
    /// How long after `--timeout` the run is ended at the latest (starting the embedded server,
    /// signing in and tearing down fit in it).
    static let margin = 3.0

    /// An armed deadline, which a run whose outcome is known can disarm before it tears down.
    final class Armed: Sendable {
        fileprivate let isArmed = Atomic<Bool>(true)

        /// The run ends on its own from here: the deadline does nothing.
        func disarm() { isArmed.store(false, ordering: .releasing) }
    }

    /// Ends the process `seconds` from now, after `report` has said why, unless disarmed first.
    @discardableResult
    static func arm(seconds: Double, report: @escaping @Sendable () -> Void) -> Armed {
        let armed = Armed()
        let thread = Thread {
            Thread.sleep(forTimeInterval: seconds)
            guard armed.isArmed.load(ordering: .acquiring) else { return }
            report()
            fflush(nil)
            // `_exit`, not `exit`: the engine thread may be inside JavaScriptCore, whose
            // teardown at exit would wait for it.
            _exit(3)
        }
        thread.name = "run-deadline"
        thread.start()
        return armed
    }
}
