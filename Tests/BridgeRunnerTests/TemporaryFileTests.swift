import Foundation
import SessionBridgeTestSupport
import Testing

/// The suite's temporary directories do not pile up over repeated runs.
@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct TemporaryFileTests {
    /// A directory left by a test process that has ended is removed; those of running
    /// processes (this one, and pid 1) are kept.
    @Test func directoriesOfEndedRunsAreRemoved() throws {
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()  // reaped: its pid names no process now
        let temporary = FileManager.default.temporaryDirectory
        let names = [
            "bridge-runner-tests-\(ended.processIdentifier)-\(UUID().uuidString)",
            "bridge-runner-tests-\(getpid())-\(UUID().uuidString)",
            "bridge-runner-tests-1-\(UUID().uuidString)",
        ]
        for name in names {
            try FileManager.default.createDirectory(at: temporary.appendingPathComponent(name), withIntermediateDirectories: true)
        }
        defer { for name in names { try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name)) } }

        RunnerProcess.removeDirectoriesOfEndedRuns()

        let left = names.map { FileManager.default.fileExists(atPath: temporary.appendingPathComponent($0).path) }
        #expect(left == [false, true, true])
    }

    /// Files are made in directories named for this process, which the sweep recognises.
    @Test func filesAreMadeInADirectoryNamedForThisProcess() throws {
        let file = try RunnerProcess.temporaryFile("page.js", "1")
        defer { RunnerProcess.removeTemporaryFile(file) }
        #expect(file.deletingLastPathComponent().lastPathComponent.hasPrefix("bridge-runner-tests-\(getpid())-"))
        #expect(try String(contentsOf: file, encoding: .utf8) == "1")
    }
}
