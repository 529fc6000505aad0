import Foundation
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

/// Replays every committed fuzz input (seed corpora and fixed crashes) through the same fuzz
/// bodies that libFuzzer runs, using the replay mode of the plain-built `fuzz-set-cookie` and
/// `fuzz-script-value` executables (this target depends on both, so they sit next to the test
/// binary). Each target runs once over all its files, in a child process: a broken invariant
/// traps, which must fail this test rather than the test runner.
@Suite("Fuzz regressions", .timeLimit(.minutes(5)), .hangWatchdog)
struct FuzzRegressionTests {
    static let targets = ["fuzz-set-cookie", "fuzz-script-value"]
    /// The longest one replay of every input may take before it is killed.
    static let replaySeconds = 60

    /// The package root, from this file's path (Tests/ReliabilityTests/<file>).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let buildFolder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()

    /// The non-hidden files of `Fuzz/corpus/<target>` and `Fuzz/regressions/<target>`.
    static func inputs(for target: String) -> [URL] {
        ["corpus", "regressions"].flatMap { kind -> [URL] in
            let folder = packageRoot.appendingPathComponent("Fuzz/\(kind)/\(target)")
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            return names.filter { !$0.hasPrefix(".") }.sorted().map { folder.appendingPathComponent($0) }
        }
    }

    @Test("every corpus and regression input passes", arguments: targets)
    func replay(target: String) async throws {
        let executable = Self.buildFolder.appendingPathComponent(target)
        try #require(FileManager.default.isExecutableFile(atPath: executable.path), "\(target) is not built next to the tests")
        let inputs = Self.inputs(for: target)
        try #require(!inputs.isEmpty, "no inputs for \(target) under Fuzz/")

        // `timeout -s KILL` ends a replay that hangs, so the test fails instead of never ending.
        let outcome = try await Self.replay(executable, inputs)
        #expect(!outcome.killed, "\(target) did not finish within \(Self.replaySeconds) s and was killed")
        #expect(
            outcome.exitedCleanly,
            "\(target) failed on one of \(inputs.count) inputs (status \(outcome.status)):\n\(outcome.text.suffix(4000))")
        #expect(outcome.text.contains("\(inputs.count) input(s) passed"), "\(target) output: \(outcome.text.suffix(2000))")
    }

    struct Outcome {
        var text: String
        var status: Int32
        var exitedCleanly: Bool
        var killed: Bool { status == 137 || status == SIGKILL }
    }

    static func replay(_ executable: URL, _ inputs: [URL]) async throws -> Outcome {
        let run = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/timeout"),
            ["-s", "KILL", "\(replaySeconds)", executable.path] + inputs.map(\.path),
            environment: ["SWIFT_BACKTRACE": "enable=no"],  // a crash reports at once instead of symbolicating
            timeout: .seconds(replaySeconds + 30))
        return Outcome(text: run.output, status: run.status, exitedCleanly: run.succeeded)
    }

    @Test("with no arguments a replay driver prints its usage and exits 0", arguments: targets)
    func usage(target: String) async throws {
        let run = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/timeout"), ["-s", "KILL", "60", Self.buildFolder.appendingPathComponent(target).path])
        #expect(run.status == 0)
        #expect(run.stdout.contains("usage: \(target)"))
    }
}
