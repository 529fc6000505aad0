import Foundation
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

    /// A file holding `contents` in a directory of its own. The directory is named for this
    /// process: the first call removes those that earlier runs of the suite left (their process
    /// has ended), so repeated runs do not fill the disk.
    static func temporaryFile(_ name: String, _ contents: String) throws -> URL {
        _ = sweptEarlierRuns
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "\(directoryPrefix)\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try contents.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    private static let directoryPrefix = "bridge-runner-tests-"

    private static let sweptEarlierRuns: Void = removeDirectoriesOfEndedRuns()

    /// Removes the ``temporaryFile(_:_:)`` directories of test processes that are no longer
    /// running.
    static func removeDirectoriesOfEndedRuns() {
        let temporary = FileManager.default.temporaryDirectory
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: temporary.path) else { return }
        for name in names where name.hasPrefix(directoryPrefix) {
            let pid = name.dropFirst(directoryPrefix.count).prefix { $0.isNumber }
            guard let pid = pid_t(pid), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
        }
    }
}
