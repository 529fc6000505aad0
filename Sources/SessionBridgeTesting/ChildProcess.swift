package import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Runs a program to its end without holding a thread of Swift's cooperative pool: the exit is
/// awaited through `terminationHandler` and the pipes are drained on threads of their own, so any
/// number of tests can wait on children at once while the rest of the suite keeps running.
package enum ChildProcess {
    /// What a finished child left.
    package struct Outcome: Sendable {
        package var status: Int32
        package var reason: Process.TerminationReason
        package var stdout: String
        package var stderr: String
        /// Whether the child was still running at the time limit and was stopped.
        package var timedOut: Bool

        /// Exited by itself with status 0.
        package var succeeded: Bool { self.reason == .exit && self.status == 0 }
        /// Everything it printed, standard output first.
        package var output: String { self.stdout + self.stderr }
    }

    /// Runs `executable` with `arguments` and `environment` (the caller's, with these values set
    /// and `removing` unset). At `timeout` the child gets SIGTERM, and SIGKILL five seconds later.
    package static func run(
        _ executable: URL, _ arguments: [String] = [], environment: [String: String] = [:],
        removing: [String] = [], timeout: Duration = .seconds(120)
    ) async throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        for name in removing { merged[name] = nil }
        process.environment = merged
        process.standardInput = FileHandle.nullDevice
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let pid = process.processIdentifier
        let stdout = Self.drain(out.fileHandleForReading)
        let stderr = Self.drain(err.fileHandleForReading)
        let stopped = Atomic<Bool>(false)
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            stopped.store(true, ordering: .relaxed)
            kill(pid, SIGTERM)
            try await Task.sleep(for: .seconds(5))
            kill(pid, SIGKILL)
        }
        // Bounded by the watchdog's SIGKILL, whatever happens to the caller: the result is only
        // read once the child has ended (reading it before traps).
        let ended = await process.waitForExit(timeout: timeout + .seconds(30))
        watchdog.cancel()
        let (status, reason) = ended ?? (-1, .uncaughtSignal)
        return Outcome(
            status: status, reason: reason,
            stdout: String(decoding: await stdout.value, as: UTF8.self),
            stderr: String(decoding: await stderr.value, as: UTF8.self),
            timedOut: stopped.load(ordering: .relaxed))
    }

    /// Reads `handle` to its end on a thread of its own (a blocking read must not hold a pool
    /// thread for the life of the child).
    private static func drain(_ handle: FileHandle) -> Task<Data, Never> {
        Task {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread { continuation.resume(returning: handle.readDataToEndOfFile()) }
            }
        }
    }
}
