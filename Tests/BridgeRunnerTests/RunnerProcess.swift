import Foundation
import SessionBridgeTestSupport
import SessionBridgeTesting

/// Runs the built `bridge-runner` as a subprocess, bounded in time.
struct RunnerProcess {
    var exitCode: Int32
    var stdout: String
    var stderr: String

    static var executable: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("bridge-runner")
    }

    /// Runs the runner with the test's environment, `environment` added and `removing` taken out.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], removing: [String] = [],
        timeout: TimeInterval = 60
    ) async throws -> RunnerProcess {
        let outcome = try await ChildProcess.run(
            executable, arguments, environment: environment, removing: removing,
            timeout: .seconds(timeout))
        return RunnerProcess(exitCode: outcome.status, stdout: outcome.stdout, stderr: outcome.stderr)
    }

    /// Removes the directory ``temporaryFile(_:_:)`` made for `file`, and what it holds.
    static func removeTemporaryFile(_ file: URL) {
        try? FileManager.default.removeItem(at: file.deletingLastPathComponent())
    }

    /// A file holding `contents` in a directory of its own (see ``TestDirectory``).
    static func temporaryFile(_ name: String, _ contents: String) throws -> URL {
        let url = try TestDirectory.make(prefix: "bridge-runner-tests-").appendingPathComponent(name)
        try contents.write(to: url, atomically: true, encoding: .utf8)
        return url
    }
}
