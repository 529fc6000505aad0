import Foundation
import SessionBridgeTestSupport
import Testing

@testable import SessionBridgeTesting

/// `ChildProcess` returns what a child said once it ended, also when a process it left behind
/// still holds its output open (a process that inherited the pipe keeps it from ever ending).
@Suite(.timeLimit(.minutes(1)), .hangWatchdog) struct ChildProcessOutputTests {
    @Test func aChildsOutputIsReturnedWhileAProcessItLeftHoldsItsPipe() async throws {
        let child = try await ChildProcess.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "sleep 600 & echo $!; echo said >&2"], timeout: .seconds(30))
        #expect(child.succeeded)
        #expect(child.stderr == "said\n")
        let left = try #require(Int32(child.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(left, SIGKILL) == 0, "the process the child left behind was not running")
        #expect(!child.timedOut)
    }
}
