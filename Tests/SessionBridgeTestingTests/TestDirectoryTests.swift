import Foundation
import SessionBridgeTestSupport
import Testing

/// The suite's temporary directories do not pile up over repeated runs.
@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct TestDirectoryTests {
    static let prefix = "test-directory-tests-"

    /// A directory left by a test process that has ended is removed; those of running
    /// processes (this one, and pid 1) are kept.
    @Test func directoriesOfEndedRunsAreRemoved() throws {
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()  // reaped: its pid names no process now
        let temporary = FileManager.default.temporaryDirectory
        let names = [
            "\(Self.prefix)\(ended.processIdentifier)-\(UUID().uuidString)",
            "\(Self.prefix)\(getpid())-\(UUID().uuidString)",
            "\(Self.prefix)1-\(UUID().uuidString)",
        ]
        for name in names {
            try FileManager.default.createDirectory(at: temporary.appendingPathComponent(name), withIntermediateDirectories: true)
        }
        defer { for name in names { try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name)) } }

        TestDirectory.removeDirectoriesOfEndedRuns(prefix: Self.prefix)

        let left = names.map { FileManager.default.fileExists(atPath: temporary.appendingPathComponent($0).path) }
        #expect(left == [false, true, true])
    }

    /// A directory is made empty, named for this process, which the sweep recognises.
    @Test func aDirectoryIsNamedForThisProcess() throws {
        let directory = try TestDirectory.make(prefix: "\(Self.prefix)made-")
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(directory.lastPathComponent.hasPrefix("\(Self.prefix)made-\(getpid())-"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}
