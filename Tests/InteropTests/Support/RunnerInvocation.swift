import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One run of the built `bridge-runner`, bounded in time, its output read whole.
struct RunnerInvocation: Sendable {
    var exitCode: Int32
    var stdout: String
    var stderr: String

    /// The executable SwiftPM built next to the test bundle.
    static var executable: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appending(path: "bridge-runner")
    }

    /// Runs `bridge-runner arguments`, terminated after `timeout`.
    static func run(_ arguments: [String], timeout: Duration = .seconds(120)) async throws -> RunnerInvocation {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read while it runs, so that a full pipe never blocks it.
        let collected = Mutex<[Int: Data]>([:])
        for (index, pipe) in [(0, out), (1, err)] {
            Thread.detachNewThread {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                collected.withLock { $0[index] = data }
            }
        }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while process.isRunning, clock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning { process.terminate() }
        while process.isRunning, clock.now < deadline + .seconds(5) { try await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        while process.isRunning, clock.now < deadline + .seconds(10) { try await Task.sleep(for: .milliseconds(20)) }
        while collected.withLock({ $0.count }) < 2, clock.now < deadline + .seconds(10) {
            try await Task.sleep(for: .milliseconds(10))
        }
        let data = collected.withLock { $0 }
        return RunnerInvocation(
            exitCode: process.terminationStatus,
            stdout: String(decoding: data[0] ?? Data(), as: UTF8.self),
            stderr: String(decoding: data[1] ?? Data(), as: UTF8.self))
    }

    /// Everything the run printed.
    var output: String { self.stdout + self.stderr }
}

/// A folder of files for one test, removed by the caller.
func temporaryFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appending(path: "interop-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}
