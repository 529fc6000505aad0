import Foundation
import SessionBridgeTesting

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
        let outcome = try await ChildProcess.run(Self.executable, arguments, timeout: timeout)
        return RunnerInvocation(exitCode: outcome.status, stdout: outcome.stdout, stderr: outcome.stderr)
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
