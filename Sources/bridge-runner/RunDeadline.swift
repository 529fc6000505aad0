import Foundation
import Synchronization

/// A hard bound on a whole `run`: past it the process ends with exit code 3, even when a
/// script holds its engine thread and nothing awaiting it can come back.
///
/// It is a plain thread, not a task, so a stuck engine thread or a busy cooperative pool
/// cannot delay it.
enum RunDeadline {
    /// How long after `--timeout` the run is ended at the latest (tearing down fits in it).
    static let margin = 3.0
    /// The longest `--timeout` or `--entry-time-limit` taken: a million seconds (eleven days).
    static let longest = 1_000_000.0

    /// An armed deadline, which a run whose outcome is known can disarm before it tears down.
    final class Armed: Sendable {
        fileprivate let isArmed = Atomic<Bool>(true)
        /// When the process is ended (uptime nanoseconds).
        fileprivate let endsAt: Atomic<UInt64>

        fileprivate init(seconds: Double) {
            endsAt = Atomic(Self.uptime(after: seconds))
        }

        /// The run ends on its own from here: the deadline does nothing.
        func disarm() { isArmed.store(false, ordering: .releasing) }

        /// Sets the deadline `seconds` from now: the page's part starts once the runner's
        /// setup (the embedded server, its certificate, WebKit's processes, the sign-in) is
        /// done, which a loaded machine makes slow, and `--timeout` is the page's budget.
        func restart(seconds: Double) {
            endsAt.store(Self.uptime(after: seconds), ordering: .releasing)
        }

        fileprivate static func uptime(after seconds: Double) -> UInt64 {
            // `min` first: a NaN or an infinity (or a year) must not reach the conversion.
            DispatchTime.now().uptimeNanoseconds &+ UInt64(max(0, min(seconds.isNaN ? 0 : seconds, RunDeadline.longest * 2)) * 1e9)
        }
    }

    /// Ends the process `seconds` from now, after `report` has said why, unless disarmed first
    /// (or restarted, which moves the end).
    @discardableResult
    static func arm(seconds: Double, report: @escaping @Sendable () -> Void) -> Armed {
        let armed = Armed(seconds: seconds)
        let thread = Thread {
            while armed.isArmed.load(ordering: .acquiring) {
                let now = DispatchTime.now().uptimeNanoseconds, end = armed.endsAt.load(ordering: .acquiring)
                if now >= end { break }
                Thread.sleep(forTimeInterval: Double(end - now) / 1e9)
            }
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
