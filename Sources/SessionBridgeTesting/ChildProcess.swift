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
        let out = try Self.closeOnExecPipe(), err = try Self.closeOnExecPipe()
        process.standardOutput = out.write
        process.standardError = err.write
        do {
            try process.run()
        } catch {
            for handle in [out.read, out.write, err.read, err.write] { try? handle.close() }
            throw error
        }
        // The child has its own copies (its standard output and error); the reads end when it
        // and its children close theirs.
        try? out.write.close()
        try? err.write.close()
        let pid = process.processIdentifier
        let enough = DrainLimit()
        let stdout = Self.drain(out.read, until: enough)
        let stderr = Self.drain(err.read, until: enough)
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
        // The output ends when the last holder of a write end closes it: the child, or a process
        // it left behind. Ten seconds after the child ended, what was read is what it said.
        let drained = Task {
            try await Task.sleep(for: .seconds(10))
            enough.reached.store(true, ordering: .relaxed)
        }
        defer { drained.cancel() }
        return Outcome(
            status: status, reason: reason,
            stdout: String(decoding: await stdout.value, as: UTF8.self),
            stderr: String(decoding: await stderr.value, as: UTF8.self),
            timedOut: stopped.load(ordering: .relaxed))
    }

    /// A pipe whose two ends are closed on `exec`, so that no other process this one starts
    /// meanwhile holds them: WebKit's web and network processes inherit every descriptor that
    /// is not, and one of them holding a write end kept a child's output from ever ending (a
    /// test then waited for it until the hang watchdog ended the run). Foundation's `Pipe` is
    /// not closed on `exec`. (`pipe2` is not in Swift's Glibc module; the flag is set at once.)
    private static func closeOnExecPipe() throws -> (read: FileHandle, write: FileHandle) {
        var fds: [Int32] = [-1, -1]
        guard unsafe pipe(&fds) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (FileHandle(fileDescriptor: fds[0], closeOnDealloc: true), FileHandle(fileDescriptor: fds[1], closeOnDealloc: true))
    }

    /// Reads `handle` to its end, or until `enough` is set, on a thread of its own (a blocking
    /// read must not hold a pool thread for the life of the child).
    private static func drain(_ handle: FileHandle, until enough: DrainLimit) -> Task<Data, Never> {
        let fd = handle.fileDescriptor
        return Task {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    var data = Data()
                    var buffer = [UInt8](repeating: 0, count: 65_536)
                    while true {
                        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                        let ready = unsafe poll(&poller, 1, 100)
                        if ready == 0 {
                            if enough.reached.load(ordering: .relaxed) { break }
                            continue
                        }
                        if ready < 0 && errno == EINTR { continue }
                        let count = unsafe read(fd, &buffer, buffer.count)
                        if count < 0 && errno == EINTR { continue }
                        guard count > 0 else { break }
                        data.append(contentsOf: buffer[0..<count])
                    }
                    _ = handle
                    continuation.resume(returning: data)
                }
            }
        }
    }
}

/// Set when a child's output has been read for long enough after the child ended.
private final class DrainLimit: Sendable {
    let reached = Atomic<Bool>(false)
}
