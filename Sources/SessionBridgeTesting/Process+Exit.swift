package import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension Process {
    /// Waits until the process has ended, or `timeout` has passed, and returns how it ended
    /// (`nil` when it is still running at the timeout). It polls and holds no thread meanwhile.
    ///
    /// Foundation on Linux learns of a child's exit through `SIGCHLD`, and has been seen to miss
    /// it while many children come and go in one process (`waitUntilExit()` and the termination
    /// handler then never return). Here the kernel's word counts too: a child that is a zombie,
    /// or gone, has ended; one Foundation did not reap is reaped here.
    package func waitForExit(timeout: Duration) async -> (status: Int32, reason: TerminationReason)? {
        let deadline = ContinuousClock.now + timeout
        var endedSince: ContinuousClock.Instant? = nil
        while true {
            if let ended = endedState(since: &endedSince) { return ended }
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// ``waitForExit(timeout:)`` for synchronous callers: blocks the calling thread.
    package func waitForExitBlocking(timeout: Duration) -> (status: Int32, reason: TerminationReason)? {
        let deadline = ContinuousClock.now + timeout
        var endedSince: ContinuousClock.Instant? = nil
        while true {
            if let ended = endedState(since: &endedSince) { return ended }
            if ContinuousClock.now >= deadline { return nil }
            usleep(10_000)
        }
    }

    /// How the process ended, or `nil` while it runs. `since` keeps when the kernel first said
    /// it had ended: Foundation gets half a second to reap it before it is reaped here.
    private func endedState(since: inout ContinuousClock.Instant?) -> (status: Int32, reason: TerminationReason)? {
        if !isRunning { return (terminationStatus, terminationReason) }
        guard Self.hasEnded(processIdentifier) else { return nil }
        let now = ContinuousClock.now
        guard let first = since else {
            since = now
            return nil
        }
        guard now - first >= .milliseconds(500) else { return nil }
        var status: Int32 = 0
        // Foundation reaped it meanwhile (`ECHILD`): its status comes with `isRunning`, which a
        // loaded machine can take longer than half a second to update.
        guard unsafe waitpid(processIdentifier, &status, WNOHANG) == processIdentifier else { return nil }
        let signal = status & 0x7f
        return signal == 0 ? ((status >> 8) & 0xff, .exit) : (signal, .uncaughtSignal)
    }

    /// Whether the process `pid` has ended: it is a zombie, or already reaped.
    private static func hasEnded(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
        // "pid (name) S …": the state follows the last parenthesis (a name may hold any).
        guard let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }
}
